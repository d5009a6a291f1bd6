import { fromBase64, toBase64 } from "./cipher.js";
import type { EndToEndCipher, KeyDirectory } from "./cipher.js";
import type { Connection } from "./connection.js";
import { jitteredDelay } from "./connection.js";
import { ParleyError } from "./errors.js";
import type { Emitter } from "./events.js";
import { LIMITS } from "./frames.generated.js";
import type {
  ConversationId, Envelope, ErrorFrame, MessageAck, MessageDelete, MessageEdit, MessagePin, MessageSend, ReactionSet, ServerFrame, UserId,
} from "./frames.generated.js";
import { Outbox } from "./outbox.js";
import type { Scheduler } from "./scheduler.js";
import { decodeClientFrame } from "./schema-check.js";
import type { ClientStore, PendingSend, StoreWrites } from "./store.js";

/** Resends after gateway refusals wait from 250 ms, doubling per round with no ack between, up to 8 s. */
const GATEWAY_RESEND = { minMs: 250, maxMs: 8000 };
/** A send refused devices_changed this many times running fails: the devices keep changing, or the cipher errs. */
const MAX_RESEALS = 3;
const utf8 = new TextEncoder();

/**
 * The outbox on the wire: queued sends go out when online, one conversation's at a time in order, each under its own id
 * until acknowledged (a resend says its attempt); refusals are retried, sealed again (devices_changed) or fail the send; a
 * refusal of API Gateway's own resends what was on the wire after a growing wait.
 */
export class Sender {
  private outbox: Outbox | undefined;
  /** Each queued send's promise: resolved with its answer (message.ack, or a request's). */
  private readonly ackWaiters = new Map<string, { resolve(answer: ServerFrame): void; reject(error: Error): void }>();
  /** How many times running each end-to-end send was sealed again after devices_changed. */
  private readonly reseals = new Map<string, number>();
  private gatewayRefusals = 0;
  /** Seals, one after another in the order asked (a cipher's sessions are not safe to use twice at once). */
  private sealing: Promise<unknown> = Promise.resolve();
  /** What runs when a retry's time comes: the client's tick, which sends what is due. */
  onRetryDue: () => void = () => undefined;

  constructor(private readonly connection: Connection, private readonly timers: Scheduler, private readonly events: Emitter,
              private readonly store: ClientStore, private readonly writes: StoreWrites, private readonly keys: KeyDirectory,
              private readonly cipher: EndToEndCipher | undefined) {}

  load(pending: readonly PendingSend[]): void {
    this.outbox = new Outbox(pending);
  }

  get pendingSends(): PendingSend[] {
    return this.outbox?.all() ?? [];
  }

  get pendingCount(): number {
    return this.outbox?.size ?? 0;
  }

  /**
   * An entry of the log (a send, an edit, a delete) queued once the store is loaded: refused here, naming why, if the server
   * would refuse it at once; else kept in the store, sent in its conversation's order and resent under its id until its ack.
   */
  enqueue(frame: MessageSend | MessageEdit | MessageDelete, started: Promise<void>): { id: string; queued: Promise<void>; acknowledged: Promise<MessageAck> } {
    const text = JSON.stringify(frame);
    const refused = this.refusal(text, frame.id);
    if (refused !== undefined) return { id: frame.id, queued: handled(Promise.reject(refused)), acknowledged: handled(Promise.reject(refused)) };
    return this.queue(frame.id, started.then(() => ({ id: frame.id, conversation_id: frame.conversation_id, frame: text })));
  }

  /**
   * A request that changes a message (a reaction, a pin) queued as the log's entries are: kept in the store, sent in its
   * conversation's order, resent under its id (a repeat sets the same again) until answered; resolves with the answer.
   */
  enqueueRequest(request: ReactionSet | MessagePin, started: Promise<void>): Promise<ServerFrame> {
    const frame = { ...request, id: crypto.randomUUID() };
    const text = JSON.stringify(frame);
    const refused = this.refusal(text, frame.id);
    if (refused !== undefined) return handled(Promise.reject(refused));
    return this.queue<ServerFrame>(frame.id, started.then(() => ({ id: frame.id, conversation_id: frame.conversation_id, frame: text }))).acknowledged;
  }

