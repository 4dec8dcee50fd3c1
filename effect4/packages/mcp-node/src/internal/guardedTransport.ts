/**
 * A transport wrapper that knows which requests still wait for their response, so that Zett can fail them at
 * once, with a reason of its own, when it knows that their response will never come: the response stream
 * closed before it, or the response was over `maxMessageBytes`. Without it, such a request waits out its
 * timeout (300 s by default for a call), as it does with the bare SDK.
 *
 * @internal
 */
import type { JSONRPCMessage, MessageExtraInfo, Transport, TransportSendOptions } from "@modelcontextprotocol/client"
import { withTaskCapabilityV2 } from "@modelcontextprotocol/ext-tasks/core/v2"
import * as LocalFailure from "./localFailure.js"
import * as TaskAnswer from "./taskAnswer.js"

type Id = string | number

const requestId = (message: JSONRPCMessage): Id | undefined =>
  "method" in message && "id" in message ? (message.id as Id) : undefined

const responseId = (message: JSONRPCMessage): Id | undefined =>
  !("method" in message) && "id" in message ? (message.id as Id) : undefined

/** The `_meta` of a request's params, when it has one. */
const metaOf = (message: JSONRPCMessage): Record<string, unknown> | undefined => {
  const params = (message as { readonly params?: unknown }).params
  const meta = typeof params === "object" && params !== null
    ? (params as { readonly _meta?: unknown })._meta
    : undefined
  return typeof meta === "object" && meta !== null ? meta as Record<string, unknown> : undefined
}

const capabilitiesKey = "io.modelcontextprotocol/clientCapabilities"

// what frames a request of the 2026-07-28 revision (a trace or a progress token of the call it came from does not)
const framingKeys = [
  "io.modelcontextprotocol/protocolVersion",
  "io.modelcontextprotocol/clientInfo",
  capabilitiesKey
] as const

const isTaskNotification = (
  message: JSONRPCMessage
): message is JSONRPCMessage & { readonly params: Record<string, unknown> } => {
  const m = message as { readonly method?: unknown; readonly id?: unknown; readonly params?: unknown }
  return m.method === "notifications/tasks" && m.id === undefined && typeof m.params === "object" &&
    m.params !== null && typeof (m.params as { readonly taskId?: unknown }).taskId === "string"
}

/** A `tools/call` of the 2025-11-25 revision that asks to run as a task (`params.task`). */
const isLegacyTaskCall = (message: JSONRPCMessage): boolean => {
  const m = message as { readonly method?: unknown; readonly params?: { readonly task?: unknown } }
  return m.method === "tools/call" && typeof m.params?.task === "object" && m.params.task !== null
}

const isUntyped = (result: unknown): result is Record<string, unknown> =>
  typeof result === "object" && result !== null && !Array.isArray(result) && !("resultType" in result)

/** The ids of the requests in a JSON-RPC message or batch, as the transport sent it. */
export const requestIds = (body: unknown): ReadonlyArray<Id> => {
  const out: Array<Id> = []
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message === "object" && message !== null && "method" in message && "id" in message) {
      const id = (message as { readonly id: unknown }).id
      if (typeof id === "string" || typeof id === "number") out.push(id)
    }
  }
  return out
}

/**
 * A transport wrapper that also speaks the Tasks extension for the driver (2026-07-28): every request of that
 * revision declares it in its `_meta` client capabilities (the SDK's client has no per-era capabilities, and a
 * server of the 2025 revisions is told nothing new), and a `tools/call` answered with a task handle reaches the
 * SDK's client as a failure carrying the handle (`TaskAnswer`), which the call then waits for
 * (internal/toolCall).
 *
 * @internal
 */
