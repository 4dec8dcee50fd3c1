/**
 * What `zett tools` prints: a table of the configured servers (transport, discovery time, tools, prompt tokens
 * of their definitions in `Discovery.tokenEncoding`, status), the tools each one exposes, and the same as JSON
 * data with `--json`.
 *
 * @since 0.1.0
 */
import type { McpServers } from "@zett/mcp"
import { isRecord } from "effect/Predicate"
import { type ServerReport, tokenEncoding } from "./Discovery.js"
import { inert } from "./internal/inert.js"
import { clip, pad, width as displayWidth } from "./internal/width.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolsReport {
  /** The configuration file, absolute. */
  readonly config: string
  /** Whether the file exists (a missing file is no servers). */
  readonly configExists: boolean
  readonly servers: ReadonlyArray<ServerReport>
  /** Entries of the file left out (lenient mode). */
  readonly skipped: ReadonlyArray<McpServers.Skipped>
}

/**
 * The report as JSON data (what `--json` prints).
 *
 * @since 0.1.0
 * @category conversions
 */
export const toJson = (report: ToolsReport) => ({
  config: report.config,
  tokenEncoding,
  configExists: report.configExists,
  servers: report.servers.map((server) => ({
    name: server.server,
    transport: server.transport,
    ...(server.protocolVersion !== undefined ? { protocolVersion: server.protocolVersion } : {}),
    status: server.status,
    ...(server.reason !== undefined ? { reason: server.reason } : {}),
    ...(server.needsAuth === true ? { needsAuth: true } : {}),
    discoveryMillis: server.discoveryMillis,
    toolCount: server.tools.length,
    tokens: server.tokens,
    tools: server.tools,
    filtered: server.filtered
  })),
  skipped: report.skipped,
  totals: {
    servers: report.servers.length,
    available: report.servers.filter((server) => server.status === "ok").length,
    tools: report.servers.reduce((sum, server) => sum + server.tools.length, 0),
    tokens: report.servers.reduce((sum, server) => sum + server.tokens, 0)
  }
})

/**
 * A duration for people: `231 ms`, `1.4 s`.
 *
 * @since 0.1.0
 * @category utils
 */
export const formatMillis = (millis: number): string =>
  millis < 1_000 ? `${Math.round(millis)} ms` : `${(millis / 1_000).toFixed(1)} s`

const firstLine = (text: string) => text.split("\n").find((line) => line.trim() !== "")?.trim() ?? ""

/**
 * Lays out rows as columns separated by two spaces, sized by display width (CJK characters and emoji take
 * two terminal columns); `right` lists the right-aligned columns. The last column is not padded. Cells are
 * made inert first (a server's control characters written out), so that they are measured as shown.
 *
 * @since 0.1.0
 * @category utils
 */
export const columns = (
  rows: ReadonlyArray<ReadonlyArray<string>>,
  right: ReadonlySet<number> = new Set()
): Array<string> => {
  const widths: Array<number> = []
  const cells = rows.map((row) => row.map(inert))
  for (const row of cells) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, displayWidth(cell))))
  return cells.map((row) =>
    row.map((cell, i) =>
      i === row.length - 1 && !right.has(i) ? cell : pad(cell, widths[i]!, right.has(i) ? "right" : "left")
    ).join("  ").trimEnd()
  )
}

const typeName = (schema: unknown): string => {
  if (!isRecord(schema)) return "any"
  const s = schema
  if (Array.isArray(s.enum)) return `one of ${s.enum.map((value) => JSON.stringify(value)).join(", ")}`
  if (s.const !== undefined) return JSON.stringify(s.const)
  const type = Array.isArray(s.type) ? s.type.filter((t): t is string => typeof t === "string").join(" or ") : s.type
  if (type === "array") return `array of ${typeName(s.items)}`
  return typeof type === "string" && type !== "" ? type : "any"
}

/**
 * What a tool takes: a line per property of its input schema (`--schema`), with its type, whether it is required
 * or its default, and the first line of its description; `(no arguments)` for a schema without properties.
 *
 * @since 0.1.0
 * @category conversions
 */
