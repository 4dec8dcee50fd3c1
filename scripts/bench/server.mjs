// The benchmark's MCP server: SDK 1.32 `McpServerConfig` with K filler tools and an `echo` tool, over stdio or
// stateful Streamable HTTP on 127.0.0.1. Every option is a CLI flag (some clients don't pass env through):
//
//   node server.mjs --transport=stdio|http --k=10 --delay=200 --prefix=s0_ --tag=RUN
//                   [--spawnlog=FILE] [--stubborn=eof|term] [--servers=1] [--port=0] [--json=1]
//
// --delay     ms slept in every tools/list (the listing itself is computed once, so K=1000 measures the client)
// --spawnlog  stdio: appends "spawn <pid>" at start and "list" for every tools/list; http: appends "conn" for every accepted TCP connection
// --stubborn  eof: ignore stdin EOF (needs SIGTERM); term: ignore EOF and SIGTERM (needs SIGKILL)
// --servers   http only: serve that many independent servers on /s<i>/mcp (tool names prefixed s<i>_)
// --tag       ignored; marks the process in /proc so a benchmark can count what is still alive
// http mode prints "PORT <n>" on stdout once listening.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { randomUUID } from "node:crypto"
import { appendFileSync } from "node:fs"
import { createServer } from "node:http"
import { parseArgs } from "node:util"
import { makeServer } from "./testServer.mjs"

// strict: an unknown flag is an error, not ignored
const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: Object.fromEntries(
    ["transport", "k", "delay", "prefix", "tag", "spawnlog", "stubborn", "servers", "port", "json"].map((name) => [
      name,
      { type: "string" }
    ])
  )
})
const transport = flags.transport ?? "stdio"
const K = Number(flags.k ?? 10)
const delay = Number(flags.delay ?? 0)
const prefix = flags.prefix ?? ""
const spawnlog = flags.spawnlog
const stubborn = flags.stubborn

if (transport === "stdio") {
  if (spawnlog) appendFileSync(spawnlog, `spawn ${process.pid}\n`)
  if (stubborn === "term") process.on("SIGTERM", () => {})
  const server = makeServer({
    k: K,
    delay,
    prefix,
    onList: spawnlog ? () => appendFileSync(spawnlog, "list\n") : undefined
  })
  // a misbehaving server stays alive after its stdin ends
  if (stubborn === "eof" || stubborn === "term") setInterval(() => {}, 1 << 30)
  await server.connect(new StdioServerTransport())
} else {
  const count = Number(flags.servers ?? 1)
  const json = flags.json === "1"
  // one transport (and one McpServerConfig) per Mcp-Session-Id, per served path
  const sessions = new Map()
  const http = createServer(async (req, res) => {
    const match = /^\/s(\d+)\/mcp$|^\/mcp$/.exec(req.url ?? "")
    const index = match === null ? -1 : match[1] === undefined ? 0 : Number(match[1])
    if (index < 0 || index >= count) {
      res.writeHead(404).end()
      return
    }
    const id = req.headers["mcp-session-id"]
    let session = typeof id === "string" ? sessions.get(id) : undefined
    if (session === undefined) {
      if (req.method !== "POST") {
        res.writeHead(typeof id === "string" ? 404 : 400).end()
        return
      }
      const server = makeServer({ k: K, delay, prefix: `s${index}_` })
      const t = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: json,
        onsessioninitialized: (sid) => sessions.set(sid, t),
        onsessionclosed: (sid) => sessions.delete(sid)
      })
      t.onclose = () => {
        if (t.sessionId !== undefined) sessions.delete(t.sessionId)
      }
      await server.connect(t)
      session = t
    }
    await session.handleRequest(req, res)
  })
  http.keepAliveTimeout = 60_000
  if (spawnlog) http.on("connection", () => appendFileSync(spawnlog, "conn\n"))
  http.listen(Number(flags.port ?? 0), "127.0.0.1", () => {
    process.stdout.write(`PORT ${http.address().port}\n`)
  })
  process.on("SIGTERM", () => process.exit(0))
}
