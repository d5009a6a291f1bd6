import type {
  Content, Conversation, ConversationId, ErrorFrame, Message, MessageAck, Notification, Presence, ReactionsUpdate, ReceiptUpdate, RelationKind,
  TypingUpdate, UserId,
} from "./frames.generated.js";
import type { PendingSend } from "./store.js";

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
  /**
   * A message's reactions now (the whole list, exact counts, newest users first): at most one a second per message, the last
   * within about a second of the last reaction. History and sync list a message with its reactions too.
   */
  reactions: ReactionsUpdate;
  /**
   * A message changed (an edit, or a delete for everyone), once per change in seq order after the message it changes: the
   * message at seq now has this content (an edit's text or caption, or ciphertext; {type: "deleted"} after a delete), since
   * at (epoch ms). entry is the change itself, which also comes as a message event (a sealed edit as a sealedMessage event).
   */
  change: MessageChange;
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

/** What a change event carries. */
export interface MessageChange {
  conversation_id: ConversationId;
  seq: number;
  kind: RelationKind;
  content: Content;
  at: number;
  entry: Message;
}

/** A send the app queued: its id, when it is safely queued (in the store), and its acknowledgement. */
export interface OutgoingMessage {
  id: string;
  /** Resolves once the send is in the store: from then on a reload or restart sends it (once). */
  queued: Promise<void>;
  /** Resolves with the server's ack (the message's seq); rejects with a ParleyError when refused for good. */
  acknowledged: Promise<MessageAck>;
}

/** The app's listeners: a listener that throws is logged, and never stops the client's own work (a reconnect, a batch). */
export class Emitter {
  private readonly listeners = new Map<ParleyEventName, Set<(value: never) => void>>();

  on<E extends ParleyEventName>(event: E, listener: (value: ParleyEvents[E]) => void): () => void {
    const set = this.listeners.get(event) ?? new Set();
    set.add(listener as (value: never) => void);
    this.listeners.set(event, set);
    return () => set.delete(listener as (value: never) => void);
  }

  emit<E extends ParleyEventName>(event: E, value: ParleyEvents[E]): void {
    for (const listener of this.listeners.get(event) ?? []) {
      try {
        (listener as (value: ParleyEvents[E]) => void)(value);
      } catch (appFailure) {
        console.warn(`a Parley '${event}' listener threw`, appFailure);
      }
    }
  }
}
