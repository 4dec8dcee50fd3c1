/**
 * The conformance driver against a server of ours, started as the suite starts it (the server URL last, the
 * scenario and its context in the environment): its exit status is what the suite judges a client by.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import * as StatelessHttp from "@zett/testing/StatelessHttp"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { z } from "zod"

const driver = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "client.ts")

/** A server whose `add` works, and, with `broken`, a `divide` that fails. */
const server = (broken: "isError" | "throws" | undefined) => () => {
  const mcp = new McpServer({ name: "ours", version: "1.0.0" })
  mcp.registerTool(
    "add",
    { inputSchema: { a: z.number(), b: z.number() } },
    ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] })
  )
  if (broken === "isError") {
    mcp.registerTool(
      "divide",
      { inputSchema: {} },
      () => ({ isError: true, content: [{ type: "text", text: "by zero" }] })
    )
  }
  if (broken === "throws") {
    mcp.registerTool("divide", { inputSchema: {} }, () => {
      throw new Error("by zero")
    })
  }
  return mcp.server
}

const drive = (broken: "isError" | "throws" | "down" | undefined, mode: "client" | "agent", context: object = {}) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    // a server that is down: a port that was listened on and closed
    const url = broken === "down"
      ? yield* Effect.scoped(StatelessHttp.serve(server(undefined)))
      : yield* StatelessHttp.serve(server(broken))
    // the server answers in this process: the driver runs beside it, not in place of it
    return yield* Effect.async<{ readonly status: number | null; readonly stderr: string }>((resume) => {
      const child = spawn(
        process.execPath,
        ["--conditions=@zett/source", "--import", "tsx", driver, ...(mode === "agent" ? ["--agent"] : []), url],
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
    })
  })))

describe.each(["client", "agent"] as const)("the conformance driver in %s mode", (mode) => {
  it("exits 0 when every call succeeded", { timeout: 180_000 }, async () => {
    const run = await drive(undefined, mode)
    expect(run.stderr).not.toContain("FAILED")
    expect(run.status).toBe(0)
  })

  it("exits 1 when a call answers isError, naming the tool", { timeout: 180_000 }, async () => {
    const run = await drive("isError", mode)
    expect(run.stderr).toMatch(/FAILED (\w+__)?divide/)
    expect(run.status).toBe(1)
  })

  it("exits 1 when a call fails, naming the tool", { timeout: 180_000 }, async () => {
    const run = await drive("throws", mode)
    expect(run.stderr).toMatch(/FAILED (\w+__)?divide/)
    expect(run.status).toBe(1)
  })

  it("exits 1 when the server cannot be reached", { timeout: 180_000 }, async () => {
    const run = await drive("down", mode)
    expect(run.stderr).toMatch(
      mode === "agent" ? /FAILED Unavailable MCP servers \(their tools are missing\): conformance/ : /McpConnectError/
    )
    expect(run.status).toBe(1)
  })

  it("exits 3 when the context holds a key no configuration uses", { timeout: 180_000 }, async () => {
    const run = await drive(undefined, mode, { api_key: "k" })
    expect(run.stderr).toContain(
      `zett-conformance: cannot drive tools_call: the context's "api_key" is used by no configuration`
    )
    expect(run.status).toBe(3)
  })
})
