/**
 * The task server (servers/task-server.mjs): an SDK v2 server with the Tasks extension (`io.modelcontextprotocol/tasks`)
 * whose tools answer with task handles (one finishes after N polls, one fails, one asks for input, one never ends
 * and ignores cancellation, one honours it, one is answered with a task unsolicited), sends `notifications/tasks` to
 * `subscriptions/listen` requests naming task ids, and records what it received (methods, task ids, input keys,
 * cancellations) in a file. Its processes carry `ZETT_TEST_MARKER=<marker>` (Faults.withMarker finds them).
 */
import * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as Processes from "./Processes.js"

export const script = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "..", "servers", "task-server.mjs")

/** The extension's identifier, as declared in capabilities. */
export const extension = "io.modelcontextprotocol/tasks"

/** The tools answered with a task handle, by what they do. */
export const tools = {
  /** completes after `steps` advances (a `tasks/get` each, or a tick) with "built <text>" */
  finishes: "build",
  /** fails at its first advance: status `failed`, error -32603 */
  fails: "explode",
  /** completes at its first advance with a tool error (`isError: true`, "rejected <text>") */
  toolError: "reject",
  /** asks for input (`approve-1`, an elicitation) at its first advance; completes once answered */
  asksInput: "approve",
  /** never finishes; acknowledges `tasks/cancel` and keeps working */
  runsForever: "forever",
  /** never finishes until cancelled */
  cancellable: "cancellable",
  /** an ordinary-looking tool answered with a task handle unsolicited (a plain result without the extension) */
  unsolicited: "lookup"
} as const

/** The input request key `approve` asks for. */
export const approvalKey = "approve-1"

export interface Options {
  /** Advances after which `build` completes when its call names no `steps` (default 2). */
  readonly steps?: number
  /** The tasks' `pollIntervalMs` hint (default 50). */
  readonly pollIntervalMs?: number
  /** The tasks' `ttlMs` (default 60000). */
  readonly ttlMs?: number
  /** Advance every task on a timer too, every `tickMs` (by default only each `tasks/get` advances its task). */
  readonly tickMs?: number
  /** With `tickMs`: a tick advances only the tasks an open `subscriptions/listen` names. */
  readonly tickWhenListened?: boolean
  /** Send a task handle this long after the task is created (default at once). */
  readonly handleDelayMs?: number
  /** Answer `lookup` with a task handle even to a client that did not declare the extension (a misbehaving server). */
  readonly tasksToAnyone?: boolean
  /** `modern-only` rejects 2025 clients (default: dual-era, where the task tools answer them -32021). */
  readonly era?: "dual" | "modern-only"
}

export const args = (name: string, record: string, options: Options = {}): Array<string> => [
  script,
  `--name=${name}`,
  `--record=${record}`,
  `--legacy=${options.era === "modern-only" ? "reject" : "serve"}`,
  ...(options.steps === undefined ? [] : [`--steps=${options.steps}`]),
  ...(options.pollIntervalMs === undefined ? [] : [`--poll-interval=${options.pollIntervalMs}`]),
  ...(options.ttlMs === undefined ? [] : [`--ttl=${options.ttlMs}`]),
  ...(options.tickMs === undefined ? [] : [`--tick=${options.tickMs}`]),
  ...(options.tickWhenListened === true ? ["--tick-when-listened"] : []),
  ...(options.handleDelayMs === undefined ? [] : [`--handle-delay=${options.handleDelayMs}`]),
  ...(options.tasksToAnyone === true ? ["--tasks-to-anyone"] : [])
]

/**
 * The task server's command over stdio, for a client that starts it itself (the SDK's `StdioClientTransport`); its
 * processes record into `record` and carry `marker`.
 */
export const stdioCommand = (name: string, record: string, marker: string, options: Options = {}): {
  readonly command: string
  readonly args: Array<string>
  readonly env: Record<string, string>
} => ({ command: process.execPath, args: args(name, record, options), env: { ZETT_TEST_MARKER: marker } })

/** A stdio server definition of the task server; its processes record into `record` and carry `marker`. */
export const stdio = (
  name: string,
  record: string,
  marker: string,
  options: Options = {}
): McpServerConfig.McpStdioServer => McpServerConfig.stdio({ name, ...stdioCommand(name, record, marker, options) })

