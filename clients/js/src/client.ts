import { fromBase64, toBase64 } from "./cipher.js";
import type { EndToEndCipher, KeyDirectory } from "./cipher.js";
import { ParleyError } from "./errors.js";
import { LIMITS } from "./frames.generated.js";
import type {
  ClientFrame, Content, Conversation, ConversationId, ConversationPage, ErrorFrame, HistoryBatch, HistoryRequest, InboxFilter,
  InboxMark, InboxPage, LastSeenVisibility, Message, MessageAck, MessageSend, Notification, Presence, PresenceBatch,
  PushPlatform, ReceiptUpdate, KeysBundle, KeysUpload, ServerFrame, SettingsUpdated, TopicKey, TopicMuted, ConversationMuted, TypingState, TypingUpdate,
  UserId, DeviceRegistered, InboxCounts,
} from "./frames.generated.js";
import { Timelines } from "./ordering.js";
import { Outbox } from "./outbox.js";
import { decodeClientFrame, decodeServerFrame } from "./schema-check.js";
import { MemoryClientStore } from "./store.js";
import type { ClientStore, PendingSend } from "./store.js";
import { isGatewayRefusal, platformWebSocket } from "./transport.js";
import type { WebSocketFactory, WebSocketLike } from "./transport.js";

/** Where the client's connection stands. */
export type ConnectionState =
  /** Opening the WebSocket. */
  | "connecting"
  /** Connected, catching up on what it missed (sync.request until sync.done). */
  | "syncing"
  /** Caught up: live messages flow, sends go out. */
  | "online"
  /** Lost or refused; a reconnect is scheduled with backoff. */
  | "offline"
  /** close() was called. */
  | "closed";

/** Why the connection's state changed (the Java client's StateChange.Reason, in the same words). */
export type StateReason =
  | "started" | "retrying" | "reconnect_requested" | "connected" | "synced"
  | "connect_failed" | "unauthorized" | "server_closed" | "connection_lost" | "heartbeat_timeout" | "closed";

/** A change of the connection's state, and why: offline, with the wait before the next attempt. */
export interface StateChange {
  state: ConnectionState;
  previous: ConnectionState;
  reason: StateReason;
  /** Offline: how long until the next attempt; null otherwise. */
  retry_in_ms: number | null;
  /** What the socket or the server said, for logs. */
  detail?: string;
}

/** What the client tells the app, by event name. */
export interface ParleyEvents {
  /** A message, per conversation in seq order, each once, with no gap; the app's own too, once acknowledged. Voids are skipped. */
  message: Message;
  /**
   * With a cipher, an end-to-end message (ciphertext with envelopes) instead of a message event, in the same order: with this
   * device's plaintext, or undefined when it has no envelope for this device or it did not decrypt. The app's own sealed
   * sends come with the plaintext they were sealed from.
   */
  sealedMessage: { message: Message; plaintext: Uint8Array | undefined };
  /** A send the app made is stored: its seq is known (also for sends made before a reload). */
  sent: MessageAck;
  /** A send the server refused for good (not retried): the error names the field or the rule. */
  sendFailed: { send: PendingSend; error: ErrorFrame };
  receipt: ReceiptUpdate;
  typing: TypingUpdate;
  presence: Presence;
  /** A notification from the user's inbox, live (the client acknowledges it to the server). */
  notification: Notification;
  /** The user's inbox counts changed (a mark on another device, say). */
  inboxCounts: { unread_count: number; unseen_count: number };
  /** A conversation the user is in was created or changed. */
  conversation: Conversation;
  /** The connection's state changed: the new state, the one before, why, and when offline when it tries again. */
  state: StateChange;
  /** An error frame that answers no request of the client's, or a frame from the server the client could not read. */
  error: ErrorFrame;
  /** This device's one-time keys ran low: upload more. */
  keysLow: { pre_key_count: number; pq_pre_key_count: number };
  /** A contact's identity key changed (a reinstall). */
  identityChanged: UserId;
}

export type ParleyEventName = keyof ParleyEvents;

/** A send the app queued: its id, when it is safely queued (in the store), and its acknowledgement. */
export interface OutgoingMessage {
  id: string;
  /** Resolves once the send is in the store: from then on a reload or restart sends it (once). */
  queued: Promise<void>;
  /** Resolves with the server's ack (the message's seq); rejects with a ParleyError when refused for good. */
  acknowledged: Promise<MessageAck>;
}

export interface ParleyClientOptions {
  /** The WebSocket URL (the stack's WebSocketUrl output, or the local cloud's). */
  url: string;
  /** The user and device the app's tokens are for. */
  user: UserId;
  device: string;
  /** A fresh token; asked again before every connect, so an expired one is replaced. */
  token: () => string | Promise<string>;
  /** How to open a WebSocket; the platform's by default (Node 20: nodeWebSocket() from '@parley/client/node'). */
  webSocket?: WebSocketFactory;
  /** What survives a reload; in memory unless given (IndexedDbClientStore in a browser, FileClientStore in Node). */
  store?: ClientStore;
  /** The reconnect delay: from min, doubling per failed attempt up to max, each drawn from its upper half. */
  backoff?: { minMs: number; maxMs: number };
  /** How long a gap in a conversation may stay open before the client asks for the history that fills it. */
  gapTimeoutMs?: number;
  /** How long a quiet connection waits before a ping (which also renews the server's lease on it). */
  pingIntervalMs?: number;
  /** How long a send waits for its ack on a live connection before it goes again (same id). */
  ackTimeoutMs?: number;
  /** How long a request waits for its answer. */
  requestTimeoutMs?: number;
  /** How long opening the WebSocket may take before it is given up and tried again. */
  connectTimeoutMs?: number;
  /** How often followed users' presence is subscribed again: four fifths of the server's five minutes by default. */
  presenceRenewalMs?: number;
  /** End-to-end encryption, the app's (docs/e2e.md): needed for sendSealed and to open envelopes. */
  cipher?: EndToEndCipher;
  /**
   * In Node, whether a started client keeps the process alive until close() (default true): a program whose only work is
   * the client does not exit while it reconnects with sends queued. false: its timers are unref'ed, as before 0.4.
   */
  keepProcessAlive?: boolean;
}

