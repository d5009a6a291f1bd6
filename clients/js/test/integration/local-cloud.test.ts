// The client against a real Parley: the local cloud that JsClientIT (tests/) starts, over real sockets. The same order and
// exactly-once checks as the Java client's ClientLibraryIT, plus a reconnect storm and a queue that outlives its process.
// Run by JsClientIT, which sets PARLEY_WS_URL (the WebSocket API) and PARLEY_CONTROL_URL (tokens and the gateway's faults).
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { ParleyClient } from "../../src/index.js";
import type { Conversation, Message, MessageAck } from "../../src/index.js";
import { FileClientStore, nodeWebSocket } from "../../src/node.js";
import type { WebSocketFactory, WebSocketLike } from "../../src/transport.js";
import { sleep } from "../fake-server.js";

const wsUrl = process.env.PARLEY_WS_URL;
const control = process.env.PARLEY_CONTROL_URL;
const skip = wsUrl === undefined || control === undefined ? "needs a running Parley: JsClientIT (mvn verify -pl tests) runs these" : false;
const run = `js${Date.now().toString(36)}`;
const apps: App[] = [];

after(() => apps.forEach((app) => app.client.close()));

async function call(path: string, method = "GET"): Promise<string> {
  const answer = await fetch(`${control}${path}`, { method });
  const text = await answer.text();
  if (!answer.ok) throw new Error(`${method} ${path}: ${answer.status} ${text}`);
  return text;
}

/** A WebSocket factory whose sockets a test can drop as a dying network would (no close handshake). */
function killable(factory: WebSocketFactory): { open: WebSocketFactory; kill(): void } {
  let current: WebSocketLike | undefined;
  return {
    open: (url) => (current = factory(url)),
    kill: () => (current as unknown as { terminate(): void } | undefined)?.terminate(),
  };
}

interface App {
  client: ParleyClient;
  messages: Message[];
  kill(): void;
}

async function app(user: string, device = "node", store?: FileClientStore, token?: () => Promise<string>): Promise<App> {
  const sockets = killable(await nodeWebSocket());
  const client = new ParleyClient({
    url: wsUrl as string, user, device, webSocket: sockets.open, backoff: { minMs: 50, maxMs: 500 },
    token: token ?? (() => call(`/token?user=${encodeURIComponent(user)}&device=${encodeURIComponent(device)}`)),
    ...(store === undefined ? {} : { store }),
  });
  const made: App = { client, messages: [], kill: sockets.kill };
  client.on("message", (message) => made.messages.push(message));
  apps.push(made);
  await client.start();
  return made;
}

async function until(what: string, condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const texts = (app: App, conversation: Conversation): string[] =>
  app.messages.filter((m) => m.conversation_id === conversation.conversation_id).map((m) => m.content.body ?? "");
const numbered = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

describe("the client against the local cloud", { skip }, () => {
  test("sends while the sender's connection is killed are stored once and reach the other in order", async () => {
    const alice = await app(`${run}-alice`);
    const bob = await app(`${run}-bob`);
    await until("both online", () => alice.client.state === "online" && bob.client.state === "online");
    const chat = await alice.client.createDirect(`${run}-bob`);
    const acks: Promise<MessageAck>[] = [];
    for (const text of numbered("m", 30)) {
      acks.push(alice.client.send(chat.conversation_id, { type: "text", body: text }).acknowledged);
      if (text === "m10" || text === "m20") alice.kill();
    }
    const seqs = (await Promise.all(acks)).map((ack) => ack.seq);
    assert.equal(new Set(seqs).size, 30, `each send took one seq: ${seqs}`);
    assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b), "in the order sent");
    await until("bob has all 30", () => texts(bob, chat).length >= 30);
    await sleep(300);
    assert.deepEqual(texts(bob, chat), numbered("m", 30), "in order, once each");
    await until("alice's own, in order", () => texts(alice, chat).length >= 30);
    assert.deepEqual(texts(alice, chat), numbered("m", 30));
  });

  test("a member whose posts are answered 410 gets everything in order once its connection is replaced", async () => {
    const alice = await app(`${run}-alice2`);
    const bob = await app(`${run}-bob2`);
    await until("both online", () => alice.client.state === "online" && bob.client.state === "online");
    const group = await alice.client.createGroup("Faults", [`${run}-bob2`]);
    await alice.client.send(group.conversation_id, { type: "text", body: "before" }).acknowledged;
    await until("bob's first", () => texts(bob, group).length === 1);
    await call(`/gone?user=${run}-bob2`, "POST");
    const sent = numbered("g", 10).map((text) => alice.client.send(group.conversation_id, { type: "text", body: text }).acknowledged);
    await Promise.all(sent);
    await alice.client.send(group.conversation_id, { type: "text", body: "last" }).acknowledged;
    await sleep(500);
    assert.deepEqual(texts(bob, group), ["before"], "the gateway answered 410 for bob's connection: nothing live reached him");
    bob.kill();
    await until("bob's resync", () => texts(bob, group).length >= 12);
    assert.deepEqual(texts(bob, group), ["before", ...numbered("g", 10), "last"]);
  });

  test("a reconnect storm: 200 clients lose their connections at once, all come back, and each message arrives once", async () => {
    const count = 200;
    const users = Array.from({ length: count }, (_, i) => `${run}-storm${i}`);
    const storm = await Promise.all(users.map((user) => app(user)));
    await until("200 online", () => storm.every((member) => member.client.state === "online"), 120_000);
    const pairs: Conversation[] = [];
    for (let i = 0; i < count; i += 2) pairs.push(await (storm[i] as App).client.createDirect(users[i + 1] as string));
    storm.forEach((member) => member.kill());
    await until("200 back online", () => storm.every((member) => member.client.state === "online"), 120_000);
    await Promise.all(pairs.map((pair, p) => (storm[2 * p] as App).client.send(pair.conversation_id, { type: "text", body: `after ${p}` }).acknowledged));
    await until("each partner has it", () => pairs.every((pair, p) => texts(storm[2 * p + 1] as App, pair).length >= 1), 120_000);
    await sleep(500);
    pairs.forEach((pair, p) => assert.deepEqual(texts(storm[2 * p + 1] as App, pair), [`after ${p}`], `pair ${p}`));
  });

  test("a send queued by a process that stopped before it connected is sent by the next one, once", async () => {
    const path = join(await mkdtemp(join(tmpdir(), "parley-it-")), "client.json");
    const bob = await app(`${run}-bob3`);
    const alice = await app(`${run}-alice3`);
    await until("both online", () => alice.client.state === "online" && bob.client.state === "online");
    const chat = await alice.client.createDirect(`${run}-bob3`);
    alice.client.close();
    // A process with no network: its token callback fails, so it never connects; the send waits in its file.
    const offline = await app(`${run}-alice3`, "cli", new FileClientStore(path), () => Promise.reject(new Error("offline")));
    await offline.client.send(chat.conversation_id, { type: "text", body: "queued offline" }).queued;
    offline.client.close();
    const restarted = await app(`${run}-alice3`, "cli", new FileClientStore(path));
    await until("sent", () => restarted.client.pendingCount === 0 && restarted.client.state === "online");
    await until("bob has it", () => texts(bob, chat).length >= 1);
    await sleep(500);
    assert.deepEqual(texts(bob, chat), ["queued offline"]);
  });
});
