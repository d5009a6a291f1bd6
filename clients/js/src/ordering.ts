import type { ConversationId, HistoryRequest, Message, ReactionCount, ReactionsUpdate, SyncBatch, HistoryBatch } from "./frames.generated.js";
import { LIMITS } from "./frames.generated.js";

/**
 * One conversation's messages, released to the app strictly in seq order, each once. Delivery is at least once and live
 * frames may overtake each other, so messages arrive late, twice or out of order: what comes after a gap is held until the
 * gap fills, and a gap open longer than the timeout (or with more than the capacity piled behind it) asks for the history
 * that fills it. A message waiting keeps its state current: a page's copy (read with its reactions and edits) replaces a live
 * copy held, and reactions told for a seq not released are kept with it (or for the copy to come), so the app never hears
 * reactions for a message it does not have. The same rules as the Java client's OrderingBuffer.
 */
export class OrderingBuffer {
  private readonly held = new Map<number, Message>();
  /** Reactions told for seqs not released whose message has not come: the live copy that comes carries them. */
  private readonly reactionsAhead = new Map<number, ReactionCount[]>();
  private gapOpenedAt: number | undefined;
  private overflowed = false;

  constructor(
    readonly conversationId: ConversationId,
    private released: number,
    private readonly gapTimeoutMs: number,
    private readonly capacity: number,
  ) {
    if (released < 0) throw new RangeError(`releasedUpTo must not be negative, was ${released}`);
    if (capacity < 1) throw new RangeError(`capacity must be at least 1, was ${capacity}`);
  }

  /** The highest seq released: every seq up to it was released exactly once. */
  get releasedUpTo(): number {
    return this.released;
  }

  /** The lowest seq held behind the gap, if any. */
  get firstHeldSeq(): number | undefined {
    let lowest: number | undefined;
    for (const seq of this.held.keys()) if (lowest === undefined || seq < lowest) lowest = seq;
    return lowest;
  }

  get heldCount(): number {
    return this.held.size;
  }

  /**
   * Takes one message; returns those now ready, in seq order. Duplicates are dropped, but a copy the server listed (`listed`:
   * a sync's or history's page) replaces a live copy held.
   */
  offer(offered: Message, now: number, listed = false): Message[] {
    if (offered.conversation_id !== this.conversationId) {
      throw new Error(`message of conversation ${offered.conversation_id} offered to the buffer of ${this.conversationId}`);
    }
    const seq = offered.seq;
    if (seq <= this.released) return [];
    // Reactions told before a listed copy was read are in it; a live copy has none of its own.
    const toldAhead = this.reactionsAhead.get(seq);
    this.reactionsAhead.delete(seq);
    const message = listed || toldAhead === undefined ? offered : withReactions(offered, toldAhead);
    if (this.held.has(seq)) {
      if (listed) this.held.set(seq, message);
      return [];
    }
    if (seq !== this.released + 1) {
      this.hold(message, now);
      return [];
    }
    const ready = [message];
    this.released = seq;
    for (let next = this.held.get(this.released + 1); next !== undefined; next = this.held.get(this.released + 1)) {
      this.held.delete(this.released + 1);
      ready.push(next);
      this.released++;
    }
    for (const ahead of this.reactionsAhead.keys()) if (ahead <= this.released) this.reactionsAhead.delete(ahead);
    // What is still held waits behind a new gap; its clock starts now.
    this.gapOpenedAt = this.held.size === 0 ? undefined : now;
    return ready;
  }

  offerAll(messages: readonly Message[], now: number, listed = false): Message[] {
    return messages.flatMap((message) => this.offer(message, now, listed));
  }

  /** A message's reactions now: true when the app is to hear them (it has the message); false when kept with it for later. */
  reactionsChanged(seq: number, reactions: ReactionCount[]): boolean {
    if (seq <= this.released) return true;
    const waiting = this.held.get(seq);
    if (waiting !== undefined) {
      this.held.set(seq, withReactions(waiting, reactions));
    } else {
      this.reactionsAhead.set(seq, reactions);
      if (this.reactionsAhead.size > this.capacity) this.reactionsAhead.delete(Math.max(...this.reactionsAhead.keys()));
    }
    return false;
  }

  /** Whether to ask for what fills the gap now: once per timeout while it stays open, or at once after an overflow. */
  pollResync(now: number): boolean {
    if (this.overflowed) {
      this.overflowed = false;
      this.gapOpenedAt = now;
      return true;
    }
    if (this.gapOpenedAt !== undefined && now >= this.gapOpenedAt + this.gapTimeoutMs) {
      this.gapOpenedAt = now;
      return true;
    }
    return false;
  }

  private hold(message: Message, now: number): void {
    if (this.held.size === 0) this.gapOpenedAt = now;
    this.held.set(message.seq, message);
    if (this.held.size > this.capacity) {
      // The farthest message is the cheapest to lose: the history request brings it back.
      let farthest = message.seq;
      for (const seq of this.held.keys()) if (seq > farthest) farthest = seq;
      this.held.delete(farthest);
      this.overflowed = true;
    }
  }
}