/** A request awaiting its answer, by its id; internal ones (a sync, a gap's history) tell a refusal as an error event. */
interface Pending {
  answerType: ServerFrame["type"];
  resolve(frame: ServerFrame): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/** Frames the server pushes: they answer no request. */
const PUSHES = new Set<ServerFrame["type"]>(["message.receive", "receipt.update", "typing.update", "notification.receive", "presence.update",
  "identity.changed", "keys.low"]);
/** A connection must stay online this long before the reconnect backoff starts again from its minimum. */
export const STABLE_AFTER_MS = 10_000;

type AnswerOf<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;

/** Resends after gateway refusals wait from 250 ms, doubling per round with no ack between, up to 8 s. */
const GATEWAY_RESEND = { minMs: 250, maxMs: 8000 };
/** How long a sync may go unanswered before it is asked again. */
const SYNC_RETRY_MS = 10_000;
/** The longest presence subscription the server grants; the client renews at four fifths of it. */
const PRESENCE_TTL_SECONDS = LIMITS.max_presence_ttl_seconds;
const TICK_MS = 200;
/** A send refused devices_changed this many times running fails: the devices keep changing, or the cipher errs. */
const MAX_RESEALS = 3;

/** Where a delay of a growing series is drawn: from the upper half of min doubled attempt times, at most max. */
export function jitteredDelay(minMs: number, maxMs: number, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, minMs * 2 ** Math.min(attempt, 20));
  return Math.floor(ceiling / 2 + random() * (ceiling / 2 + 1));
}

const utf8 = new TextEncoder();

/**
 * A Parley app's connection, kept up for it: it connects with a token from the app's callback (asked again on every
 * reconnect), reconnects with jittered exponential backoff, and after each connect resumes with sync.request until sync.done.
 * Messages reach the app per conversation in seq order, once each, with no gap; a gap open past the timeout is filled with
 * history.request. Sends wait in a queue kept in the app's store and go out one conversation's at a time in order, each
 * resent with the same id across reconnects and reloads until acknowledged, so each is stored once. message.delivered is
 * sent for what reached the app; message.read when the app says. The same guarantees as the Java client (docs/client-js.md).
 */
export class ParleyClient {
  readonly user: UserId;
  readonly device: string;
  private readonly url: string;
  private readonly tokens: () => string | Promise<string>;
  private readonly openSocket: WebSocketFactory;
  private readonly store: ClientStore;
  private readonly backoff: { minMs: number; maxMs: number };
  private readonly gapTimeoutMs: number;
  private readonly pingIntervalMs: number;
  private readonly ackTimeoutMs: number;
  private readonly requestTimeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly presenceRenewalMs: number;
  private readonly keepProcessAlive: boolean;
  private readonly cipher: EndToEndCipher | undefined;
  /** The key directory as the cipher reaches it: keys.fetch through this client. */
  private readonly keys: KeyDirectory = { fetch: (user, device) => this.fetchKeys(user, device) };
  /** Seals, one after another in the order asked (a cipher's sessions are not safe to use twice at once). */
  private sealing: Promise<unknown> = Promise.resolve();
  /** Messages handed to the app, one batch after another: opening envelopes is asynchronous, the order is not. */
  private handing: Promise<void> = Promise.resolve();
  /** How many times running each end-to-end send was sealed again after devices_changed. */
  private readonly reseals = new Map<string, number>();
  /** The plaintexts of this device's acknowledged sealed sends, until the message is handed to the app. */
  private readonly ownPlaintexts = new Map<string, Uint8Array>();

  private readonly listeners = new Map<ParleyEventName, Set<(value: never) => void>>();
  private currentState: ConnectionState = "offline";
  private timelines: Timelines | undefined;
  private outbox: Outbox | undefined;
  private loaded: Promise<void> | undefined;
  /** Store writes, one after another in the order made: a send is never removed before it was added. */
  private storeWrites: Promise<void> = Promise.resolve();
  private readonly ackWaiters = new Map<string, { resolve(ack: MessageAck): void; reject(error: Error): void }>();

  private socket: WebSocketLike | undefined;
  /** Which connection the socket's events are about: a late event of an old one is dropped. */
  private connectionNumber = 0;
  private failedAttempts = 0;
  private gatewayRefusals = 0;
  private lastFrameAt = 0;
  private lastPingAt = 0;
  private onlineSince = -1;
  private syncAskedAt = 0;
  private syncRetryFor = -1;
  /** The id of the sync in flight: its refusal is asked again, one for an older sync changes nothing. */
  private syncId = "";
  private pendingRetry: ReturnType<typeof setTimeout> | undefined;
  private readonly wake = (): void => this.wakeUp();
  private ticker: ReturnType<typeof setInterval> | undefined;
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  /** Requests in flight by id (protocol 1.1: each answer names its request by ref), in the order sent. */
  private readonly pending = new Map<string, Pending>();
  private readonly deliveredSent = new Map<ConversationId, number>();
  private readonly readToSend = new Map<ConversationId, number>();
  /** The users whose presence the app follows; renewed before the server's subscription runs out, and after reconnects. */
  private readonly watched = new Set<UserId>();
  private presenceRenewedAt = 0;

  constructor(options: ParleyClientOptions) {
    for (const field of ["url", "user", "device"] as const) {
      if (typeof options[field] !== "string" || options[field].length === 0) {
        throw new TypeError(`options.${field} must be a non-empty string`);
      }
    }
    if (typeof options.token !== "function") throw new TypeError("options.token must be a function that returns a token");
    this.url = options.url;
    this.user = options.user;
    this.device = options.device;
    this.tokens = options.token;
    this.openSocket = options.webSocket ?? platformWebSocket();
    this.store = options.store ?? new MemoryClientStore();
    this.backoff = options.backoff ?? { minMs: 250, maxMs: 30_000 };
    if (!(this.backoff.minMs > 0 && this.backoff.maxMs >= this.backoff.minMs)) {
      throw new RangeError(`backoff must have 0 < minMs <= maxMs, was ${this.backoff.minMs} and ${this.backoff.maxMs}`);
    }
    this.gapTimeoutMs = options.gapTimeoutMs ?? 2000;
    this.pingIntervalMs = options.pingIntervalMs ?? 240_000;
    this.ackTimeoutMs = options.ackTimeoutMs ?? 10_000;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 15_000;
    this.cipher = options.cipher;
    this.keepProcessAlive = options.keepProcessAlive ?? true;
    this.presenceRenewalMs = options.presenceRenewalMs ?? PRESENCE_TTL_SECONDS * 800;
    if (!(this.presenceRenewalMs > 0 && this.presenceRenewalMs < PRESENCE_TTL_SECONDS * 1000)) {
      throw new RangeError(`presenceRenewalMs must be above 0 and under the subscription's ${PRESENCE_TTL_SECONDS} s, was ${this.presenceRenewalMs}`);
    }
  }