  /**
   * An end-to-end entry (a send, a sealed reaction) queued once the cipher sealed it, seals in the order asked; frame makes
   * its frame of the envelopes. Sealed again on devices_changed; what it was sealed from stays in the store until answered.
   */
  queueSealed<Answer extends ServerFrame>(id: string, conversationId: ConversationId, members: UserId[], plaintext: Uint8Array,
                                          frame: (envelopes: Envelope[]) => MessageSend | ReactionSet, started: () => Promise<void>) {
    const cipher = this.cipher;
    if (cipher === undefined) throw new Error("no cipher was given to the client (options.cipher)");
    const sealed = { members: [...members], plaintext: toBase64(plaintext) };
    const pending = started().then(() => this.serially(() => cipher.seal(conversationId, members, plaintext, this.keys))).then((envelopes) => {
      const text = JSON.stringify(frame(envelopes));
      const refused = this.refusal(text, id);
      if (refused !== undefined) throw refused;
      return { id, conversation_id: conversationId, frame: text, sealed };
    });
    return this.queue<Answer>(id, pending);
  }

  /** An answer naming a queued request (ref): it is done, out of the store, and the next go; the request, if one was queued. */
  answered(ref: string | null, answer: ServerFrame): PendingSend | undefined {
    const send = ref === null ? undefined : this.outbox?.remove(ref);
    if (send === undefined) return undefined;
    void this.writes.write(() => this.store.removePendingSend(send.id));
    this.ackWaiters.get(send.id)?.resolve(answer);
    this.ackWaiters.delete(send.id);
    this.gatewayRefusals = 0;
    this.transmitReady();
    return send;
  }

  /** Why the server would refuse this entry at once, if it would: checked here so that no queue holds it. */
  refusal(text: string, id: string): ParleyError | undefined {
    const size = utf8.encode(text).length;
    if (size > LIMITS.max_frame_bytes) {
      return ParleyError.of("too_large", `the ${JSON.parse(text).type} frame is ${size} bytes; a frame may be at most ${LIMITS.max_frame_bytes}`, id);
    }
    const decoded = decodeClientFrame(text);
    if (!decoded.ok) return ParleyError.of("bad_request", decoded.reason, id);
    if (JSON.parse(text).content?.type === "void") return ParleyError.of("bad_request", "content.type: void is written by the server only", id);
    return undefined;
  }

  /** A send on its way to the store and the queue: its promises, of which queued rejects if it never gets there. */
  queue<Answer extends ServerFrame = MessageAck>(id: string, pending: Promise<PendingSend>): { id: string; queued: Promise<void>; acknowledged: Promise<Answer> } {
    const acknowledged = handled(new Promise<Answer>((resolve, reject) =>
      this.ackWaiters.set(id, { resolve: (answer) => resolve(answer as Answer), reject })));
    const queued = handled(pending.then((send) => this.writes.write(() => this.store.addPendingSend(send)).then(() => {
      // Closed meanwhile: it is in the store all the same, and a client started on the store sends it.
      if (this.connection.state === "closed") return;
      this.outbox?.add(send);
      this.transmitReady();
    })));
    queued.catch((error: Error) => {
      this.ackWaiters.get(id)?.reject(error);
      this.ackWaiters.delete(id);
    });
    return { id, queued, acknowledged };
  }

  /** Seals in the order asked. */
  serially<T>(work: () => Promise<T>): Promise<T> {
    const result = this.sealing.then(work);
    this.sealing = result.catch(() => undefined);
    return result;
  }

  /** The send this ack is for, when it was pending: out of the store, its promise resolved, the app told, the next sends go. */
  acknowledged(ack: MessageAck): PendingSend | undefined {
    this.gatewayRefusals = 0;
    const send = this.outbox?.acknowledged(ack);
    if (send !== undefined) {
      void this.writes.write(() => this.store.removePendingSend(send.id));
      this.reseals.delete(send.id);
      this.ackWaiters.get(ack.id)?.resolve(ack);
      this.ackWaiters.delete(ack.id);
      this.events.emit("sent", ack);
    }
    this.transmitReady();
    return send;
  }

  /** The pending send with this id (its own message may arrive before its ack). */
  find(id: string): PendingSend | undefined {
    return this.outbox?.find(id);
  }

