/**
 * The picture of one real trace for the README: runs `zett run` (from its sources) against the bundled demo MCP
 * server (stdio) and a local Chat Completions model (`openai-chat:`, a scripted server on 127.0.0.1 that asks
 * for demo__add, then answers), with `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at a receiver in this script. What
 * zett exported is written to docs/trace-example.json (OTLP/JSON, as received) and drawn as a waterfall in
 * docs/trace-example.svg.
 *
 *   npm run trace-picture
 */
import * as Source from "@zett/testing-core/Source"
import { chatChunks } from "@zett/testing/FakeProvider"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"

interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly startTimeUnixNano: string
  readonly endTimeUnixNano: string
  readonly attributes?: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
}

const listen = (handler: Http.RequestListener): Promise<{ server: Http.Server; url: string }> =>
  new Promise((resolve) => {
    const server = Http.createServer(handler)
    server.listen(0, "127.0.0.1", () => {
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
    })
  })

const body = (req: Http.IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
  })

const main = async () => {
  const exported: Array<unknown> = []
  const receiver = await listen(async (req, res) => {
    const text = await body(req)
    if (req.url === "/v1/traces") exported.push(JSON.parse(text))
    res.writeHead(200, { "content-type": "application/json" }).end("{}")
  })
  const answers = [
    chatChunks({
      text: ["I'll add them."],
      calls: [{ id: "call_1", name: "demo__add", pieces: ["{\"a\":2,", "\"b\":40}"] }],
      usage: { input: 412, output: 24 }
    }),
    chatChunks({ text: ["2 + 40 = 42"], usage: { input: 468, output: 9, cached: 384 } })
  ]
  let asked = 0
  const model = await listen(async (req, res) => {
    await body(req)
    // a model's answers take a while: the picture shows where the time goes
    await new Promise((resolve) => setTimeout(resolve, 120))
    res.writeHead(200, { "content-type": "text/event-stream" })
    for (const chunk of answers[Math.min(asked++, answers.length - 1)]!) res.write(`data: ${JSON.stringify(chunk)}\n\n`)
    res.end("data: [DONE]\n\n")
  })
  const home = Fs.mkdtempSync(Path.join(Os.tmpdir(), "zett-trace-"))
  const config = Path.join(home, "mcp.json")
  const demoServer = Path.join(Source.root, "packages", "mcp", "examples", "demo-server.mjs")
  Fs.writeFileSync(config, JSON.stringify({ mcpServers: { demo: { command: process.execPath, args: [demoServer] } } }))
  // not spawnSync: the model and the receiver answer from this process
  const result = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
    const child = ChildProcess.execFile(process.execPath, [
      ...Source.zettArgs,
      "run",
      "What is 2 + 40?",
      "--config",
      config
    ], {
      cwd: Source.root,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        ZETT_MODEL: "openai-chat:local-model",
        OPENAI_BASE_URL: `${model.url}/v1`,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: "zett"
      }
    }, (error, _stdout, stderr) => resolve({ status: error === null ? 0 : (error.code as number | null) ?? 1, stderr }))
    child.on("error", () => undefined)
  })
  receiver.server.close()
  model.server.close()
  Fs.rmSync(home, { recursive: true, force: true })
  if (result.status !== 0) throw new Error(`zett run failed (${result.status}): ${result.stderr}`)
  const docs = Path.join(Source.root, "docs")
  Fs.writeFileSync(Path.join(docs, "trace-example.json"), `${JSON.stringify(exported, null, 2)}\n`)
  const spans = exported.flatMap((request: any) =>
    request.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans as Array<Span>))
  )
  Fs.writeFileSync(Path.join(docs, "trace-example.svg"), render(spans))
  process.stdout.write(`${spans.length} spans: docs/trace-example.json, docs/trace-example.svg\n`)
}

// -----------------------------------------------------------------------------
// the waterfall
// -----------------------------------------------------------------------------

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

const attribute = (span: Span, key: string): unknown => {
  const found = span.attributes?.find((a) => a.key === key)
  return found === undefined ? undefined : Object.values(found.value)[0]
}

