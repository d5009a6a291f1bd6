import type { ClientFrame } from "./frames.generated.js";
import type { ConnectionState, StateChange, StateReason } from "./events.js";
import type { Scheduler } from "./scheduler.js";
import type { Settings } from "./settings.js";
import type { WebSocketLike } from "./transport.js";

/** What the connection tells the rest of the client. */
export interface ConnectionEvents {
  opened(): void;
  text(frame: string): void;
  lost(why: string): void;
}

/** A connection must stay online this long before the reconnect backoff starts again from its minimum. */
export const STABLE_AFTER_MS = 10_000;

/** Where a delay of a growing series is drawn: from the upper half of min doubled attempt times, at most max. */
export function jitteredDelay(minMs: number, maxMs: number, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, minMs * 2 ** Math.min(attempt, 20));
  return Math.floor(ceiling / 2 + random() * (ceiling / 2 + 1));
}

/**
 * The connection, kept up: a fresh token before each connect, reconnects with jittered exponential backoff (started over
 * only after STABLE_AFTER_MS online, so a server that accepts and closes at once is not retried at the shortest wait), a
 * ping when quiet and the end of a connection that stays silent, and each change of state with its reason.
 */
export class Connection {
  private socket: WebSocketLike | undefined;
  /** Which connection the socket's events are about: a late event of an old one is dropped. */
  private number = 0;
  private current: ConnectionState = "offline";
  private failedAttempts = 0;
  private onlineSince = -1;
  private lastFrameAt = 0;
  private lastPingAt = 0;
  private pendingRetry: ReturnType<typeof setTimeout> | undefined;
  private events: ConnectionEvents | undefined;

  constructor(private readonly settings: Settings, private readonly timers: Scheduler, private readonly changed: (change: StateChange) => void) {}

  bind(events: ConnectionEvents): void {
    this.events = events;
  }

  get state(): ConnectionState {
    return this.current;
  }

  get open(): boolean {
    return this.socket !== undefined;
  }

  send(frame: ClientFrame | string): void {
    this.socket?.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  start(): void {
    void this.connect("started");
  }

  /** Caught up: online. */
  synced(): boolean {
    if (this.current !== "syncing") return false;
    this.onlineSince = Date.now();
    this.setState("online", "synced");
    return true;
  }

  /** Drops the connection and connects again at once (the app knows the network changed). */
  reconnect(): void {
    if (this.current === "closed") return;
    const socket = this.socket;
    this.failedAttempts = 0;
    this.disconnected(this.number, "connection_lost", "the app asked to reconnect", 0);
    socket?.close(1000, "reconnecting");
  }

  /** Offline and the network is back: try now, not at the backoff's end. */
  wakeUp(): void {
    if (this.current !== "offline") return;
    this.timers.cancel(this.pendingRetry);
    void this.connect("reconnect_requested");
  }

  /** Every tick: a ping when the connection has been quiet, and the end of one that has not answered even that. */
  heartbeat(now: number): void {
    if (this.socket === undefined) return;
    if (now - this.lastFrameAt > this.settings.pingIntervalMs * 2) {
      const dead = this.socket;
      this.disconnected(this.number, "heartbeat_timeout", `no answer for ${now - this.lastFrameAt} ms`);
      dead.close();
    } else if (now - this.lastPingAt > this.settings.pingIntervalMs) {
      this.lastPingAt = now;
      this.send({ type: "ping" });
    }
  }

  close(): void {
    if (this.current === "closed") return;
    this.setState("closed", "closed");
    this.socket?.close(1000, "closed by the app");
    this.socket = undefined;
  }

  private async connect(reason: StateReason): Promise<void> {
    if (this.current === "closed") return;
    this.pendingRetry = undefined;
    this.setState("connecting", reason);
    const number = ++this.number;
    let token: string;
    try {
      token = await this.settings.token();
      if (typeof token !== "string" || token.length === 0) throw new Error("the token callback gave no token");
    } catch (error) {
      this.disconnected(number, "connect_failed", `no token: ${(error as Error).message}`);
      return;
    }
    // The app may have closed the client while the token was fetched.
    if (number !== this.number || (this.current as ConnectionState) === "closed") return;
    let socket: WebSocketLike;
    const url = this.settings.url;
    try {
      socket = this.settings.webSocket(`${url}${url.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}`);
    } catch (error) {
      this.disconnected(number, "connect_failed", `could not connect: ${(error as Error).message}`);
      return;
    }
    const opening = this.timers.later(() => {
      if (number === this.number && this.socket !== socket) {
        socket.close();
        this.disconnected(number, "connect_failed", `not open after ${this.settings.connectTimeoutMs} ms`);
      }
    }, this.settings.connectTimeoutMs);
    let opened = false;
    socket.onopen = () => {
      this.timers.cancel(opening);
      opened = true;
      if (number !== this.number || this.current === "closed") {
        socket.close();
        return;
      }
      this.socket = socket;
      this.lastFrameAt = Date.now();
      this.lastPingAt = Date.now();
      this.setState("syncing", "connected");
      this.events?.opened();
    };
    socket.onmessage = (event) => {
      if (number !== this.number) return;
      this.lastFrameAt = Date.now();
      this.events?.text(typeof event.data === "string" ? event.data : String(event.data));
    };
    socket.onclose = (event) => {
      this.timers.cancel(opening);
      const why = `closed (${event.code}${event.reason ? `: ${event.reason}` : ""})`;
      // Refused before it opened: a browser says no more than 1006; 4401/4403 or a reason naming 401/403 is the token.
      const reason: StateReason = !opened ? (/40[13]/.test(`${event.code} ${event.reason}`) ? "unauthorized" : "connect_failed")
        : event.code === 1006 ? "connection_lost" : "server_closed";
      this.disconnected(number, reason, why);
    };
    socket.onerror = () => {
      // A close event follows; the reconnect is scheduled there.
    };
  }

  private disconnected(number: number, reason: StateReason, why: string, delayMs?: number): void {
    if (number !== this.number || this.current === "closed") return;
    this.socket = undefined;
    this.number++;
    if (this.onlineSince >= 0 && Date.now() - this.onlineSince >= STABLE_AFTER_MS) this.failedAttempts = 0;
    this.onlineSince = -1;
    this.events?.lost(why);
    const wait = delayMs ?? jitteredDelay(this.settings.backoff.minMs, this.settings.backoff.maxMs, this.failedAttempts++);
    this.setState("offline", reason, wait, why);
    this.pendingRetry = this.timers.later(() => void this.connect("retrying"), wait);
  }

  private setState(next: ConnectionState, reason: StateReason, retryInMs: number | null = null, detail?: string): void {
    const previous = this.current;
    if (previous === next) return;
    this.current = next;
    const change: StateChange = { state: next, previous, reason, retry_in_ms: next === "offline" ? retryInMs : null };
    if (detail !== undefined) change.detail = detail;
    this.changed(change);
  }
}
