import { fromBase64 } from "./cipher.js";
import type { EndToEndCipher } from "./cipher.js";
import type { Connection } from "./connection.js";
import type { Emitter } from "./events.js";
import { LIMITS } from "./frames.generated.js";
import type {
  Content, ConversationId, HistoryBatch, HistoryRequest, Message, MessageAck, MessageDelete, MessageEdit, MessageSend, ReactionSet, ReactionsUpdate,
  ServerFrame, UserId,
} from "./frames.generated.js";
import { ParleyError } from "./errors.js";
import { Timelines, counts } from "./ordering.js";
import type { Requests } from "./requests.js";
import type { Scheduler } from "./scheduler.js";
import type { ClientStore, PendingSend, StoreWrites } from "./store.js";

/** How long a sync may go unanswered before it is asked again. */
const SYNC_RETRY_MS = 10_000;

/**
 * Messages in: each conversation's timeline releases them to the app in seq order, once, with no gap; the client resumes
 * with sync.request after each connect, fills a gap open past its timeout with history.request, opens end-to-end messages
 * in order, and tells the server what was delivered and what the app read.
 */
export class Receiving {
  private timelines: Timelines | undefined;
  /** Messages handed to the app, one batch after another: opening envelopes is asynchronous, the order is not. */
  private handing: Promise<void> = Promise.resolve();
  /** The plaintexts of this device's acknowledged sealed sends, until the message is handed to the app. */
  private readonly ownPlaintexts = new Map<string, Uint8Array>();
  /** This device's sealed entries handed to the app, with the pending send's plaintext, before their answer came. */
  private readonly handedBeforeAnswer = new Set<string>();
  private readonly deliveredSent = new Map<ConversationId, number>();
  private readonly readToSend = new Map<ConversationId, number>();
  private syncAskedAt = 0;
  /** The sync a gateway refusal already scheduled asking again. */
  private syncRetryFor = -1;
  /** The id of the sync in flight: its refusal is asked again; one for an older sync changes nothing. */
  private syncId = "";
  /** The pages of reaction changes the sync in progress has brought. */
  private reactionPages = 0;
  /** The last sync.done's changes_at: this sync asks for the reaction changes since. */
  private changesAt: number | undefined;

  constructor(private readonly connection: Connection, private readonly requests: Requests, private readonly timers: Scheduler,
              private readonly events: Emitter, private readonly store: ClientStore, private readonly writes: StoreWrites,
              private readonly cipher: EndToEndCipher | undefined, private readonly user: UserId, private readonly device: string,
              private readonly ownSend: (id: string) => PendingSend | undefined) {}

  load(heldUpTo: Record<ConversationId, number>, gapTimeoutMs: number, changesAt: number | undefined): void {
    this.timelines = new Timelines(heldUpTo, gapTimeoutMs);
    this.changesAt = changesAt;
  }

  sync(): void {
    if (this.timelines === undefined) return;
    this.timelines.syncStarted();
    this.syncAskedAt = Date.now();
    this.syncId = crypto.randomUUID();
    this.reactionPages = 0;
    this.connection.send({ type: "sync.request", id: this.syncId, state: this.timelines.state(), limit: LIMITS.max_page,
      ...(this.changesAt === undefined ? {} : { changes_since: this.changesAt }) });
  }

  /** The sync's refusal (busy or failing), when the error names it: asked again after the wait; until done the client syncs. */
  syncRefused(error: { ref: string | null; retry_after_ms?: number }): boolean {
    if (error.ref !== this.syncId && error.ref !== "sync.request") return false;
    this.timers.later(() => {
      if (this.connection.state === "syncing" && this.connection.open) this.sync();
    }, error.retry_after_ms ?? 1000);
    return true;
  }

  /** A gateway refusal may have been of the sync in flight: it is asked again after the wait; true when it will be. */
  resyncAfter(waitMs: number): boolean {
    if (this.connection.state !== "syncing" || this.syncRetryFor === this.syncAskedAt) return false;
    const refused = this.syncAskedAt;
    this.syncRetryFor = refused;
    this.timers.later(() => {
      if (this.connection.state === "syncing" && this.connection.open && this.syncAskedAt === refused) this.sync();
    }, waitMs);
    return true;
  }

