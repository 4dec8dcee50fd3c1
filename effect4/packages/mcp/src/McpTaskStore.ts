/**
 * Tool calls a server answered with a task (the Tasks extension), kept so that a later request, or another process
 * of a fleet, can find one by its id and await it or fetch its result: the task's id, the server that runs it, the
 * tool, when the server created it and how long it keeps it, and the last status seen. Nothing else: no arguments,
 * no result, no header. The id itself is the one secret a handle holds (a server may treat it as a bearer token),
 * so a store keeps it no longer than the server keeps the task. `layerMemory` keeps handles in the process;
 * `RedisTaskStore.layer` of `@zett/mcp-redis` in Redis, for every process of a fleet.
 *
 * @since 1.0.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as McpClient from "./McpClient.js"
import { McpClientFactory } from "./McpClientFactory.js"
import type { McpConnectError, McpRequestError } from "./McpError.js"
import { TypeId } from "./McpError.js"
import { McpServers } from "./McpServers.js"
import * as McpTask from "./McpTask.js"

/**
 * What a store keeps of one task: its `McpTask.TaskRef` (the server's name in the configuration, `McpServers`,
 * which every process of a fleet must define alike, and the id), the tool, and when the server forgets it.
 *
 * @since 1.0.0
 * @category models
 */
export class TaskHandle extends Schema.Class<TaskHandle>("@zett/mcp/McpTaskStore/TaskHandle")({
  taskId: Schema.String,
  server: Schema.String,
  /** The tool whose call the server answered with this task (its name on the server). */
  tool: Schema.String,
  /** When the server created the task, as it said (ISO 8601). */
  createdAt: Schema.String,
  /** How long the server keeps the task after `createdAt`, in milliseconds; `null`: as long as it likes. */
  ttlMs: Schema.NullOr(Schema.Number),
  pollIntervalMs: Schema.optional(Schema.Number),
  /** The last status seen, and its message. */
  status: Schema.optional(McpTask.Status),
  statusMessage: Schema.optional(Schema.String)
}) {}

/**
 * A task store that could not be read or written: it is `Unavailable` (Redis down) or gave no answer in time
 * (`Timeout`); or it has no handle of the task asked for (`NotFound`: never kept, or expired), or the handle names a
 * server this process does not define (`UnknownServer`). The description names the operation and the system error,
 * never a stored value.
 *
 * @since 1.0.0
 * @category errors
 */
export class McpTaskStoreError
  extends Schema.TaggedError<McpTaskStoreError>("@zett/mcp/McpTaskStoreError")("McpTaskStoreError", {
    reason: Schema.Literals(["Unavailable", "Timeout", "NotFound", "UnknownServer"]),
    description: Schema.String
  })
{
  /**
   * @since 1.0.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * @since 1.0.0
   */
  override get message(): string {
    return `task store: ${this.description}`
  }
}

/**
 * The handles of tasks started by this process or by others that share the store.
 *
 * @since 1.0.0
 * @category tags
 */
export class McpTaskStore extends Context.Service<McpTaskStore, {
  /** Keeps `handle` (replacing what was kept under its id) until the server forgets the task. */
  readonly put: (handle: TaskHandle) => Effect.Effect<void, McpTaskStoreError>
  readonly get: (taskId: string) => Effect.Effect<Option.Option<TaskHandle>, McpTaskStoreError>
  readonly remove: (taskId: string) => Effect.Effect<void, McpTaskStoreError>
  /** Every handle kept, oldest first. */
  readonly list: Effect.Effect<ReadonlyArray<TaskHandle>, McpTaskStoreError>
}>()("@zett/mcp/McpTaskStore") {}

/**
 * @since 1.0.0
 * @category models
 */
export interface Options {
  /** How long a handle whose task has no `ttlMs` (the server keeps it as long as it likes) is kept (default 1 day). */
  readonly retention?: Duration.Input | undefined
}

/**
 * The handle of `task`, a call of `tool` (its name on the server) that the server answered with it; `now` stands
 * for a `createdAt` the server did not give.
 *
 * @since 1.0.0
 * @category constructors
 */
