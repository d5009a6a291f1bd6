import type { EndToEndCipher } from "./cipher.js";
import { LIMITS } from "./frames.generated.js";
import type { UserId } from "./frames.generated.js";
import { MemoryClientStore } from "./store.js";
import type { ClientStore } from "./store.js";
import { platformWebSocket } from "./transport.js";
import type { WebSocketFactory } from "./transport.js";

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
  /** How long a request waits for its answer (10 s). */
  requestTimeoutMs?: number;
  /** How long opening the WebSocket may take before it is given up and tried again. */
  connectTimeoutMs?: number;
  /** How often followed users' presence is subscribed again: four fifths of the server's five minutes by default. */
  presenceRenewalMs?: number;
  /** End-to-end encryption, the app's (docs/e2e.md): needed for sendSealed and to open envelopes. */
  cipher?: EndToEndCipher;
  /**
   * In Node, whether a started client keeps the process alive until close() (default true): a program whose only work is
   * the client does not exit while it reconnects with sends queued. false: its timers are unref'ed, as before protocol 1.1.
   */
  keepProcessAlive?: boolean;
}

/** The options with their defaults, checked. */
export interface Settings {
  url: string;
  user: UserId;
  device: string;
  token: () => string | Promise<string>;
  webSocket: WebSocketFactory;
  store: ClientStore;
  backoff: { minMs: number; maxMs: number };
  gapTimeoutMs: number;
  pingIntervalMs: number;
  ackTimeoutMs: number;
  requestTimeoutMs: number;
  connectTimeoutMs: number;
  presenceRenewalMs: number;
  cipher: EndToEndCipher | undefined;
  keepProcessAlive: boolean;
}

/** The longest presence subscription the server grants; the client renews at four fifths of it. */
export const PRESENCE_TTL_SECONDS = LIMITS.max_presence_ttl_seconds;

export function settingsOf(options: ParleyClientOptions): Settings {
  for (const field of ["url", "user", "device"] as const) {
    if (typeof options[field] !== "string" || options[field].length === 0) {
      throw new TypeError(`options.${field} must be a non-empty string`);
    }
  }
  if (typeof options.token !== "function") throw new TypeError("options.token must be a function that returns a token");
  const backoff = options.backoff ?? { minMs: 250, maxMs: 30_000 };
  if (!(backoff.minMs > 0 && backoff.maxMs >= backoff.minMs)) {
    throw new RangeError(`backoff must have 0 < minMs <= maxMs, was ${backoff.minMs} and ${backoff.maxMs}`);
  }
  const presenceRenewalMs = options.presenceRenewalMs ?? PRESENCE_TTL_SECONDS * 800;
  if (!(presenceRenewalMs > 0 && presenceRenewalMs < PRESENCE_TTL_SECONDS * 1000)) {
    throw new RangeError(`presenceRenewalMs must be above 0 and under the subscription's ${PRESENCE_TTL_SECONDS} s, was ${presenceRenewalMs}`);
  }
  return {
    url: options.url, user: options.user, device: options.device, token: options.token,
    webSocket: options.webSocket ?? platformWebSocket(), store: options.store ?? new MemoryClientStore(), backoff,
    gapTimeoutMs: options.gapTimeoutMs ?? 2000, pingIntervalMs: options.pingIntervalMs ?? 240_000, ackTimeoutMs: options.ackTimeoutMs ?? 10_000,
    requestTimeoutMs: options.requestTimeoutMs ?? 10_000, connectTimeoutMs: options.connectTimeoutMs ?? 15_000, presenceRenewalMs,
    cipher: options.cipher, keepProcessAlive: options.keepProcessAlive ?? true,
  };
}
