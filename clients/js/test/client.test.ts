import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ParleyClient, ParleyError, MemoryClientStore, fromBase64, jitteredDelay, toBase64 } from "../src/index.js";
import type { EndToEndCipher, Envelope, KeysBundle } from "../src/index.js";
import type { ClientFrame, ConnectionState, Message, MessageAck, MessageChange, Notification, Presence, StateChange } from "../src/index.js";
import { nodeWebSocket } from "../src/node.js";
import type { WebSocketFactory } from "../src/transport.js";
import { FakeServer, SYNCED_AT, message, sleep, until } from "./fake-server.js";
import type { FakeConnection } from "./fake-server.js";

let server: FakeServer;
let webSocket: WebSocketFactory;
const clients: ParleyClient[] = [];

before(async () => {
  server = await FakeServer.start();
  webSocket = await nodeWebSocket();
});

after(async () => {
  clients.forEach((client) => client.close());
  await server.close();
});

interface Seen {
  messages: Message[];
  states: ConnectionState[];
  changes: StateChange[];
  sent: MessageAck[];
  notifications: Notification[];
  presence: Presence[];
}

function client(options: Partial<ConstructorParameters<typeof ParleyClient>[0]> = {}): { client: ParleyClient; seen: Seen } {
  let tokens = 0;
  const made = new ParleyClient({
    url: server.url, user: "ann", device: "laptop", token: () => `token-${++tokens}`, webSocket,
    backoff: { minMs: 20, maxMs: 100 }, gapTimeoutMs: 150, ackTimeoutMs: 400, ...options,
  });
  const seen: Seen = { messages: [], states: [], changes: [], sent: [], notifications: [], presence: [] };
  made.on("message", (m) => seen.messages.push(m));
  made.on("state", (change) => {
    seen.states.push(change.state);
    seen.changes.push(change);
  });
  made.on("sent", (a) => seen.sent.push(a));
  made.on("notification", (n) => seen.notifications.push(n));
  made.on("presence", (p) => seen.presence.push(p));
  clients.push(made);
  return { client: made, seen };
}

/** A client started and online on a fresh connection. */
async function online(options: Partial<ConstructorParameters<typeof ParleyClient>[0]> = {}, ...conversations: string[]): Promise<{ client: ParleyClient; seen: Seen; connection: FakeConnection }> {
  const made = client(options);
  const connecting = server.nextConnection();
  await made.client.start();
  const connection = await connecting;
  await connection.syncNothing(...conversations);
  await until("online", () => made.client.state === "online");
  return { ...made, connection };
}

const bodies = (messages: Message[]): string[] => messages.map((m) => `${m.conversation_id}:${m.seq}`);

