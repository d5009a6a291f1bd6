import type { Connection, ConnectionEvents } from "./connection.js";
import type { Emitter } from "./events.js";
import type { ErrorFrame, ServerFrame } from "./frames.generated.js";
import type { PresenceWatch } from "./presence.js";
import type { Receiving } from "./receiving.js";
import type { Requests } from "./requests.js";
import type { Sender } from "./sender.js";
import { decodeServerFrame } from "./schema-check.js";
import { isGatewayRefusal } from "./transport.js";

/** Frames the server pushes: they answer no request. */
const PUSHES = new Set<ServerFrame["type"]>(["message.receive", "receipt.update", "typing.update", "notification.receive", "presence.update",
  "identity.changed", "keys.low", "reactions.update"]);

/**
 * Where the parts meet: each frame the server sends goes to the part it is for (a push to the app, an answer to its request,
 * messages to their timelines, an ack to the outbox), each connect starts a sync, and a tick every 200 ms drives the timers.
 * A new push is one case here and one event in ParleyEvents; a new request is one method of ParleyClient.
 */
export class Session implements ConnectionEvents {
  constructor(private readonly connection: Connection, private readonly requests: Requests, private readonly sender: Sender,
              private readonly receiving: Receiving, private readonly presence: PresenceWatch, private readonly events: Emitter,
              private readonly ackTimeoutMs: number) {
    sender.onRetryDue = () => this.tick();
  }

  opened(): void {
    this.receiving.sync();
  }

  lost(why: string): void {
    this.sender.connectionLost();
    this.requests.failAll(`disconnected: ${why}`);
  }

  text(text: string): void {
    const decoded = decodeServerFrame(text);
    if (!decoded.ok) {
      if (isGatewayRefusal(text)) this.sender.gatewayRefused((wait) => this.receiving.resyncAfter(wait));
      else this.events.emit("error", { type: "error", code: "internal", message: `the client could not read a frame: ${decoded.reason}`, ref: null });
      return;
    }
    const frame = decoded.frame;
    this.receiving.take(frame);
    switch (frame.type) {
      case "sync.done":
        this.synced(frame);
        break;
      case "message.ack": {
        const send = this.sender.acknowledged(frame);
        if (send !== undefined) this.receiving.acknowledged(frame, send);
        break;
      }
      case "error":
        this.refused(frame);
        break;
      case "receipt.update":
        this.events.emit("receipt", frame);
        break;
      case "typing.update":
        this.events.emit("typing", frame);
        break;
      case "presence.update": {
        const { type: _type, ...presence } = frame;
        this.events.emit("presence", presence);
        break;
      }
      case "presence.batch":
        frame.users.forEach((presence) => this.events.emit("presence", presence));
        break;
      case "notification.receive": {
        const { type: _type, ...notification } = frame;
        this.events.emit("notification", notification);
        this.connection.send({ type: "notification.ack", ids: [notification.notification_id] });
        break;
      }
      case "inbox.counts":
        this.events.emit("inboxCounts", { unread_count: frame.unread_count, unseen_count: frame.unseen_count });
        break;
      case "conversation.created":
      case "conversation.updated":
        this.events.emit("conversation", frame.conversation);
        break;
      case "keys.low":
        this.events.emit("keysLow", { pre_key_count: frame.pre_key_count, pq_pre_key_count: frame.pq_pre_key_count });
        break;
      case "identity.changed":
        this.events.emit("identityChanged", frame.user_id);
        break;
      default:
        break;
    }
    if (frame.type !== "error" && frame.type !== "sync.batch" && frame.type !== "message.ack" && !PUSHES.has(frame.type)) {
      const ref = (frame as { ref?: string | null }).ref ?? null;
      const request = this.sender.answered(ref, frame);
      if (request === undefined) this.requests.answered(ref, frame);
      else this.receiving.requestAnswered(request);
    }
  }

  /** An error answers a send (its id), a request (its id), or the sync in flight (its id); else it is the app's to hear. */
  private refused(error: ErrorFrame): void {
    if (this.sender.refused(error) || this.requests.answered(error.ref, error) || this.receiving.syncRefused(error)) return;
    this.events.emit("error", error);
  }

  /** Caught up: the queue goes out, what the app read while offline is told, presence is subscribed again. */
  private synced(done: { changes_at: number; reaction_pages?: number }): void {
    this.receiving.synced(done);
    if (!this.connection.synced()) return;
    this.receiving.online();
    this.sender.online();
    this.presence.renew();
  }

  /** Every 200 ms: a sync unanswered, gaps to fill, presence to renew, sends whose ack is overdue, the heartbeat. */
  tick(): void {
    if (!this.connection.open) return;
    const now = Date.now();
    this.receiving.tick(now);
    if (this.connection.state === "online") {
      this.presence.renewIfDue(now);
      this.sender.resendOverdue(now, this.ackTimeoutMs);
    }
    this.connection.heartbeat(now);
  }
}