  /** The connection's state now. */
  get state(): ConnectionState {
    return this.currentState;
  }

  /** Sends queued and not yet acknowledged. */
  get pendingCount(): number {
    return this.outbox?.size ?? 0;
  }

  /** Listens to an event; returns what stops listening. A listener that throws does not stop the client. */
  on<E extends ParleyEventName>(event: E, listener: (value: ParleyEvents[E]) => void): () => void {
    const set = this.listeners.get(event) ?? new Set();
    set.add(listener as (value: never) => void);
    this.listeners.set(event, set);
    return () => set.delete(listener as (value: never) => void);
  }

  /** Loads the store (the sends an earlier run left go out again) and connects; stays connected until close(). */
  start(): Promise<void> {
    if (this.loaded === undefined) {
      this.loaded = this.store.load().then((stored) => {
        this.timelines = new Timelines(stored.heldUpTo, this.gapTimeoutMs);
        this.outbox = new Outbox(stored.pendingSends);
        if (this.currentState === "closed") return;
        this.ticker = setInterval(() => this.tick(), TICK_MS);
        if (!this.keepProcessAlive) unref(this.ticker);
        watchTheNetwork(this.wake, true);
        void this.connect("started");
      });
    }
    return this.loaded;
  }

  /**
   * Queues a message: it is stored on the server once, whatever reconnects or reloads happen before its ack, and after the
   * ones the app sent before it in the same conversation. A send the server would refuse (a field out of bounds, a frame over
   * 128 KB) is refused here, its promises rejected with a ParleyError naming why, and nothing is queued.
   */
  send(conversationId: ConversationId, content: Content): OutgoingMessage {
    const id = crypto.randomUUID();
    const frame: MessageSend = { type: "message.send", id, conversation_id: conversationId, content, timestamp: Date.now() };
    const text = JSON.stringify(frame);
    const refused = this.refusal(text, id);
    if (refused !== undefined) {
      return { id, queued: handled(Promise.reject(refused)), acknowledged: handled(Promise.reject(refused)) };
    }
    return this.queue(id, this.started().then(() => ({ id, conversation_id: conversationId, frame: text })));
  }

  /**
   * Queues an end-to-end message (docs/e2e.md): the cipher seals the plaintext into one envelope per device of the members
   * (the conversation's, this user's included); if the server answers devices_changed, the cipher takes in the devices named
   * and seals again, sent under the same id. Otherwise as send(); sealed sends keep their order among themselves. The
   * message comes back, once stored, as a sealedMessage event with this plaintext.
   */
  sendSealed(conversationId: ConversationId, members: UserId[], plaintext: Uint8Array): OutgoingMessage {
    const cipher = this.cipher;
    if (cipher === undefined) throw new Error("no cipher was given to the client (options.cipher)");
    const id = crypto.randomUUID();
    const timestamp = Date.now();
    const sealed = { members: [...members], plaintext: toBase64(plaintext) };
    const pending = this.started()
      .then(() => this.serially(() => cipher.seal(conversationId, members, plaintext, this.keys)))
      .then((envelopes) => {
        const frame: MessageSend = { type: "message.send", id, conversation_id: conversationId, content: { type: "ciphertext", envelopes }, timestamp };
        const text = JSON.stringify(frame);
        const refused = this.refusal(text, id);
        if (refused !== undefined) throw refused;
        return { id, conversation_id: conversationId, frame: text, sealed };
      });
    return this.queue(id, pending);
  }

  /** A send on its way to the store and the queue: its promises, of which queued rejects if it never gets there. */
  private queue(id: string, pending: Promise<PendingSend>): OutgoingMessage {
    const acknowledged = handled(new Promise<MessageAck>((resolve, reject) => this.ackWaiters.set(id, { resolve, reject })));
    const queued = handled(pending.then((send) => this.writeStore(() => this.store.addPendingSend(send)).then(() => {
      // Closed meanwhile: it is in the store all the same, and a client started on the store sends it.
      if (this.currentState === "closed") return;
      this.outbox?.add(send);
      this.transmitReady();
    })));
    queued.catch((error: Error) => {
      this.ackWaiters.get(id)?.reject(error);
      this.ackWaiters.delete(id);
    });
    return { id, queued, acknowledged };
  }

  /** This device's public keys for end-to-end encryption: the counts of one-time keys the server now holds. */
  async uploadKeys(keys: Omit<KeysUpload, "type">): Promise<{ pre_key_count: number; pq_pre_key_count: number }> {
    const { type: _type, ...counts } = await this.request({ type: "keys.upload", ...keys }, "keys.uploaded");
    return counts;
  }

  /** A user's devices' keys (or one device's), each one-time key handed to this fetch alone; not_found when there are none. */
  async fetchKeys(user: UserId, device?: string): Promise<KeysBundle> {
    return this.request(device === undefined ? { type: "keys.fetch", user_id: user } : { type: "keys.fetch", user_id: user, device_id: device },
      "keys.bundle");
  }

  /** Why the server would refuse this message.send at once, if it would: checked here so that no queue holds it. */
  private refusal(text: string, id: string): ParleyError | undefined {
    const size = utf8.encode(text).length;
    if (size > LIMITS.max_frame_bytes) {
      return ParleyError.of("too_large", `the message.send frame is ${size} bytes; a frame may be at most ${LIMITS.max_frame_bytes}`, id);
    }
    const decoded = decodeClientFrame(text);
    if (!decoded.ok) return ParleyError.of("bad_request", decoded.reason, id);
    if (JSON.parse(text).content.type === "void") return ParleyError.of("bad_request", "content.type: void is written by the server only", id);
    return undefined;
  }