describe("connecting and resuming", () => {
  test("connects with the callback's token, syncs, and is online after sync.done", async () => {
    const { client: c, seen } = client();
    const connecting = server.nextConnection();
    await c.start();
    const connection = await connecting;
    assert.equal(connection.token, "token-1");
    const sync = await connection.next("sync.request");
    assert.deepEqual(sync.state, {});
    assert.equal(sync.limit, 100);
    assert.equal(c.state, "syncing");
    assert.equal(sync.changes_since, undefined, "a first sync asks for no reaction changes");
    connection.send({ type: "sync.done", changes_at: SYNCED_AT });
    await until("online", () => c.state === "online");
    assert.deepEqual(seen.states, ["connecting", "syncing", "online"]);
    c.close();
  });

  test("after a lost connection it reconnects with a fresh token and resumes from the last seq it released", async () => {
    const { client: c, seen, connection } = await online({}, "c1");
    connection.send({ type: "message.receive", ...message("c1", 1) });
    connection.send({ type: "message.receive", ...message("c1", 2) });
    await until("two messages", () => seen.messages.length === 2);
    const reconnecting = server.nextConnection();
    connection.kill();
    const second = await reconnecting;
    assert.equal(second.token, "token-2");
    const sync = await second.next("sync.request");
    assert.deepEqual(sync.state, { c1: 2 });
    assert.equal(sync.changes_since, SYNCED_AT, "and the reaction changes since the last sync.done");
    const heard: unknown[] = [];
    c.on("reactions", (update) => heard.push(update));
    second.send({ type: "sync.batch", conversation_id: "c1", after_seq: 2, messages: [message("c1", 3)], has_more: false, delivered_seq: 2,
      read_seq: 0, last_seq: 3, ref: sync.id ?? null });
    const up = [{ emoji: "\u{1F44D}", count: 1, users: ["carol"] }];
    second.send({ type: "sync.batch", conversation_id: "c1", after_seq: 3, messages: [], has_more: false, delivered_seq: 2, read_seq: 0, last_seq: 3,
      reactions_changed: [{ seq: 1, reactions: up }, { seq: 2, reactions: [] }], ref: sync.id ?? null });
    assert.equal(c.state, "syncing", "a page of changes does not end the sync");
    second.send({ type: "sync.done", changes_at: SYNCED_AT + 60_000, ref: sync.id ?? null });
    await until("online again", () => c.state === "online");
    assert.deepEqual(bodies(seen.messages), ["c1:1", "c1:2", "c1:3"]);
    assert.deepEqual(heard, [{ type: "reactions.update", conversation_id: "c1", seq: 1, reactions: up },
      { type: "reactions.update", conversation_id: "c1", seq: 2, reactions: [] }], "one reactions event per changed message");
    const third = server.nextConnection();
    second.kill();
    const thirdConnection = await third;
    const resumed = await thirdConnection.next("sync.request");
    assert.equal(resumed.changes_since, SYNCED_AT + 60_000, "the newest changes_at");
    // Its reactions page lost: the device keeps its changes_since and asks again at once.
    thirdConnection.send({ type: "sync.done", changes_at: SYNCED_AT + 120_000, reaction_pages: 1, ref: resumed.id ?? null });
    const again = await thirdConnection.next("sync.request", 5000);
    assert.notEqual(again.id, resumed.id);
    assert.equal(again.changes_since, SYNCED_AT + 60_000, "asked again from before the lost page");
    assert.ok(seen.states.includes("offline"));
    c.close();
  });

  test("each state change says why, and offline says when it tries again", async () => {
    let calls = 0;
    const { client: c, seen } = client({ token: () => {
      calls++;
      if (calls < 2) throw new Error("the auth server is down");
      return "token";
    } });
    const connecting = server.nextConnection();
    await c.start();
    const connection = await connecting;
    await connection.syncNothing();
    await until("online", () => c.state === "online");
    const reconnecting = server.nextConnection();
    connection.kill();
    await until("offline after the drop", () => seen.changes.some((change) => change.reason === "connection_lost"));
    await reconnecting;
    c.close();
    assert.deepEqual(seen.changes[0], { state: "connecting", previous: "offline", reason: "started", retry_in_ms: null });
    const refused = seen.changes[1]!;
    assert.equal(refused.state, "offline");
    assert.equal(refused.reason, "connect_failed");
    assert.ok(refused.retry_in_ms !== null && refused.retry_in_ms >= 10 && refused.retry_in_ms <= 20, `the backoff's first wait: ${refused.retry_in_ms}`);
    assert.match(refused.detail ?? "", /auth server is down/);
    assert.deepEqual(seen.changes.slice(2, 5).map((change) => change.reason), ["retrying", "connected", "synced"]);
    const lost = seen.changes.find((change) => change.reason === "connection_lost")!;
    assert.equal(lost.previous, "online");
    assert.equal(seen.changes.at(-1)?.reason, "closed");
  });

  test("a server that closes every connection once online is retried at a growing wait, not the shortest", async () => {
    const { client: c, seen } = client({ backoff: { minMs: 10, maxMs: 10_000 } });
    let connecting = server.nextConnection();
    await c.start();
    for (let flap = 0; flap < 7; flap++) {
      const connection = await connecting;
      await connection.syncNothing();
      await until("online", () => c.state === "online");
      connecting = server.nextConnection(10_000);
      connection.kill();
      await until("offline", () => c.state !== "online");
    }
    await connecting;
    c.close();
    const waits = seen.changes.filter((change) => change.reason === "connection_lost").map((change) => change.retry_in_ms ?? 0);
    assert.equal(waits.length, 7);
    assert.ok(waits.at(-1)! >= 320, `doubled on each flap, not reset by each short stay online: ${waits.join(", ")}`);
  });

  test("a listener that throws on every state change wedges nothing", async () => {
    const { client: c } = client();
    c.on("state", () => {
      throw new Error("the app's bug");
    });
    const connecting = server.nextConnection();
    await c.start();
    const connection = await connecting;
    await connection.syncNothing();
    await until("online in spite of the listener", () => c.state === "online");
    const page = c.conversations();
    const asked = await connection.next("conversation.list");
    connection.send({ type: "conversation.page", conversations: [], next_cursor: null, ref: asked.id });
    assert.deepEqual((await page).conversations, []);
    c.close();
  });

  test("a token callback that fails leaves it offline and retrying, not stopped", async () => {
    let calls = 0;
    const { client: c } = client({ token: () => {
      calls++;
      if (calls < 3) throw new Error("the auth server is down");
      return "late-token";
    } });
    const connecting = server.nextConnection();
    await c.start();
    const connection = await connecting;
    assert.equal(connection.token, "late-token");
    assert.equal(calls, 3);
    c.close();
  });

  test("the reconnect delay grows from min to max, each drawn from its upper half", () => {
    for (let attempt = 0; attempt < 30; attempt++) {
      const ceiling = Math.min(30_000, 250 * 2 ** attempt);
      for (const random of [0, 0.5, 0.999]) {
        const delay = jitteredDelay(250, 30_000, attempt, () => random);
        assert.ok(delay >= ceiling / 2 && delay <= ceiling + 1, `attempt ${attempt}: ${delay}`);
      }
    }
    assert.throws(() => new ParleyClient({ url: server.url, user: "ann", device: "d", token: () => "t", webSocket, backoff: { minMs: 0, maxMs: 5 } }),
      /backoff/);
    assert.throws(() => new ParleyClient({ url: "", user: "ann", device: "d", token: () => "t", webSocket }), /options.url/);
  });
});

describe("order, once, no gap", () => {
  test("messages out of order and twice reach the app in seq order, once each; voids are skipped; delivered names the last", async () => {
    const { client: c, seen, connection } = await online({}, "c2");
    for (const seq of [2, 1, 2, 4, 1]) connection.send({ type: "message.receive", ...message("c2", seq) });
    connection.send({ type: "message.receive", ...message("c2", 3), content: { type: "void" } });
    await until("seq 4", () => seen.messages.some((m) => m.seq === 4));
    assert.deepEqual(bodies(seen.messages), ["c2:1", "c2:2", "c2:4"]);
    await until("delivered up to 4", () => connection.all("message.delivered").some((d) => d.seq === 4));
    c.close();
  });

  test("a gap open past the timeout is filled with history.request from its low end", async () => {
    const { client: c, seen, connection } = await online({}, "c3");
    connection.send({ type: "message.receive", ...message("c3", 1) });
    connection.send({ type: "message.receive", ...message("c3", 4) });
    const history = await connection.next("history.request");
    assert.deepEqual({ before: history.before_seq, limit: history.limit }, { before: 4, limit: 2 });
    assert.deepEqual(bodies(seen.messages), ["c3:1"]);
    connection.send({ type: "history.batch", conversation_id: "c3", messages: [message("c3", 3), message("c3", 2)], next_before_seq: null });
    await until("all four", () => seen.messages.length === 4);
    assert.deepEqual(bodies(seen.messages), ["c3:1", "c3:2", "c3:3", "c3:4"]);
    c.close();
  });
});

