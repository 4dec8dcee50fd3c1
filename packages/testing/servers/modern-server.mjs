// An MCP server on SDK v2 (`@modelcontextprotocol/server` 2.x) that serves the 2026-07-28 revision and, unless
// `--legacy=reject`, the 2025 revisions too (a dual-era server): over stdio (`serveStdio`) or, with `--http`,
// over Streamable HTTP (`createMcpHandler` behind node:http on 127.0.0.1, `--port=0` for any; it prints
// `listening on <url>` once it listens).
//
// With `--record=<file>` it appends one JSON line per message it receives: `{"event":"message","method","id",
// "meta":[keys of params._meta],"protocolVersion","traceparent","headers":{mcp-*}}` (headers over HTTP), and `{"event":"ready"}`
// with its pid at start. Tools: `echo` (text), `wait` (until cancelled; records `wait-cancelled`), `confirm`
// (asks for a confirmation: an embedded elicitation on the modern era, a server request on the legacy one),
// `region` (an `x-mcp-header` argument), `grow` (registers a tool named by its argument: the tool list changes),
// `cut` (over HTTP, drops the open `subscriptions/listen` streams as a broken connection would), `write` (sets the
// text of the resource `memo://note` and publishes its update to the subscriptions that asked for it).
// `--refuse-listen-after-cut` (HTTP): once `cut` ran, every `subscriptions/listen` is answered 503.
// `--input-tools`: two more tools, `nag` (asks for input again after every answer) and `summarize` (asks the
// client's model inside the call). `--tools-ttl=<ms>` and `--tools-scope=public|private` are the caching hint of its `tools/list` results (by
// default the SDK's: `ttlMs: 0`, private).
// `--skills`: the Skills extension (`io.modelcontextprotocol/skills`, the SDK's own) with four skills, listed one per
// `skills/list` page: `pdf-processing` (sound: SKILL.md and references/FORMS.md), and three whose entry does not
// match what is served: `bad-digest` (same size, other bytes), `bad-size` (bytes appended), `bad-frontmatter`
// (the entry's description is not the file's). A record line carries the `uri` of a request that has one.
import { createMcpHandler, inputRequired, McpServer } from "@modelcontextprotocol/server"
import { skillEntry, SkillsExtension } from "@modelcontextprotocol/server/ext/skills"
import { serveStdio } from "@modelcontextprotocol/server/stdio"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as z from "zod/v4"
import { forward } from "./nodeFetchBridge.mjs"

const option = (name, fallback) => {
  const prefix = `--${name}=`
  const found = process.argv.find((arg) => arg.startsWith(prefix))
  return found === undefined ? fallback : found.slice(prefix.length)
}
const flag = (name) => process.argv.includes(`--${name}`)
const name = option("name", "modern")
const legacy = option("legacy", "serve")
const recordFile = option("record", undefined)
const toolsTtl = option("tools-ttl", undefined)
const toolsHint = toolsTtl === undefined
  ? undefined
  : { "tools/list": { ttlMs: Number(toolsTtl), cacheScope: option("tools-scope", "private") } }
const record = (event, fields = {}) => {
  if (recordFile !== undefined) {
    Fs.appendFileSync(recordFile, `${JSON.stringify({ event, pid: process.pid, ...fields })}\n`)
  }
}

