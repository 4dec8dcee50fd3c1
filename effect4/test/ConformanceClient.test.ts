/**
 * The 4 line's conformance driver (effect4/conformance/client.ts) against a server of ours, started as the suite
 * starts it (the server URL last, the scenario and its context in the environment): its exit status is what the
 * suite judges a client by, so a failed call must make it exit 1. The 3 line's driver has the same tests
 * (scripts/conformance/client.test.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import * as ChildProcess from "node:child_process"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"

const driver = Path.join(import.meta.dirname, "..", "conformance", "client.ts")

// the driver from its TypeScript sources, as the packages' tests start children (@zett/testing-core/Source)
const nodeArgs = [
  "--conditions=@zett/source",
  "--experimental-transform-types",
  "--no-warnings=ExperimentalWarning",
  "--import",
  pathToFileURL(Path.join(import.meta.dirname, "..", "packages", "testing-core", "src", "sourceHooks.mjs")).href
]

type Broken = "isError" | "throws" | "down" | undefined

/** A server whose `add` works, and, with `broken`, a `divide` that fails. */
const server = (broken: Broken) => {
  const mcp = new Server({ name: "ours", version: "1.0.0" }, { capabilities: { tools: {} } })
  const add = {
    name: "add",
    inputSchema: {
      type: "object" as const,
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"]
    }
  }
  const divide = { name: "divide", inputSchema: { type: "object" as const, properties: {} } }
  mcp.setRequestHandler(ListToolsRequestSchema, () => ({ tools: broken === undefined ? [add] : [add, divide] }))
  mcp.setRequestHandler(CallToolRequestSchema, (request) => {
    if (request.params.name === "add") {
      const { a, b } = request.params.arguments as { readonly a: number; readonly b: number }
      return { content: [{ type: "text", text: String(a + b) }] }
    }
    if (broken === "isError") return { isError: true, content: [{ type: "text", text: "by zero" }] }
    throw new Error("by zero")
  })
  return mcp
}

/** The server over stateless Streamable HTTP at `/mcp` on 127.0.0.1, for the scope; its URL. */
const serve = (broken: Broken) =>
  Effect.acquireRelease(
    Effect.callback<Http.Server>((resume) => {
      const http = Http.createServer((req, res) => {
        if (req.url !== "/mcp" || req.method !== "POST") return void res.writeHead(405).end()
        const transport = new StreamableHTTPServerTransport({})
        const mcp = server(broken)
        res.on("close", () => {
          void transport.close()
          void mcp.close()
        })
        void mcp.connect(transport).then(() => transport.handleRequest(req, res))
      })
      http.listen(0, "127.0.0.1", () => resume(Effect.succeed(http)))
    }),
    (http) =>
      Effect.callback<void>((resume) => {
        http.closeAllConnections()
        http.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map((http) => `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`))

const drive = (broken: Broken, mode: "client" | "agent", context: object = {}) =>
  Effect.gen(function*() {
    // a server that is down: a port that was listened on and closed
    const url = broken === "down" ? yield* Effect.scoped(serve(undefined)) : yield* serve(broken)
    // the server answers in this process: the driver runs beside it, not in place of it
    return yield* Effect.callback<{ readonly status: number | null; readonly stderr: string }>((resume) => {
      const child = ChildProcess.spawn(
        process.execPath,
        [...nodeArgs, driver, ...(mode === "agent" ? ["--agent"] : []), url],
        {
          stdio: ["ignore", "ignore", "pipe"],
          env: {
            ...process.env,
            MCP_CONFORMANCE_SCENARIO: "tools_call",
            MCP_CONFORMANCE_CONTEXT: JSON.stringify({ name: "tools_call", ...context })
          }
        }
      )
      let stderr = ""
      child.stderr.on("data", (chunk) => (stderr += chunk))
      child.on("close", (status) => resume(Effect.succeed({ status, stderr })))
      return Effect.sync(() => child.kill("SIGKILL"))
    })
  })

describe.each(["client", "agent"] as const)("the Effect 4 conformance driver in %s mode", (mode) => {
  it.effect("exits 0 when every call succeeded", () =>
    Effect.gen(function*() {
      const run = yield* drive(undefined, mode)
      assert.notInclude(run.stderr, "FAILED")
      assert.strictEqual(run.status, 0, run.stderr)
    }), { timeout: 180_000 })

  it.effect("exits 1 when a call answers isError, naming the tool", () =>
    Effect.gen(function*() {
      const run = yield* drive("isError", mode)
      assert.match(run.stderr, /FAILED (\w+__)?divide/)
      assert.strictEqual(run.status, 1)
    }), { timeout: 180_000 })

  it.effect("exits 1 when a call fails, naming the tool", () =>
    Effect.gen(function*() {
      const run = yield* drive("throws", mode)
      assert.match(run.stderr, /FAILED (\w+__)?divide/)
      assert.strictEqual(run.status, 1)
    }), { timeout: 180_000 })

  it.effect("exits 1 when the server cannot be reached", () =>
    Effect.gen(function*() {
      const run = yield* drive("down", mode)
      assert.match(
        run.stderr,
        mode === "agent" ? /FAILED Unavailable MCP servers \(their tools are missing\): conformance/ : /McpConnectError/
      )
      assert.strictEqual(run.status, 1)
    }), { timeout: 180_000 })

  it.effect("exits 3 when the context holds a key no configuration uses", () =>
    Effect.gen(function*() {
      const run = yield* drive(undefined, mode, { api_key: "k" })
      assert.include(
        run.stderr,
        `zett-conformance: cannot drive tools_call: the context's "api_key" is used by no configuration`
      )
      assert.strictEqual(run.status, 3)
    }), { timeout: 180_000 })
})