describe("sending", () => {
  test("a send is queued, goes out once online, and is acknowledged; the app sees its own message in order", async () => {
    const { client: c, seen, connection } = await online({}, "c4");
    const outgoing = c.send("c4", { type: "text", body: "hello" });
    await outgoing.queued;
    const frame = await connection.next("message.send");
    assert.equal(frame.id, outgoing.id);
    assert.equal(frame.attempt, undefined);
    connection.send({ type: "message.ack", id: outgoing.id, conversation_id: "c4", seq: 1, server_timestamp: 5, status: "sent" });
    const ack = await outgoing.acknowledged;
    assert.equal(ack.seq, 1);
    await until("own message", () => seen.messages.length === 1);
    assert.equal(seen.messages[0]?.sender_id, "ann");
    assert.equal(seen.messages[0]?.content.body, "hello");
    assert.equal(c.pendingCount, 0);
    c.close();
  });

  test("one conversation's sends go one at a time, each after the ack of the one before", async () => {
    const { client: c, connection } = await online();
    const first = c.send("c5", { type: "text", body: "one" });
    const second = c.send("c5", { type: "text", body: "two" });
    const other = c.send("c6", { type: "text", body: "elsewhere" });
    await Promise.all([first.queued, second.queued, other.queued]);
    await until("two on the wire", () => connection.all("message.send").length === 2);
    await sleep(50);
    assert.deepEqual(connection.all("message.send").map((f) => f.id).sort(), [first.id, other.id].sort());
    connection.send({ type: "message.ack", id: first.id, conversation_id: "c5", seq: 1, server_timestamp: 5, status: "sent" });
    await until("the second", () => connection.all("message.send").some((f) => f.id === second.id));
    c.close();
  });

  test("a send unanswered is sent again with the same id after a reconnect, as attempt 2, and stored once", async () => {
    const { client: c, connection } = await online();
    const outgoing = c.send("c7", { type: "text", body: "survives" });
    await connection.next("message.send");
    const second = await server.dropAndResume(connection);
    const again = await second.next("message.send");
    assert.equal(again.id, outgoing.id);
    assert.equal(again.attempt, 2);
    second.send({ type: "message.ack", id: outgoing.id, conversation_id: "c7", seq: 1, server_timestamp: 5, status: "duplicate" });
    assert.equal((await outgoing.acknowledged).status, "duplicate");
    c.close();
  });

  test("a reply with mentions, an edit and a delete go through the queue in order, resent under their ids, and come back as change events", async () => {
    const { client: c, seen, connection } = await online({}, "c9");
    const changes: MessageChange[] = [];
    c.on("change", (change) => changes.push(change));
    connection.send({ type: "message.receive", ...message("c9", 1, "lunch?") });
    await until("the first", () => seen.messages.length === 1);
    const reply = c.send("c9", { type: "text", body: "yes!" }, { replyTo: 1, mentions: ["bob"] });
    const edit = c.edit("c9", 2, { type: "text", body: "yes, at 1" });
    const deleted = c.delete("c9", 1);
    const sent = await connection.next("message.send");
    assert.equal(sent.reply_to, 1);
    assert.deepEqual(sent.mentions, ["bob"]);
    await sleep(50);
    assert.equal(connection.all("message.edit").length, 0, "after the send before it");
    connection.send({ type: "message.ack", id: reply.id, conversation_id: "c9", seq: 2, server_timestamp: 20, status: "sent" });
    const edited = await connection.next("message.edit");
    assert.equal(edited.target_seq, 2);
    const second = await server.dropAndResume(connection, "c9");
    const again = await second.next("message.edit");
    assert.equal(again.id, edit.id);
    assert.equal(again.attempt, 2);
    second.send({ type: "message.ack", id: edit.id, conversation_id: "c9", seq: 3, server_timestamp: 30, status: "duplicate" });
    const deleting = await second.next("message.delete");
    assert.equal(deleting.target_seq, 1);
    second.send({ type: "message.ack", id: deleted.id, conversation_id: "c9", seq: 4, server_timestamp: 40, status: "sent" });
    assert.deepEqual([(await reply.acknowledged).seq, (await edit.acknowledged).seq, (await deleted.acknowledged).seq], [2, 3, 4]);
    await until("both changes", () => changes.length === 2);
    assert.deepEqual(changes.map(({ seq, kind, content, at }) => ({ seq, kind, content, at })), [
      { seq: 2, kind: "edit", content: { type: "text", body: "yes, at 1" }, at: 30 },
      { seq: 1, kind: "delete", content: { type: "deleted" }, at: 40 },
    ]);
    assert.deepEqual(seen.messages.map((m) => m.seq), [1, 2, 3, 4], "every entry in order, the app's own too");
    assert.equal(seen.messages[1]?.reply_to, 1);
    const refused = c.edit("c9", 2, { type: "void" });
    await assert.rejects(refused.acknowledged, (error: unknown) => error instanceof ParleyError && error.code === "bad_request");
    c.close();
  });

  test("rate_limited waits retry_after_ms and sends the same frame again; a gateway refusal resends before the ack timeout", async () => {
    const { client: c, connection } = await online({ ackTimeoutMs: 60_000 });
    const outgoing = c.send("c8", { type: "text", body: "patient" });
    await connection.next("message.send");
    const refusedAt = Date.now();
    connection.send({ type: "error", code: "rate_limited", message: "slow down", ref: outgoing.id, retry_after_ms: 300 });
    const retry = await connection.next("message.send");
    assert.ok(Date.now() - refusedAt >= 280, `resent after ${Date.now() - refusedAt} ms`);
    assert.equal(retry.id, outgoing.id);
    connection.send({ message: "Too Many Requests", connectionId: "abc=", requestId: "r1" });
    const third = await connection.next("message.send", 5000);
    assert.equal(third.id, outgoing.id);
    assert.equal(third.attempt, 3);
    c.close();
  });

  test("a send refused for good fails with the server's reason, and the conversation's next send goes", async () => {
    const { client: c, connection } = await online();
    const failed: string[] = [];
    c.on("sendFailed", ({ error }) => failed.push(error.message));
    const refused = c.send("c9", { type: "text", body: "not a member" });
    const next = c.send("c9", { type: "text", body: "next" });
    await connection.next("message.send");
    connection.send({ type: "error", code: "forbidden", message: "not a member of c9", ref: refused.id });
    await assert.rejects(refused.acknowledged, (error: unknown) => error instanceof ParleyError && error.code === "forbidden");
    const second = await connection.next("message.send");
    assert.equal(second.id, next.id);
    assert.deepEqual(failed, ["not a member of c9"]);
    c.close();
  });

  test("a send the server would refuse is refused before it is queued, naming why", async () => {
    const { client: c, connection } = await online();
    const huge = c.send("c10", { type: "text", body: "x".repeat(140_000) });
    await assert.rejects(huge.acknowledged, (error: unknown) => error instanceof ParleyError && error.code === "too_large" && /131072/.test(error.message));
    const badType = c.send("c10", { type: "sticker" as "text", body: "?" });
    await assert.rejects(badType.queued, (error: unknown) => error instanceof ParleyError && /content.type/.test(error.message));
    const voided = c.send("c10", { type: "void" });
    await assert.rejects(voided.queued, /void/);
    await sleep(50);
    assert.equal(connection.all("message.send").length, 0);
    assert.equal(c.pendingCount, 0);
    c.close();
  });

  test("a reaction and a pin go through the queue: after the conversation's send, kept across a restart, resent as they were under their ids, out of the store once answered", async () => {
    const store = new MemoryClientStore();
    const first = client({ store, token: () => { throw new Error("offline"); } });
    await first.client.start();
    const outgoing = first.client.send("g:team", { type: "text", body: "lunch?" });
    const reacted = first.client.react("g:team", 7, "\u{1F44D}");
    await outgoing.queued;
    await until("both queued", () => first.client.pendingCount === 2);
    await sleep(20);
    assert.equal((await store.load()).pendingSends.length, 2, "both in the store");
    first.client.close();
    await assert.rejects(reacted, /closed/);
    const { client: c, connection } = await online({ store });
    const send = await connection.next("message.send");
    await sleep(50);
    assert.equal(connection.all("reaction.set").length, 0, "in the conversation's order: after the send's ack");
    connection.send({ type: "message.ack", id: outgoing.id, conversation_id: "g:team", seq: 8, server_timestamp: 5, status: "sent", ref: send.id ?? null });
    const set = await connection.next("reaction.set");
    assert.equal(set.emoji, "\u{1F44D}");
    assert.equal((set as { attempt?: number }).attempt, undefined, "a request goes again as it was");
    const pinned = c.pin("g:team", 7);
    // The connection drops before the answers: both go again under their ids.
    const second = await server.dropAndResume(connection, "g:team");
    const again = await second.next("reaction.set");
    assert.equal(again.id, set.id);
    second.send({ type: "reaction.ack", conversation_id: "g:team", target_seq: 7, emoji: "\u{1F44D}", ref: again.id ?? null });
    const pin = await second.next("message.pin");
    second.send({ type: "conversation.updated", conversation: { conversation_id: "g:team", kind: "group", name: "team", members: ["ann", "bob"],
      admins: ["ann"], owner: "ann", pinned: [7], settings: { send: "all", add_members: "admins", disappearing_seconds: null } }, ref: pin.id ?? null });
    assert.deepEqual((await pinned).pinned, [7]);
    await until("the queue emptied", () => c.pendingCount === 0);
    await sleep(20);
    assert.deepEqual((await store.load()).pendingSends, [], "out of the store once answered");
    c.close();
  });

  test("sends queued before a restart go out from the store on the next start, as resends under their ids", async () => {
    const store = new MemoryClientStore();
    const first = client({ store, token: () => { throw new Error("offline"); } });
    await first.client.start();
    const outgoing = first.client.send("c11", { type: "text", body: "from before" });
    await outgoing.queued;
    first.client.close();
    await assert.rejects(outgoing.acknowledged, /closed/);
    const { client: c, connection } = await online({ store });
    const resent = await connection.next("message.send");
    assert.equal(resent.id, outgoing.id);
    assert.equal(resent.attempt, 2);
    connection.send({ type: "message.ack", id: outgoing.id, conversation_id: "c11", seq: 1, server_timestamp: 5, status: "sent" });
    await until("the store emptied", () => c.pendingCount === 0);
    await sleep(20);
    assert.deepEqual((await store.load()).pendingSends, []);
    c.close();
  });
});