export const parameterLines = (schema: unknown, indent = "      "): Array<string> => {
  const s = isRecord(schema) ? schema : {}
  const properties = isRecord(s.properties) ? s.properties : {}
  const required = new Set(Array.isArray(s.required) ? s.required : [])
  const names = Object.keys(properties)
  if (names.length === 0) return [`${indent}(no arguments)`]
  return columns(names.map((name) => {
    const property = properties[name]
    const fields = isRecord(property) ? property : {}
    return [
      `${indent}${name}`,
      typeName(property),
      required.has(name)
        ? "required"
        : fields.default !== undefined
        ? `default ${JSON.stringify(fields.default)}`
        : "optional",
      typeof fields.description === "string" ? firstLine(fields.description) : ""
    ]
  }))
}

/**
 * The report as text, fitted to `width` characters where it can be (descriptions and reasons are cut).
 *
 * @since 0.1.0
 * @category conversions
 */
export const render = (
  report: ToolsReport,
  options?: {
    readonly width?: number | undefined
    readonly title?: string | undefined
    /** Under each tool, what it takes (`parameterLines`). */
    readonly schema?: boolean | undefined
  }
): string => {
  const width = Math.max(60, options?.width ?? 100)
  const out: Array<string> = []
  if (report.servers.length === 0) {
    out.push(
      report.configExists
        ? `No MCP servers are configured in ${report.config}.`
        : `No MCP servers are configured: ${report.config} does not exist.`
    )
  } else {
    out.push(options?.title ?? `MCP servers in ${report.config}`, "")
    const table = columns([
      ["SERVER", "TRANSPORT", "PROTOCOL", "TIME", "TOOLS", "TOKENS", "STATUS"],
      ...report.servers.map((server) => [
        server.server,
        server.transport,
        server.protocolVersion ?? "-",
        formatMillis(server.discoveryMillis),
        server.status === "ok" ? String(server.tools.length) : "-",
        server.status === "ok" ? String(server.tokens) : "-",
        server.status === "ok"
          ? "ok"
          : server.needsAuth === true
          ? `needs auth: run zett auth login ${server.server}`
          : `unavailable: ${server.reason ?? "unknown reason"}`
      ])
    ], new Set([3, 4, 5]))
    for (const line of table) out.push(clip(line, width))
  }
  for (const entry of report.skipped) out.push(clip(`skipped ${entry.entry}: ${entry.reason}`, width))
  for (const server of report.servers) {
    if (server.status === "ok" && server.filtered.length > 0) {
      out.push(
        "",
        clip(`${server.server}: filtered out by its includeTools/excludeTools: ${server.filtered.join(", ")}`, width)
      )
    }
    if (server.status !== "ok" || server.tools.length === 0) continue
    out.push("", `${server.server}: ${server.tools.length} tools, ${server.tokens} tokens (${tokenEncoding})`)
    const rows = columns(server.tools.map((tool) => [`  ${tool.name}`, String(tool.tokens), "-"]), new Set([1]))
    server.tools.forEach((tool, i) => {
      const prefix = rows[i]!.slice(0, -1)
      out.push(`${prefix}${clip(inert(firstLine(tool.description)), width - displayWidth(prefix))}`.trimEnd())
      if (options?.schema === true) { for (const line of parameterLines(tool.inputSchema)) out.push(clip(line, width)) }
    })
  }
  if (report.servers.length > 0) {
    const available = report.servers.filter((server) => server.status === "ok").length
    const unavailable = report.servers.length - available
    const tools = report.servers.reduce((sum, server) => sum + server.tools.length, 0)
    const tokens = report.servers.reduce((sum, server) => sum + server.tokens, 0)
    out.push(
      "",
      `${report.servers.length} ${report.servers.length === 1 ? "server" : "servers"}: ${available} ok` +
        `${unavailable > 0 ? `, ${unavailable} unavailable` : ""}; ${tools} ${tools === 1 ? "tool" : "tools"}, ` +
        `${tokens} prompt tokens (${tokenEncoding})`
    )
  }
  // what the servers said is inert already (cells, descriptions); the rest (names, reasons) is made so here
  return out.map(inert).join("\n")
}