export class GuardedTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined

  private readonly pending = new Set<Id>()
  /** The waiting requests of the 2026-07-28 revision, whose results name their `resultType`. */
  private readonly typed = new Set<Id>()
  /**
   * The waiting `tools/call` requests of the 2026-07-28 revision, which a server may answer with a task, with their
   * `_meta` (what a `tasks/cancel` of the guard's own is framed with).
   */
  private readonly calls = new Map<Id, Record<string, unknown>>()
  /** The waiting `tools/call` requests of the 2025-11-25 revision that asked to run as a task (`params.task`). */
  private readonly legacyCalls = new Set<Id>()
  /** The calls the client gave up on (`notifications/cancelled`) before their answer came. */
  private readonly abandoned = new Map<Id, Record<string, unknown>>()
  /** The `tasks/cancel` requests of the guard's own, whose answers are its own too. */
  private readonly ownRequests = new Set<Id>()
  private ownIds = 0
  /**
   * The client capabilities the SDK's client declares on each request (one object, the same every time) and the
   * same with the Tasks extension: made once, not for each request.
   */
  private declared: { readonly given: unknown; readonly withTasks: unknown } | undefined = undefined
  /** Who hears the `notifications/tasks` of a task, by task id (internal/tasks: a wait for the task). */
  private readonly taskListeners = new Map<string, Set<(params: Record<string, unknown>) => void>>()
  /** Until the connection is made (a stdio one): whether `server/discover` and `initialize` were sent. */
  probed = false
  initialized = false
  private watching: boolean

  constructor(readonly inner: Transport, stdio?: { readonly pid: number }) {
    this.watching = stdio !== undefined
    // The SDK tells a stdio transport by these two properties: its era probe then reads no answer, or a pipe that
    // closed, as a server of the 2025 revisions (an HTTP server's silence is a failure)
    if (stdio !== undefined) {
      Object.defineProperties(this, {
        pid: { value: stdio.pid, enumerable: true },
        stderr: { value: null, enumerable: true }
      })
    }
    inner.onmessage = (message, extra) => {
      if (this.taskListeners.size > 0 && isTaskNotification(message)) {
        const listeners = this.taskListeners.get(message.params.taskId as string)
        // the SDK's client has no use for it
        if (listeners !== undefined) return listeners.forEach((listener) => listener(message.params))
      }
      const id = responseId(message)
      if (id !== undefined) {
        if (this.ownRequests.delete(id)) return
        const legacy = this.legacyCalls.delete(id)
        const handle = "result" in message
          ? legacy
            ? TaskAnswer.fromLegacy(message.result)
            : TaskAnswer.isTaskHandle(message.result)
            ? message.result
            : undefined
          : undefined
        const abandoned = this.abandoned.get(id)
        if (abandoned !== undefined) {
          this.abandoned.delete(id)
          // a task nobody waits for, whose id nobody was given: cancelled, as the call it answers was
          if (handle !== undefined) return this.cancelTask(handle.taskId, abandoned)
        }
        this.pending.delete(id)
        if (this.calls.delete(id) && handle !== undefined) {
          this.typed.delete(id)
          return this.onmessage?.({
            jsonrpc: "2.0",
            id,
            error: {
              code: LocalFailure.code,
              message: "answered with a task",
              data: new TaskAnswer.TaskAnswer(handle)
            }
          } as JSONRPCMessage, extra)
        }
        // a result that leaves out its `resultType` is complete (what the conformance suite asks of a client;
        // the SDK refuses it): a server that forgot the field still answered
        if (this.typed.delete(id) && "result" in message && isUntyped(message.result)) {
          return this.onmessage?.(
            { ...message, result: { ...message.result, resultType: "complete" } } as JSONRPCMessage,
            extra
          )
        }
      }
      this.onmessage?.(message, extra)
    }
    inner.onclose = () => this.onclose?.()
    inner.onerror = (error) => this.onerror?.(error)
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version)
  }

  start(): Promise<void> {
    return this.inner.start()
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const id = requestId(message)
    if (id === undefined) {
      if (this.calls.size > 0) this.abandon(message)
      return this.inner.send(message, options)
    }
    if (this.watching) {
      const method = (message as { readonly method: string }).method
      if (method === "server/discover") this.probed = true
      else if (method === "initialize") this.initialized = true
    }
    this.pending.add(id)
    const meta = metaOf(message)
    if (meta !== undefined && meta["io.modelcontextprotocol/protocolVersion"] === "2026-07-28") {
      this.typed.add(id)
      if ((message as { readonly method: string }).method === "tools/call") this.calls.set(id, meta)
      // the SDK's client builds a request's `_meta` afresh for each request: its capabilities entry is replaced
      const given = meta[capabilitiesKey]
      let declared = this.declared
      if (declared === undefined || declared.given !== given) {
        const framed = withTaskCapabilityV2({ _meta: { [capabilitiesKey]: given } as never })
        declared = this.declared = { given, withTasks: (framed._meta as Record<string, unknown>)[capabilitiesKey] }
      }
      meta[capabilitiesKey] = declared.withTasks
    } else if (isLegacyTaskCall(message)) {
      this.legacyCalls.add(id)
      this.calls.set(id, {})
    }
    return this.inner.send(message, options).catch((error) => {
      this.pending.delete(id)
      this.typed.delete(id)
      this.calls.delete(id)
      this.legacyCalls.delete(id)
      throw error
    })
  }

  close(): Promise<void> {
    return this.inner.close()
  }

  /** A `notifications/cancelled` of a call: its answer, should it be a task, is the guard's to cancel. */
  private abandon(message: JSONRPCMessage): void {
    const m = message as { readonly method?: unknown; readonly params?: { readonly requestId?: unknown } }
    if (m.method !== "notifications/cancelled") return
    const requestId = m.params?.requestId as Id
    const meta = this.calls.get(requestId)
    if (meta === undefined) return
    this.calls.delete(requestId)
    this.abandoned.set(requestId, meta)
  }

  private cancelTask(taskId: string, meta: Record<string, unknown>): void {
    const id = `zett-task-cancel-${this.ownIds++}`
    this.ownRequests.add(id)
    const framing: Record<string, unknown> = {}
    for (const key of framingKeys) if (key in meta) framing[key] = meta[key]
    this.inner.send({ jsonrpc: "2.0", id, method: "tasks/cancel", params: { taskId, _meta: framing } }).catch(() => {
      this.ownRequests.delete(id)
    })
  }

  /** Hands each `notifications/tasks` of `taskId` to `listener`, until the returned function is called. */
  onTaskStatus(taskId: string, listener: (params: Record<string, unknown>) => void): () => void {
    let listeners = this.taskListeners.get(taskId)
    if (listeners === undefined) this.taskListeners.set(taskId, listeners = new Set())
    listeners.add(listener)
    return () => {
      listeners.delete(listener)
      if (listeners.size === 0 && this.taskListeners.get(taskId) === listeners) this.taskListeners.delete(taskId)
    }
  }

  /** The connection is made: what was asked during it no longer changes, and calls are not looked at. */
  connected(): void {
    this.watching = false
  }

  /** Answers each of `ids` that still waits (every waiting request when `ids` is `"all"`) with `failure`. */
  fail(ids: Iterable<Id> | "all", failure: LocalFailure.LocalFailure): void {
    for (const id of ids === "all" ? [...this.pending] : ids) {
      this.typed.delete(id)
      this.calls.delete(id)
      this.legacyCalls.delete(id)
      this.abandoned.delete(id)
      if (!this.pending.delete(id)) continue
      this.onmessage?.({
        jsonrpc: "2.0",
        id,
        error: { code: LocalFailure.code, message: failure.reason, data: failure }
      } as JSONRPCMessage)
    }
  }
}