  /** The user has seen the conversation up to seq: its senders get a read receipt (sent when online). */
  markRead(conversationId: ConversationId, seq: number): void {
    this.readToSend.set(conversationId, Math.max(seq, this.readToSend.get(conversationId) ?? 0));
    this.flushReads();
  }

  /** The user is typing ("start", as often as keystrokes come: the server coalesces) or stopped. */
  typing(conversationId: ConversationId, state: TypingState): void {
    if (this.currentState === "online") this.sendFrame({ type: "typing", conversation_id: conversationId, state });
  }

  /** The direct conversation with another user: created, or the existing one. */
  createDirect(other: UserId): Promise<Conversation> {
    return this.create({ type: "conversation.create", id: crypto.randomUUID(), kind: "direct", members: [other] });
  }

  createGroup(name: string, members: UserId[]): Promise<Conversation> {
    return this.create({ type: "conversation.create", id: crypto.randomUUID(), kind: "group", members, name });
  }

  /** Adds members to a group (admins only); answered by the conversation as it now is. */
  async addMembers(conversationId: ConversationId, members: UserId[]): Promise<Conversation> {
    const updated = await this.request({ type: "conversation.members.add", conversation_id: conversationId, members }, "conversation.updated");
    return updated.conversation;
  }

  async removeMembers(conversationId: ConversationId, members: UserId[]): Promise<Conversation> {
    const updated = await this.request({ type: "conversation.members.remove", conversation_id: conversationId, members }, "conversation.updated");
    return updated.conversation;
  }

  /** A page of the user's conversations with their unread counts (cursor: the previous page's next_cursor). */
  conversations(cursor?: string): Promise<ConversationPage> {
    return this.request(cursor === undefined ? { type: "conversation.list" } : { type: "conversation.list", cursor }, "conversation.page");
  }

  /** Older messages of a conversation, newest first (for scrolling back: they are not emitted as message events). */
  history(conversationId: ConversationId, options: { beforeSeq?: number; limit?: number } = {}): Promise<HistoryBatch> {
    const request: HistoryRequest = { type: "history.request", conversation_id: conversationId, limit: options.limit ?? 50 };
    if (options.beforeSeq !== undefined) request.before_seq = options.beforeSeq;
    return this.request(request, "history.batch");
  }

  /**
   * These users' presence now, then each change as a presence event, for as long as the app wants: the subscription is
   * renewed before it runs out and after every reconnect, until unsubscribePresence.
   */
  async subscribePresence(users: UserId[]): Promise<PresenceBatch> {
    users.forEach((user) => this.watched.add(user));
    try {
      return await this.request({ type: "presence.subscribe", user_ids: users, ttl_seconds: PRESENCE_TTL_SECONDS }, "presence.batch");
    } finally {
      this.presenceRenewedAt = Date.now();
    }
  }

  /** No more presence changes of these users (the server's subscription runs out by itself within five minutes). */
  unsubscribePresence(users: UserId[]): void {
    users.forEach((user) => this.watched.delete(user));
  }

  /** A page of the user's notification inbox, newest first, with its counts. */
  inbox(options: { filter?: InboxFilter; cursor?: string; limit?: number } = {}): Promise<InboxPage> {
    return this.request({ type: "inbox.list", filter: options.filter ?? "all", limit: options.limit ?? 50,
      ...(options.cursor === undefined ? {} : { cursor: options.cursor }) }, "inbox.page");
  }

  /** Marks notifications (by id, or every one up to an id) seen, read, unread or archived; answered by the new counts. */
  markInbox(target: { ids: string[] } | { upTo: string }, state: InboxMark): Promise<InboxCounts> {
    const frame: ClientFrame = "ids" in target
      ? { type: "inbox.mark", ids: target.ids, state }
      : { type: "inbox.mark", up_to: target.upTo, state };
    return this.request(frame, "inbox.counts");
  }

  /** Mutes a followed topic (its notifications arrive read: no count, no push, nothing live) or unmutes it. */
  muteTopic(topic: TopicKey, muted: boolean): Promise<TopicMuted> {
    return this.request({ type: "topic.mute", topic, muted }, "topic.muted");
  }

  /** No push for the conversation until the epoch ms given; null unmutes. */
  muteConversation(conversationId: ConversationId, until: number | null): Promise<ConversationMuted> {
    return this.request({ type: "conversation.mute", conversation_id: conversationId, until }, "conversation.muted");
  }

  /** The user's own settings: who sees their last seen, which notification categories push. */
  updateSettings(settings: { last_seen_visibility?: LastSeenVisibility; notification_push?: Record<string, boolean> }): Promise<SettingsUpdated> {
    return this.request({ type: "settings.update", ...settings }, "settings.updated");
  }

  /** Registers this device's push token (FCM or APNs). */
  registerDevice(platform: PushPlatform, token: string): Promise<DeviceRegistered> {
    return this.request({ type: "device.register", platform, token }, "device.registered");
  }

  /** The sends queued and not yet acknowledged, in the order made (an app shows them as sending). */
  get pendingSends(): PendingSend[] {
    return this.outbox?.all() ?? [];
  }

  /**
   * Drops the connection and connects again at once, with a fresh token: for an app that learns the network changed (the
   * browser's online event, a new Wi-Fi) sooner than a dead connection would show. Sends and subscriptions carry over.
   */
  reconnect(): void {
    if (this.currentState === "closed" || this.loaded === undefined) return;
    const socket = this.socket;
    this.failedAttempts = 0;
    this.disconnected(this.connectionNumber, "connection_lost", "the app asked to reconnect", 0);
    socket?.close(1000, "reconnecting");
  }

  /** Offline and the network is back (online, or a tab shown again whose timers were throttled): try now, not at the backoff's end. */
  private wakeUp(): void {
    if (this.currentState !== "offline") return;
    if (this.pendingRetry !== undefined) this.cancel(this.pendingRetry);
    this.pendingRetry = undefined;
    void this.connect("reconnect_requested");
  }