describe("receipts, typing, presence, notifications, inbox", () => {
  test("markRead and typing go out; receipts and typing come to the app", async () => {
    const { client: c, connection } = await online();
    const receipts: number[] = [];
    const typing: string[] = [];
    c.on("receipt", (r) => receipts.push(r.read_seq));
    c.on("typing", (t) => typing.push(`${t.user_id}:${t.state}`));
    c.markRead("c12", 7);
    assert.equal((await connection.next("message.read")).seq, 7);
    c.typing("c12", "start");
    assert.equal((await connection.next("typing")).state, "start");
    connection.send({ type: "receipt.update", conversation_id: "c12", user_id: "bob", delivered_seq: 7, read_seq: 7 });
    connection.send({ type: "typing.update", conversation_id: "c12", user_id: "bob", state: "start", expires_in_ms: 5000 });
    await until("both", () => receipts.length === 1 && typing.length === 1);
    assert.deepEqual(typing, ["bob:start"]);
    c.close();
  });

  test("presence subscriptions are answered, and renewed after a reconnect", async () => {
    const { client: c, seen, connection } = await online();
    const subscribed = c.subscribePresence(["bob", "cat"]);
    const subscribe = await connection.next("presence.subscribe");
    assert.deepEqual(subscribe.user_ids, ["bob", "cat"]);
    connection.send({ type: "presence.batch", users: [{ user_id: "bob", status: "online", last_seen: null }, { user_id: "cat", status: "offline", last_seen: 9 }] });
    assert.equal((await subscribed).users.length, 2);
    assert.equal(seen.presence.length, 2);
    const second = await server.dropAndResume(connection);
    assert.deepEqual((await second.next("presence.subscribe")).user_ids, ["bob", "cat"]);
    c.close();
  });

  test("presence is subscribed again before the subscription runs out, until unsubscribed", async () => {
    const { client: c, connection } = await online({ presenceRenewalMs: 300 });
    const subscribed = c.subscribePresence(["dan"]);
    await connection.next("presence.subscribe");
    connection.send({ type: "presence.batch", users: [{ user_id: "dan", status: "online", last_seen: null }] });
    await subscribed;
    const renewal = await connection.next("presence.subscribe", 2000);
    assert.deepEqual({ users: renewal.user_ids, ttl: renewal.ttl_seconds }, { users: ["dan"], ttl: 300 });
    c.unsubscribePresence(["dan"]);
    const renewals = connection.all("presence.subscribe").length;
    await sleep(700);
    assert.equal(connection.all("presence.subscribe").length, renewals, "no renewal once unsubscribed");
    assert.throws(() => new ParleyClient({ url: server.url, user: "ann", device: "d", token: () => "t", webSocket, presenceRenewalMs: 300_000 }),
      /presenceRenewalMs/);
    c.close();
  });

  test("a live notification reaches the app and is acknowledged; the inbox lists and marks", async () => {
    const { client: c, seen, connection } = await online();
    connection.send({ type: "notification.receive", notification_id: "01KBQ8Z8D7N2M9T6W4Y3X5V1R0", category: "comments", content: { title: "Hi" },
      group_key: null, count: 1, actors: ["bob"], created_at: 1, state: "unseen", topic: "match:42" });
    const ack = await connection.next("notification.ack");
    assert.deepEqual(ack.ids, ["01KBQ8Z8D7N2M9T6W4Y3X5V1R0"]);
    assert.equal(seen.notifications[0]?.topic, "match:42");
    const page = c.inbox({ filter: "unread" });
    const list = await connection.next("inbox.list");
    assert.equal(list.filter, "unread");
    connection.send({ type: "inbox.page", notifications: [], next_cursor: null, unread_count: 1, unseen_count: 1 });
    assert.equal((await page).unread_count, 1);
    const marked = c.markInbox({ upTo: "01KBQ8Z8D7N2M9T6W4Y3X5V1R0" }, "read");
    assert.equal((await connection.next("inbox.mark")).up_to, "01KBQ8Z8D7N2M9T6W4Y3X5V1R0");
    connection.send({ type: "inbox.counts", unread_count: 0, unseen_count: 0 });
    assert.equal((await marked).unread_count, 0);
    const muted = c.muteTopic("match:42", true);
    const mute = await connection.next("topic.mute");
    connection.send({ type: "error", code: "not_found", message: "not a topic you follow", ref: mute.id ?? null });
    await assert.rejects(muted, (error: unknown) => error instanceof ParleyError && error.code === "not_found");
    c.close();
  });

  test("a reaction is a request answered by reaction.ack, refused by field, and members hear reactions.update as a reactions event", async () => {
    const { client: c, connection } = await online();
    const heard: unknown[] = [];
    c.on("reactions", (update) => heard.push(update));
    const reacted = c.react("g:team", 7, "\u{1F44D}");
    const set = await connection.next("reaction.set");
    assert.equal(set.conversation_id, "g:team");
    assert.equal(set.target_seq, 7);
    assert.equal(set.emoji, "\u{1F44D}");
    assert.match(set.id ?? "", /^[0-9a-f-]{36}$/, "a UUID: the server answers a repeat of it once");
    connection.send({ type: "reaction.ack", conversation_id: "g:team", target_seq: 7, emoji: "\u{1F44D}", ref: set.id ?? null });
    assert.equal((await reacted).emoji, "\u{1F44D}");
    const removed = c.react("g:team", 7, null);
    const unset = await connection.next("reaction.set");
    assert.equal(unset.emoji, null, "null removes, and is sent as null");
    connection.send({ type: "error", code: "bad_request", message: "field 'emoji' must be an emoji", ref: unset.id ?? null });
    await assert.rejects(removed, (error: unknown) => error instanceof ParleyError && error.code === "bad_request");
    const update = { type: "reactions.update", conversation_id: "g:team", seq: 7, reactions: [{ emoji: "\u{1F44D}", count: 2, users: ["carol", "bob"] }] };
    connection.send(update as never);
    await until("the update heard", () => heard.length === 1);
    assert.deepEqual(heard[0], update);
    c.close();
  });

  test("reactions to a message behind a gap come with it, a page's copy replaces the live one, and none is heard before its message", async () => {
    const { client: c, seen, connection } = await online({}, "c1");
    const heard: unknown[] = [];
    c.on("reactions", (update) => heard.push(update));
    const up = [{ emoji: "\u{1F44D}", count: 1, users: ["carol"] }];
    const heart = [{ emoji: "\u2764\uFE0F", count: 1, users: ["dave"] }];
    connection.send({ type: "message.receive", ...message("c1", 2) });
    connection.send({ type: "reactions.update", conversation_id: "c1", seq: 2, reactions: up });
    connection.send({ type: "reactions.update", conversation_id: "c1", seq: 3, reactions: heart });
    connection.send({ type: "message.receive", ...message("c1", 3) });
    connection.send({ type: "message.receive", ...message("c1", 4) });
    // A history page lists seq 4 with its reactions now: it replaces the live copy held.
    connection.send({ type: "history.batch", conversation_id: "c1", messages: [{ ...message("c1", 4), reactions: heart }], next_before_seq: null });
    connection.send({ type: "message.receive", ...message("c1", 1) });
    await until("four messages", () => seen.messages.length === 4);
    assert.deepEqual(seen.messages.map((m) => m.reactions ?? []), [[], up, heart, heart]);
    assert.deepEqual(heard, [], "no reactions event for a message the app did not have");
    connection.send({ type: "reactions.update", conversation_id: "c1", seq: 2, reactions: [] });
    await until("the update heard", () => heard.length === 1);
    assert.deepEqual(heard[0], { type: "reactions.update", conversation_id: "c1", seq: 2, reactions: [] });
    c.close();
  });

  test("a change to a conversation the client holds (a pin) asks no sync; being added to a new one does", async () => {
    const { client: c, connection } = await online({}, "g:team");
    const group = (id: string, pinned: number[]) => ({ conversation_id: id, kind: "group" as const, name: id, members: ["ann", "bob"], admins: ["bob"], owner: "bob", pinned,
      settings: { send: "all" as const, add_members: "admins" as const, disappearing_seconds: null } });
    connection.send({ type: "conversation.updated", conversation: group("g:team", [3]), ref: null });
    await sleep(300);
    assert.equal(connection.all("sync.request").length, 1, "only the first sync: a pin needs none");
    connection.send({ type: "conversation.updated", conversation: group("g:new", []), ref: null });
    const sync = await connection.next("sync.request");
    assert.deepEqual(Object.keys(sync.state), ["g:team"], "added to g:new: a sync says where it starts");
    c.close();
  });

  test("a pin is a request answered by the conversation with its pinned seqs; a refusal names its cause", async () => {
    const { client: c, connection } = await online();
    const pinned = c.pin("g:team", 7);
    const pin = await connection.next("message.pin");
    assert.deepEqual({ conversation_id: pin.conversation_id, seq: pin.seq, pinned: pin.pinned }, { conversation_id: "g:team", seq: 7, pinned: true });
    assert.match(pin.id ?? "", /^[0-9a-f-]{36}$/);
    const conversation = { conversation_id: "g:team", kind: "group", name: "team", members: ["alice", "bob"], admins: ["alice"], owner: "alice", pinned: [7],
      settings: { send: "all", add_members: "admins", disappearing_seconds: null } } as const;
    connection.send({ type: "conversation.updated", conversation: { ...conversation, members: [...conversation.members], admins: [...conversation.admins],
      pinned: [...conversation.pinned], settings: { ...conversation.settings } }, ref: pin.id ?? null });
    assert.deepEqual((await pinned).pinned, [7]);
    const unpinned = c.pin("g:team", 8, false);
    const unpin = await connection.next("message.pin");
    assert.equal(unpin.pinned, false);
    connection.send({ type: "error", code: "forbidden", message: "only the admins of group g:team pin its messages", ref: unpin.id ?? null });
    await assert.rejects(unpinned, (error: unknown) => error instanceof ParleyError && error.code === "forbidden");
    c.close();
  });

  test("group requests carry ids, go out at once and are answered by their ref; a refusal names its rule", async () => {
    const { client: c, connection } = await online();
    const code = "A".repeat(27);
    const joined = c.groups.join(code);
    const invited = c.groups.createInvite("g:team", { maxUses: 10 });
    const banned = c.groups.ban("g:team", ["bob"]);
    const changed = c.groups.update("g:team", { description: null, settings: { send: "admins" } });
    const join = await connection.next("conversation.join");
    const create = await connection.next("conversation.invite.create");
    const ban = await connection.next("conversation.members.ban");
    const update = await connection.next("conversation.update");
    assert.equal(join.code, code);
    assert.deepEqual({ max_uses: create.max_uses, expires: create.expires_in_seconds }, { max_uses: 10, expires: undefined });
    assert.deepEqual({ description: update.description, settings: update.settings }, { description: null, settings: { send: "admins" } });
    const group = { conversation_id: "g:team", kind: "group" as const, name: "team", members: ["alice", "bob"], admins: ["bob"], owner: "bob",
      pinned: [], settings: { send: "admins" as const, add_members: "admins" as const, disappearing_seconds: null } };
    connection.send({ type: "error", code: "forbidden", message: "only an admin may ban users from conversation g:team", ref: ban.id ?? null });
    connection.send({ type: "conversation.invite", conversation_id: "g:team", code, expires_at: 1_000, max_uses: 10, ref: create.id ?? null });
    connection.send({ type: "conversation.updated", conversation: group, ref: update.id ?? null });
    connection.send({ type: "conversation.updated", conversation: group, ref: join.id ?? null });
    assert.deepEqual((await joined).members, ["alice", "bob"]);
    assert.equal((await invited).code, code);
    assert.equal((await changed).settings.send, "admins");
    await assert.rejects(banned, (error: unknown) => error instanceof ParleyError && error.code === "forbidden" && /admin/.test(error.message));
    c.close();
  });

  test("twenty requests in flight over five answer types each get their own answer, whatever the order (protocol 1.1)", async () => {
    const { client: c, connection } = await online();
    const inboxes = [0, 1, 2, 3].map((i) => c.inbox({ filter: "all", limit: 10 + i }));
    const pages = [0, 1, 2, 3].map((i) => c.conversations(`cursor-${i}`));
    const histories = [0, 1, 2, 3].map((i) => c.history(`g:h${i}`, { limit: 5 }));
    const registrations = [0, 1, 2, 3].map((i) => c.registerDevice(i % 2 === 0 ? "fcm" : "apns", `token-${i}`));
    const groups = [0, 1, 2, 3].map((i) => c.createGroup(`group ${i}`, ["bob"]));
    await until("twenty on the wire at once", () => connection.frames.filter((frame) => "id" in frame && frame.type !== "sync.request").length === 20);
    const asked = connection.frames.filter((frame) => "id" in frame && frame.type !== "sync.request") as (ClientFrame & { id: string })[];
    assert.equal(new Set(asked.map((frame) => frame.id)).size, 20, "each request has an id of its own");
    // Answered in an order of their own, each naming its request by ref.
    const shuffled = [...asked].sort((a, b) => a.id.localeCompare(b.id));
    for (const frame of shuffled) {
      const ref = frame.id;
      switch (frame.type) {
        case "inbox.list":
          connection.send({ type: "inbox.page", notifications: [], next_cursor: `after-${frame.limit}`, unread_count: 0, unseen_count: 0, ref });
          break;
        case "conversation.list":
          connection.send({ type: "conversation.page", conversations: [], next_cursor: `after-${frame.cursor}`, ref });
          break;
        case "history.request":
          connection.send({ type: "history.batch", conversation_id: frame.conversation_id, messages: [], next_before_seq: null, ref });
          break;
        case "device.register":
          connection.send({ type: "device.registered", platform: frame.platform, ref });
          break;
        case "conversation.create":
          connection.send({ type: "conversation.created", id: frame.id, conversation: { conversation_id: `g:${frame.id}`, kind: "group",
            name: frame.name, members: ["ann", "bob"], admins: ["ann"], owner: "ann", pinned: [], settings: { send: "all", add_members: "admins", disappearing_seconds: null } }, ref });
          break;
        default:
          assert.fail(`not asked: ${frame.type}`);
      }
    }
    for (let i = 0; i < 4; i++) {
      assert.equal((await inboxes[i]!).next_cursor, `after-${10 + i}`);
      assert.equal((await pages[i]!).next_cursor, `after-cursor-${i}`);
      assert.equal((await histories[i]!).conversation_id, `g:h${i}`);
      assert.equal((await registrations[i]!).platform, i % 2 === 0 ? "fcm" : "apns");
      assert.equal((await groups[i]!).name, `group ${i}`);
    }
    c.close();
  });

  test("a request settles once: by its timeout, and a late answer changes nothing; by the lost connection; by close()", async () => {
    const { client: c, connection } = await online({ requestTimeoutMs: 200 });
    const timedOut = c.conversations();
    const asked = await connection.next("conversation.list");
    await assert.rejects(timedOut, (error: Error) => error.message.includes("not answered within 200 ms") && error.message.includes(asked.id ?? "?"));
    const second = c.conversations("next");
    const secondAsked = await connection.next("conversation.list");
    connection.send({ type: "conversation.page", conversations: [], next_cursor: "late", ref: asked.id });
    await sleep(50);
    connection.send({ type: "conversation.page", conversations: [], next_cursor: "second", ref: secondAsked.id });
    assert.equal((await second).next_cursor, "second", "the late answer was the first request's, not the second's");

    const lost = c.inbox();
    await connection.next("inbox.list");
    const reconnecting = server.nextConnection();
    connection.kill();
    await assert.rejects(lost, (error: Error) => error.message.startsWith("disconnected"));
    const again = await reconnecting;
    await again.syncNothing();
    await until("online again", () => c.state === "online");
    const closing = c.inbox();
    await again.next("inbox.list");
    c.close();
    await assert.rejects(closing, (error: Error) => error.message.includes("closed"));
  });

  test("a frame the client cannot read is told as an error event and changes nothing", async () => {
    const { client: c, seen, connection } = await online({}, "c13");
    const errors: string[] = [];
    c.on("error", (e) => errors.push(e.message));
    connection.send({ type: "message.receive", ...message("c13", 1), seq: "one" } as unknown as Record<string, unknown>);
    connection.send({ type: "message.receive", ...message("c13", 1) });
    await until("the good one", () => seen.messages.length === 1);
    assert.deepEqual(errors, ["the client could not read a frame: message.receive: frame.seq must be integer, was string"]);
    c.close();
  });
});

