/**
 * Effect 4's own MCP client (`effect/ai`'s `McpClient`) and Zett's 4 line side by side, against the same real
 * servers: the 2026-07-28 servers of SDK v2 (`packages/testing/servers/modern-server.mjs`), server-everything from
 * npm (SDK v1, the 2025 revisions), an SDK v1 server of the 2025-06-18 revision (`fixtures/server-2025-06-18.mjs`)
 * and the fault server (`faulty-server.mjs`), each started as `node <file>`. Each test says what each client does
 * with the same server; the README's table "Zett and Effect 4's own McpClient" cites them row by row.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import type { McpError } from "@zett/mcp"
import { McpClient as ZettClient, McpClientFactory, McpElicitation, McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory, NodeMcpExtension } from "@zett/mcp-node"
import * as McpToolkit from "@zett/mcp/McpToolkit"
import * as TempDir from "@zett/testing-core/TempDir"
import { McpClient, type McpClientError, McpProtocol } from "effect/ai"
import * as Effect from "effect/Effect"
import { FetchHttpClient } from "effect/http"
import * as Layer from "effect/Layer"
import { ChildProcess } from "effect/process"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"
import * as Http from "node:http"
import { createRequire } from "node:module"
import type { AddressInfo } from "node:net"
import * as Path from "node:path"

const require = createRequire(import.meta.url)
const serversDir = Path.join(import.meta.dirname, "..", "..", "packages", "testing", "servers")
const modernServer = Path.join(serversDir, "modern-server.mjs")
const faultyServer = Path.join(serversDir, "faulty-server.mjs")
const wrapper = Path.join(serversDir, "wrapper.mjs")
const juneServer = Path.join(import.meta.dirname, "fixtures", "server-2025-06-18.mjs")
const declareElicitation = Path.join(import.meta.dirname, "fixtures", "declare-elicitation.mjs")
const everything = Path.join(
  Path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js"
)

/** A fresh record file for a modern server's messages, in a folder removed with the test's scope. */
const recordFile = Effect.map(TempDir.make("zett-effect-mcp-"), (dir) => Path.join(dir, "record.jsonl"))

interface RecordEntry {
  readonly event: string
  readonly pid: number
  readonly method?: string
}
const readRecord = (file: string): Array<RecordEntry> =>
  Fs.existsSync(file)
    ? Fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) =>
      JSON.parse(line) as RecordEntry
    )
    : []
const methods = (file: string) => readRecord(file).flatMap((entry) => entry.event === "message" ? [entry.method] : [])
const count = (file: string, method: string) => methods(file).filter((m) => m === method).length

const modernArgs = (name: string, record: string, extra: ReadonlyArray<string> = []) => [
  modernServer,
  `--name=${name}`,
  "--legacy=serve",
  `--record=${record}`,
  ...extra
]

// ---------------------------------------------------------------------------------------------------------------
// Effect 4's client, as its docs set it up: one layer per server, the revision chosen by the app
// ---------------------------------------------------------------------------------------------------------------

type EffectProtocol = typeof McpProtocol.v2025_11_25 | typeof McpProtocol.v2026_07_28

const effectLayer = (
  args: ReadonlyArray<string>,
  protocol: EffectProtocol,
  env?: Record<string, string>
) =>
  McpClient.layerStdio({
    name: "app",
    version: "1.0.0",
    command: ChildProcess.make(process.execPath, args, env === undefined ? {} : { env, extendEnv: true }),
    protocol
  }).pipe(Layer.provide(NodeServices.layer))

/** With Effect's client connected to `args` (a server started with `node`), runs `f`. */
const withEffect = <A, E>(
  args: ReadonlyArray<string>,
  protocol: EffectProtocol,
  f: (client: McpClient.McpClient) => Effect.Effect<A, E>,
  env?: Record<string, string>
) =>
  Effect.gen(function*() {
    return yield* f(yield* McpClient.McpClient)
  }).pipe(Effect.provide(effectLayer(args, protocol, env)))

