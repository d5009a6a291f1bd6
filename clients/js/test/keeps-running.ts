// A Node program whose only work is a client (run by keep-alive.test.ts in a process of its own): it queues a send and its
// top level ends at once, while nothing listens on the port yet. "unref" as the second argument: keepProcessAlive false.
import { ParleyClient } from "../src/index.js";
import { nodeWebSocket } from "../src/node.js";

const [url, mode] = process.argv.slice(2);
const client = new ParleyClient({
  url: url!, user: "bot", device: "worker", token: () => "token", webSocket: await nodeWebSocket(),
  backoff: { minMs: 100, maxMs: 400 }, keepProcessAlive: mode !== "unref",
});
client.on("state", (change) => {
  if (change.state === "offline") console.log(`offline: ${change.reason}, again in ${change.retry_in_ms} ms`);
});
void client.start();
const sent = client.send("d:bot:ann", { type: "text", body: "queued before the server was up" });
sent.acknowledged.then((ack) => {
  console.log(`acknowledged seq ${ack.seq}`);
  client.close();
  console.log("closed");
}, (error: Error) => console.log(`not acknowledged: ${error.message}`));
console.log("top level done");
