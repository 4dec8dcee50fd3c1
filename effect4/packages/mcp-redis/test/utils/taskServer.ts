/**
 * The task server both lines share (`packages/testing/servers/task-server.mjs`, the Tasks extension of 2026-07-28)
 * over Streamable HTTP for the length of a scope, and readers of its record: the 3 line's `@zett/testing/TaskServer`
 * on Effect 4, the parts the fleet tests use.
 */
import { McpServerConfig } from "@zett/mcp"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Processes from "./processes.js"

const script = Path.resolve(import.meta.dirname, "../../../../../packages/testing/servers/task-server.mjs")

/** The task server over HTTP, recording into `record` and carrying `marker`; its definition. */
export const http = (
  name: string,
  record: string,
  marker: string,
  options: { readonly pollIntervalMs?: number } = {}
): Effect.Effect<McpServerConfig.McpHttpServer, Error, Scope.Scope> =>
  Effect.map(
    Processes.spawnScoped({
      command: process.execPath,
      args: [
        script,
        `--name=${name}`,
        `--record=${record}`,
        "--legacy=serve",
        ...(options.pollIntervalMs === undefined ? [] : [`--poll-interval=${options.pollIntervalMs}`]),
        "--http",
        "--port=0"
      ],
      env: { ZETT_TEST_MARKER: marker },
      ready: /listening on (\S+)/
    }),
    (p) => McpServerConfig.http({ name, url: /listening on (\S+)/.exec(p.output())![1]! })
  )

type Status = "working" | "input_required" | "completed" | "failed" | "cancelled"

interface Entry {
  readonly event: string
  readonly method?: string
  readonly taskId?: string
  readonly status?: Status
  readonly honoured?: boolean
}

const readRecord = (file: string): Array<Entry> =>
  Fs.existsSync(file)
    ? Fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Entry)
    : []

/** The messages received, in order. */
export const messages = (file: string): Array<Entry> => readRecord(file).filter((entry) => entry.event === "message")

/** The `tasks/*` requests received for `taskId`, in order. */
export const taskRequests = (file: string, taskId: string): Array<string> =>
  messages(file).flatMap((m) => m.taskId === taskId && m.method !== undefined ? [m.method] : [])

/** The statuses `taskId` went through after `working`, in order. */
export const statuses = (file: string, taskId: string): Array<Status> =>
  readRecord(file).flatMap((e) => e.event === "task-status" && e.taskId === taskId ? [e.status!] : [])

/** The `tasks/cancel` requests received, with whether the task honoured them. */
export const cancellations = (file: string): Array<{ readonly taskId: string; readonly honoured: boolean }> =>
  readRecord(file).flatMap((e) => e.event === "task-cancel" ? [{ taskId: e.taskId!, honoured: e.honoured! }] : [])
