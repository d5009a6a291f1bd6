import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

// The client's parts in layers, as the Java client's (ClientArchitectureTest): the app's view over where the parts meet,
// over the parts, over requests, over the connection. A part never reaches up, and the parts meet in session.ts only.
const LAYERS: string[][] = [
  ["client"],
  ["session"],
  ["sender", "receiving", "presence"],
  ["requests"],
  ["connection"],
];
const SOURCES = fileURLToPath(new URL("../../src/", import.meta.url));

function importsOf(module: string): string[] {
  const text = readFileSync(`${SOURCES}${module}.ts`, "utf8");
  return [...text.matchAll(/from "\.\/([a-z-]+)\.js"/g)].map((match) => match[1]!);
}

test("the client's parts are layered: none imports a layer above it, and the parts do not import each other", () => {
  LAYERS.forEach((layer, depth) => {
    const above = LAYERS.slice(0, depth).flat();
    for (const module of layer) {
      const imported = importsOf(module);
      assert.deepEqual(imported.filter((name) => above.includes(name)), [], `${module}.ts reaches up`);
      assert.deepEqual(imported.filter((name) => name !== module && layer.includes(name)), [], `${module}.ts imports a part beside it`);
    }
  });
});

test("no source file is over 320 lines but the generated frames", () => {
  const long = readdirSync(SOURCES).filter((file) => file.endsWith(".ts") && file !== "frames.generated.ts")
    .map((file) => ({ file, lines: readFileSync(`${SOURCES}${file}`, "utf8").split("\n").length }))
    .filter(({ lines }) => lines > 320);
  assert.deepEqual(long, []);
});