  /** Fewer reactions pages than the sync sent (a post lost): the old changes_since stays, and the sync is asked again at once. */
  synced(done: { changes_at: number; reaction_pages?: number }): void {
    this.timelines?.syncDone();
    if (this.reactionPages < (done.reaction_pages ?? 0)) {
      this.sync();
      return;
    }
    this.changesAt = done.changes_at;
    void this.writes.write(() => this.store.setChangesAt(done.changes_at));
  }


  /** Online: what the app read while offline is told; a conversation joined meanwhile is synced. */
  online(): void {
    this.flushReads();
    if (this.timelines?.needsSync) this.sync();
  }

  /** Every tick: a sync unanswered for long is asked again; online, gaps open past their timeout are filled. */
  tick(now: number): void {
    if (this.timelines === undefined) return;
    if (this.connection.state === "syncing" && now - this.syncAskedAt > SYNC_RETRY_MS) this.sync();
    if (this.connection.state === "online") this.timelines.gapsToFill(now).forEach((request) => this.fillGap(request));
  }

  /** A frame that carries messages or changes a timeline. */
  take(frame: ServerFrame): void {
    const timelines = this.timelines;
    if (timelines === undefined) return;
    switch (frame.type) {
      case "message.receive": {
        const { type: _type, ...message } = frame;
        this.release(timelines.offer(message, Date.now()));
        break;
      }
      case "sync.batch": {
        // A message the app was handed while this page was on its way (it came live): the page's copy has its reactions now.
        const handed = timelines.releasedUpTo(frame.conversation_id);
        frame.messages.filter((m) => m.seq <= handed && counts(m)).forEach((m) =>
          this.reactions({ type: "reactions.update", conversation_id: frame.conversation_id, seq: m.seq, reactions: m.reactions ?? [] }));
        this.release(timelines.synced(frame, Date.now()));
        if (frame.reactions_changed?.length) {
          // The messages this device holds whose reactions changed while it was away: told as the live ones are.
          this.reactionPages++;
          frame.reactions_changed.forEach(({ seq, reactions }) =>
            this.reactions({ type: "reactions.update", conversation_id: frame.conversation_id, seq, reactions }));
        }
        break;
      }
      case "reactions.update":
        this.reactions(frame);
        break;
      case "history.batch":
        this.release(timelines.history(frame, Date.now()));
        break;
      case "conversation.created":
        this.sync();
        break;
      case "conversation.updated":
        // Added to it: a sync says where it starts. A change to one it holds (a pin, another member) needs none.
        if (!frame.conversation.members.includes(this.user)) timelines.left(frame.conversation.conversation_id);
        else if (!timelines.holds(frame.conversation.conversation_id)) this.sync();
        break;
      default:
        break;
    }
  }

  /** A message's reactions now: told to the app if it has the message, else kept with it until it is handed over. */
  private reactions(update: ReactionsUpdate): void {
    if (this.timelines?.reactions(update) ?? true) this.events.emit("reactions", update);
  }

  /** Older messages for the app (newest first; not emitted as message events). */
  history(request: HistoryRequest): Promise<HistoryBatch> {
    return this.requests.request(request, "history.batch");
  }

  /** A gap's history, whose batch the timelines take when it comes; a refusal is an error event. */
  private fillGap(request: HistoryRequest): void {
    this.requests.ask(request, "history.batch").catch((failure: Error) => {
      if (failure instanceof ParleyError) this.events.emit("error", failure.frame);
    });
  }

  /** This device's own send, acknowledged: its message joins its timeline as any other. */
  acknowledged(ack: MessageAck, send: PendingSend): void {
    this.handedBeforeAnswer.delete(send.id);
    if (send.sealed !== undefined && this.cipher !== undefined) this.ownPlaintexts.set(send.id, fromBase64(send.sealed.plaintext));
    // The app's own entry as the server stores it: a send with its reply and mentions, a change with its relation.
    const frame = JSON.parse(send.frame) as MessageSend | MessageEdit | MessageDelete | ReactionSet;
    if (frame.type === "reaction.set" && frame.ciphertext === undefined) return;
    const entry = frame.type === "message.send" ? { content: frame.content, reply_to: frame.reply_to ?? null, mentions: frame.mentions ?? [] }
      : frame.type === "reaction.set" ? { content: frame.ciphertext as Content, relates_to: { kind: "reaction" as const, seq: frame.target_seq } }
      : { content: frame.type === "message.edit" ? frame.content : { type: "deleted" as const },
        relates_to: { kind: frame.type === "message.edit" ? "edit" as const : "delete" as const, seq: frame.target_seq } };
    this.release((this.timelines as Timelines).offer({
      id: ack.id, conversation_id: ack.conversation_id, seq: ack.seq, sender_id: this.user, sender_device: this.device, ...entry,
      server_timestamp: ack.server_timestamp,
    }, Date.now()));
  }