  /**
   * Uploads a file for a conversation (docs/media.md): a grant, then the file posted straight to S3 with the grant's form.
   * Resolves with the content of a message naming it, to send; S3's refusal or the server's rejects, naming why.
   */
  async uploadMedia(conversationId: ConversationId, file: Blob, caption?: string): Promise<Content> {
    const contentType = file.type || "application/octet-stream";
    const grant = await this.request({ type: "media.upload", content_type: contentType, size: file.size, conversation_id: conversationId },
      "media.upload_grant");
    const form = new FormData();
    Object.entries(grant.fields).forEach(([name, value]) => form.append(name, value));
    form.append("file", file);
    const answer = await fetch(grant.url, { method: "POST", body: form });
    if (!answer.ok) {
      throw ParleyError.of("forbidden", `the upload was refused by storage: ${answer.status} ${(await answer.text()).slice(0, 300)}`, "media.upload");
    }
    const content: Content = { type: mediaType(contentType), media_id: grant.media_id, content_type: contentType, size: file.size };
    if (caption !== undefined) content.body = caption;
    return content;
  }

  /** Where a media object can be read now, and until when (epoch ms): a download grant. */
  async mediaUrl(mediaId: string): Promise<{ url: string; expires_at: number }> {
    const grant = await this.request({ type: "media.download", media_id: mediaId }, "media.download_grant");
    return { url: grant.url, expires_at: grant.expires_at };
  }

  /** Closes the connection for good; the queue stays in the store, and a client started on it sends it. */
  close(): void {
    if (this.currentState === "closed") return;
    this.setState("closed", "closed");
    watchTheNetwork(this.wake, false);
    if (this.ticker !== undefined) clearInterval(this.ticker);
    this.timers.forEach((timer) => clearTimeout(timer));
    this.timers.clear();
    this.socket?.close(1000, "closed by the app");
    this.socket = undefined;
    this.failWaiting("the client was closed");
    const closed = new Error("the client was closed before the ack");
    this.ackWaiters.forEach((waiter) => waiter.reject(closed));
    this.ackWaiters.clear();
  }

  // The connection's life.

  private async connect(reason: StateReason): Promise<void> {
    if (this.currentState === "closed") return;
    this.pendingRetry = undefined;
    this.setState("connecting", reason);
    const number = ++this.connectionNumber;
    let token: string;
    try {
      token = await this.tokens();
      if (typeof token !== "string" || token.length === 0) throw new Error("the token callback gave no token");
    } catch (error) {
      this.disconnected(number, "connect_failed", `no token: ${(error as Error).message}`);
      return;
    }
    // The app may have closed the client while the token was fetched.
    if (number !== this.connectionNumber || this.state === "closed") return;
    let socket: WebSocketLike;
    try {
      socket = this.openSocket(`${this.url}${this.url.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}`);
    } catch (error) {
      this.disconnected(number, "connect_failed", `could not connect: ${(error as Error).message}`);
      return;
    }
    const opening = this.later(() => {
      if (number === this.connectionNumber && this.socket !== socket) {
        socket.close();
        this.disconnected(number, "connect_failed", `not open after ${this.connectTimeoutMs} ms`);
      }
    }, this.connectTimeoutMs);
    let opened = false;
    socket.onopen = () => {
      this.cancel(opening);
      opened = true;
      if (number !== this.connectionNumber || this.currentState === "closed") {
        socket.close();
        return;
      }
      this.socket = socket;
      this.lastFrameAt = Date.now();
      this.lastPingAt = Date.now();
      this.setState("syncing", "connected");
      this.sync();
    };
    socket.onmessage = (event) => {
      if (number === this.connectionNumber) this.received(typeof event.data === "string" ? event.data : String(event.data));
    };
    socket.onclose = (event) => {
      this.cancel(opening);
      // Refused before it opened: 1006 with nothing said. An upgrade answered 401/403 looks the same to a browser; the
      // code says why only where the platform tells it (4401/4403 by convention, or the reason's text).
      const why = `closed (${event.code}${event.reason ? `: ${event.reason}` : ""})`;
      const reason: StateReason = !opened ? (/40[13]/.test(`${event.code} ${event.reason}`) ? "unauthorized" : "connect_failed")
        : event.code === 1006 ? "connection_lost" : "server_closed";
      this.disconnected(number, reason, why);
    };
    socket.onerror = () => {
      // A close event follows; the reconnect is scheduled there.
    };
  }

  private disconnected(number: number, reason: StateReason, why: string, delayMs?: number): void {
    if (number !== this.connectionNumber || this.currentState === "closed") return;
    this.socket = undefined;
    this.connectionNumber++;
    // The backoff starts again from its minimum only after a stable connection: a server that accepts and closes at once
    // is retried at a growing wait, not at the shortest.
    if (this.onlineSince >= 0 && Date.now() - this.onlineSince >= STABLE_AFTER_MS) this.failedAttempts = 0;
    this.onlineSince = -1;
    this.outbox?.connectionLost();
    this.failWaiting(`disconnected: ${why}`);
    const wait = delayMs ?? jitteredDelay(this.backoff.minMs, this.backoff.maxMs, this.failedAttempts++);
    this.setState("offline", reason, wait, why);
    this.pendingRetry = this.later(() => void this.connect("retrying"), wait);
  }

