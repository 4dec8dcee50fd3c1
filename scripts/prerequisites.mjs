#!/usr/bin/env node
// The system programs the tests start (a real Redis, a pseudo-terminal through script(1)). Where one is
// missing, root on a Debian-like system installs it with apt-get, as CI does; anyone else is told in one line
// what is missing and how to install it, before a single test runs.
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"

const programs = [
  { name: "redis-server", debian: "redis-server", brew: "redis", why: "the shared tool cache and token store tests" },
  { name: "script", debian: "bsdutils", brew: undefined, why: "the tests that give zett a terminal" }
]

const onPath = (name) =>
  (process.env.PATH ?? "").split(Path.delimiter).some((dir) => {
    if (dir === "") return false
    try {
      Fs.accessSync(Path.join(dir, name), Fs.constants.X_OK)
      return true
    } catch {
      return false
    }
  })

const missing = programs.filter((program) => !onPath(program.name))
if (missing.length === 0) process.exit(0)

const mayInstall = process.env.ZETT_INSTALL_PREREQUISITES !== "never" && process.getuid?.() === 0 && onPath("apt-get")
if (mayInstall) {
  const packages = missing.map((program) => program.debian)
  console.error(`npm test: installing ${packages.join(", ")} with apt-get (${missing.map((p) => p.why).join("; ")})`)
  const quiet = { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } }
  const update = spawnSync("apt-get", ["update", "-qq"], quiet)
  const install = update.status === 0 ? spawnSync("apt-get", ["install", "-y", "-qq", ...packages], quiet) : update
  if (install.status === 0 && missing.every((program) => onPath(program.name))) process.exit(0)
}

for (const program of missing) {
  const how = [
    `apt-get install ${program.debian}`,
    ...(program.brew !== undefined ? [`brew install ${program.brew}`] : [])
  ]
  console.error(
    `npm test needs ${program.name} (for ${program.why}), which is not on PATH: install it (${
      how.join(", or ")
    }) and run npm test again`
  )
}
process.exit(1)