/** A key bundle as the server sends it, for devices of a user. */
function bundle(user: string, devices: string[]): KeysBundle {
  const key = (id: number) => ({ key_id: id, public_key: "BQ==", signature: "c2ln" });
  return { type: "keys.bundle", user_id: user, identity_key: "BQ==", devices: devices.map((device, i) => ({ device_id: device, registration_id: i + 1,
    signed_pre_key: key(1), pre_key: null, pq_pre_key: key(2), pq_last_resort: true })) };
}

const text = new TextEncoder();
const read = (bytes: Uint8Array | undefined): string => (bytes === undefined ? "-" : new TextDecoder().decode(bytes));

/** A stand-in for an app's libsignal cipher: an envelope per device, its body the plaintext in base64; records what it is asked. */
function fakeCipher(log: string[]): EndToEndCipher {
  return {
    async seal(_conversation, members, plaintext, keys) {
      const envelopes: Envelope[] = [];
      for (const member of members) {
        for (const device of (await keys.fetch(member)).devices) {
          if (member === "ann" && device.device_id === "laptop") continue;
          envelopes.push({ user_id: member, device_id: device.device_id, registration_id: device.registration_id, kind: "message", body: toBase64(plaintext) });
        }
      }
      log.push(`seal ${envelopes.map((e) => `${e.user_id}/${e.device_id}`).join(",")}`);
      return envelopes;
    },
    async devicesChanged(mismatch) {
      log.push(`changed missing ${mismatch.missing.map((d) => `${d.user_id}/${d.device_id}`).join(",")}`);
    },
    async open(message) {
      const mine = message.content.envelopes?.find((e) => e.user_id === "ann" && e.device_id === "laptop");
      if (mine?.body === "bad") throw new Error("no session");
      return mine === undefined ? undefined : fromBase64(mine.body);
    },
  };
}