  /** The requests waiting for an answer fail: the connection that would carry it is gone. Sends stay queued. */
  private failWaiting(why: string): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    waiting.forEach((request) => {
      this.cancel(request.timer);
      request.reject(new Error(why));
    });
  }

  private sync(): void {
    if (this.timelines === undefined) return;
    this.timelines.syncStarted();
    this.syncAskedAt = Date.now();
    this.syncId = crypto.randomUUID();
    this.sendFrame({ type: "sync.request", id: this.syncId, state: this.timelines.state(), limit: LIMITS.max_page });
  }

  /** Every 200 ms: a sync unanswered, gaps to fill, presence to renew, sends whose ack is overdue, a ping when quiet. */
  private tick(): void {
    if (this.socket === undefined || this.timelines === undefined || this.outbox === undefined) return;
    const now = Date.now();
    if (this.currentState === "syncing" && now - this.syncAskedAt > SYNC_RETRY_MS) this.sync();
    if (this.currentState === "online") {
      this.timelines.gapsToFill(now).forEach((request) => this.fillGap(request));
      if (this.watched.size > 0 && now - this.presenceRenewedAt > this.presenceRenewalMs) this.renewPresence();
      this.outbox.due(now - this.ackTimeoutMs, now).forEach((send) => this.transmit(send));
    }
    if (now - this.lastFrameAt > this.pingIntervalMs * 2) {
      // No answer even to the ping: the connection is dead without having said so.
      const dead = this.socket;
      this.disconnected(this.connectionNumber, "heartbeat_timeout", `no answer for ${now - this.lastFrameAt} ms`);
      dead.close();
    } else if (now - this.lastPingAt > this.pingIntervalMs) {
      this.lastPingAt = now;
      this.sendFrame({ type: "ping" });
    }
  }

  // Frames in.

  private received(text: string): void {
    this.lastFrameAt = Date.now();
    const decoded = decodeServerFrame(text);
    if (!decoded.ok) {
      if (isGatewayRefusal(text)) {
        this.gatewayRefused();
      } else {
        this.emit("error", { type: "error", code: "internal", message: `the client could not read a frame: ${decoded.reason}`, ref: null });
      }
      return;
    }
    const frame = decoded.frame;
    const timelines = this.timelines as Timelines;
    switch (frame.type) {
      case "message.receive": {
        const { type: _type, ...message } = frame;
        this.release(timelines.offer(message, Date.now()));
        break;
      }
      case "sync.batch":
        this.release(timelines.synced(frame, Date.now()));
        break;
      case "sync.done":
        this.synced();
        break;
      case "history.batch":
        this.release(timelines.history(frame, Date.now()));
        break;
      case "message.ack":
        this.acknowledged(frame);
        break;
      case "error":
        this.refused(frame);
        break;
      case "receipt.update":
        this.emit("receipt", frame);
        break;
      case "typing.update":
        this.emit("typing", frame);
        break;
      case "presence.update": {
        const { type: _type, ...presence } = frame;
        this.emit("presence", presence);
        break;
      }
      case "presence.batch":
        frame.users.forEach((presence) => this.emit("presence", presence));
        break;
      case "notification.receive": {
        const { type: _type, ...notification } = frame;
        this.emit("notification", notification);
        this.sendFrame({ type: "notification.ack", ids: [notification.notification_id] });
        break;
      }
      case "inbox.counts":
        this.emit("inboxCounts", { unread_count: frame.unread_count, unseen_count: frame.unseen_count });
        break;
      case "conversation.created":
        this.emit("conversation", frame.conversation);
        this.sync();
        break;
      case "conversation.updated":
        this.emit("conversation", frame.conversation);
        if (frame.conversation.members.includes(this.user)) {
          this.sync();
        } else {
          timelines.left(frame.conversation.conversation_id);
        }
        break;
      case "keys.low":
        this.emit("keysLow", { pre_key_count: frame.pre_key_count, pq_pre_key_count: frame.pq_pre_key_count });
        break;
      case "identity.changed":
        this.emit("identityChanged", frame.user_id);
        break;
      default:
        // An answer only: its request settles below.
        break;
    }
    if (frame.type !== "error" && frame.type !== "sync.batch" && frame.type !== "message.ack" && !PUSHES.has(frame.type)) {
      this.answered((frame as { ref?: string | null }).ref ?? null, frame);
    }
  }

  /**
   * Settles the request this frame answers: the one its ref names; without a ref (a server of protocol 1.0), the oldest in
   * flight awaiting a frame of its type. True when one was waiting.
   */
  private answered(ref: string | null, frame: ServerFrame): boolean {
    let id = ref !== null && this.pending.has(ref) ? ref : undefined;
    if (id === undefined && ref === null && frame.type !== "error") {
      for (const [candidate, request] of this.pending) {
        if (request.answerType === frame.type) {
          id = candidate;
          break;
        }
      }
    }
    const request = id === undefined ? undefined : this.pending.get(id);
    if (id === undefined || request === undefined) return false;
    this.pending.delete(id);
    this.cancel(request.timer);
    if (frame.type === "error") request.reject(new ParleyError(frame));
    else request.resolve(frame);
    return true;
  }

  /** Caught up: the queue goes out, and what the app read while offline is told. */
  private synced(): void {
    this.timelines?.syncDone();
    if (this.currentState !== "syncing") return;
    this.onlineSince = Date.now();
    this.gatewayRefusals = 0;
    this.setState("online", "synced");
    this.flushReads();
    this.transmitReady();
    if (this.watched.size > 0) this.renewPresence();
    if (this.timelines?.needsSync) this.sync();
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
    const pending = message.sender_id === this.user && message.sender_device === this.device ? this.outbox?.find(message.id)?.sealed : undefined;
    if (pending !== undefined) return fromBase64(pending.plaintext);
    try {
      return await cipher.open(message);
    } catch (unreadable) {
      console.warn(`message ${message.seq} of ${message.conversation_id} did not decrypt`, unreadable);
      return undefined;
    }
  }

  private handOver(ready: Message[], plaintexts: Map<Message, Uint8Array | undefined>): void {
    if (this.currentState === "closed") return;
    const upTo = new Map<ConversationId, number>();
    for (const message of ready) {
      upTo.set(message.conversation_id, Math.max(message.seq, upTo.get(message.conversation_id) ?? 0));
      if (message.content.type === "void") continue;
      if (plaintexts.has(message)) this.emit("sealedMessage", { message, plaintext: plaintexts.get(message) });
      else this.emit("message", message);
    }
    // Kept after the app has the messages: a reload between the two hands them to the app again, never loses them.
    upTo.forEach((seq, conversation) => {
      void this.writeStore(() => this.store.setHeldUpTo(conversation, seq));
      if (seq > (this.deliveredSent.get(conversation) ?? 0)) {
        this.deliveredSent.set(conversation, seq);
        this.sendFrame({ type: "message.delivered", conversation_id: conversation, seq });
      }
    });
    if (this.timelines?.needsSync && this.currentState === "online") this.sync();
  }

  private acknowledged(ack: MessageAck): void {
    this.gatewayRefusals = 0;
    const send = this.outbox?.acknowledged(ack);
    if (send !== undefined) {
      void this.writeStore(() => this.store.removePendingSend(send.id));
      this.reseals.delete(send.id);
      if (send.sealed !== undefined && this.cipher !== undefined) this.ownPlaintexts.set(send.id, fromBase64(send.sealed.plaintext));
      this.ackWaiters.get(ack.id)?.resolve(ack);
      this.ackWaiters.delete(ack.id);
      this.emit("sent", ack);
      const content = (JSON.parse(send.frame) as MessageSend).content;
      this.release((this.timelines as Timelines).offer({
        id: ack.id, conversation_id: ack.conversation_id, seq: ack.seq, sender_id: this.user, sender_device: this.device, content,
        server_timestamp: ack.server_timestamp,
      }, Date.now()));
    }
    this.transmitReady();
  }

  /** An error answers a send (its id), a request (its id), or the sync in flight (its id). */
  private refused(error: ErrorFrame): void {
    const ref = error.ref ?? "";
    const send = this.outbox?.find(ref);
    if (send !== undefined) {
      const reseals = (this.reseals.get(send.id) ?? 0) + 1;
      if (error.code === "devices_changed" && send.sealed !== undefined && this.cipher !== undefined && reseals <= MAX_RESEALS) {
        this.reseals.set(send.id, reseals);
        this.reseal(this.cipher, send, error);
      } else if (retryable(error)) {
        const wait = error.retry_after_ms ?? (error.code === "conflict" ? 500 : 1000);
        this.outbox?.retryAt(send.id, Date.now() + wait);
        this.later(() => this.tick(), wait);
      } else {
        this.fail(send, error);
      }
      return;
    }
    if (this.answered(ref, error)) return;
    if (ref === this.syncId || ref === "sync.request") {
      // Busy or failing: asked again after the wait; until it is done the client stays syncing.
      this.later(() => {
        if (this.currentState === "syncing" && this.socket !== undefined) this.sync();
      }, error.retry_after_ms ?? 1000);
      return;
    }
    this.emit("error", error);
  }

  /** A send refused for good: out of the queue and the store, its promise rejected, the app told; the conversation goes on. */
  private fail(send: PendingSend, error: ErrorFrame): void {
    this.outbox?.remove(send.id);
    this.reseals.delete(send.id);
    void this.writeStore(() => this.store.removePendingSend(send.id));
    this.ackWaiters.get(send.id)?.reject(new ParleyError(error));
    this.ackWaiters.delete(send.id);
    this.emit("sendFailed", { send, error });
    this.transmitReady();
  }

  /**
   * An end-to-end send refused devices_changed: held while the cipher takes in the devices named and seals again, then sent
   * under the same id; a seal that fails, or seals into what a frame cannot carry, fails the send.
   */
  private reseal(cipher: EndToEndCipher, send: PendingSend, error: ErrorFrame): void {
    const sealed = send.sealed as NonNullable<PendingSend["sealed"]>;
    this.outbox?.hold(send.id);
    const mismatch = { missing: error.missing ?? [], extra: error.extra ?? [], stale: error.stale ?? [] };
    this.serially(async () => {
      await cipher.devicesChanged(mismatch, this.keys);
      return cipher.seal(send.conversation_id, sealed.members, fromBase64(sealed.plaintext), this.keys);
    }).then((envelopes) => {
      const previous = JSON.parse(send.frame) as MessageSend;
      const text = JSON.stringify({ ...previous, content: { type: "ciphertext", envelopes } });
      const refused = this.refusal(text, send.id);
      if (refused !== undefined) throw refused;
      const resealed: PendingSend = { ...send, frame: text };
      this.outbox?.resealed(resealed, Date.now());
      void this.writeStore(() => this.store.replacePendingSend(resealed));
      this.tick();
      this.transmitReady();
    }).catch((failure: Error) => {
      if (this.currentState === "closed") return;
      this.fail(send, failure instanceof ParleyError ? failure.frame
        : { type: "error", code: "bad_request", message: `sealing the message again failed: ${failure.message}`, ref: send.id });
    });
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const result = this.sealing.then(work);
    this.sealing = result.catch(() => undefined);
    return result;
  }

  // Frames out.

  private transmitReady(): void {
    if (this.currentState === "online") this.outbox?.ready().forEach((send) => this.transmit(send));
  }

  /** A send on the wire; a resend says so (attempt), so that the server checks for it before taking a seq. */
  private transmit(send: PendingSend): void {
    if (this.socket === undefined || this.outbox === undefined) return;
    const attempt = this.outbox.transmitted(send.id, Date.now());
    this.socket.send(attempt === 1 ? send.frame : JSON.stringify({ ...(JSON.parse(send.frame) as MessageSend), attempt }));
  }

  /**
   * API Gateway refused a frame before any function saw it, in a frame naming no id of ours: every send on the wire goes
   * again after a jittered backoff (doubling per round of refusals with no ack between), not after the ack timeout; a sync
   * in flight is asked again too.
   */
  private gatewayRefused(): void {
    const wait = jitteredDelay(GATEWAY_RESEND.minMs, GATEWAY_RESEND.maxMs, this.gatewayRefusals);
    const resending = this.outbox?.gatewayRefused(Date.now() + wait) ?? false;
    const resyncing = this.currentState === "syncing" && this.syncRetryFor !== this.syncAskedAt;
    const refusedSync = this.syncAskedAt;
    if (resyncing) this.syncRetryFor = refusedSync;
    if (resending || resyncing) {
      this.gatewayRefusals++;
      this.later(() => {
        if (resyncing && this.currentState === "syncing" && this.socket !== undefined && this.syncAskedAt === refusedSync) this.sync();
        this.tick();
      }, wait);
    }
  }

  /** A gap open past its timeout: its history, whose batch the timelines take when it comes; a refusal is an error event. */
  private fillGap(request: HistoryRequest): void {
    this.ask(request, "history.batch").catch((failure: Error) => {
      if (failure instanceof ParleyError) this.emit("error", failure.frame);
    });
  }

  /** The followed users' subscription again, a hundred to a frame (the server's bound); the answers become presence events. */
  private renewPresence(): void {
    this.presenceRenewedAt = Date.now();
    const users = [...this.watched];
    for (let from = 0; from < users.length; from += LIMITS.max_presence_users) {
      this.ask({ type: "presence.subscribe", user_ids: users.slice(from, from + LIMITS.max_presence_users), ttl_seconds: PRESENCE_TTL_SECONDS },
        "presence.batch").catch(() => undefined);
    }
  }

  private flushReads(): void {
    if (this.currentState !== "online") return;
    this.readToSend.forEach((seq, conversation) => this.sendFrame({ type: "message.read", conversation_id: conversation, seq }));
    this.readToSend.clear();
  }

  private sendFrame(frame: ClientFrame): void {
    this.socket?.send(JSON.stringify(frame));
  }

  private async create(frame: Extract<ClientFrame, { type: "conversation.create" }>): Promise<Conversation> {
    return (await this.request(frame, "conversation.created")).conversation;
  }

  /** An app's request: online only, so that its answer cannot come before what it depends on. */
  private request<T extends ServerFrame["type"]>(frame: ClientFrame, answerType: T): Promise<AnswerOf<T>> {
    if (this.currentState !== "online") return Promise.reject(new Error(`not connected (${this.currentState})`));
    return this.ask(frame, answerType);
  }

  /**
   * A request on the open connection, under an id of its own (a conversation.create's is its id), answered by the frame whose
   * ref names it (protocol 1.1), so any number may be in flight. It settles once: its answer, an error naming it (a
   * ParleyError), its timeout, or the loss of the connection or close() (an Error saying which); a late answer is dropped.
   */
  private ask<T extends ServerFrame["type"]>(frame: ClientFrame, answerType: T): Promise<AnswerOf<T>> {
    if (this.socket === undefined) return Promise.reject(new Error(`not connected (${this.currentState})`));
    const id = frame.type === "conversation.create" ? frame.id : crypto.randomUUID();
    return new Promise<ServerFrame>((resolve, reject) => {
      const timer = this.later(() => {
        if (this.pending.delete(id)) reject(new Error(`${frame.type} ${id} was not answered within ${this.requestTimeoutMs} ms`));
      }, this.requestTimeoutMs);
      this.pending.set(id, { answerType, resolve, reject, timer });
      this.sendFrame({ ...frame, id } as ClientFrame);
    }) as Promise<AnswerOf<T>>;
  }

  private started(): Promise<void> {
    return this.loaded ?? Promise.reject(new Error("start() the client before sending"));
  }

  /** A store write, after those made before it; a failure is told as an error event and does not stop later writes. */
  private writeStore(write: () => Promise<void>): Promise<void> {
    const done = this.storeWrites.then(write);
    this.storeWrites = done.catch((error: Error) => {
      this.emit("error", { type: "error", code: "internal", message: `the client's store failed: ${error.message}`, ref: null });
    });
    return done;
  }

  private setState(next: ConnectionState, reason: StateReason, retryInMs: number | null = null, detail?: string): void {
    const previous = this.currentState;
    if (previous !== next) {
      this.currentState = next;
      const change: StateChange = { state: next, previous, reason, retry_in_ms: next === "offline" ? retryInMs : null };
      if (detail !== undefined) change.detail = detail;
      this.emit("state", change);
    }
  }

  private emit<E extends ParleyEventName>(event: E, value: ParleyEvents[E]): void {
    for (const listener of this.listeners.get(event) ?? []) {
      try {
        (listener as (value: ParleyEvents[E]) => void)(value);
      } catch (appFailure) {
        // The app's bug must not stop the client's own work (a reconnect, a batch).
        console.warn(`a Parley '${event}' listener threw`, appFailure);
      }
    }
  }

  private later(work: () => void, ms: number): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.currentState !== "closed") work();
    }, ms);
    if (!this.keepProcessAlive) unref(timer);
    this.timers.add(timer);
    return timer;
  }

  private cancel(timer: ReturnType<typeof setTimeout>): void {
    clearTimeout(timer);
    this.timers.delete(timer);
  }
}

