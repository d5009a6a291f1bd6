// A store in the browser's IndexedDB, so that a page reload keeps the queue and where each conversation was: the
// browser part of @parley/client that needs no server of the app's.
import type { ClientMessageId, ConversationId } from "./frames.generated.js";
import type { ClientStore, PendingSend, StoredState } from "./store.js";

const HELD = "held";
const PENDING = "pending";
/** Single values by name: the last sync's changes_at (version 2 of the database). */
const VALUES = "values";

function done(request: IDBRequest): Promise<unknown> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error("an IndexedDB request failed"));
  });
}

function committed(transaction: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onerror = () => reject(transaction.error ?? new Error("an IndexedDB transaction failed"));
    transaction.onabort = () => reject(transaction.error ?? new Error("an IndexedDB transaction was aborted"));
  });
}

/**
 * The client's store in IndexedDB, one database per name (give each user and device of the page its own, e.g.
 * `parley-${user}-${device}`). Each write is its own transaction, resolved once committed: a send's `queued` promise means
 * it is on disk, and a reload sends it.
 */
export class IndexedDbClientStore implements ClientStore {
  private database: Promise<IDBDatabase> | undefined;

  constructor(private readonly name: string, private readonly factory: IDBFactory = globalThis.indexedDB) {
    if (factory === undefined) throw new Error("this platform has no IndexedDB: use MemoryClientStore, or FileClientStore in Node");
  }

  private open(): Promise<IDBDatabase> {
    this.database ??= new Promise((resolve, reject) => {
      const request = this.factory.open(this.name, 2);
      request.onupgradeneeded = (event) => {
        const database = request.result;
        if (event.oldVersion < 1) {
          database.createObjectStore(HELD);
          // In the order the app made them: an increasing key, and the send's id to find it by.
          database.createObjectStore(PENDING, { keyPath: "order", autoIncrement: true }).createIndex("id", "id", { unique: true });
        }
        if (event.oldVersion < 2) database.createObjectStore(VALUES);
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error(`IndexedDB ${this.name} could not be opened`));
      request.onblocked = () => reject(new Error(`IndexedDB ${this.name} is held open by an older version of the page`));
    });
    return this.database;
  }

  async load(): Promise<StoredState> {
    const database = await this.open();
    const transaction = database.transaction([HELD, PENDING, VALUES], "readonly");
    const held = transaction.objectStore(HELD);
    const [keys, values, pending, changesAt] = await Promise.all([
      done(held.getAllKeys()) as Promise<IDBValidKey[]>,
      done(held.getAll()) as Promise<number[]>,
      done(transaction.objectStore(PENDING).getAll()) as Promise<(PendingSend & { order: number })[]>,
      done(transaction.objectStore(VALUES).get("changesAt")) as Promise<number | undefined>,
    ]);
    const heldUpTo: Record<ConversationId, number> = {};
    keys.forEach((key, i) => {
      heldUpTo[String(key)] = values[i] as number;
    });
    pending.sort((a, b) => a.order - b.order);
    return { heldUpTo, pendingSends: pending.map(({ order: _order, ...send }) => send), ...(changesAt === undefined ? {} : { changesAt }) };
  }

  async setChangesAt(at: number): Promise<void> {
    const database = await this.open();
    const transaction = database.transaction(VALUES, "readwrite");
    transaction.objectStore(VALUES).put(at, "changesAt");
    await committed(transaction);
  }

  async setHeldUpTo(conversation: ConversationId, seq: number): Promise<void> {
    const database = await this.open();
    const transaction = database.transaction(HELD, "readwrite");
    const held = transaction.objectStore(HELD);
    const current = (await done(held.get(conversation))) as number | undefined;
    if (current === undefined || seq > current) held.put(seq, conversation);
    await committed(transaction);
  }

  async addPendingSend(send: PendingSend): Promise<void> {
    const database = await this.open();
    const transaction = database.transaction(PENDING, "readwrite");
    const pending = transaction.objectStore(PENDING);
    const existing = await done(pending.index("id").getKey(send.id));
    if (existing === undefined) pending.add({ ...send });
    await committed(transaction);
  }

  async replacePendingSend(send: PendingSend): Promise<void> {
    const database = await this.open();
    const transaction = database.transaction(PENDING, "readwrite");
    const pending = transaction.objectStore(PENDING);
    const key = (await done(pending.index("id").getKey(send.id))) as IDBValidKey | undefined;
    // Under its old key: it keeps its place among the others.
    if (key !== undefined) pending.put({ ...send, order: key });
    await committed(transaction);
  }

  async removePendingSend(id: ClientMessageId): Promise<void> {
    const database = await this.open();
    const transaction = database.transaction(PENDING, "readwrite");
    const pending = transaction.objectStore(PENDING);
    const key = (await done(pending.index("id").getKey(id))) as IDBValidKey | undefined;
    if (key !== undefined) pending.delete(key);
    await committed(transaction);
  }

  /** Closes the database (a test that opens it again, or a page that signs out and deletes it). */
  async close(): Promise<void> {
    if (this.database !== undefined) (await this.database).close();
    this.database = undefined;
  }
}
