/**
 * `zett` and the revisions of MCP, in-process on the SDK's own client factory against servers of the 2026-07-28
 * revision (@zett/testing/ModernServers) and of the 2025 ones (the fault server): what each server speaks is kept
 * in `~/.zett/protocols/` from one run to the next (each run is a new process), and `--protocol` pins a revision.
 * What the servers received is read from their records.
 */
import { assert, describe, it } from "@effect/vitest"
import * as FaultyServer from "@zett/testing/Faults"
import * as ModernServers from "@zett/testing/ModernServers"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { tempDir, writeFile, zett } from "./utils/zett.js"

const methodsByProcess = ModernServers.methodsByProcess

const setup = Effect.gen(function*() {
  const dir = yield* tempDir
  const home = Path.join(dir, "home")
  Fs.mkdirSync(home)
  const record = Path.join(dir, "record.jsonl")
  const modern = ModernServers.stdio("modern", "modern-only", record)
  const config = writeFile(dir, "mcp.json", {
    mcpServers: {
      modern: { command: modern.command, args: modern.args },
      legacy: {
        command: process.execPath,
        args: [FaultyServer.faultyServer, `--record=${record}`, "--record-messages"]
      }
    }
  })
  return { home, record, config }
})

describe("zett and the revisions of MCP", () => {
  it.scopedLive(
    "what each server speaks is kept across runs: the second run asks no server what it speaks",
    () =>
      Effect.gen(function*() {
        const { config, home, record } = yield* setup
        const first = yield* zett(["tools", "--config", config, "--json"], { env: { HOME: home } })
        assert.strictEqual(first.code, 0, first.stderr)
        const second = yield* zett(["tools", "--config", config, "--json"], { env: { HOME: home } })
        assert.strictEqual(second.code, 0, second.stderr)
        const versions = (stdout: string) =>
          Object.fromEntries(
            (JSON.parse(stdout) as { servers: Array<{ name: string; protocolVersion?: string }> }).servers
              .map((server) => [server.name, server.protocolVersion])
          )
        assert.deepStrictEqual(versions(first.stdout), { modern: "2026-07-28", legacy: "2025-11-25" })
        assert.deepStrictEqual(versions(second.stdout), versions(first.stdout))
        const asked = methodsByProcess(record).filter((methods) => methods.includes("server/discover"))
        // the first run asked each server once, on its own process; the second run asked none
        assert.strictEqual(asked.length, 2)
        assert.strictEqual(methodsByProcess(record).length, 4)
        assert.strictEqual(Fs.readdirSync(Path.join(home, ".zett", "protocols")).length, 2)
      })
  )

  it.scopedLive(
    "a server named with a lone surrogate is kept like any other: every server of the run is listed, and the next run asks none",
    () =>
      Effect.gen(function*() {
        const { home, record } = yield* setup
        const dir = Path.dirname(record)
        const modern = ModernServers.stdio("modern", "modern-only", record)
        // valid JSON: "\ud800x" is a name no encodeURIComponent takes
        const config = writeFile(dir, "odd.json", {
          mcpServers: {
            "\ud800x": { command: modern.command, args: modern.args },
            legacy: {
              command: process.execPath,
              args: [FaultyServer.faultyServer, `--record=${record}`, "--record-messages"]
            }
          }
        })
        for (let run = 0; run < 2; run++) {
          const result = yield* zett(["tools", "--config", config, "--json"], { env: { HOME: home } })
          assert.strictEqual(result.code, 0, result.stderr)
          const servers = (JSON.parse(result.stdout) as { servers: Array<{ name: string; status: string }> }).servers
          assert.deepStrictEqual(servers.map((server) => [server.name, server.status]), [["\ud800x", "ok"], [
            "legacy",
            "ok"
          ]])
        }
        assert.strictEqual(methodsByProcess(record).filter((methods) => methods.includes("server/discover")).length, 2)
        for (const file of Fs.readdirSync(Path.join(home, ".zett", "protocols"))) assert.match(file, /^[0-9a-f]{40}$/)
      })
  )

  it.scopedLive(
    "--protocol pins every server to a revision: one the server does not speak is one clear line",
    () =>
      Effect.gen(function*() {
        const { config, home, record } = yield* setup
        const legacy = yield* zett(["--protocol", "2025-11-25", "tools", "--config", config], { env: { HOME: home } })
        assert.include(
          legacy.stderr,
          "modern (the server supports only protocol 2026-07-28, and this client asked for 2025-11-25; the definition pins protocol 2025-11-25)"
        )
        assert.match(legacy.stdout, /^legacy\s+stdio\s+2025-11-25\s.*ok$/m)
        const modern = yield* zett(["tools", "--config", config, "--protocol=2026-07-28"], { env: { HOME: home } })
        assert.match(modern.stdout, /^modern\s+stdio\s+2026-07-28\s.*ok$/m)
        assert.match(modern.stderr, /unavailable: legacy \(.*; the definition pins protocol 2026-07-28\)$/m)
        // pinned, nothing is asked first: initialize straight away, or server/discover as the request of the revision
        assert.isFalse(
          methodsByProcess(record).some((methods) => methods[0] === "server/discover" && methods[1] === "initialize")
        )
      })
  )
})
