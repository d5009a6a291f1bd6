// What the build scripts share: write a file the sources make, or (--check) fail when the committed one differs.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, relative } from "node:path";

/** Writes {@code content} to {@code path}, or with --check fails naming the command that rewrites it when the file differs. */
export function writeOrCheck(root, path, content, command) {
  const shown = relative(root, path).replaceAll("\\\\", "/");
  if (process.argv.includes("--check")) {
    let current = "";
    try {
      current = readFileSync(path, "utf8");
    } catch {
      // Missing: reported as different.
    }
    if (current !== content) {
      console.error(`${shown} is not what the sources make: run '${command}' and commit it`);
      process.exit(1);
    }
    return;
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  console.log(`wrote ${shown} (${content.length} characters)`);
}
