import type { KeyDirectory } from "./cipher.js";
import { Connection } from "./connection.js";
import { Emitter } from "./events.js";
import { Groups } from "./groups.js";
import type { ConnectionState, OutgoingMessage, ParleyEventName, ParleyEvents } from "./events.js";
import type {
  ClientFrame, Content, Conversation, ConversationId, ConversationMuted, ConversationPage, ConversationUpdated, DeviceRegistered, HistoryBatch, HistoryRequest,
  InboxCounts, InboxFilter, InboxMark, InboxPage, KeysBundle, KeysUpload, LastSeenVisibility, MessageAck, PresenceBatch, PushPlatform, ReactionAck,
  ServerFrame, SettingsUpdated, TopicKey, TopicMuted, TypingState, UserId,
} from "./frames.generated.js";
import { mediaUrl, uploadMedia } from "./media.js";
import { PresenceWatch } from "./presence.js";
import { Receiving } from "./receiving.js";
import { Requests } from "./requests.js";
import { Scheduler, watchTheNetwork } from "./scheduler.js";
import { Sender } from "./sender.js";
import { Session } from "./session.js";
import { settingsOf } from "./settings.js";
import type { ParleyClientOptions, Settings } from "./settings.js";
import type { PendingSend } from "./store.js";
import { StoreWrites } from "./store.js";

export { jitteredDelay, STABLE_AFTER_MS } from "./connection.js";
export type { ConnectionState, MessageChange, OutgoingMessage, ParleyEventName, ParleyEvents, StateChange, StateReason } from "./events.js";
export type { ParleyClientOptions } from "./settings.js";

const TICK_MS = 200;

/**
 * A Parley app's connection, kept up for it: it connects with a token from the app's callback (asked again on every
 * reconnect), reconnects with jittered exponential backoff, and after each connect resumes with sync.request until sync.done.
 * Messages reach the app per conversation in seq order, once each, with no gap; a gap open past the timeout is filled with
 * history.request. Sends wait in a queue kept in the app's store and go out one conversation's at a time in order, each
 * resent with the same id across reconnects and reloads until acknowledged, so each is stored once. Requests carry ids and
 * their answers are matched by ref, so any number may be in flight. The same guarantees as the Java client (docs/client-js.md).
 * This class is the app's view; the work is in parts: connection.ts, requests.ts, sender.ts (the outbox on the wire),
 * receiving.ts (timelines), presence.ts, and session.ts, where they meet.
 */
export class ParleyClient {
  readonly user: UserId;
  readonly device: string;
  private readonly settings: Settings;
  private readonly events = new Emitter();
  private readonly timers: Scheduler;
  private readonly connection: Connection;
  private readonly requests: Requests;
  /** A group's members, roles, settings, bans and invites, and leaving it. */
  readonly groups: Groups;
  private readonly sender: Sender;
  private readonly receiving: Receiving;
  private readonly presence: PresenceWatch;
  private readonly session: Session;
  /** The key directory as the cipher reaches it: keys.fetch through this client. */
  private readonly keys: KeyDirectory = { fetch: (user, device) => this.fetchKeys(user, device) };
  private loaded: Promise<void> | undefined;
  private stopWatching: () => void = () => undefined;

  constructor(options: ParleyClientOptions) {
    const settings = settingsOf(options);
    this.settings = settings;
    this.user = settings.user;
    this.device = settings.device;
    this.timers = new Scheduler(settings.keepProcessAlive);
    this.connection = new Connection(settings, this.timers, (change) => this.events.emit("state", change));
    this.requests = new Requests(this.connection, this.timers, settings.requestTimeoutMs);
    this.groups = new Groups(this.requests);
    const writes = new StoreWrites((error) => this.events.emit("error",
      { type: "error", code: "internal", message: `the client's store failed: ${error.message}`, ref: null }));
    this.sender = new Sender(this.connection, this.timers, this.events, settings.store, writes, this.keys, settings.cipher);
    this.receiving = new Receiving(this.connection, this.requests, this.timers, this.events, settings.store, writes, settings.cipher,
      settings.user, settings.device, (id) => this.sender.find(id));
    this.presence = new PresenceWatch(this.requests, settings.presenceRenewalMs);
    this.session = new Session(this.connection, this.requests, this.sender, this.receiving, this.presence, this.events, settings.ackTimeoutMs);
    this.connection.bind(this.session);
  }

