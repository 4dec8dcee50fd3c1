/**
 * A `tools/call` answered with a task handle, as the guarded transport hands it to the call (internal/toolCall).
 *
 * @internal
 */
import { isCreateTaskResultV2 } from "@modelcontextprotocol/ext-tasks/core/v2"
import type { CreateTaskResultV2 } from "@modelcontextprotocol/ext-tasks/core/v2"

/**
 * A `tools/call` answered with a task handle: what the guarded transport hands the SDK's client in place of the
 * answer (as the `data` of a JSON-RPC error, which the SDK passes on unchanged), since the SDK refuses a task answer
 * (`UnsupportedResultType`). Being an instance of this class, not a shape a server could send, it is known as ours.
 *
 * @internal
 */
export class TaskAnswer {
  constructor(readonly handle: CreateTaskResultV2) {}
}

/** @internal */
export const isTaskHandle: (result: unknown) => result is CreateTaskResultV2 = isCreateTaskResultV2

/** The handle a failed `tools/call` carries, if the failure is a task answer. @internal */
export const handleOf = (error: unknown): CreateTaskResultV2 | undefined => {
  const data = (error as { readonly data?: unknown } | null)?.data
  return data instanceof TaskAnswer ? data.handle : undefined
}

/**
 * The task handle of a 2025-11-25 `tools/call` answer (`{ task: { taskId, status, ttl, pollInterval, ... } }`) in the
 * shape of the 2026-07-28 one, which the call and the core read; `undefined` when the answer is not one.
 *
 * @internal
 */
export const fromLegacy = (result: unknown): CreateTaskResultV2 | undefined => {
  const task = (result as { readonly task?: unknown } | null)?.task
  if (typeof task !== "object" || task === null) return undefined
  const raw = task as Readonly<Record<string, unknown>>
  if (typeof raw.taskId !== "string" || typeof raw.status !== "string") return undefined
  return { resultType: "task", ...legacyFields(raw) } as unknown as CreateTaskResultV2
}

/** A 2025-11-25 task's fields under the 2026-07-28 names (`ttl` is `ttlMs`, `pollInterval` is `pollIntervalMs`). @internal */
export const legacyFields = (raw: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const { pollInterval, ttl, ...rest } = raw
  return {
    ...rest,
    ...(typeof ttl === "number" || ttl === null ? { ttlMs: ttl } : {}),
    ...(typeof pollInterval === "number" ? { pollIntervalMs: pollInterval } : {})
  }
}
