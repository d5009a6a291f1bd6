import assert from "node:assert/strict";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { IDBFactory } from "fake-indexeddb";
import { IndexedDbClientStore } from "../src/indexeddb.js";
import { FileClientStore } from "../src/node.js";
import { MemoryClientStore } from "../src/store.js";
import type { ClientStore } from "../src/store.js";

const send = (id: string, conversation = "c1") => ({ id, conversation_id: conversation, frame: `{"type":"message.send","id":"${id}"}` });

/** What every store must do, each checked on a store reopened as a reload or restart would (the memory store: the same object). */
async function behavesAsAStore(open: () => ClientStore): Promise<void> {
  const first = open();
  assert.deepEqual(await first.load(), { heldUpTo: {}, pendingSends: [] });
  await first.addPendingSend(send("a"));
  await first.addPendingSend(send("b", "c2"));
  await first.addPendingSend(send("c"));
  await first.addPendingSend(send("a"));
  await first.removePendingSend("b");
  await first.removePendingSend("never-added");
  const resealed = { ...send("a"), frame: "sealed again", sealed: { members: ["bob"], plaintext: "aGk=" } };
  await first.replacePendingSend(resealed);
  await first.replacePendingSend(send("never-added"));
  await first.setHeldUpTo("c1", 5);
  await first.setHeldUpTo("c1", 3);
  await first.setHeldUpTo("c2", 1);
  await first.setChangesAt(1_700_000_000_000);
  await first.setChangesAt(1_700_000_060_000);
  const reopened = open();
  const state = await reopened.load();
  assert.deepEqual(state.pendingSends.map((pending) => pending.id), ["a", "c"], "in the order added, once each, without the removed");
  assert.deepEqual(state.pendingSends[0], resealed, "replaced in its place, with what it was sealed from");
  assert.deepEqual(state.heldUpTo, { c1: 5, c2: 1 }, "how far each conversation went never goes back");
  assert.equal(state.changesAt, 1_700_000_060_000, "the last sync's changes_at, which the next sync asks from");
}

describe("stores", () => {
  test("MemoryClientStore", async () => {
    const store = new MemoryClientStore();
    await behavesAsAStore(() => store);
  });

  test("IndexedDbClientStore (fake-indexeddb)", async () => {
    const factory = new IDBFactory();
    const opened: IndexedDbClientStore[] = [];
    await behavesAsAStore(() => {
      opened.forEach((store) => void store.close());
      const store = new IndexedDbClientStore("parley-ann-laptop", factory);
      opened.push(store);
      return store;
    });
    const other = new IndexedDbClientStore("parley-bob-phone", factory);
    assert.deepEqual(await other.load(), { heldUpTo: {}, pendingSends: [] }, "each name is a database of its own");
  });

  test("IndexedDbClientStore opens a database an older client made (version 1) and keeps what it holds", async () => {
    const factory = new IDBFactory();
    await new Promise<void>((resolve, reject) => {
      const request = factory.open("parley-old", 1);
      request.onupgradeneeded = () => {
        request.result.createObjectStore("held").put(7, "c1");
        request.result.createObjectStore("pending", { keyPath: "order", autoIncrement: true }).createIndex("id", "id", { unique: true });
      };
      request.onsuccess = () => {
        request.result.close();
        resolve();
      };
      request.onerror = () => reject(request.error);
    });
    const store = new IndexedDbClientStore("parley-old", factory);
    assert.deepEqual(await store.load(), { heldUpTo: { c1: 7 }, pendingSends: [] });
    await store.setChangesAt(42);
    assert.equal((await store.load()).changesAt, 42);
    await store.close();
  });

  test("FileClientStore, and a file that is not the store's is refused naming it", async () => {
    const directory = await mkdtemp(join(tmpdir(), "parley-store-"));
    const path = join(directory, "nested", "client.json");
    await behavesAsAStore(() => new FileClientStore(path));
    assert.ok(JSON.parse(await readFile(path, "utf8")).pendingSends.length === 2);
    const broken = join(directory, "broken.json");
    await writeFile(broken, "{ not json");
    await assert.rejects(new FileClientStore(broken).load(), (error: Error) => error.message.includes(broken));
    await assert.rejects(new FileClientStore(join(directory, "unloaded.json")).addPendingSend(send("x")), /load\(\) the store first/);
  });
});
