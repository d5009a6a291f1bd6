import type { ClientMessageId, ConversationId, MessageAck } from "./frames.generated.js";
import type { PendingSend } from "./store.js";

/** Where one send of the queue stands on the current connection. */
interface OnTheWire {
  /** When it went out (ms since the epoch). */
  sentAt: number;
  /** When it goes out again before its ack timeout, if the server or its gateway refused it. */
  resendAt?: number;
}

/**
 * The sends not yet acknowledged, per conversation in the order the app made them: only the first of each conversation is
 * on the wire at a time (the server handles frames independently, so the next waits for its ack to keep the app's order).
 * A send stays until its ack comes, whatever reconnects happen; sent again with the same id, it is stored once. The same
 * rules as the Java client's Outbox.
 */
export class Outbox {
  private readonly queues = new Map<ConversationId, PendingSend[]>();
  private readonly wire = new Map<ClientMessageId, OnTheWire>();
  /** How many times each send went out, on any connection: its next transmission is attempt this plus one. */
  private readonly transmissions = new Map<ClientMessageId, number>();

  /** Sends an earlier run left unacknowledged: they go out again under their own ids, as resends (they may have arrived). */
  constructor(restored: readonly PendingSend[]) {
    for (const send of restored) {
      this.enqueue(send);
      this.transmissions.set(send.id, 1);
    }
  }

  add(send: PendingSend): void {
    this.enqueue(send);
  }

  private enqueue(send: PendingSend): void {
    const queue = this.queues.get(send.conversation_id) ?? [];
    queue.push(send);
    this.queues.set(send.conversation_id, queue);
  }

  get size(): number {
    let count = 0;
    for (const queue of this.queues.values()) count += queue.length;
    return count;
  }

  /** Every send queued, per conversation in order. */
  all(): PendingSend[] {
    return [...this.queues.values()].flat();
  }

  /** The heads of the queues not on the wire yet. */
  ready(): PendingSend[] {
    return this.heads().filter((head) => !this.wire.has(head.id));
  }

  /** Heads on the wire since before {@code sentBefore} with no answer and no resend scheduled, and those whose resend is due. */
  due(sentBefore: number, now: number): PendingSend[] {
    return this.heads().filter((head) => {
      const state = this.wire.get(head.id);
      if (state === undefined) return false;
      return state.resendAt === undefined ? state.sentAt < sentBefore : state.resendAt <= now;
    });
  }

  /** Records a transmission; returns its attempt number (1 for the first, on whatever connection). */
  transmitted(id: ClientMessageId, at: number): number {
    this.wire.set(id, { sentAt: at });
    const attempt = (this.transmissions.get(id) ?? 0) + 1;
    this.transmissions.set(id, attempt);
    return attempt;
  }

  /** The server answered this send with a wait (a limit, a send still being stored): it goes again at {@code at}. */
  retryAt(id: ClientMessageId, at: number): void {
    const state = this.wire.get(id);
    if (state !== undefined) state.resendAt = at;
  }

  /**
   * The gateway refused a frame without saying which: every head on the wire with no resend scheduled goes again at {@code at}.
   * False when there was none, so that a burst of refusals counts as one round.
   */
  gatewayRefused(at: number): boolean {
    let scheduled = false;
    for (const state of this.wire.values()) {
      if (state.resendAt === undefined) {
        state.resendAt = at;
        scheduled = true;
      }
    }
    return scheduled;
  }

  /** A send being sealed again (devices_changed): nothing sends it until resealed(). */
  hold(id: ClientMessageId): void {
    const state = this.wire.get(id);
    if (state !== undefined) state.resendAt = Number.MAX_SAFE_INTEGER;
  }

  /** The send sealed again: it takes its old place, and goes out at {@code now} (or on the next connection). */
  resealed(send: PendingSend, now: number): void {
    for (const queue of this.queues.values()) {
      const index = queue.findIndex((held) => held.id === send.id);
      if (index >= 0) {
        queue[index] = send;
        const state = this.wire.get(send.id);
        if (state !== undefined) state.resendAt = now;
        return;
      }
    }
  }

  /** The connection is gone: every head goes out again on the next one. */
  connectionLost(): void {
    this.wire.clear();
  }

  find(id: string): PendingSend | undefined {
    for (const queue of this.queues.values()) {
      const send = queue.find((pending) => pending.id === id);
      if (send !== undefined) return send;
    }
    return undefined;
  }

  /** The send this ack is for, done with; undefined for an ack seen already (the server may send one twice). */
  acknowledged(ack: MessageAck): PendingSend | undefined {
    return this.remove(ack.id);
  }

  remove(id: ClientMessageId): PendingSend | undefined {
    for (const queue of this.queues.values()) {
      const index = queue.findIndex((send) => send.id === id);
      if (index >= 0) {
        const [send] = queue.splice(index, 1);
        this.wire.delete(id);
        this.transmissions.delete(id);
        return send;
      }
    }
    return undefined;
  }

  private heads(): PendingSend[] {
    const heads: PendingSend[] = [];
    for (const queue of this.queues.values()) {
      const head = queue[0];
      if (head !== undefined) heads.push(head);
    }
    return heads;
  }
}