  /** The connection's state now. */
  get state(): ConnectionState {
    return this.connection.state;
  }

  /** Sends queued and not yet acknowledged. */
  get pendingCount(): number {
    return this.sender.pendingCount;
  }

  /** The sends queued and not yet acknowledged, in the order made (an app shows them as sending). */
  get pendingSends(): PendingSend[] {
    return this.sender.pendingSends;
  }

  /** Listens to an event; returns what stops listening. A listener that throws does not stop the client. */
  on<E extends ParleyEventName>(event: E, listener: (value: ParleyEvents[E]) => void): () => void {
    return this.events.on(event, listener);
  }

  /**
   * Loads the store (the sends an earlier run left go out again) and connects; stays connected until close(). In Node the
   * client keeps the process alive until then (options.keepProcessAlive).
   */
  start(): Promise<void> {
    if (this.loaded === undefined) {
      this.loaded = this.settings.store.load().then((stored) => {
        this.receiving.load(stored.heldUpTo, this.settings.gapTimeoutMs, stored.changesAt);
        this.sender.load(stored.pendingSends);
        if (this.connection.state === "closed") return;
        this.timers.every(() => this.session.tick(), TICK_MS);
        this.stopWatching = watchTheNetwork(() => this.connection.wakeUp());
        this.connection.start();
      });
    }
    return this.loaded;
  }

  /**
   * Queues a message: it is stored on the server once, whatever reconnects or reloads happen before its ack, and after the
   * ones the app sent before it in the same conversation. It may reply to a message (replyTo, a seq of the conversation) and
   * mention members (user ids; "*" for every member, a group's admins only). A send the server would refuse (a field out of
   * bounds, a frame over 128 KB) is refused here, its promises rejected with a ParleyError naming why, and nothing is queued.
   */
  send(conversationId: ConversationId, content: Content, options: { replyTo?: number; mentions?: UserId[] } = {}): OutgoingMessage {
    return this.sender.enqueue({ type: "message.send", id: crypto.randomUUID(), conversation_id: conversationId, content, timestamp: Date.now(),
      ...(options.replyTo === undefined ? {} : { reply_to: options.replyTo }), ...(options.mentions === undefined ? {} : { mentions: options.mentions }) },
    this.started());
  }

  /**
   * Queues an edit of this user's message at seq (within the edit window, 15 minutes by default): text for text, text as a
   * media message's caption. It goes through the queue as a send does, resent under its id until acknowledged (its own seq);
   * every member's client emits it as a change event.
   */
  edit(conversationId: ConversationId, seq: number, content: Content): OutgoingMessage {
    return this.sender.enqueue({ type: "message.edit", id: crypto.randomUUID(), conversation_id: conversationId, target_seq: seq, content }, this.started());
  }

  /** Queues a delete for everyone of the message at seq (the sender's within 48 hours; a group admin's any time), as edit() goes. */
  delete(conversationId: ConversationId, seq: number): OutgoingMessage {
    return this.sender.enqueue({ type: "message.delete", id: crypto.randomUUID(), conversation_id: conversationId, target_seq: seq }, this.started());
  }

  /**
   * Queues an end-to-end message (docs/e2e.md): the cipher seals the plaintext into one envelope per device of the members
   * (the conversation's, this user's included); if the server answers devices_changed, the cipher takes in the devices named
   * and seals again, sent under the same id. Otherwise as send(); sealed sends keep their order among themselves. The
   * message comes back, once stored, as a sealedMessage event with this plaintext.
   */
  sendSealed(conversationId: ConversationId, members: UserId[], plaintext: Uint8Array): OutgoingMessage {
    const id = crypto.randomUUID();
    const timestamp = Date.now();
    return this.sender.queueSealed<MessageAck>(id, conversationId, members, plaintext, (envelopes) =>
      ({ type: "message.send", id, conversation_id: conversationId, content: { type: "ciphertext", envelopes }, timestamp }), () => this.started());
  }

