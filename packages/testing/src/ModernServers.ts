/**
 * MCP servers of the 2026-07-28 revision, written on SDK v2 (servers/modern-server.mjs): dual-era (they also
 * serve 2025 clients) or modern-only (`legacy: "reject"`), over stdio or Streamable HTTP, with a record of every
 * message they received (method, `_meta` keys, the protocol version, the W3C `traceparent`, the `Mcp-*` headers
 * over HTTP).
 */
import * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as Processes from "./Processes.js"

export const script = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "..", "servers", "modern-server.mjs")

export type Era = "dual" | "modern-only"

export interface RecordEntry {
  readonly event: "ready" | "message" | "wait-started" | "wait-cancelled"
  readonly pid: number
  readonly method?: string
  readonly id?: string | number
  readonly meta?: ReadonlyArray<string>
  readonly protocolVersion?: string
  readonly traceparent?: string
  /** The `uri` of a request that has one (`resources/read`, `skills/get`). */
  readonly uri?: string
  readonly headers?: Readonly<Record<string, string>>
}

/** What the servers wrote to a record file, in order. */
export const readRecord = (file: string): Array<RecordEntry> =>
  Fs.existsSync(file)
    ? Fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) =>
      JSON.parse(line) as RecordEntry
    )
    : []

/** The caching hint of the server's `tools/list` results (without one, the SDK's: `ttlMs: 0`, private). */
export interface ToolsHint {
  readonly ttlMs: number
  readonly scope: "public" | "private"
}

/**
 * The methods each server process of a record received, in the order the processes started, leaving out those in
 * `aside` (by default `notifications/initialized`).
 */
export const methodsByProcess = (
  file: string,
  aside: ReadonlySet<string | undefined> = new Set(["notifications/initialized"])
): Array<Array<string>> => {
  const byPid = new Map<number, Array<string>>()
  for (const entry of readRecord(file)) {
    if (!byPid.has(entry.pid)) byPid.set(entry.pid, [])
    if (entry.event === "message" && !aside.has(entry.method)) byPid.get(entry.pid)!.push(entry.method!)
  }
  return [...byPid.values()]
}

const args = (name: string, era: Era, record: string, hint: ToolsHint | undefined) => [
  script,
  `--name=${name}`,
  `--legacy=${era === "dual" ? "serve" : "reject"}`,
  `--record=${record}`,
  ...(hint === undefined ? [] : [`--tools-ttl=${hint.ttlMs}`, `--tools-scope=${hint.scope}`])
]

/** A stdio server definition; its process records into `record`. `extra`: more flags (`--skills`). */
export const stdio = (
  name: string,
  era: Era,
  record: string,
  hint?: ToolsHint,
  extra: ReadonlyArray<string> = []
): McpServerConfig.McpStdioServer =>
  McpServerConfig.stdio({ name, command: process.execPath, args: [...args(name, era, record, hint), ...extra] })

/** The skills of a server started with `--skills`, by their `SKILL.md` URIs. */
export const skills = {
  sound: "skill://pdf-processing/SKILL.md",
  soundFile: "skill://pdf-processing/references/FORMS.md",
  badDigest: "skill://bad-digest/SKILL.md",
  badSize: "skill://bad-size/SKILL.md",
  badFrontmatter: "skill://bad-frontmatter/SKILL.md"
} as const

/** The URIs of the `resources/read` requests a record holds, in order. */
export const readsOf = (file: string): Array<string> =>
  readRecord(file).flatMap((entry) => entry.method === "resources/read" && entry.uri !== undefined ? [entry.uri] : [])

/** A Streamable HTTP server for the length of the scope, recording into `record`; its definition. `extra`: more flags. */
export const http = (
  name: string,
  era: Era,
  record: string,
  hint?: ToolsHint,
  extra: ReadonlyArray<string> = []
): Effect.Effect<McpServerConfig.McpHttpServer, Error, Scope.Scope> =>
  Effect.map(
    Processes.spawnScoped({
      command: process.execPath,
      args: [...args(name, era, record, hint), "--http", ...extra],
      ready: /listening on (\S+)/
    }),
    (p) => McpServerConfig.http({ name, url: /listening on (\S+)/.exec(p.output())![1]! })
  )
