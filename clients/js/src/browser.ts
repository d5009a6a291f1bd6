// The browser bundle (scripts/bundle.mjs): everything of @parley/client a page uses, in one ES module.
export * from "./index.js";
export { IndexedDbClientStore } from "./indexeddb.js";
