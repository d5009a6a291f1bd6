// Node.js parts of @parley/client: a WebSocket for Node 20 (the `ws` package; Node 22 has a global one) and a store in a file.
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { ClientMessageId, ConversationId } from "./frames.generated.js";
import type { ClientStore, PendingSend, StoredState } from "./store.js";
import type { WebSocketFactory, WebSocketLike } from "./transport.js";

/**
 * A WebSocket factory for Node: the global WebSocket where Node has one (22 and later), else the `ws` package (install it
 * next to @parley/client on Node 20).
 */
export async function nodeWebSocket(): Promise<WebSocketFactory> {
  const global = (globalThis as { WebSocket?: new (url: string) => WebSocketLike }).WebSocket;
  if (global !== undefined) return (url) => new global(url);
  let ws: { WebSocket: new (url: string) => WebSocketLike };
  try {
    ws = (await import("ws")) as unknown as { WebSocket: new (url: string) => WebSocketLike };
  } catch {
    throw new Error("Node 20 has no global WebSocket: install the 'ws' package (npm install ws)");
  }
  return (url) => new ws.WebSocket(url);
}

/**
 * A store in a JSON file: a Node app (a bot, a service, a CLI) resumes where it was after a restart. Each change rewrites the
 * file through a temporary one and a rename, so a crash leaves the old file or the new one, never half of one.
 */
export class FileClientStore implements ClientStore {
  private state: StoredState | undefined;

  constructor(private readonly path: string) {}

  async load(): Promise<StoredState> {
    try {
      const parsed = JSON.parse(await readFile(this.path, "utf8")) as StoredState;
      this.state = { heldUpTo: parsed.heldUpTo ?? {}, pendingSends: parsed.pendingSends ?? [],
        ...(typeof parsed.changesAt === "number" ? { changesAt: parsed.changesAt } : {}) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        throw new Error(`the client store ${this.path} could not be read: ${(error as Error).message}`);
      }
      this.state = { heldUpTo: {}, pendingSends: [] };
    }
    return { ...this.state, heldUpTo: { ...this.state.heldUpTo }, pendingSends: this.state.pendingSends.map((send) => ({ ...send })) };
  }

  async setChangesAt(at: number): Promise<void> {
    this.loaded().changesAt = at;
    await this.save();
  }

  async setHeldUpTo(conversation: ConversationId, seq: number): Promise<void> {
    const state = this.loaded();
    if (seq <= (state.heldUpTo[conversation] ?? 0)) return;
    state.heldUpTo[conversation] = seq;
    await this.save();
  }

  async addPendingSend(send: PendingSend): Promise<void> {
    const state = this.loaded();
    if (state.pendingSends.some((held) => held.id === send.id)) return;
    state.pendingSends.push({ ...send });
    await this.save();
  }

  async removePendingSend(id: ClientMessageId): Promise<void> {
    const state = this.loaded();
    const before = state.pendingSends.length;
    state.pendingSends = state.pendingSends.filter((send) => send.id !== id);
    if (state.pendingSends.length !== before) await this.save();
  }

  async replacePendingSend(send: PendingSend): Promise<void> {
    const state = this.loaded();
    const index = state.pendingSends.findIndex((held) => held.id === send.id);
    if (index < 0) return;
    state.pendingSends[index] = { ...send };
    await this.save();
  }

  private loaded(): StoredState {
    if (this.state === undefined) throw new Error("load() the store first (the client does, at start)");
    return this.state;
  }

  private async save(): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(this.state));
    await rename(temporary, this.path);
  }
}
