import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { CLIENT_FRAME_DEFS, SERVER_FRAME_DEFS, decodeClientFrame, decodeServerFrame } from "../src/index.js";

// build-test/test/ -> the package's root.
const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Written by the Java side's FrameSchemaTest: frames of every type as the Java codec encodes them. */
const corpusPath = process.env.PARLEY_FRAME_CORPUS ?? join(packageRoot, "..", "..", "shared-model", "target", "frame-corpus.json");
const corpusMissing = existsSync(corpusPath) ? false
  : `no frame corpus at ${corpusPath}: run 'mvn -pl shared-model test' (scripts/test does) to write it`;

test("every frame the Java codec writes decodes strictly here, and the corpus holds every frame type both sides know", { skip: corpusMissing }, () => {
  const corpus = JSON.parse(readFileSync(corpusPath, "utf8")) as { client: string[]; server: string[] };
  const seen = { client: new Set<string>(), server: new Set<string>() };
  for (const text of corpus.server) {
    const decoded = decodeServerFrame(text, true);
    assert.ok(decoded.ok, `${decoded.ok ? "" : decoded.reason}: ${text.slice(0, 300)}`);
    seen.server.add(decoded.frame.type);
  }
  for (const text of corpus.client) {
    const decoded = decodeClientFrame(text);
    assert.ok(decoded.ok, `${decoded.ok ? "" : decoded.reason}: ${text.slice(0, 300)}`);
    seen.client.add(decoded.frame.type);
  }
  assert.deepEqual([...seen.server].sort(), Object.keys(SERVER_FRAME_DEFS).sort());
  assert.deepEqual([...seen.client].sort(), Object.keys(CLIENT_FRAME_DEFS).sort());
});

test("the generated types are what the schema makes (a frame added to the schema and not generated fails here)", () => {
  execFileSync(process.execPath, [join(packageRoot, "scripts", "generate-frames.mjs"), "--check"], { stdio: "pipe" });
});

test("a server frame with a field this client does not know is read (a newer server), except in strict mode", () => {
  const ack = { type: "message.ack", id: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f", conversation_id: "c1", seq: 3, server_timestamp: 1, status: "sent" };
  assert.ok(decodeServerFrame(JSON.stringify({ ...ack, shard: 7 })).ok);
  const strict = decodeServerFrame(JSON.stringify({ ...ack, shard: 7 }), true);
  assert.deepEqual(strict, { ok: false, reason: "message.ack: frame.shard is not a field the schema names" });
});

test("frames that do not fit are refused naming the field, never thrown", () => {
  const reasons = [
    "not json",
    "[1,2]",
    JSON.stringify({ type: "message.acked" }),
    JSON.stringify({ type: "message.ack", id: "x", conversation_id: "c1", server_timestamp: 1, status: "sent" }),
    JSON.stringify({ type: "message.ack", id: "x", conversation_id: "c1", seq: 1.5, server_timestamp: 1, status: "sent" }),
    JSON.stringify({ type: "message.ack", id: "x", conversation_id: "c1", seq: 1, server_timestamp: 1, status: "stored" }),
    JSON.stringify({ type: "history.batch", conversation_id: "c1", messages: [{ id: "x" }], next_before_seq: null }),
    JSON.stringify({ type: "presence.update", user_id: "u", status: "online", last_seen: "yesterday" }),
  ].map((text) => {
    const decoded = decodeServerFrame(text);
    assert.equal(decoded.ok, false, text);
    return decoded.ok ? "" : decoded.reason;
  });
  assert.match(reasons[0] ?? "", /^not JSON/);
  assert.equal(reasons[1], "a frame must be a JSON object");
  assert.equal(reasons[2], "not a server frame type: \"message.acked\"");
  assert.equal(reasons[3], "message.ack: frame.seq is required");
  assert.equal(reasons[4], "message.ack: frame.seq must be integer, was number");
  assert.match(reasons[5] ?? "", /frame.status must be one of "sent", "duplicate", was "stored"/);
  assert.equal(reasons[6], "history.batch: frame.messages[0].conversation_id is required");
  assert.equal(reasons[7], "presence.update: frame.last_seen must be integer or null, was string");
  assert.equal(decodeClientFrame(JSON.stringify({ type: "sync.done" })).ok, false, "a server frame is not a client's");
});

test("the browser entry points reach no Node module", () => {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, "utf8").matchAll(/(?:import|export)[^"']*from\s*["']([^"']+)["']/g)) {
      assert.ok(specifier?.startsWith("./"), `${file} imports ${specifier}: a browser cannot load it`);
      visit(join(dirname(file), specifier as string));
    }
  };
  visit(join(packageRoot, "dist", "index.js"));
  visit(join(packageRoot, "dist", "indexeddb.js"));
  assert.ok(seen.size > 5, `only ${seen.size} modules reached`);
});

test("protocol 1.1: an answer's ref is read, and a request id outside the id alphabet is named", () => {
  const pong = decodeServerFrame(JSON.stringify({ type: "pong", ref: "p-1" }), true);
  assert.ok(pong.ok && (pong.frame as { ref?: string | null }).ref === "p-1");
  assert.ok(decodeServerFrame(JSON.stringify({ type: "pong", ref: null }), true).ok);
  assert.ok(decodeClientFrame(JSON.stringify({ type: "ping", id: "p-1" })).ok);
  const bad = decodeClientFrame(JSON.stringify({ type: "ping", id: "has space" }));
  assert.ok(!bad.ok && bad.reason.includes("frame.id"), bad.ok ? "decoded" : bad.reason);
});