export const fromTask = (task: McpTask.Task, tool: string, now: number): TaskHandle =>
  new TaskHandle({
    taskId: task.taskId,
    server: task.server,
    tool,
    createdAt: task.createdAt ?? new Date(now).toISOString(),
    ttlMs: task.ttlMs ?? null,
    ...(task.pollIntervalMs !== undefined ? { pollIntervalMs: task.pollIntervalMs } : {}),
    status: task.status,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {})
  })

/**
 * When a store forgets `handle`: when the server may forget its task (`createdAt + ttlMs`), or `retention` after
 * `now` when the server set no limit or its `createdAt` cannot be read.
 *
 * @since 1.0.0
 * @category utils
 */
export const expiresAt = (handle: TaskHandle, now: number, retention: Duration.Input): number => {
  const created = Date.parse(handle.createdAt)
  return handle.ttlMs === null || Number.isNaN(created)
    ? now + Duration.toMillis(retention)
    : created + handle.ttlMs
}

/**
 * A store in this process's memory: handles expire as `expiresAt` says (on the `Clock`, so `TestClock` drives it).
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeMemory = (options?: Options): Effect.Effect<McpTaskStore["Service"]> =>
  Effect.sync(() => {
    const retention = options?.retention ?? Duration.days(1)
    const entries = new Map<string, { readonly handle: TaskHandle; readonly expires: number }>()
    const live = (now: number) => {
      for (const [id, entry] of entries) if (entry.expires <= now) entries.delete(id)
      return entries
    }
    return McpTaskStore.of({
      put: (handle) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          const expires = expiresAt(handle, now, retention)
          if (expires > now) entries.set(handle.taskId, { handle, expires })
          else entries.delete(handle.taskId)
        }),
      get: (taskId) =>
        Effect.map(Clock.currentTimeMillis, (now) =>
          Option.map(Option.fromUndefinedOr(live(now).get(taskId)), (e) => e.handle)),
      remove: (taskId) =>
        Effect.sync(() => void entries.delete(taskId)),
      list: Effect.map(Clock.currentTimeMillis, (now) => Array.from(live(now).values(), (entry) => entry.handle))
    })
  })

/**
 * @since 1.0.0
 * @category layers
 */
export const layerMemory = (options?: Options): Layer.Layer<McpTaskStore> =>
  Layer.effect(McpTaskStore, makeMemory(options))

type CallToolResult = Effect.Success<ReturnType<McpClient.McpClient["callTool"]>>

/** How long the `tasks/cancel` of a call interrupted with `onInterrupt: "cancel"` may take. */
const cancelTimeout = Duration.seconds(2)

/** A write to the store that must not fail the call it follows: its failure is logged. */
const keep = (store: McpTaskStore["Service"], handle: TaskHandle) =>
  store.put(handle).pipe(
    Effect.catch((error) =>
      Effect.logWarning(`task store: the task of ${handle.tool} on ${handle.server} is not kept: ${error.description}`)
    )
  )

/**
 * @since 1.0.0
 * @category models
 */
export interface CallOptions {
  /**
   * What becomes of the task when the wait for it ends before it does (this fiber is interrupted, the process shuts
   * down): `"leave"` (the default) leaves it running on the server, its handle in the store for another process to
   * await; `"cancel"` cancels it on the server (`tasks/cancel`). A process killed outright cancels nothing.
   */
  readonly onInterrupt?: "leave" | "cancel" | undefined
  /** Called (synchronously) with the task the server answered with, then with each of its new states. */
  readonly onTask?: ((task: McpTask.Task) => void) | undefined
}

/**
 * Calls `name` and, when the server answers with a task, keeps its handle in the store before it waits for it (so
 * that every process sharing the store finds it), then waits for it and keeps its last status. A result that is not
 * a task is returned as it is. A store that cannot be written is logged and the call goes on.
 *
 * @since 1.0.0
 * @category combinators
 */