  /**
   * A sealed reaction to an end-to-end message: the plaintext (the app's own form: the emoji, or nothing to remove) sealed and
   * queued as sendSealed's is; an entry of the log every member's client emits as a sealedMessage (relates_to reaction).
   */
  async reactSealed(conversationId: ConversationId, members: UserId[], seq: number, plaintext: Uint8Array): Promise<ReactionAck> {
    const id = crypto.randomUUID();
    const answer = await this.sender.queueSealed<ServerFrame>(id, conversationId, members, plaintext, (envelopes) => ({ type: "reaction.set", id,
      conversation_id: conversationId, target_seq: seq, emoji: null, ciphertext: { type: "ciphertext", envelopes } }), () => this.started()).acknowledged;
    // Its entry's message.ack, which the fast path posts first, answers it as well as reaction.ack does.
    return answer.type === "reaction.ack" ? answer : { type: "reaction.ack", conversation_id: conversationId, target_seq: seq, emoji: null, ref: id };
  }

  /** This device's public keys for end-to-end encryption: the counts of one-time keys the server now holds. */
  async uploadKeys(keys: Omit<KeysUpload, "type">): Promise<{ pre_key_count: number; pq_pre_key_count: number }> {
    const { pre_key_count, pq_pre_key_count } = await this.requests.request({ type: "keys.upload", ...keys }, "keys.uploaded");
    return { pre_key_count, pq_pre_key_count };
  }

  /** A user's devices' keys (or one device's), each one-time key handed to this fetch alone; not_found when there are none. */
  fetchKeys(user: UserId, device?: string): Promise<KeysBundle> {
    return this.requests.request(device === undefined ? { type: "keys.fetch", user_id: user } : { type: "keys.fetch", user_id: user, device_id: device },
      "keys.bundle");
  }

  /**
   * Sets the user's one reaction to the message at seq (null removes it); members hear it as a reactions event. Through the
   * queue: kept in the store, in the conversation's order, resent under its id across reconnects and reloads until answered.
   */
  async react(conversationId: ConversationId, seq: number, emoji: string | null): Promise<ReactionAck> {
    return await this.sender.enqueueRequest({ type: "reaction.set", conversation_id: conversationId, target_seq: seq, emoji }, this.started()) as ReactionAck;
  }

  /** The user has seen the conversation up to seq: its senders get a read receipt (sent when online). */
  markRead(conversationId: ConversationId, seq: number): void {
    this.receiving.markRead(conversationId, seq);
  }

  /** The user is typing ("start", as often as keystrokes come: the server coalesces) or stopped. */
  typing(conversationId: ConversationId, state: TypingState): void {
    if (this.connection.state === "online") this.connection.send({ type: "typing", conversation_id: conversationId, state });
  }

  /** The direct conversation with another user: created, or the existing one. The request's id is the creation's own. */
  async createDirect(other: UserId): Promise<Conversation> {
    return (await this.requests.request({ type: "conversation.create", id: crypto.randomUUID(), kind: "direct", members: [other] },
      "conversation.created")).conversation;
  }

  async createGroup(name: string, members: UserId[]): Promise<Conversation> {
    return (await this.requests.request({ type: "conversation.create", id: crypto.randomUUID(), kind: "group", members, name },
      "conversation.created")).conversation;
  }

  /** Adds members to a group (admins only); answered by the conversation as it now is, as the next two are. */
  addMembers(conversationId: ConversationId, members: UserId[]): Promise<Conversation> {
    return this.updated({ type: "conversation.members.add", conversation_id: conversationId, members });
  }

  removeMembers(conversationId: ConversationId, members: UserId[]): Promise<Conversation> {
    return this.updated({ type: "conversation.members.remove", conversation_id: conversationId, members });
  }

  /** Pins the message at seq (pinned false unpins): a group's admins, either member of a direct one; at most 10 pinned. */
  async pin(conversationId: ConversationId, seq: number, pinned = true): Promise<Conversation> {
    const answer = await this.sender.enqueueRequest({ type: "message.pin", conversation_id: conversationId, seq, pinned }, this.started());
    return (answer as ConversationUpdated).conversation;
  }

  private async updated(frame: ClientFrame): Promise<Conversation> {
    return (await this.requests.request(frame, "conversation.updated")).conversation;
  }

  /** A page of the user's conversations with their unread counts (cursor: the previous page's next_cursor). */
  conversations(cursor?: string): Promise<ConversationPage> {
    return this.requests.request(cursor === undefined ? { type: "conversation.list" } : { type: "conversation.list", cursor }, "conversation.page");
  }

