import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { FakeServer, sleep } from "./fake-server.js";

/** A port nothing listens on (yet). */
async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}

/** Runs keeps-running.js against the port; the server opens there after serverAfterMs, if at all. */
async function run(mode: string, serverAfterMs: number | undefined): Promise<{ code: number | null; output: string; millis: number }> {
  const port = await freePort();
  const script = fileURLToPath(new URL("./keeps-running.js", import.meta.url));
  const started = Date.now();
  const child = spawn(process.execPath, [script, `ws://127.0.0.1:${port}/`, mode], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk) => (output += String(chunk)));
  child.stderr.on("data", (chunk) => (output += String(chunk)));
  const ended = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  let server: FakeServer | undefined;
  if (serverAfterMs !== undefined) {
    await Promise.race([sleep(serverAfterMs), ended]);
    server = await FakeServer.start(port);
    const connection = await server.nextConnection(10_000);
    await connection.syncNothing();
    const send = await connection.next("message.send", 10_000);
    connection.send({ type: "message.ack", id: send.id, conversation_id: send.conversation_id, seq: 1, server_timestamp: 1, status: "sent", ref: send.id });
  }
  const timeout = setTimeout(() => child.kill(), 20_000);
  const code = await ended;
  clearTimeout(timeout);
  await server?.close();
  return { code, output, millis: Date.now() - started };
}

describe("a Node process with a started client", () => {
  test("stays up while its first connections are refused, delivers its queued send once the server opens 3 s later, and exits after close()", async () => {
    const { code, output, millis } = await run("keep", 3000);
    assert.match(output, /top level done/);
    assert.match(output, /offline: connect_failed, again in \d+ ms/, "it said why it was offline");
    assert.match(output, /acknowledged seq 1/, output);
    assert.match(output, /closed/);
    assert.ok(output.indexOf("top level done") < output.indexOf("acknowledged"), "its top level ended before the server was up");
    assert.equal(code, 0, `close() let the process end; it printed:\n${output}`);
    assert.ok(millis >= 3000, `it waited out the 3 s (${millis} ms)`);
  });

  test("with keepProcessAlive false, the process ends with nothing left but the client's timers (the old way)", async () => {
    const { code, output } = await run("unref", undefined);
    assert.match(output, /top level done/);
    assert.doesNotMatch(output, /acknowledged/);
    assert.equal(code, 0);
  });
});