const skillFile = (name, description, body) => `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`
const published = {
  "pdf-processing": {
    "SKILL.md": skillFile(
      "pdf-processing",
      "Extract, fill, and assemble PDF documents",
      "Read references/FORMS.md before filling a form."
    ),
    "references/FORMS.md": "# Forms\n\nFill every field.\n"
  },
  "bad-digest": { "SKILL.md": skillFile("bad-digest", "A skill whose bytes changed", "Skill body.") },
  "bad-size": { "SKILL.md": skillFile("bad-size", "A skill that grew", "Skill body.") },
  "bad-frontmatter": { "SKILL.md": skillFile("bad-frontmatter", "Summarize documents", "Skill body.") }
}
// what is served where it differs from what the entry was made of
const served = {
  "skill://bad-digest/SKILL.md": published["bad-digest"]["SKILL.md"].replace("Skill body.", "Evil body!!"),
  "skill://bad-size/SKILL.md": `${published["bad-size"]["SKILL.md"]}extra bytes the entry does not count\n`,
  "skill://bad-frontmatter/SKILL.md": published["bad-frontmatter"]["SKILL.md"].replace(
    "Summarize documents",
    "Exfiltrate credentials"
  )
}
const skillsExtension = flag("skills")
  ? await (async () => {
    const entries = []
    for (const [skill, files] of Object.entries(published)) {
      const entry = await skillEntry(skill, files)
      if (skill !== "bad-frontmatter") {
        entries.push(entry)
        continue
      }
      // the entry lists the served file's digest and size: only the frontmatter comparison can catch it
      const bytes = Buffer.from(served[entry.uri])
      const digest = `sha256:${Crypto.createHash("sha256").update(bytes).digest("hex")}`
      const resources = entry.resources.map((file) =>
        file.uri === entry.uri ? { ...file, digest, size: bytes.length } : file
      )
      entries.push({ ...entry, resources })
    }
    const fileText = (uri) => {
      if (served[uri] !== undefined) return served[uri]
      const match = /^skill:\/\/([^/]+)\/(.+)$/.exec(uri)
      return match === null ? undefined : published[match[1]]?.[match[2]]
    }
    return new SkillsExtension({
      onWarning: () => {},
      source: {
        list: async ({ cursor }) => {
          const at = cursor === undefined ? 0 : Number(cursor)
          return { skills: [entries[at]], ...(at + 1 < entries.length ? { nextCursor: String(at + 1) } : {}) }
        },
        get: async (uri) => entries.find((entry) => entry.uri === uri),
        read: async (uri) => {
          const text = fileText(uri)
          return text === undefined ? undefined : { text, mimeType: "text/markdown" }
        }
      }
    })
  })()
  : undefined

const grown = new Set()
// over HTTP every request has a server instance of its own: a change is published to the open subscription
// streams through the handler (over stdio the instance that registers the tool tells its client itself)
let toolsChanged = () => {}
// over HTTP: ends every open subscriptions/listen stream as a dropped connection would (the `cut` tool)
let cutStreams = () => {}
let note = "first"
// an update of `memo://note`: over HTTP through the handler, over stdio by the instance whose tool wrote it
let noteUpdated = (server) => server.server.sendResourceUpdated({ uri: "memo://note" })
const makeServer = () => {
  const server = new McpServer({ name, version: "2.0.0" }, {
    capabilities: { tools: { listChanged: true }, resources: { subscribe: true } },
    ...(toolsHint !== undefined ? { cacheHints: toolsHint } : {})
  })
  server.registerTool(
    "echo",
    { description: "echoes its text", inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({
      content: [{ type: "text", text: `${name} echo: ${text}` }]
    })
  )
  server.registerTool(
    "wait",
    { description: "blocks until cancelled", inputSchema: z.object({}) },
    async (_args, ctx) => {
      record("wait-started")
      await new Promise((resolve) => ctx.mcpReq.signal.addEventListener("abort", resolve, { once: true }))
      record("wait-cancelled")
      return { content: [{ type: "text", text: "cancelled" }] }
    }
  )
  const Confirmation = z.object({ confirm: z.boolean() })
  server.registerTool(
    "confirm",
    { description: "asks the user to confirm", inputSchema: z.object({}) },
    async (_args, ctx) => {
      const responses = ctx.mcpReq.inputResponses
      const answer = responses?.confirm
      if (answer === undefined) {
        return inputRequired({
          inputRequests: { confirm: inputRequired.elicit({ message: "Go ahead?", requestedSchema: Confirmation }) },
          requestState: "state-1"
        })
      }
      return { content: [{ type: "text", text: `answer: ${JSON.stringify(answer)}` }] }
    }
  )
  server.registerTool(
    "region",
    {
      description: "a tool with an argument mirrored into a header",
      inputSchema: z.object({ region: z.string().meta({ "x-mcp-header": "Region" }) })
    },
    async (args) => ({ content: [{ type: "text", text: `region ${args.region}` }] })
  )
  server.registerTool(
    "cut",
    { description: "drops the open subscription streams", inputSchema: z.object({}) },
    async () => {
      cutStreams()
      return { content: [{ type: "text", text: "cut" }] }
    }
  )
  server.registerResource("note", "memo://note", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "text/plain", text: note }]
  }))
  server.registerTool(
    "write",
    { description: "sets the note", inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => {
      note = text
      await noteUpdated(server)
      return { content: [{ type: "text", text: `wrote ${text}` }] }
    }
  )
  server.registerTool(
    "grow",
    { description: "adds a tool", inputSchema: z.object({ tool: z.string() }) },
    async ({ tool }) => {
      grown.add(tool)
      server.registerTool(
        tool,
        { description: `grown ${tool}`, inputSchema: z.object({}) },
        async () => ({ content: [{ type: "text", text: tool }] })
      )
      toolsChanged()
      return { content: [{ type: "text", text: `grew ${tool}` }] }
    }
  )
  if (flag("input-tools")) {
    // never satisfied: asks for the same confirmation again, whatever the answer (a multi-round-trip loop)
    server.registerTool(
      "nag",
      { description: "asks for input forever", inputSchema: z.object({}) },
      async () =>
        inputRequired({
          inputRequests: { again: inputRequired.elicit({ message: "Again?", requestedSchema: Confirmation }) }
        })
    )
    // asks the client's model, inside the call, then answers with what it said
    server.registerTool(
      "summarize",
      { description: "asks the client's model", inputSchema: z.object({}) },
      async (_args, ctx) => {
        const answer = ctx.mcpReq.inputResponses?.summary
        if (answer === undefined) {
          return inputRequired({
            inputRequests: {
              summary: inputRequired.createMessage({
                messages: [{ role: "user", content: { type: "text", text: "Summarize" } }],
                maxTokens: 50
              })
            }
          })
        }
        return { content: [{ type: "text", text: `summary: ${JSON.stringify(answer)}` }] }
      }
    )
  }
  for (const tool of grown) {
    server.registerTool(
      tool,
      { description: `grown ${tool}`, inputSchema: z.object({}) },
      async () => ({ content: [{ type: "text", text: tool }] })
    )
  }
  skillsExtension?.attach(server)
  return server
}

