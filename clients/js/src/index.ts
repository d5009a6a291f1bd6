// @parley/client: Parley's client for browsers and Node.js (docs/client-js.md). Node 20 also needs nodeWebSocket() from
// '@parley/client/node'; browsers keep the queue across reloads with IndexedDbClientStore from '@parley/client/indexeddb'.
export { ParleyClient, jitteredDelay } from "./client.js";
export { STABLE_AFTER_MS } from "./client.js";
export type { ConnectionState, MessageChange, OutgoingMessage, ParleyClientOptions, ParleyEventName, ParleyEvents, StateChange, StateReason } from "./client.js";
export { ParleyError } from "./errors.js";
export { Groups } from "./groups.js";
export type { ConversationChanges } from "./groups.js";
export { fromBase64, toBase64 } from "./cipher.js";
export type { DeviceMismatch, EndToEndCipher, KeyDirectory } from "./cipher.js";
export { MemoryClientStore } from "./store.js";
export type { ClientStore, PendingSend, StoredState } from "./store.js";
export { OrderingBuffer, Timelines } from "./ordering.js";
export { decodeClientFrame, decodeServerFrame, misfit } from "./schema-check.js";
export type { Decoded } from "./schema-check.js";
export { isGatewayRefusal, platformWebSocket } from "./transport.js";
export type { WebSocketFactory, WebSocketLike } from "./transport.js";
export { CLIENT_FRAME_DEFS, LIMITS, SERVER_FRAME_DEFS } from "./frames.generated.js";
export type * from "./frames.generated.js";
