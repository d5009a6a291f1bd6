// Bundles the browser build into one ES module for pages with no build step of their own: the local cloud's chat page
// (local/.../console/lib/parley-client.js, committed so that the page works on a machine without Node) and the package's
// dist/browser/. `--check` writes only dist/ and fails when the committed copy is not what the sources make (npm run build runs it).
import { build } from "esbuild";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeOrCheck } from "./written.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const committed = join(root, "..", "..", "local", "src", "main", "resources", "dev", "parley", "local", "console", "lib", "parley-client.js");
const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
const result = await build({
  entryPoints: [join(root, "src", "browser.ts")],
  bundle: true,
  format: "esm",
  target: "es2022",
  platform: "browser",
  legalComments: "none",
  write: false,
  banner: { js: `// @parley/client ${version}, the browser bundle: built from clients/js by 'npm run bundle'; do not edit.` },
});
const bundle = result.outputFiles[0].text;
mkdirSync(join(root, "dist", "browser"), { recursive: true });
writeFileSync(join(root, "dist", "browser", "parley-client.js"), bundle);
writeOrCheck(root, committed, bundle, "npm run bundle");