  /**
   * A queued request answered. A sealed reaction's entry (its message.ack lost) comes from a sync or history: its plaintext is
   * kept for it, unless it was handed to the app already.
   */
  requestAnswered(request: PendingSend): void {
    if (!this.handedBeforeAnswer.delete(request.id) && request.sealed !== undefined && this.cipher !== undefined) {
      this.ownPlaintexts.set(request.id, fromBase64(request.sealed.plaintext));
    }
  }

  markRead(conversationId: ConversationId, seq: number): void {
    this.readToSend.set(conversationId, Math.max(seq, this.readToSend.get(conversationId) ?? 0));
    this.flushReads();
  }

  private flushReads(): void {
    if (this.connection.state !== "online") return;
    this.readToSend.forEach((seq, conversation) => this.connection.send({ type: "message.read", conversation_id: conversation, seq }));
    this.readToSend.clear();
  }

  private release(ready: Message[]): void {
    const cipher = this.cipher;
    if (cipher === undefined || !ready.some((message) => message.content.envelopes !== undefined)) {
      // Behind any batch still being opened, so that the order holds.
      if (cipher === undefined) this.handOver(ready, new Map());
      else this.handing = this.handing.then(() => this.handOver(ready, new Map()));
      return;
    }
    this.handing = this.handing.then(async () => {
      const plaintexts = new Map<Message, Uint8Array | undefined>();
      for (const message of ready) {
        if (message.content.envelopes !== undefined) plaintexts.set(message, await this.openSealed(cipher, message));
      }
      this.handOver(ready, plaintexts);
    });
  }

  /**
   * This device's plaintext of a sealed message: its own send's (it has no envelope of its own), kept from the ack or, when
   * the message comes before its ack (a sync after a lost ack), the pending send's; else the cipher's opening.
   */
  private async openSealed(cipher: EndToEndCipher, message: Message): Promise<Uint8Array | undefined> {
    const own = this.ownPlaintexts.get(message.id);
    if (own !== undefined) {
      this.ownPlaintexts.delete(message.id);
      return own;
    }
    const pending = message.sender_id === this.user && message.sender_device === this.device ? this.ownSend(message.id)?.sealed : undefined;
    if (pending !== undefined) {
      this.handedBeforeAnswer.add(message.id);
      return fromBase64(pending.plaintext);
    }
    try {
      return await cipher.open(message);
    } catch (unreadable) {
      console.warn(`message ${message.seq} of ${message.conversation_id} did not decrypt`, unreadable);
      return undefined;
    }
  }

  private handOver(ready: Message[], plaintexts: Map<Message, Uint8Array | undefined>): void {
    if (this.connection.state === "closed") return;
    const upTo = new Map<ConversationId, number>();
    for (const message of ready) {
      upTo.set(message.conversation_id, Math.max(message.seq, upTo.get(message.conversation_id) ?? 0));
      if (message.content.type === "void") continue;
      if (plaintexts.has(message)) this.events.emit("sealedMessage", { message, plaintext: plaintexts.get(message) });
      else this.events.emit("message", message);
      if (message.relates_to !== undefined && !plaintexts.has(message)) {
        this.events.emit("change", { conversation_id: message.conversation_id, seq: message.relates_to.seq, kind: message.relates_to.kind,
          content: message.content, at: message.server_timestamp, entry: message });
      }
    }
    // Kept after the app has the messages: a reload between the two hands them to the app again, never loses them.
    upTo.forEach((seq, conversation) => {
      void this.writes.write(() => this.store.setHeldUpTo(conversation, seq));
      if (seq > (this.deliveredSent.get(conversation) ?? 0)) {
        this.deliveredSent.set(conversation, seq);
        this.connection.send({ type: "message.delivered", conversation_id: conversation, seq });
      }
    });
    if (this.timelines?.needsSync && this.connection.state === "online") this.sync();
  }
}