const textOfEffect = (result: { readonly content: ReadonlyArray<unknown> }) =>
  result.content.map((block) => {
    const b = block as { readonly type: string; readonly text?: string }
    return b.type === "text" ? b.text ?? "" : ""
  }).join("\n")

// ---------------------------------------------------------------------------------------------------------------
// Zett's 4 line: a server definition, the Node driver (`NodeMcpClientFactory`), the revision settled per server
// ---------------------------------------------------------------------------------------------------------------

const withZett = <A, E>(
  server: McpServerConfig.McpServerConfig,
  f: (client: ZettClient.McpClient) => Effect.Effect<A, E>,
  services: Layer.Layer<never> = Layer.empty
) =>
  Effect.scoped(Effect.gen(function*() {
    return yield* f(yield* (yield* McpClientFactory.McpClientFactory).connect(server))
  })).pipe(
    Effect.provide(
      NodeMcpClientFactory.layer().pipe(Layer.provideMerge(services), Layer.provideMerge(NodeServices.layer))
    )
  )

const textOfZett = (result: { readonly content: ReadonlyArray<{ readonly type: string; readonly text?: unknown }> }) =>
  result.content.map((block) => (block.type === "text" ? String(block.text) : "")).join("\n")

const stdio = (name: string, args: ReadonlyArray<string>, extra: Partial<McpServerConfig.Extra> = {}) =>
  McpServerConfig.stdio({ name, command: process.execPath, args: [...args], ...extra })

/** Answers every elicitation with `{ confirm: true }` and keeps the messages it was asked. */
const accepting = () => {
  const asked: Array<string> = []
  const layer = McpElicitation.layer((request) =>
    Effect.sync(() => {
      asked.push(request.message)
      return { action: "accept", content: { confirm: true } } as const
    })
  )
  return { asked, layer }
}