/** The task server over Streamable HTTP for the length of the scope; its definition. */
export const http = (
  name: string,
  record: string,
  marker: string,
  options: Options = {}
): Effect.Effect<McpServerConfig.McpHttpServer, Error, Scope.Scope> =>
  Effect.map(
    Processes.spawnScoped({
      command: process.execPath,
      args: [...args(name, record, options), "--http", "--port=0"],
      env: { ZETT_TEST_MARKER: marker },
      ready: /listening on (\S+)/
    }),
    (p) => McpServerConfig.http({ name, url: /listening on (\S+)/.exec(p.output())![1]! })
  )

export type Status = "working" | "input_required" | "completed" | "failed" | "cancelled"

/** One line of the record. */
export type RecordEntry =
  | { readonly event: "ready"; readonly pid: number }
  | {
    readonly event: "message"
    readonly pid: number
    readonly method?: string
    readonly id?: string | number
    /** `params.taskId` of `tasks/*` requests */
    readonly taskId?: string
    /** the tool of a `tools/call` */
    readonly tool?: string
    /** the keys of a `tasks/update`'s `inputResponses` */
    readonly inputKeys?: ReadonlyArray<string>
    /** the `notifications.taskIds` of a `subscriptions/listen` */
    readonly taskIds?: ReadonlyArray<string>
    /** the `requestId` of a `notifications/cancelled` */
    readonly requestId?: string | number
    /** whether the request declared the extension in its `_meta` client capabilities */
    readonly tasks: boolean
    readonly headers: Readonly<Record<string, string>>
  }
  | { readonly event: "task-created"; readonly pid: number; readonly taskId: string; readonly tool: string }
  | { readonly event: "task-status"; readonly pid: number; readonly taskId: string; readonly status: Status }
  | { readonly event: "task-cancel"; readonly pid: number; readonly taskId: string; readonly honoured: boolean }
  | {
    readonly event: "task-input"
    readonly pid: number
    readonly taskId: string
    readonly accepted: ReadonlyArray<string>
    readonly ignored: ReadonlyArray<string>
  }
  | {
    readonly event: "task-notified"
    readonly pid: number
    readonly taskId: string
    readonly status: Status
    readonly subscription: string | number
  }
  | {
    readonly event: "listen"
    readonly pid: number
    readonly subscription: string | number
    readonly taskIds: ReadonlyArray<string>
  }
  | { readonly event: "listen-closed"; readonly pid: number; readonly subscription: string | number }

/** What the task servers wrote to a record file, in order. */
export const readRecord = (file: string): Array<RecordEntry> =>
  Fs.existsSync(file)
    ? Fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) =>
      JSON.parse(line) as RecordEntry
    )
    : []

type Entry<E extends RecordEntry["event"]> = Extract<RecordEntry, { readonly event: E }>

const entries = <E extends RecordEntry["event"]>(file: string, event: E): Array<Entry<E>> =>
  readRecord(file).filter((entry): entry is Entry<E> => entry.event === event)

/** The messages received, in order. */
export const messages = (file: string): Array<Entry<"message">> => entries(file, "message")

/** The `tasks/*` requests received for `taskId`, in order (`tasks/get`, `tasks/update`, `tasks/cancel`). */
export const taskRequests = (file: string, taskId: string): Array<string> =>
  messages(file).flatMap((m) => m.taskId === taskId && m.method !== undefined ? [m.method] : [])

/** The tasks created, in order: their ids and tools. */
export const created = (file: string): Array<Entry<"task-created">> => entries(file, "task-created")

/** The statuses `taskId` went through after `working`, in order. */
export const statuses = (file: string, taskId: string): Array<Status> =>
  entries(file, "task-status").flatMap((e) => e.taskId === taskId ? [e.status] : [])

/** The `tasks/cancel` requests received, with whether the task honoured them. */
export const cancellations = (file: string): Array<Entry<"task-cancel">> => entries(file, "task-cancel")

/** The input the tasks received through `tasks/update`. */
export const inputs = (file: string): Array<Entry<"task-input">> => entries(file, "task-input")

/** The `notifications/tasks` sent, in order. */
export const notified = (file: string): Array<Entry<"task-notified">> => entries(file, "task-notified")