export const call = (
  client: McpClient.McpClient,
  name: string,
  args: Record<string, unknown>,
  options?: CallOptions | undefined
): Effect.Effect<CallToolResult, McpRequestError, McpTaskStore> =>
  Effect.gen(function*() {
    const store = yield* McpTaskStore
    // the whole task (its creation and ttl too) as the server answered with it; the result holds its summary only
    const seen: { first?: McpTask.Task } = {}
    const answer = yield* client.callTool(name, args, {
      task: "handle",
      onTask: (task) => {
        seen.first ??= task
        options?.onTask?.(task)
      }
    })
    const first = seen.first
    if (first === undefined || Option.isNone(McpTask.fromResult(answer))) return answer
    const now = yield* Clock.currentTimeMillis
    const handle = fromTask(first, name, now)
    let last: McpTask.Task = first
    const cancel = options?.onInterrupt === "cancel"
    // kept before the wait, and an interruption meanwhile waits for the wait to begin: the task is cancelled or left
    // as the option says, never dropped in between
    return yield* Effect.uninterruptibleMask((restore) =>
      Effect.andThen(
        keep(store, handle),
        restore(client.tasks.await(handle.taskId, {
          onStatus: (task) => {
            last = task
            options?.onTask?.(task)
          }
        }))
      )
    ).pipe(
      Effect.onExit((exit) =>
        Exit.isSuccess(exit)
          ? keep(store, new TaskHandle({ ...handle, status: "completed" }))
          : Effect.andThen(
            cancel && Exit.hasInterrupts(exit)
              ? Effect.interruptible(client.tasks.cancel(handle.taskId)).pipe(
                Effect.timeout(cancelTimeout),
                Effect.ignore
              )
              : Effect.void,
            keep(store, fromTask({ ...last, createdAt: handle.createdAt, ttlMs: handle.ttlMs }, name, now))
          )
      )
    )
  })

/**
 * The handle kept under `taskId` and a connection to its server (`McpServers` names it; the connection lives in the
 * current `Scope`).
 */
const connectTo = (taskId: string) =>
  Effect.gen(function*() {
    const store = yield* McpTaskStore
    const found = yield* store.get(taskId)
    if (Option.isNone(found)) {
      return yield* new McpTaskStoreError({ reason: "NotFound", description: "no task of that id is kept" })
    }
    const handle = found.value
    const snapshot = yield* McpServers.use((servers) => servers.current)
    const server = snapshot.servers.find((server) => server.name === handle.server)
    if (server === undefined) {
      return yield* new McpTaskStoreError({
        reason: "UnknownServer",
        description: `the task runs on ${handle.server}, which this process does not define`
      })
    }
    const factory = yield* McpClientFactory
    return { store, handle, client: yield* factory.connect(server) }
  })

/**
 * Waits for the task kept under `taskId`, started by this process or another one sharing the store, and gives its
 * result (or fails as `McpClient.Tasks.await` does); the wait only watches unless `cancelUnfinished` is set. Its
 * server must be defined here as where it was started (`McpServers`).
 *
 * @since 1.0.0
 * @category combinators
 */
export const awaitTask = (
  taskId: string,
  options?: McpTask.WaitOptions | undefined
): Effect.Effect<
  CallToolResult,
  McpTaskStoreError | McpConnectError | McpRequestError,
  McpTaskStore | McpServers | McpClientFactory | Scope.Scope
> =>
  Effect.gen(function*() {
    const { client, handle, store } = yield* connectTo(taskId)
    const result = yield* client.tasks.await(taskId, options)
    yield* keep(store, new TaskHandle({ ...handle, status: "completed" }))
    return result
  })

/**
 * The task kept under `taskId` as its server describes it now (`tasks/get`: its status, and its result once it
 * has one).
 *
 * @since 1.0.0
 * @category combinators
 */
export const getTask = (
  taskId: string
): Effect.Effect<
  McpTask.Task,
  McpTaskStoreError | McpConnectError | McpRequestError,
  McpTaskStore | McpServers | McpClientFactory | Scope.Scope
> => Effect.flatMap(connectTo(taskId), ({ client }) => client.tasks.get(taskId))