const live = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe("Effect 4's McpClient and Zett's 4 line, against the same servers", () => {
  describe("both eras", () => {
    it.live(
      "a 2025-06-18 server (SDK v1): Effect's client fails with UnsupportedError; Zett's lists and calls it on 2025-06-18",
      () =>
        Effect.gen(function*() {
          // Effect's protocol option takes 2025-11-25 or 2026-07-28 only (its `ProtocolVersion` type)
          const effect = yield* Effect.flip(withEffect([juneServer], McpProtocol.v2025_11_25, (c) => c.listTools()))
          assert.strictEqual(effect.reason._tag, "UnsupportedError")
          assert.include(effect.message, "does not support the explicitly selected protocol version")

          const zett = yield* withZett(stdio("june", [juneServer]), (client) =>
            Effect.gen(function*() {
              const tools = yield* ZettClient.listAll(client)
              const result = yield* client.callTool("echo", { text: "hi" })
              return { version: client.protocolVersion, tools: tools.map((t) => t.name), text: textOfZett(result) }
            }))
          assert.deepStrictEqual(zett, { version: "2025-06-18", tools: ["echo"], text: "echo: hi" })
        }),
      60_000
    )

    it.live(
      "server-everything (2025 only) and a modern-only server: Effect's client works only with the revision the app chose for each, Zett's settles each server's itself",
      () =>
        Effect.gen(function*() {
          const modernOnly = (record: string) => [
            modernServer,
            "--name=modern",
            "--legacy=reject",
            `--record=${record}`
          ]
          // Effect: the modern revision refuses the 2025 server, the 2025 revision the modern-only one
          const onEverything = yield* Effect.flip(
            withEffect([everything, "stdio"], McpProtocol.v2026_07_28, (c) => c.listTools())
          )
          assert.strictEqual(onEverything.message, "Method not found (code -32601)")
          const onModern = yield* Effect.flip(
            withEffect(modernOnly(yield* recordFile), McpProtocol.v2025_11_25, (c) => c.listTools())
          )
          assert.strictEqual(onModern.message, "Unsupported protocol version: 2025-11-25 (code -32022)")
          // ... and each works with its own
          const everythingTools = yield* withEffect(
            [everything, "stdio"],
            McpProtocol.v2025_11_25,
            (c) => c.listTools()
          )
          assert.include(everythingTools.map((t) => t.name), "echo")
          const modernTools = yield* withEffect(modernOnly(yield* recordFile), McpProtocol.v2026_07_28, (c) =>
            c.listTools())
          assert.include(
            modernTools.map((t) =>
              t.name
            ),
            "echo"
          )

          // Zett: one definition each, no revision named; the driver asks server/discover and falls back
          const versionOf = (server: McpServerConfig.McpServerConfig) =>
            withZett(server, (client) =>
              Effect.gen(function*() {
                yield* ZettClient.listAll(client)
                return client.protocolVersion
              }))
          assert.strictEqual(yield* versionOf(stdio("everything", [everything, "stdio"])), "2025-11-25")
          assert.strictEqual(yield* versionOf(stdio("modern", modernOnly(yield* recordFile))), "2026-07-28")
        }),
      90_000
    )
  })

  describe("a server that needs input during a call", () => {
    it.live(
      "2026-07-28, a tool that asks for input (input_required): Effect's client declares no elicitation and the call fails, and a server that asks anyway fails it with UnsupportedError; Zett's answers through McpElicitation and gets the result",
      () =>
        Effect.gen(function*() {
          const record = yield* recordFile
          const effect = yield* Effect.flip(withEffect(modernArgs("modern", record), McpProtocol.v2026_07_28, (c) =>
            Effect.gen(function*() {
              const confirm = (yield* c.listTools()).find((t) => t.name === "confirm")!
              return yield* c.callTool({ tool: confirm, arguments: {} })
            })))
          // Effect's client declares no elicitation, so the server may not ask it
          assert.strictEqual(effect.reason._tag, "ProtocolError")
          assert.strictEqual((effect.reason as McpClientError.ProtocolError).code, -32021)
          assert.include(effect.message, "do not declare the required capability")
          // a server that asks anyway (the same server behind a proxy that declares elicitation for the client)
          const asking = yield* Effect.flip(
            withEffect([declareElicitation, ...modernArgs("modern", yield* recordFile)], McpProtocol.v2026_07_28, (c) =>
              Effect.gen(function*() {
                const confirm = (yield* c.listTools()).find((t) =>
                  t.name === "confirm"
                )!
                return yield* c.callTool({ tool: confirm, arguments: {} })
              }))
          )
          assert.strictEqual(asking.reason._tag, "UnsupportedError")
          assert.strictEqual(asking.message, "MCP input continuation is not supported")

          const { asked, layer } = accepting()
          const zett = yield* withZett(stdio("modern", modernArgs("modern", yield* recordFile)), (client) =>
            Effect.map(client.callTool("confirm", {}), (result) => ({
              version: client.protocolVersion,
              text: textOfZett(result)
            })), layer)
          assert.deepStrictEqual(zett, {
            version: "2026-07-28",
            text: "answer: {\"action\":\"accept\",\"content\":{\"confirm\":true}}"
          })
          assert.deepStrictEqual(asked, ["Go ahead?"])
        }),
      60_000
    )

    it.live(
      "2025-11-25, a tool that asks through a server request (elicitation/create): with Effect's client the tool fails; Zett's answers through McpElicitation",
      () =>
        Effect.gen(function*() {
          const effect = yield* Effect.result(
            withEffect(modernArgs("modern", yield* recordFile), McpProtocol.v2025_11_25, (c) =>
              Effect.gen(function*() {
                const confirm = (yield* c.listTools()).find((t) => t.name === "confirm")!
                return yield* c.callTool({ tool: confirm, arguments: {} })
              }))
          )
          // Effect's client declares no elicitation (and answers any server request but ping "method not found"):
          // the server cannot ask, and the tool fails
          assert.strictEqual(effect._tag, "Success")
          if (effect._tag === "Success") {
            assert.isTrue(effect.success.isError === true)
            assert.include(textOfEffect(effect.success), "did not declare the required capability")
          }

          const { asked, layer } = accepting()
          const zett = yield* withZett(
            stdio("modern", modernArgs("modern", yield* recordFile), { protocol: "2025-11-25" }),
            (client) =>
              Effect.map(client.callTool("confirm", {}), (result) => ({
                version: client.protocolVersion,
                text: textOfZett(result)
              })),
            layer
          )
          assert.deepStrictEqual(zett, {
            version: "2025-11-25",
            text: "answer: {\"action\":\"accept\",\"content\":{\"confirm\":true}}"
          })
          assert.deepStrictEqual(asked, ["Go ahead?"])
        }),
      60_000
    )
  })

  describe("several servers, one cache", () => {
    it.live(
      "two servers with the same tool names and a public caching hint: Effect's client lists at every ask, names tools per client and never listens; Zett's toolkit namespaces both, lists each once for two conversations, starts only what is called and listens for changes",
      () =>
        Effect.gen(function*() {
          const hint = ["--tools-ttl=60000", "--tools-scope=public"]
          // Effect: each listTools is a tools/list; names are the server's, or the prefix the app gives a toolkit
          const effectRecord = yield* recordFile
          const names = yield* withEffect(modernArgs("one", effectRecord, hint), McpProtocol.v2026_07_28, (c) =>
            Effect.gen(function*() {
              yield* c.listTools()
              yield* c.listTools()
              const plain = yield* McpClient.toolkit(c)
              const prefixed = yield* McpClient.toolkit(c, "one_")
              return { plain: Object.keys(plain.tools), prefixed: Object.keys(prefixed.tools) }
            }))
          assert.strictEqual(count(effectRecord, "tools/list"), 4, "two listTools and two toolkits: four listings")
          assert.include(names.plain, "echo")
          assert.include(names.prefixed, "one_echo")

          // Zett: both servers in one toolkit, namespaced; a second conversation reads both lists from the cache
          const one = yield* recordFile
          const two = yield* recordFile
          const servers = [
            stdio("one", modernArgs("one", one, hint)),
            stdio("two", modernArgs("two", two, hint))
          ]
          const conversation = Effect.scoped(Effect.gen(function*() {
            const mcp = yield* McpToolkit.make()
            const results = yield* Stream.runCollect(yield* mcp.toolkit.handle("two__echo", { text: "hi" }))
            return { names: Object.keys(mcp.toolkit.tools), result: results.at(-1)!.result }
          }))
          const [first, second] = yield* Effect.all([conversation, conversation], { concurrency: 1 }).pipe(
            Effect.provide(NodeMcpExtension.layerToolkit(servers))
          )
          assert.includeMembers(first!.names, ["one__echo", "two__echo"])
          assert.deepStrictEqual(second!.names, first!.names)
          assert.include(JSON.stringify(first!.result), "two echo: hi")
          assert.strictEqual(count(one, "tools/list"), 1)
          assert.strictEqual(count(two, "tools/list"), 1)
          // connections last a conversation: the second started only the server it called
          const starts = (file: string) =>
            readRecord(file).filter((entry) =>
              entry.event === "ready"
            ).length
          assert.deepStrictEqual([starts(one), starts(two)], [1, 2])
          // Zett's conversation listens for the servers' changes (2026-07-28 subscriptions); Effect's client never does
          assert.include(methods(one), "subscriptions/listen")
          assert.notInclude(methods(effectRecord), "subscriptions/listen")
        }),
      90_000
    )
  })

  describe("toolkits", () => {
    it.live(
      "a tool that answers isError: McpClient.toolkit's handler fails with a ToolError (failureMode error); McpToolkit returns the failure to the model, named by server, its text scrubbed",
      () =>
        Effect.gen(function*() {
          const token = "sk-live-toolkit-8d1e3b"
          const args = [faultyServer, "--fault=echo-secrets"]
          const effect = yield* withEffect(args, McpProtocol.v2025_11_25, (c) =>
            Effect.gen(function*() {
              const toolkit = yield* McpClient.toolkit(c)
              const names = Object.keys(toolkit.tools)
              const echo = yield* Stream.runCollect(yield* toolkit.handle("echo", { text: "hi" }))
              const leak = yield* Effect.flip(Effect.flatMap(toolkit.handle("leak", {}), Stream.runCollect))
              return { names, echo: echo.at(-1)!.result, leak }
            }), { API_TOKEN: token })
          assert.include(effect.names, "leak")
          assert.include(String(effect.echo), "hi")
          assert.strictEqual((effect.leak as McpClientError.McpClientError).reason._tag, "ToolError")
          assert.include(JSON.stringify(effect.leak), token)

          const zett = yield* Effect.scoped(Effect.gen(function*() {
            const mcp = yield* McpToolkit.make()
            const leak = yield* Stream.runCollect(yield* mcp.toolkit.handle("faulty__leak", {}))
            return { names: Object.keys(mcp.toolkit.tools), leak: leak.at(-1)! }
          })).pipe(Effect.provide(NodeMcpExtension.layerToolkit([
            McpServerConfig.stdio({ name: "faulty", command: process.execPath, args, env: { API_TOKEN: token } })
          ])))
          assert.include(zett.names, "faulty__leak")
          assert.isTrue(zett.leak.isFailure)
          assert.strictEqual((zett.leak.result as McpToolkit.McpToolFailure).reason, "ToolFailed")
          assert.notInclude(JSON.stringify(zett.leak.result), token)
        }),
      60_000
    )
  })

  describe("OAuth", () => {
    it.live(
      "a server that answers 401 with an OAuth challenge: Effect's client fails with the HTTP status and the challenge; Zett's says the server needs a login",
      () =>
        Effect.gen(function*() {
          const requests: Array<string> = []
          const server = Http.createServer((request, response) => {
            requests.push(`${request.method} ${request.url}`)
            request.resume()
            const { port } = server.address() as AddressInfo
            response.writeHead(401, {
              "www-authenticate":
                `Bearer resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp"`
            }).end()
          })
          yield* Effect.acquireRelease(
            Effect.callback<void>((resume) => {
              server.listen(0, "127.0.0.1", () => resume(Effect.void))
            }),
            () => Effect.sync(() => server.close())
          )
          const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`

          const effect = yield* Effect.flip(
            Effect.gen(function*() {
              return yield* (yield* McpClient.McpClient).listTools()
            }).pipe(Effect.provide(
              McpClient.layerHttp({ name: "app", version: "1.0.0", url, protocol: McpProtocol.v2026_07_28 }).pipe(
                Layer.provide(FetchHttpClient.layer)
              )
            ))
          )
          assert.strictEqual(effect.reason._tag, "HttpError")
          const http = effect.reason as McpClientError.HttpError
          assert.strictEqual(http.status, 401)
          assert.include(http.wwwAuthenticate, "resource_metadata=")

          const zett = yield* Effect.flip(withZett(McpServerConfig.http({ name: "docs", url }), ZettClient.listAll))
          assert.strictEqual(zett._tag, "McpConnectError")
          const connect = zett as McpError.McpConnectError
          assert.deepStrictEqual([connect.reason, connect.httpStatus], ["NeedsAuthorization", 401])
          assert.strictEqual(connect.description, "needs authorization: run zett auth login docs")
          // neither client started a flow of its own
          assert.isTrue(requests.every((line) => line === "POST /mcp"), requests.join(", "))
        }),
      60_000
    )
  })

  describe("secrets", () => {
    it.live(
      "a server that quotes the token it was started with: Effect's client hands the token on in the result; Zett's result has it scrubbed",
      () =>
        Effect.gen(function*() {
          const token = "sk-live-effect-zett-4f2a9c"
          const args = [faultyServer, "--fault=echo-secrets"]
          const effect = yield* withEffect(args, McpProtocol.v2025_11_25, (c) =>
            Effect.gen(function*() {
              const leak = (yield* c.listTools()).find((t) => t.name === "leak")!
              return yield* c.callTool({ tool: leak, arguments: {} })
            }), { API_TOKEN: token })
          assert.include(textOfEffect(effect), token)

          const zett = yield* withZett(
            McpServerConfig.stdio({ name: "faulty", command: process.execPath, args, env: { API_TOKEN: token } }),
            (client) => client.callTool("leak", {})
          )
          assert.isTrue(zett.isError === true)
          assert.notInclude(JSON.stringify(zett), token)
          assert.notInclude(JSON.stringify(zett), token.slice(4))
        }),
      60_000
    )
  })

  describe("process groups", () => {
    it.live(
      "a server behind an npx-style wrapper: closing either client's scope ends the wrapper's child too",
      () =>
        Effect.gen(function*() {
          const pidsOf = (record: string) =>
            readRecord(record).filter((entry) => entry.event === "ready").map((entry) => entry.pid)
          const effectRecord = yield* recordFile
          yield* withEffect(
            [wrapper, ...modernArgs("wrapped", effectRecord)],
            McpProtocol.v2026_07_28,
            (c) => c.listTools()
          )
          const zettRecord = yield* recordFile
          yield* withZett(stdio("wrapped", [wrapper, ...modernArgs("wrapped", zettRecord)]), ZettClient.listAll)
          const pids = [...pidsOf(effectRecord), ...pidsOf(zettRecord)]
          assert.strictEqual(pids.length, 2)
          // the group is signalled at close; give the children a moment to go
          const deadline = Date.now() + 10_000
          while (pids.some(live) && Date.now() < deadline) yield* Effect.sleep("100 millis")
          const left = pids.filter(live)
          for (const pid of left) process.kill(pid, "SIGKILL")
          assert.deepStrictEqual(left, [])
        }),
      60_000
    )
  })
})

describe("effect4/README.md's table \"Zett and Effect 4's own McpClient\"", () => {
  it("cites tests that exist: each quoted title is in the file named before it", () => {
    const readme = Fs.readFileSync(Path.join(import.meta.dirname, "..", "README.md"), "utf8")
    const start = readme.indexOf("## Zett and Effect 4's own McpClient")
    assert.isAbove(start, -1)
    const section = readme.slice(start, readme.indexOf("\n## ", start + 1))
    const rows = section.split("\n").filter((line) =>
      line.startsWith("| ") && !line.startsWith("| point") && !line.startsWith("| ---")
    )
    assert.strictEqual(rows.length, 11, "one row per point")
    let cited = 0
    for (const row of rows) {
      const cell = row.split(" | ").at(-1)!
      let file: string | undefined
      for (const match of cell.matchAll(/`([^`]+\.test\.ts)`|"([^"]+)"/g)) {
        if (match[1] !== undefined) {
          // a bare name is in the folder of the file named before it
          file = match[1].includes("/")
            ? Path.join(import.meta.dirname, "..", match[1])
            : Path.join(Path.dirname(file!), match[1])
          assert.isTrue(Fs.existsSync(file), file)
          continue
        }
        const text = Fs.readFileSync(file!, "utf8")
        // "..." leaves out part of a long title; "<transport>, <protocol>: " is a title made from a template
        for (const part of match[2]!.split("...").map((piece) => piece.trim().replace(/^,|,$/g, "").trim())) {
          if (part === "") continue
          assert.isTrue(
            text.includes(part) || text.includes(part.replace(/^[a-z]+, [a-z0-9-]+: /, "")),
            `${Path.basename(file!)}: ${part}`
          )
          cited++
        }
      }
      assert.include(cell, "`test/EffectMcpClient.test.ts`", row.slice(0, 40))
    }
    assert.isAbove(cited, 40)
  })
})
