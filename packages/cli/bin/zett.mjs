#!/usr/bin/env node
// The `zett` command, as installed: it runs the built JavaScript (in this repository, `npm run zett` runs the
// TypeScript sources instead). `--version` is answered here, before any module is loaded.
import { readFileSync } from "node:fs"

const args = process.argv.slice(2)
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
  const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
  process.stdout.write(`${version}\n`)
} else {
  await import("../dist/main.js")
}
