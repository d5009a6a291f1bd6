/** The part of the platform WebSocket the client uses: the browser's, Node 22's global one, and the `ws` package's all fit. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

/** Opens a WebSocket to a URL (the token is in its query). */
export type WebSocketFactory = (url: string) => WebSocketLike;

/** The platform's WebSocket: the browser's, or Node 22's global one; on Node 20 give `nodeWebSocket()` from `@parley/client/node`. */
export function platformWebSocket(): WebSocketFactory {
  const Platform = (globalThis as { WebSocket?: new (url: string) => WebSocketLike }).WebSocket;
  if (Platform === undefined) {
    throw new Error("this platform has no global WebSocket (Node 20): pass webSocket: nodeWebSocket() from '@parley/client/node'");
  }
  return (url) => new Platform(url);
}

/**
 * API Gateway's own frames, sent when it could not hand a frame to its function ({"message": "Too Many Requests",
 * "connectionId": ..., "requestId": ...}, "Internal server error", "Forbidden"): an object with a message and no type, which
 * says nothing of which frame it refused.
 */
export function isGatewayRefusal(text: string): boolean {
  try {
    const frame = JSON.parse(text) as unknown;
    return typeof frame === "object" && frame !== null && !Array.isArray(frame) && !("type" in frame)
      && typeof (frame as { message?: unknown }).message === "string";
  } catch {
    return false;
  }
}