/** A media message's type by the file's: image, video, audio, or file. */
function mediaType(contentType: string): Content["type"] {
  const kind = contentType.split("/")[0];
  return kind === "image" || kind === "video" || kind === "audio" ? kind : "file";
}

/** What the protocol says to retry with the same frame: a limit, a send still being stored, a server failure. */
function retryable(error: ErrorFrame): boolean {
  return error.code === "rate_limited" || error.code === "internal" || (error.code === "conflict" && error.message.includes("still in progress"));
}

/** A promise whose rejection the app may ignore without an unhandled-rejection warning (it still rejects for whoever awaits it). */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/**
 * In a browser, the app's wake-up calls: reconnect at once when the network comes back (online) or a hidden tab, whose
 * timers the browser throttled, is shown again (visibilitychange). Nothing in Node.
 */
function watchTheNetwork(wake: () => void, watching: boolean): void {
  const target = globalThis as { addEventListener?: (event: string, listener: () => void) => void; removeEventListener?: (event: string, listener: () => void) => void;
    document?: { visibilityState?: string; addEventListener?: (event: string, listener: () => void) => void; removeEventListener?: (event: string, listener: () => void) => void } };
  const onVisible = visibilityListeners.get(wake) ?? (() => {
    if (target.document?.visibilityState !== "hidden") wake();
  });
  visibilityListeners.set(wake, onVisible);
  if (watching) {
    target.addEventListener?.("online", wake);
    target.document?.addEventListener?.("visibilitychange", onVisible);
  } else {
    target.removeEventListener?.("online", wake);
    target.document?.removeEventListener?.("visibilitychange", onVisible);
    visibilityListeners.delete(wake);
  }
}

const visibilityListeners = new WeakMap<() => void, () => void>();

/** In Node, a timer that does not keep the process alive on its own (keepProcessAlive: false). */
function unref(timer: unknown): void {
  (timer as { unref?: () => void }).unref?.();
}