  /** An error that names a pending send: retried, sealed again, or the send fails. False when it names none. */
  refused(error: ErrorFrame): boolean {
    const send = this.outbox?.find(error.ref ?? "");
    if (send === undefined) return false;
    const reseals = (this.reseals.get(send.id) ?? 0) + 1;
    if (error.code === "devices_changed" && send.sealed !== undefined && this.cipher !== undefined && reseals <= MAX_RESEALS) {
      this.reseals.set(send.id, reseals);
      this.reseal(this.cipher, send, error);
    } else if (retryable(error)) {
      const wait = error.retry_after_ms ?? (error.code === "conflict" ? 500 : 1000);
      this.outbox?.retryAt(send.id, Date.now() + wait);
      this.timers.later(() => this.onRetryDue(), wait);
    } else {
      this.fail(send, error);
    }
    return true;
  }

  /** A send refused for good: out of the queue and the store, its promise rejected, the app told; the conversation goes on. */
  private fail(send: PendingSend, error: ErrorFrame): void {
    this.outbox?.remove(send.id);
    this.reseals.delete(send.id);
    void this.writes.write(() => this.store.removePendingSend(send.id));
    this.ackWaiters.get(send.id)?.reject(new ParleyError(error));
    this.ackWaiters.delete(send.id);
    this.events.emit("sendFailed", { send, error });
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
      const previous = JSON.parse(send.frame) as MessageSend | ReactionSet;
      const content = { type: "ciphertext" as const, envelopes };
      const text = JSON.stringify(previous.type === "reaction.set" ? { ...previous, ciphertext: content } : { ...previous, content });
      const refused = this.refusal(text, send.id);
      if (refused !== undefined) throw refused;
      const resealed: PendingSend = { ...send, frame: text };
      this.outbox?.resealed(resealed, Date.now());
      void this.writes.write(() => this.store.replacePendingSend(resealed));
      this.onRetryDue();
      this.transmitReady();
    }).catch((failure: Error) => {
      if (this.connection.state === "closed") return;
      this.fail(send, failure instanceof ParleyError ? failure.frame
        : { type: "error", code: "bad_request", message: `sealing the message again failed: ${failure.message}`, ref: send.id });
    });
  }

  /** Online again: what is queued goes, and gateway refusals count afresh. */
  online(): void {
    this.gatewayRefusals = 0;
    this.transmitReady();
  }

  transmitReady(): void {
    if (this.connection.state === "online") this.outbox?.ready().forEach((send) => this.transmit(send));
  }

  /** Sends whose ack is overdue go again (same id). */
  resendOverdue(now: number, ackTimeoutMs: number): void {
    this.outbox?.due(now - ackTimeoutMs, now).forEach((send) => this.transmit(send));
  }

  /**
   * A send on the wire; a resend of a log entry says so (attempt), so that the server checks for it before taking a seq. A
   * request (a reaction, a pin) goes again as it was: it sets the same again, and has no attempt to count.
   */
  private transmit(send: PendingSend): void {
    if (!this.connection.open || this.outbox === undefined) return;
    const attempt = this.outbox.transmitted(send.id, Date.now());
    const frame = JSON.parse(send.frame) as { type: string };
    const entry = frame.type === "message.send" || frame.type === "message.edit" || frame.type === "message.delete";
    this.connection.send(attempt === 1 || !entry ? send.frame : JSON.stringify({ ...frame, attempt }));
  }

  /**
   * API Gateway refused a frame before any function saw it, in a frame naming no id of ours: every send on the wire goes
   * again after a jittered backoff (doubling per round of refusals with no ack between), not after the ack timeout.
   * resync is told the wait, and says whether a sync is asked again after it.
   */
  gatewayRefused(resync: (waitMs: number) => boolean): void {
    const wait = jitteredDelay(GATEWAY_RESEND.minMs, GATEWAY_RESEND.maxMs, this.gatewayRefusals);
    const resending = this.outbox?.gatewayRefused(Date.now() + wait) ?? false;
    const resyncing = resync(wait);
    if (resending || resyncing) {
      this.gatewayRefusals++;
      this.timers.later(() => this.onRetryDue(), wait);
    }
  }

  connectionLost(): void {
    this.outbox?.connectionLost();
  }

  closed(): void {
    const closed = new Error("the client was closed before the ack");
    this.ackWaiters.forEach((waiter) => waiter.reject(closed));
    this.ackWaiters.clear();
  }
}

/** What the protocol says to retry with the same frame: a limit, a send still being stored, a server failure. */
function retryable(error: ErrorFrame): boolean {
  return error.code === "rate_limited" || error.code === "internal" || (error.code === "conflict" && error.message.includes("still in progress"));
}

/** A promise whose rejection the app may ignore without an unhandled-rejection warning (it still rejects for whoever awaits it). */
export function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}