/** Whether an entry is a message that counts: not a void, a change (edit, delete) or a tombstone. */
export function counts(message: Message): boolean {
  return message.relates_to === undefined && message.content.type !== "void" && message.content.type !== "deleted";
}

/** A message that counts with these reactions; anything else as it is. */
function withReactions(message: Message, reactions: ReactionCount[]): Message {
  return counts(message) ? { ...message, reactions } : message;
}

/** Messages that may wait behind one gap before the buffer asks at once. */
const CAPACITY = 1000;

/**
 * Every conversation's buffer. A conversation the client has not synced yet (a group it was just added to) has no known
 * start: its live messages wait until a sync.batch says where it starts for this user.
 */
export class Timelines {
  private readonly buffers = new Map<ConversationId, OrderingBuffer>();
  private readonly waitingForStart = new Map<ConversationId, Message[]>();
  private readonly syncedNow = new Set<ConversationId>();

  constructor(heldUpTo: Record<ConversationId, number>, private readonly gapTimeoutMs: number) {
    for (const [conversation, seq] of Object.entries(heldUpTo)) {
      this.buffers.set(conversation, new OrderingBuffer(conversation, seq, gapTimeoutMs, CAPACITY));
    }
  }

  /** What a sync asks for: every conversation this client knows, with the last seq it released. */
  state(): Record<ConversationId, number> {
    const state: Record<ConversationId, number> = {};
    for (const [conversation, buffer] of this.buffers) state[conversation] = buffer.releasedUpTo;
    return state;
  }

  get needsSync(): boolean {
    return this.waitingForStart.size > 0;
  }

  offer(message: Message, now: number): Message[] {
    const buffer = this.buffers.get(message.conversation_id);
    if (buffer === undefined) {
      const waiting = this.waitingForStart.get(message.conversation_id) ?? [];
      waiting.push(message);
      this.waitingForStart.set(message.conversation_id, waiting);
      return [];
    }
    return buffer.offer(message, now);
  }

  syncStarted(): void {
    this.syncedNow.clear();
  }

  /** Live messages of a conversation the finished sync did not mention (left before it) wait for nothing any more. */
  syncDone(): void {
    for (const conversation of [...this.waitingForStart.keys()]) {
      if (!this.syncedNow.has(conversation)) this.waitingForStart.delete(conversation);
    }
  }

  /** Whether a sync told where the conversation starts (and the user has not left it since). */
  holds(conversation: ConversationId): boolean {
    return this.buffers.has(conversation);
  }

  left(conversation: ConversationId): void {
    this.buffers.delete(conversation);
    this.waitingForStart.delete(conversation);
  }

  /** A page of a sync; for a conversation new to this client, where it starts: where the page continues from. */
  synced(batch: SyncBatch, now: number): Message[] {
    this.syncedNow.add(batch.conversation_id);
    let buffer = this.buffers.get(batch.conversation_id);
    if (buffer === undefined) {
      buffer = new OrderingBuffer(batch.conversation_id, batch.after_seq, this.gapTimeoutMs, CAPACITY);
      this.buffers.set(batch.conversation_id, buffer);
    }
    const ready = buffer.offerAll(batch.messages, now, true);
    const waited = this.waitingForStart.get(batch.conversation_id);
    if (waited !== undefined) {
      this.waitingForStart.delete(batch.conversation_id);
      ready.push(...buffer.offerAll(waited, now));
    }
    return ready;
  }

  /** A page of history (newest first on the wire): it fills a gap, or repeats what was released. */
  history(batch: HistoryBatch, now: number): Message[] {
    const buffer = this.buffers.get(batch.conversation_id);
    return buffer === undefined ? [] : buffer.offerAll([...batch.messages].reverse(), now, true);
  }

  /** A message's reactions now (live, or a sync's catch-up): true when the app is to hear them, false when kept with it. */
  reactions(update: ReactionsUpdate): boolean {
    return this.buffers.get(update.conversation_id)?.reactionsChanged(update.seq, update.reactions) ?? true;
  }

  /** The history requests that fill the gaps open longer than the timeout, from each gap's low end, a page at most. */
  gapsToFill(now: number): HistoryRequest[] {
    const requests: HistoryRequest[] = [];
    for (const buffer of this.buffers.values()) {
      if (!buffer.pollResync(now)) continue;
      const before = Math.min(buffer.firstHeldSeq ?? Number.MAX_SAFE_INTEGER, buffer.releasedUpTo + LIMITS.max_page + 1);
      const missing = Math.min(LIMITS.max_page, before - buffer.releasedUpTo - 1);
      if (missing > 0) {
        requests.push({ type: "history.request", conversation_id: buffer.conversationId, before_seq: before, limit: missing });
      }
    }
    return requests;
  }

  releasedUpTo(conversation: ConversationId): number {
    return this.buffers.get(conversation)?.releasedUpTo ?? 0;
  }
}
