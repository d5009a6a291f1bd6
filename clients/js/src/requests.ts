import { ParleyError } from "./errors.js";
import type { ClientFrame, ServerFrame } from "./frames.generated.js";
import type { Connection } from "./connection.js";
import type { Scheduler } from "./scheduler.js";

export type AnswerOf<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;

interface Pending {
  answerType: ServerFrame["type"];
  resolve(frame: ServerFrame): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Requests awaiting their answers, matched by ref (protocol 1.1): each goes out under an id of its own, so any number of
 * any kind may be in flight. Each settles once: its answer, an error naming it (a ParleyError), its timeout, the loss of
 * the connection or close() (an Error saying which); whatever comes for it after that is dropped.
 */
export class Requests {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly connection: Connection, private readonly timers: Scheduler, private readonly timeoutMs: number) {}

  /** An app's request: online only, so that its answer cannot come before what it depends on. */
  request<T extends ServerFrame["type"]>(frame: ClientFrame, answerType: T): Promise<AnswerOf<T>> {
    if (this.connection.state !== "online") return Promise.reject(new Error(`not connected (${this.connection.state})`));
    return this.ask(frame, answerType);
  }

  /** A request on the open connection (the client's own, too: a gap's history, presence renewed); a create's id is its own. */
  ask<T extends ServerFrame["type"]>(frame: ClientFrame, answerType: T): Promise<AnswerOf<T>> {
    if (!this.connection.open) return Promise.reject(new Error(`not connected (${this.connection.state})`));
    const id = frame.type === "conversation.create" ? frame.id : crypto.randomUUID();
    return new Promise<ServerFrame>((resolve, reject) => {
      const timer = this.timers.later(() => {
        if (this.pending.delete(id)) reject(new Error(`${frame.type} ${id} was not answered within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(id, { answerType, resolve, reject, timer });
      this.connection.send({ ...frame, id } as ClientFrame);
    }) as Promise<AnswerOf<T>>;
  }

  /**
   * Settles the request this frame answers: the one its ref names; without a ref (a server of protocol 1.0), the oldest in
   * flight awaiting a frame of its type. True when one was waiting.
   */
  answered(ref: string | null, frame: ServerFrame): boolean {
    let id = ref !== null && this.pending.has(ref) ? ref : undefined;
    if (id === undefined && ref === null && frame.type !== "error") {
      id = [...this.pending].find(([, request]) => request.answerType === frame.type)?.[0];
    }
    const request = id === undefined ? undefined : this.pending.get(id);
    if (id === undefined || request === undefined) return false;
    this.pending.delete(id);
    this.timers.cancel(request.timer);
    if (frame.type === "error") request.reject(new ParleyError(frame));
    else request.resolve(frame);
    return true;
  }

  /** Every request in flight fails: the connection that would carry its answer is gone, or the client closed. */
  failAll(why: string): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    waiting.forEach((request) => {
      this.timers.cancel(request.timer);
      request.reject(new Error(why));
    });
  }
}
