// A stand-in for Parley's WebSocket API in the unit tests: real sockets (the `ws` package), with frames the test writes.
import { WebSocketServer, WebSocket } from "ws";
import type { AddressInfo } from "node:net";
import type { ClientFrame, Message, ServerFrame } from "../src/frames.generated.js";

/** One client connection as the server sees it. */
export class FakeConnection {
  readonly frames: ClientFrame[] = [];
  /** Frames a next() has returned: each is returned once. */
  private readonly taken = new Set<ClientFrame>();
  private waiters: { match: (frame: ClientFrame) => boolean; resolve: (frame: ClientFrame) => void }[] = [];

  constructor(readonly socket: WebSocket, readonly token: string | null) {
    socket.on("message", (data) => {
      const frame = JSON.parse(String(data)) as ClientFrame;
      this.frames.push(frame);
      const waiter = this.waiters.find((candidate) => candidate.match(frame));
      if (waiter !== undefined) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        this.taken.add(frame);
        waiter.resolve(frame);
      }
    });
  }

  send(frame: ServerFrame | Record<string, unknown>): void {
    this.socket.send(JSON.stringify(frame));
  }

  /** The next frame of this type (or one already received and not yet taken by another wait), within the timeout. */
  next<T extends ClientFrame["type"]>(type: T, timeoutMs = 3000, match: (frame: Extract<ClientFrame, { type: T }>) => boolean = () => true,
  ): Promise<Extract<ClientFrame, { type: T }>> {
    const fits = (frame: ClientFrame): boolean => frame.type === type && match(frame as Extract<ClientFrame, { type: T }>);
    const arrived = this.frames.find((frame) => !this.taken.has(frame) && fits(frame));
    if (arrived !== undefined) {
      this.taken.add(arrived);
      return Promise.resolve(arrived as Extract<ClientFrame, { type: T }>);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} within ${timeoutMs} ms; got ${this.frames.map((f) => f.type).join(", ")}`)), timeoutMs);
      this.waiters.push({ match: fits, resolve: (frame) => {
        clearTimeout(timer);
        resolve(frame as Extract<ClientFrame, { type: T }>);
      } });
    });
  }

  /** Frames of a type received so far. */
  all<T extends ClientFrame["type"]>(type: T): Extract<ClientFrame, { type: T }>[] {
    return this.frames.filter((frame) => frame.type === type) as Extract<ClientFrame, { type: T }>[];
  }

  /**
   * Answers the next sync: nothing missed, in the conversations named (an empty page each, which tells a client new to one
   * where it starts; until then its live messages wait, as they do against the real server).
   */
  async syncNothing(...conversations: string[]): Promise<void> {
    const sync = await this.next("sync.request");
    for (const conversation of conversations) {
      const after = sync.state[conversation] ?? 0;
      this.send({ type: "sync.batch", conversation_id: conversation, after_seq: after, messages: [], has_more: false, delivered_seq: 0,
        read_seq: 0, last_seq: after });
    }
    this.send({ type: "sync.done", changes_at: SYNCED_AT });
  }

  /** Drops the connection as a network failure would (no close frame). */
  kill(): void {
    this.socket.terminate();
  }
}

/** The changes_at every sync the fake answers ends with. */
export const SYNCED_AT = 1_700_000_000_000;

export class FakeServer {
  readonly connections: FakeConnection[] = [];
  private waiting: ((connection: FakeConnection) => void)[] = [];
  private unclaimed: FakeConnection[] = [];

  private constructor(private readonly server: WebSocketServer, readonly url: string) {
    server.on("connection", (socket, request) => {
      const token = new URL(request.url ?? "/", "http://localhost").searchParams.get("token");
      const connection = new FakeConnection(socket, token);
      this.connections.push(connection);
      const waiter = this.waiting.shift();
      if (waiter === undefined) this.unclaimed.push(connection);
      else waiter(connection);
    });
  }

  /** A server on this port, or on any free one. */
  static async start(port = 0): Promise<FakeServer> {
    const server = new WebSocketServer({ port, host: "127.0.0.1" });
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    return new FakeServer(server, `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  }

  /** The next connection to open (or the last one opened and not yet taken), within the timeout. */
  /** Drops this connection as a network would, and answers the client's next one's sync with nothing missed in these conversations. */
  async dropAndResume(connection: FakeConnection, ...conversations: string[]): Promise<FakeConnection> {
    const reconnecting = this.nextConnection();
    connection.kill();
    const next = await reconnecting;
    await next.syncNothing(...conversations);
    return next;
  }

  nextConnection(timeoutMs = 5000): Promise<FakeConnection> {
    const opened = this.unclaimed.shift();
    if (opened !== undefined) return Promise.resolve(opened);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no connection within ${timeoutMs} ms`)), timeoutMs);
      this.waiting.push((connection) => {
        clearTimeout(timer);
        resolve(connection);
      });
    });
  }

  async close(): Promise<void> {
    this.connections.forEach((connection) => connection.socket.terminate());
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let messageNumber = 0;

/** A stored message as the server sends it. */
export function message(conversation: string, seq: number, body = `m${seq}`, sender = "bob"): Message {
  messageNumber++;
  return {
    id: `00000000-0000-4000-8000-${String(messageNumber).padStart(12, "0")}`,
    conversation_id: conversation,
    seq,
    sender_id: sender,
    sender_device: "phone",
    content: { type: "text", body },
    server_timestamp: 1_700_000_000_000 + seq,
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the condition holds, polling; fails naming what it waited for. */
export async function until(what: string, condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}