// the attributes worth a glance next to a span's bar
const shown = [
  "gen_ai.request.model",
  "gen_ai.usage.input_tokens",
  "gen_ai.usage.output_tokens",
  "gen_ai.tool.call.id",
  "mcp.method.name",
  "network.transport",
  "process.executable.name",
  "error.type"
]

const render = (spans: ReadonlyArray<Span>): string => {
  const ids = new Set(spans.map((span) => span.spanId))
  const children = new Map<string | undefined, Array<Span>>()
  for (const span of spans) {
    const parent = span.parentSpanId !== undefined && ids.has(span.parentSpanId) ? span.parentSpanId : undefined
    children.set(parent, [...(children.get(parent) ?? []), span])
  }
  const rows: Array<{ span: Span; depth: number }> = []
  const walk = (parent: string | undefined, depth: number) => {
    const list = [...(children.get(parent) ?? [])].sort((a, b) =>
      Number(BigInt(a.startTimeUnixNano) - BigInt(b.startTimeUnixNano))
    )
    for (const span of list) {
      rows.push({ span, depth })
      walk(span.spanId, depth + 1)
    }
  }
  walk(undefined, 0)
  // the axis spans the request (the command's root also covers starting Node and loading modules): roots are clipped
  const inner = rows.filter(({ depth }) => depth > 0)
  const axis = inner.length > 0 ? inner : rows
  const start = axis.reduce(
    (min, { span }) => (BigInt(span.startTimeUnixNano) < min ? BigInt(span.startTimeUnixNano) : min),
    BigInt(axis[0]!.span.startTimeUnixNano)
  )
  const end = axis.reduce(
    (max, { span }) => (BigInt(span.endTimeUnixNano) > max ? BigInt(span.endTimeUnixNano) : max),
    0n
  )
  const total = Number(end - start) / 1e6
  const labelWidth = 330
  const barWidth = 520
  const detailWidth = 420
  const rowHeight = 22
  const width = labelWidth + barWidth + detailWidth
  const height = 40 + rows.length * rowHeight + 20
  const ms = (nanos: bigint) => Number(nanos - start) / 1e6
  const lines = rows.map(({ depth, span }, i) => {
    const y = 40 + i * rowHeight
    const from = ms(BigInt(span.startTimeUnixNano))
    const to = ms(BigInt(span.endTimeUnixNano))
    const x = labelWidth + (Math.max(0, from) / total) * barWidth
    const w = Math.max(1.5, ((Math.min(total, to) - Math.max(0, from)) / total) * barWidth)
    const failed = attribute(span, "error.type") !== undefined
    const color = span.name.startsWith("chat") || span.name.startsWith("http.client")
      ? "#7c5cbf"
      : span.name.startsWith("execute_tool") || span.name.startsWith("tools/") || span.name.startsWith("Mcp")
      ? "#2f8f6f"
      : "#4a6fa5"
    const details = shown.flatMap((key) => {
      const value = attribute(span, key)
      return value === undefined ? [] : [`${key.replace(/^gen_ai\.|^mcp\./, "")}=${String(value)}`]
    }).join("  ")
    return [
      `<text x="${8 + depth * 14}" y="${y + 15}" class="name">${escape(span.name)}</text>`,
      `<rect x="${x.toFixed(1)}" y="${y + 4}" width="${w.toFixed(1)}" height="${rowHeight - 8}" rx="2" fill="${
        failed ? "#c0392b" : color
      }"/>`,
      `<text x="${(x + w + 4).toFixed(1)}" y="${y + 15}" class="ms">${(to - from).toFixed(1)} ms</text>`,
      `<text x="${labelWidth + barWidth + 60}" y="${y + 15}" class="detail">${escape(details)}</text>`
    ].join("\n")
  })
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width + 60}" height="${height}" viewBox="0 0 ${
      width + 60
    } ${height}">`,
    "<style>text{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;fill:#222}.ms{fill:#555;font-size:11px}",
    ".detail{fill:#666;font-size:11px}.title{font-size:13px;font-weight:bold}</style>",
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="8" y="22" class="title">zett run "What is 2 + 40?" (openai-chat: on 127.0.0.1, demo MCP server over stdio): ${rows.length} spans; axis ${
      total.toFixed(0)
    } ms from the first span under the command's root</text>`,
    ...lines,
    "</svg>",
    ""
  ].join("\n")
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`)
  process.exitCode = 1
})