describe("end to end", () => {
  test("a sealed send is sealed again after devices_changed under its id, and comes back once stored with its plaintext", async () => {
    const log: string[] = [];
    const { client: c, seen, connection } = await online({ cipher: fakeCipher(log) }, "c20");
    const handed: string[] = [];
    c.on("sealedMessage", ({ message: m, plaintext }) => handed.push(`${m.seq} sealed ${read(plaintext)}`));
    c.on("message", (m) => handed.push(`${m.seq} plain ${m.content.body}`));
    const outgoing = c.sendSealed("c20", ["ann", "bob"], text.encode("secret"));
    assert.equal((await connection.next("keys.fetch")).user_id, "ann");
    connection.send(bundle("ann", ["laptop", "phone"]));
    assert.equal((await connection.next("keys.fetch")).user_id, "bob");
    connection.send(bundle("bob", ["phone"]));
    const first = await connection.next("message.send");
    assert.equal(first.id, outgoing.id);
    assert.deepEqual(first.content.envelopes?.map((e) => `${e.user_id}/${e.device_id}`), ["ann/phone", "bob/phone"]);
    connection.send({ type: "error", code: "devices_changed", message: "bob has a new device", ref: outgoing.id,
      missing: [{ user_id: "bob", device_id: "tablet" }], extra: [], stale: [] });
    await connection.next("keys.fetch");
    connection.send(bundle("ann", ["laptop", "phone"]));
    await connection.next("keys.fetch");
    connection.send(bundle("bob", ["phone", "tablet"]));
    const second = await connection.next("message.send");
    assert.equal(second.id, outgoing.id, "the same id: stored once");
    assert.equal(second.attempt, 2);
    assert.deepEqual(second.content.envelopes?.map((e) => `${e.user_id}/${e.device_id}`), ["ann/phone", "bob/phone", "bob/tablet"]);
    assert.deepEqual(log, ["seal ann/phone,bob/phone", "changed missing bob/tablet", "seal ann/phone,bob/phone,bob/tablet"]);
    connection.send({ type: "message.ack", id: outgoing.id, conversation_id: "c20", seq: 1, server_timestamp: 5, status: "sent" });
    await outgoing.acknowledged;
    const envelope = (body: string): Envelope => ({ user_id: "ann", device_id: "laptop", registration_id: 1, kind: "message", body });
    connection.send({ type: "message.receive", ...message("c20", 2), content: { type: "ciphertext", envelopes: [envelope(toBase64(text.encode("hi ann")))] } });
    connection.send({ type: "message.receive", ...message("c20", 3), content: { type: "text", body: "plain" } });
    connection.send({ type: "message.receive", ...message("c20", 4), content: { type: "ciphertext", envelopes: [envelope("bad")] } });
    const warned: string[] = [];
    const warn = console.warn;
    console.warn = (text: string) => warned.push(text);
    try {
      await until("four handed over", () => handed.length === 4);
    } finally {
      console.warn = warn;
    }
    assert.deepEqual(warned, ["message 4 of c20 did not decrypt"]);
    assert.deepEqual(handed, ["1 sealed secret", "2 sealed hi ann", "3 plain plain", "4 sealed -"], "in seq order, whatever the opening takes");
    assert.equal(seen.messages.length, 1, "only the plain one is a message event");
    c.close();
  });

  test("a sealed reaction is sealed, queued, sealed again after devices_changed under its id, and comes back as this device's entry with its plaintext", async () => {
    const log: string[] = [];
    const { client: c, connection } = await online({ cipher: fakeCipher(log) }, "c22");
    const handed: string[] = [];
    c.on("sealedMessage", ({ message: m, plaintext }) => handed.push(`${m.seq} ${m.relates_to?.kind ?? "message"} of ${m.relates_to?.seq ?? "-"} ${read(plaintext)}`));
    const reacted = c.reactSealed("c22", ["ann", "bob"], 1, text.encode("\u{1F44D}"));
    await connection.next("keys.fetch");
    connection.send(bundle("ann", ["laptop"]));
    await connection.next("keys.fetch");
    connection.send(bundle("bob", ["phone"]));
    const first = await connection.next("reaction.set");
    assert.equal(first.emoji, null);
    assert.match(first.id ?? "", /^[0-9a-f-]{36}$/);
    assert.deepEqual(first.ciphertext?.envelopes?.map((e) => `${e.user_id}/${e.device_id}`), ["bob/phone"]);
    connection.send({ type: "error", code: "devices_changed", message: "bob has a new device", ref: first.id ?? null,
      missing: [{ user_id: "bob", device_id: "tablet" }], extra: [], stale: [] });
    await connection.next("keys.fetch");
    connection.send(bundle("ann", ["laptop"]));
    await connection.next("keys.fetch");
    connection.send(bundle("bob", ["phone", "tablet"]));
    const second = await connection.next("reaction.set");
    assert.equal(second.id, first.id, "the same id: one entry");
    assert.deepEqual(second.ciphertext?.envelopes?.map((e) => `${e.user_id}/${e.device_id}`), ["bob/phone", "bob/tablet"]);
    // The fast path's message.ack of its entry comes first, then reaction.ack: the entry takes its place at seq 1.
    connection.send({ type: "message.ack", id: first.id ?? "", conversation_id: "c22", seq: 1, server_timestamp: 5, status: "sent", ref: first.id ?? null });
    connection.send({ type: "reaction.ack", conversation_id: "c22", target_seq: 1, emoji: null, ref: first.id ?? null });
    assert.deepEqual(await reacted, { type: "reaction.ack", conversation_id: "c22", target_seq: 1, emoji: null, ref: first.id ?? null });
    await until("its entry handed over", () => handed.length === 1);
    assert.deepEqual(handed, ["1 reaction of 1 \u{1F44D}"]);
    assert.equal(c.pendingCount, 0);
    c.close();
  });

  test("a send whose devices keep changing fails after three seals again, and the next goes", async () => {
    const log: string[] = [];
    const { client: c, connection } = await online({ cipher: fakeCipher(log) }, "c21");
    const failed: string[] = [];
    c.on("sendFailed", ({ error }) => failed.push(error.code));
    const doomed = c.sendSealed("c21", ["bob"], text.encode("x"));
    await connection.next("keys.fetch");
    connection.send(bundle("bob", ["phone"]));
    // Queued once sealed: a plain send made after that waits behind it (sealed sends keep their order among themselves).
    await doomed.queued;
    const next = c.send("c21", { type: "text", body: "after" });
    for (let round = 0; round < 4; round++) {
      if (round > 0) {
        await connection.next("keys.fetch");
        connection.send(bundle("bob", ["phone"]));
      }
      await connection.next("message.send", 3000, (f) => f.id === doomed.id);
      connection.send({ type: "error", code: "devices_changed", message: "again", ref: doomed.id, missing: [{ user_id: "bob", device_id: `d${round}` }],
        extra: [], stale: [] });
    }
    await assert.rejects(doomed.acknowledged, (error: unknown) => error instanceof ParleyError && error.code === "devices_changed");
    assert.deepEqual(failed, ["devices_changed"]);
    assert.equal((await connection.next("message.send", 3000, (f) => f.id === next.id)).content.body, "after");
    c.close();
  });

  test("sendSealed without a cipher is refused at once", () => {
    const { client: c } = client();
    assert.throws(() => c.sendSealed("c22", ["bob"], text.encode("x")), /no cipher/);
    c.close();
  });
});