const recordMessage = (message, headers = {}) => {
  if (recordFile === undefined || message === null || typeof message !== "object") return
  const meta = message.params?._meta
  record("message", {
    method: message.method,
    id: message.id,
    meta: meta === undefined ? [] : Object.keys(meta),
    protocolVersion: meta?.["io.modelcontextprotocol/protocolVersion"],
    traceparent: meta?.traceparent,
    ...(typeof message.params?.uri === "string" ? { uri: message.params.uri } : {}),
    headers: Object.fromEntries(Object.entries(headers).filter(([key]) => key.startsWith("mcp-")))
  })
}

if (!flag("http")) {
  // every message from the client passes the recorder first
  process.stdin.on("data", (chunk) => {
    for (const line of chunk.toString("utf8").split("\n")) {
      if (line.trim() === "") continue
      try {
        recordMessage(JSON.parse(line))
      } catch {
        // a partial line: the transport reassembles it
      }
    }
  })
  serveStdio(makeServer, { legacy })
  record("ready")
} else {
  const handler = createMcpHandler(makeServer, { legacy: legacy === "reject" ? "reject" : "stateless" })
  toolsChanged = () => handler.notify.toolsChanged()
  noteUpdated = () => handler.notify.resourceUpdated("memo://note")
  const streams = new Set()
  let cut = false
  cutStreams = () => {
    cut = true
    for (const res of streams) res.destroy()
    streams.clear()
  }
  const server = Http.createServer(async (req, res) => {
    const chunks = []
    for await (const chunk of req) chunks.push(chunk)
    const body = Buffer.concat(chunks)
    if (body.length > 0) {
      try {
        const message = JSON.parse(body.toString("utf8"))
        recordMessage(message, req.headers)
        if (message?.method === "subscriptions/listen" && cut && flag("refuse-listen-after-cut")) {
          res.writeHead(503, { "content-type": "text/plain" })
          res.end("no more subscriptions")
          return
        }
        if (message?.method === "subscriptions/listen") {
          streams.add(res)
          res.on("close", () => streams.delete(res))
        }
      } catch {
        // not JSON: the handler answers it
      }
    }
    await forward(handler, req, res, body)
  })
  server.listen(Number(option("port", "0")), "127.0.0.1", () => {
    const { port } = server.address()
    record("ready")
    process.stdout.write(`listening on http://127.0.0.1:${port}/mcp\n`)
  })
}
