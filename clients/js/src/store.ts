import type { ClientMessageId, ConversationId, UserId } from "./frames.generated.js";

/**
 * A send not yet answered: its id, its conversation, and its frame (message.send, an edit, a delete; or a request that changes
 * a message: reaction.set, message.pin) as first encoded (a retry is the same frame), or as sealed again after
 * devices_changed; for an end-to-end send, what it was sealed from, to seal it again.
 */
export interface PendingSend {
  id: ClientMessageId;
  conversation_id: ConversationId;
  frame: string;
  /** The members it was sealed for and the plaintext (base64): kept on this device, in its store, until acknowledged. */
  sealed?: { members: UserId[]; plaintext: string };
}

/** What a store holds when the client starts. */
export interface StoredState {
  /** Per conversation, the last seq handed to the app (every seq up to it was, once). */
  heldUpTo: Record<ConversationId, number>;
  /** The sends not yet acknowledged, in the order the app made them. */
  pendingSends: PendingSend[];
  /** The last sync.done's changes_at: the next sync asks for the reaction changes since (absent before the first sync). */
  changesAt?: number;
}

/**
 * What the client keeps across restarts and page reloads, so that it resumes where it was: how far each conversation was
 * handed to the app, and the sends not yet acknowledged. The client writes through it as things happen and reads it once,
 * at start. {@link MemoryClientStore} keeps it for the life of the page or process; {@code IndexedDbClientStore}
 * (`@parley/client/indexeddb`) in the browser's IndexedDB; {@code FileClientStore} (`@parley/client/node`) in a file.
 */
export interface ClientStore {
  load(): Promise<StoredState>;
  setHeldUpTo(conversation: ConversationId, seq: number): Promise<void>;
  setChangesAt(at: number): Promise<void>;
  addPendingSend(send: PendingSend): Promise<void>;
  removePendingSend(id: ClientMessageId): Promise<void>;
  /** A pending send sealed again: the same id, in the same place among the others. */
  replacePendingSend(send: PendingSend): Promise<void>;
}

/** A store in memory: what it holds lasts as long as the object (a test, or an app that keeps nothing across reloads). */
export class MemoryClientStore implements ClientStore {
  private readonly heldUpTo = new Map<ConversationId, number>();
  private readonly pending: PendingSend[] = [];
  private changesAt: number | undefined;

  async load(): Promise<StoredState> {
    return { heldUpTo: Object.fromEntries(this.heldUpTo), pendingSends: this.pending.map((send) => ({ ...send })),
      ...(this.changesAt === undefined ? {} : { changesAt: this.changesAt }) };
  }

  async setChangesAt(at: number): Promise<void> {
    this.changesAt = at;
  }

  async setHeldUpTo(conversation: ConversationId, seq: number): Promise<void> {
    this.heldUpTo.set(conversation, Math.max(seq, this.heldUpTo.get(conversation) ?? 0));
  }

  async addPendingSend(send: PendingSend): Promise<void> {
    if (!this.pending.some((held) => held.id === send.id)) this.pending.push({ ...send });
  }

  async removePendingSend(id: ClientMessageId): Promise<void> {
    const index = this.pending.findIndex((send) => send.id === id);
    if (index >= 0) this.pending.splice(index, 1);
  }

  async replacePendingSend(send: PendingSend): Promise<void> {
    const index = this.pending.findIndex((held) => held.id === send.id);
    if (index >= 0) this.pending[index] = { ...send };
  }
}

/** Store writes, one after another in the order made (a send is never removed before it was added); a failure is told, and later writes go on. */
export class StoreWrites {
  private last: Promise<void> = Promise.resolve();

  constructor(private readonly failed: (error: Error) => void) {}

  write(work: () => Promise<void>): Promise<void> {
    const done = this.last.then(work);
    this.last = done.catch((error: Error) => this.failed(error));
    return done;
  }
}