  /** Older messages of a conversation, newest first (for scrolling back: they are not emitted as message events). */
  history(conversationId: ConversationId, options: { beforeSeq?: number; limit?: number } = {}): Promise<HistoryBatch> {
    const request: HistoryRequest = { type: "history.request", conversation_id: conversationId, limit: options.limit ?? 50 };
    if (options.beforeSeq !== undefined) request.before_seq = options.beforeSeq;
    return this.receiving.history(request);
  }

  /**
   * These users' presence now, then each change as a presence event, for as long as the app wants: the subscription is
   * renewed before it runs out and after every reconnect, until unsubscribePresence.
   */
  subscribePresence(users: UserId[]): Promise<PresenceBatch> {
    return this.presence.subscribe(users);
  }

  /** No more presence changes of these users (the server's subscription runs out by itself within five minutes). */
  unsubscribePresence(users: UserId[]): void {
    this.presence.unsubscribe(users);
  }

  /** A page of the user's notification inbox, newest first, with its counts. */
  inbox(options: { filter?: InboxFilter; cursor?: string; limit?: number } = {}): Promise<InboxPage> {
    return this.requests.request({ type: "inbox.list", filter: options.filter ?? "all", limit: options.limit ?? 50,
      ...(options.cursor === undefined ? {} : { cursor: options.cursor }) }, "inbox.page");
  }

  /** Marks notifications (by id, or every one up to an id) seen, read, unread or archived; answered by the new counts. */
  markInbox(target: { ids: string[] } | { upTo: string }, state: InboxMark): Promise<InboxCounts> {
    const frame: ClientFrame = "ids" in target ? { type: "inbox.mark", ids: target.ids, state } : { type: "inbox.mark", up_to: target.upTo, state };
    return this.requests.request(frame, "inbox.counts");
  }

  /** Mutes a followed topic (its notifications arrive read: no count, no push, nothing live) or unmutes it. */
  muteTopic(topic: TopicKey, muted: boolean): Promise<TopicMuted> {
    return this.requests.request({ type: "topic.mute", topic, muted }, "topic.muted");
  }

  /** No push for the conversation until the epoch ms given; null unmutes. */
  muteConversation(conversationId: ConversationId, until: number | null): Promise<ConversationMuted> {
    return this.requests.request({ type: "conversation.mute", conversation_id: conversationId, until }, "conversation.muted");
  }

  /** The user's own settings: who sees their last seen, which notification categories push. */
  updateSettings(settings: { last_seen_visibility?: LastSeenVisibility; notification_push?: Record<string, boolean> }): Promise<SettingsUpdated> {
    return this.requests.request({ type: "settings.update", ...settings }, "settings.updated");
  }

  /** Registers this device's push token (FCM or APNs). */
  registerDevice(platform: PushPlatform, token: string): Promise<DeviceRegistered> {
    return this.requests.request({ type: "device.register", platform, token }, "device.registered");
  }

  /**
   * Drops the connection and connects again at once, with a fresh token: for an app that learns the network changed (a new
   * Wi-Fi) sooner than a dead connection would show. Sends and subscriptions carry over. (A browser's online event and a tab
   * shown again reconnect an offline client by themselves.)
   */
  reconnect(): void {
    if (this.loaded !== undefined) this.connection.reconnect();
  }

  /**
   * Uploads a file for a conversation (docs/media.md): a grant, then the file posted straight to S3 with the grant's form.
   * Resolves with the content of a message naming it, to send; S3's refusal or the server's rejects, naming why.
   */
  uploadMedia(conversationId: ConversationId, file: Blob, caption?: string): Promise<Content> {
    return uploadMedia(this.requests, conversationId, file, caption);
  }

  /** Where a media object can be read now, and until when (epoch ms): a download grant. */
  mediaUrl(mediaId: string): Promise<{ url: string; expires_at: number }> {
    return mediaUrl(this.requests, mediaId);
  }

  /** Closes the connection for good, and with it every timer; the queue stays in the store, and a client started on it sends it. */
  close(): void {
    if (this.connection.state === "closed") return;
    this.connection.close();
    this.stopWatching();
    this.timers.stop();
    this.requests.failAll("the client was closed");
    this.sender.closed();
  }

  private started(): Promise<void> {
    return this.loaded ?? Promise.reject(new Error("start() the client before sending"));
  }
}
