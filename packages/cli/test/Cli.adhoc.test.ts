/**
 * A server given on the command line, with no configuration file: `--url URL [--header NAME:VALUE]` against
 * the in-repo recording server (Streamable HTTP and SSE on 127.0.0.1), and `-- COMMAND ARGS...` starting
 * server-everything over stdio. `zett` runs in-process with its real client factory.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Processes from "@zett/testing/Processes"
import * as RecordingServer from "@zett/testing/RecordingServer"
import * as Effect from "effect/Effect"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { tempDir, writeFile, zett } from "./utils/zett.js"

const require = createRequire(import.meta.url)
const everythingDir = Path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json"))
const everything = Path.join(everythingDir, "dist", "index.js")
const node = process.execPath

/** server-everything over stdio, with a word of its own on its command line to find its process by. */
const everythingCommand = (marker: string) => ["--", node, everything, "stdio", marker]
const markerOf = (name: string) => `zett-adhoc-${name}-${process.pid}-${Math.random().toString(36).slice(2)}`

const lines = (text: string) => text.split("\n").filter((line) => line !== "")

describe("zett with a server given by --url", () => {
  it.scoped("tools --url --header: that one server, named after its host; the header reaches it and is printed nowhere", () =>
    Effect.gen(function*() {
      const recording = yield* RecordingServer.make()
      const secret = "hdr-secret-6d1f0c"
      const result = yield* zett([
        "tools",
        "--url",
        recording.url("/mcp"),
        "--header",
        `X-Api-Key: ${secret}`,
        "--header",
        "X-Plain:visible",
        "--log-level",
        "debug"
      ])
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(lines(result.stdout)[0], "MCP servers in the command line")
      assert.match(result.stdout, /^127\.0\.0\.1\s+streamable-http\s+2025-11-25\s+\d+ ms\s+2\s+\d+\s+ok$/m)
      assert.include(result.stdout, "127_0_0_1__echo")
      const posts = recording.received.filter((request) => request.method === "POST")
      assert.isAbove(posts.length, 0)
      for (const post of posts) {
        assert.strictEqual(post.headers["x-api-key"], secret)
        assert.strictEqual(post.headers["x-plain"], "visible")
      }
      assert.notInclude(result.stdout + result.stderr, secret)
    }))

  it.scoped("--transport sse reaches the legacy endpoint and the table says sse; --name names the server", () =>
    Effect.gen(function*() {
      const recording = yield* RecordingServer.make()
      const result = yield* zett(["tools", "--url", recording.url("/sse"), "--transport", "sse", "--name", "legacy"])
      assert.strictEqual(result.code, 0, result.stderr)
      assert.match(result.stdout, /^legacy\s+sse\s+2025-11-25\s+\d+ ms\s+2\s+\d+\s+ok$/m)
      assert.isTrue(recording.received.some((request) => request.method === "GET" && request.path.startsWith("/sse")))
      assert.isFalse(recording.received.some((request) => request.path.startsWith("/mcp")))
    }))

  it.scoped("a server that has only the legacy transport is reached through the fallback, and the table says sse, the transport used", () =>
    Effect.gen(function*() {
      const recording = yield* RecordingServer.make({ legacyOnly: true })
      const result = yield* zett(["tools", "--url", recording.url("/sse"), "--name", "old"])
      assert.strictEqual(result.code, 0, result.stderr)
      assert.match(result.stdout, /^old\s+sse\s+2025-11-25\s+\d+ ms\s+2\s+\d+\s+ok$/m)
      // Streamable HTTP was tried first
      assert.deepStrictEqual(recording.received[0] && [recording.received[0].method, recording.received[0].path], [
        "POST",
        "/sse"
      ])
    }))

  it.scoped("call --url: the tool by the server's own name or by its exposed name", () =>
    Effect.gen(function*() {
      const recording = yield* RecordingServer.make()
      for (const name of ["echo", "127_0_0_1__echo"]) {
        const result = yield* zett(["call", name, "--url", recording.url("/mcp")])
        assert.strictEqual(result.code, 0, result.stderr)
        assert.deepStrictEqual(JSON.parse(result.stdout), [{ type: "text", text: "echo: {}" }])
      }
    }))

  it.scoped("an unreachable --url is an unavailable server (exit 1) whose line shows no header value", () =>
    Effect.gen(function*() {
      const port = yield* Processes.freePort
      const secret = "hdr-secret-a77e21"
      const result = yield* zett([
        "tools",
        "--url",
        `http://127.0.0.1:${port}/mcp`,
        "--header",
        `Authorization: Bearer ${secret}`
      ])
      assert.strictEqual(result.code, 1)
      assert.match(result.stdout, /^127\.0\.0\.1\s+streamable-http\s+.*unavailable: /m)
      assert.match(result.stderr, /^zett: 1 of 1 MCP server unavailable: 127\.0\.0\.1 \(/)
      assert.notInclude(result.stdout + result.stderr, secret)
    }))
})

describe("zett with a server command after --", () => {
  it.scoped(
    "tools -- node server-everything stdio: named after the command, on 2025-11-25, listed, and its process ends with zett",
    () =>
      Effect.gen(function*() {
        const marker = markerOf("tools")
        const result = yield* zett(["tools", ...everythingCommand(marker)])
        assert.strictEqual(result.code, 0, result.stderr)
        assert.match(result.stdout, /^node\s+stdio\s+2025-11-25\s+\d+ ms\s+\d+\s+\d+\s+ok$/m)
        assert.include(result.stdout, "node__echo")
        assert.isTrue(yield* Processes.eventually(() => Processes.liveWithCommand(marker).length === 0))
      })
  )

  it.scoped(
    "call with --env: the server gets the variable, and its value is scrubbed from what zett prints",
    () =>
      Effect.gen(function*() {
        const secret = "env-secret-93b2c4"
        const result = yield* zett([
          "call",
          "get-env",
          "--env",
          `ZETT_PROBE=${secret}`,
          "--name",
          "everything",
          ...everythingCommand(markerOf("env"))
        ])
        assert.strictEqual(result.code, 0, result.stderr)
        const [block] = JSON.parse(result.stdout) as ReadonlyArray<{ readonly text: string }>
        const env = JSON.parse(block!.text) as Record<string, string>
        // the variable arrived (the server lists it); the value zett shows is the scrubbed one
        assert.strictEqual(env.ZETT_PROBE, "<redacted>")
        assert.notInclude(result.stdout + result.stderr, secret)
      })
  )

  it.scoped(
    "--cwd is the server's working directory: a relative script path resolves there",
    () =>
      Effect.gen(function*() {
        const result = yield* zett([
          "tools",
          "--cwd",
          everythingDir,
          "--",
          node,
          Path.join("dist", "index.js"),
          "stdio"
        ])
        assert.strictEqual(result.code, 0, result.stderr)
        assert.match(result.stdout, /^node\s+stdio\s+.*ok$/m)
        // without it the same relative path names no file, and the server dies at start
        const elsewhere = yield* zett(["tools", "--", node, Path.join("dist", "index.js"), "stdio"])
        assert.strictEqual(elsewhere.code, 1)
        assert.match(elsewhere.stdout, /^node\s+stdio\s+.*unavailable: /m)
      })
  )

  it.scoped(
    "--include-tools and --exclude-tools filter the server's tools as a configuration entry's filters do",
    () =>
      Effect.gen(function*() {
        const included = yield* zett([
          "tools",
          "--json",
          "--include-tools",
          "echo",
          "--include-tools",
          "get-env",
          ...everythingCommand(markerOf("include"))
        ])
        assert.strictEqual(included.code, 0, included.stderr)
        const [server] = JSON.parse(included.stdout).servers
        assert.deepStrictEqual(server.tools.map((t: { name: string }) => t.name), ["node__echo", "node__get-env"])
        assert.include(server.filtered, "get-sum")
        const excluded = yield* zett([
          "call",
          "get-env",
          "--exclude-tools",
          "get-env",
          ...everythingCommand(markerOf("exclude"))
        ])
        assert.strictEqual(excluded.code, 2)
        assert.match(excluded.stderr, /^zett: no tool named get-env; available: node__echo, /)
        assert.notInclude(excluded.stderr, "node__get-env")
      })
  )

  it.scoped("resources and prompts list the one server given after --, as JSON too", () =>
    Effect.gen(function*() {
      const prompts = yield* zett([
        "prompts",
        "--json",
        "--name",
        "everything",
        ...everythingCommand(markerOf("prompts"))
      ])
      assert.strictEqual(prompts.code, 0, prompts.stderr)
      const report = JSON.parse(prompts.stdout)
      assert.strictEqual(report.config, "the command line")
      assert.deepStrictEqual(report.servers.map((s: { name: string }) => s.name), ["everything"])
      assert.include(report.servers[0].prompts.map((p: { name: string }) => p.name), "args-prompt")
      const resources = yield* zett(["resources", ...everythingCommand(markerOf("resources"))])
      assert.strictEqual(resources.code, 0, resources.stderr)
      assert.match(resources.stdout, /^node\s+stdio\s+.*ok$/m)
      assert.include(resources.stdout, "demo://resource/")
    }))

  it.scoped(
    "read and prompt ask the one server given after --, with no server name before their own arguments",
    () =>
      Effect.gen(function*() {
        const read = yield* zett(["read", "demo://resource/dynamic/text/2", ...everythingCommand(markerOf("read"))])
        assert.strictEqual(read.code, 0, read.stderr)
        assert.match(read.stdout, /^Resource 2: This is a plaintext resource created at [^\n]+\n$/)
        const prompt = yield* zett([
          "prompt",
          "args-prompt",
          "{\"city\": \"Paris\", \"state\": \"TX\"}",
          ...everythingCommand(markerOf("prompt"))
        ])
        assert.strictEqual(prompt.code, 0, prompt.stderr)
        assert.strictEqual(prompt.stdout, "user: What's weather in Paris, TX?\n")
        // a server name as well is one argument too many: a usage error, and no server is started
        const marker = markerOf("named")
        const named = yield* zett([
          "read",
          "everything",
          "demo://resource/dynamic/text/2",
          ...everythingCommand(marker)
        ])
        assert.strictEqual(named.code, 2)
        assert.deepStrictEqual(Processes.liveWithCommand(marker), [])
      })
  )
})

describe("zett: a server on the command line, misused", () => {
  it.scoped("options that do not fit together are one usage line each (exit 2), never showing a value", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = writeFile(dir, "mcp.json", { mcpServers: {} })
      const secret = "arg-secret-55c0de"
      const url = "http://127.0.0.1:9/mcp"
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [
          ["tools", "--url", url, "--config", config],
          "--config and a server given on the command line (--url, or a command after --) exclude each other"
        ],
        [["tools", "--url", url, "--", "node", "x.js"], "give one server: --url URL or a command after --, not both"],
        [
          ["tools", "--header", `A: ${secret}`],
          "--header: only for a server given with --url URL or after --; neither is given"
        ],
        [
          ["tools", "--env", `A=${secret}`, "--cwd", dir],
          "--env, --cwd: only for a server given with --url URL or after --; neither is given"
        ],
        [
          ["tools", "--exclude-tools", "x", "--name", "n"],
          "--exclude-tools, --name: only for a server given with --url URL or after --; neither is given"
        ],
        [
          ["tools", "--url", url, "--header", `Bearer ${secret}`],
          "--header expects NAME:VALUE; it has no ':' (its text is not shown)"
        ],
        [
          ["tools", "--url", url, "--header", "A: 1", "--header", `: ${secret}`],
          "--header number 2 expects NAME:VALUE; its name is empty or not a valid name (its text is not shown)"
        ],
        [
          ["tools", "--url", `ftp://host/?token=${secret}`],
          "--url expects an http: or https: URL (the text given is not shown)"
        ],
        [
          ["tools", "--url", url, "--env", `A=${secret}`],
          "--env and --cwd are for a server started as a command (after --), not for --url"
        ],
        [
          ["tools", "--transport", "sse", "--", "node", "x.js"],
          "--header and --transport are for a server given with --url, not for a command"
        ],
        [
          ["tools", "--env", secret, "--", "node", "x.js"],
          "--env expects NAME=VALUE; it has no '=' (its text is not shown)"
        ],
        [["tools", "--"], "the command after -- is empty"]
      ]
      for (const [args, line] of cases) {
        const result = yield* zett(args)
        assert.strictEqual(result.code, 2, args.join(" "))
        assert.strictEqual(result.stderr, `zett: ${line}\n`, args.join(" "))
        assert.notInclude(result.stdout + result.stderr, secret)
      }
    }))
})
