/**
 * The agent host: runs a conversation through the model and the tools, calling extension hooks in a fixed order (see
 * `Extension.Hooks`), so that an extension can rely on what ran before its hook. Each run owns a request `Scope` that
 * is closed on success, failure and interruption.
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { AgentError, ExtensionError } from "./AgentError.js"
import { DuplicateExtension } from "./AgentError.js"
import type * as Extension from "./Extension.js"
import * as Pending from "./internal/pending.js"
import * as internal from "./internal/run.js"
import type { AssistantMessage, Message } from "./Message.js"
import { UserMessage } from "./Message.js"
import { Model } from "./Model.js"
import type { Tool } from "./Tool.js"

/**
 * @since 1.0.0
 * @category services
 */
export class Agent extends Context.Service<Agent, {
  /** Appends the user message and loops model -> tools -> model until the model answers without a tool call. */
  readonly run: (input: string | UserMessage) => Effect.Effect<AssistantMessage, AgentError>
  /** A maintenance pass with its own scope, closed when the pass ends; it never runs the success hooks. */
  readonly compact: Effect.Effect<void, ExtensionError>
  /** Delivers a user message to the newest active run at its next safe point; `false` if none is active. */
  readonly steer: (message: string | UserMessage) => Effect.Effect<boolean>
  /** Broadcasts an external event to every extension; the names of the extensions that took it. */
  readonly accept: (config: unknown, event: unknown) => Effect.Effect<ReadonlyArray<string>>
  /** Whether an active run uses this extension instance: a run of any agent that shares this agent's `ActiveRuns`. */
  readonly pending: (extension: Extension.Any) => Effect.Effect<boolean>
  readonly extensions: ReadonlyArray<Extension.Any>
}>()("@zett/agent/Agent") {}

/**
 * The runs in progress (runs and compaction passes), counted per extension instance: what `pending` reads. One
 * extension instance may serve several agents; agents built in a context that holds one `ActiveRuns` (provide
 * `layerActiveRuns` once, above them) count each other's runs. An agent built without one makes its own and counts
 * only its own runs.
 *
 * @since 1.0.0
 * @category services
 */
export class ActiveRuns extends Context.Service<ActiveRuns, {
  /** Counts a run that uses these extensions, until `exit` with the same extensions. */
  readonly enter: (extensions: ReadonlyArray<Extension.Any>) => Effect.Effect<void>
  readonly exit: (extensions: ReadonlyArray<Extension.Any>) => Effect.Effect<void>
  readonly pending: (extension: Extension.Any) => Effect.Effect<boolean>
}>()("@zett/agent/Agent/ActiveRuns") {}

/**
 * @since 1.0.0
 * @category constructors
 */
export const makeActiveRuns: Effect.Effect<ActiveRuns["Service"]> = Effect.sync(() => {
  const counts = Pending.make()
  return ActiveRuns.of({
    enter: (extensions) => Effect.sync(() => counts.enter(extensions)),
    exit: (extensions) => Effect.sync(() => counts.exit(extensions)),
    pending: (extension) => Effect.sync(() => counts.isPending(extension))
  })
})

/**
 * One `ActiveRuns` for the agents built above it.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerActiveRuns: Layer.Layer<ActiveRuns> = Layer.effect(ActiveRuns, makeActiveRuns)

/**
 * Reduces the conversation when it grows too long; runs at the start of a turn when `shouldCompact` says so,
 * and in `Agent.compact` passes.
 *
 * @since 1.0.0
 * @category models
 */
export interface Compaction {
  readonly shouldCompact: (messages: ReadonlyArray<Message>) => boolean
  readonly compact: (messages: ReadonlyArray<Message>) => Effect.Effect<ReadonlyArray<Message>, unknown>
}

/**
 * An extension, or an effect that builds one (an extension's service, for example).
 *
 * @since 1.0.0
 * @category models
 */
export type ExtensionInput = Extension.Any | Effect.Effect<Extension.Any, any, any>

/**
 * @since 1.0.0
 * @category models
 */
export interface Options<Extensions extends ReadonlyArray<ExtensionInput> = ReadonlyArray<ExtensionInput>> {
  readonly extensions?: Extensions | undefined
  /** Local tools registered for every run, before the extensions' `onTool`. */
  readonly tools?: ReadonlyArray<Tool> | undefined
  readonly systemPrompt?: string | undefined
  /** Default 25. */
  readonly maxTurns?: number | undefined
  /** A default time limit for tools that set none; `null` or absent disables it. */
  readonly toolTimeout?: Duration.Input | null | undefined
  /** How many calls of one turn run at once; default 1 (in order, so steering can skip the rest). */
  readonly toolConcurrency?: number | undefined
  readonly compaction?: Compaction | undefined
  /**
   * Put message content, tool arguments and tool results on spans (`gen_ai.input.messages`,
   * `gen_ai.tool.call.arguments`, ...); default `false`: spans carry names, ids, counts and error types only.
   */
  readonly captureContent?: boolean | undefined
}

type ErrorOf<E extends ReadonlyArray<ExtensionInput>> = E[number] extends infer T
  ? T extends Effect.Effect<any, infer Err, any> ? Err : never
  : never
type ContextOf<E extends ReadonlyArray<ExtensionInput>> = E[number] extends infer T
  ? T extends Effect.Effect<any, any, infer R> ? R : never
  : never

/**
 * Builds an agent; fails when two extensions share a name, since a name identifies one extension. The agent counts
 * its runs in the context's `ActiveRuns` if it holds one, in its own otherwise.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = Effect.fnUntraced(
  function*<const Extensions extends ReadonlyArray<ExtensionInput> = ReadonlyArray<Extension.Any>>(
    options: Options<Extensions> = {}
  ): Effect.fn.Return<Agent["Service"], DuplicateExtension | ErrorOf<Extensions>, Model | ContextOf<Extensions>> {
    const model = yield* Model
    const shared = yield* Effect.serviceOption(ActiveRuns)
    const extensions: Array<Extension.Any> = []
    for (const input of options.extensions ?? []) {
      const extension: Extension.Any = Effect.isEffect(input) ? yield* input : input
      if (extensions.some((e) => e.name === extension.name)) {
        return yield* new DuplicateExtension({ name: extension.name })
      }
      extensions.push(extension)
    }
    const runs = Option.isSome(shared) ? shared.value : yield* makeActiveRuns
    const engine: internal.Engine = {
      model,
      extensions,
      hooks: internal.staticHooks(extensions),
      tools: options.tools ?? [],
      systemPrompt: options.systemPrompt,
      maxTurns: options.maxTurns ?? 25,
      toolTimeout: options.toolTimeout == null ? undefined : Duration.fromInputUnsafe(options.toolTimeout),
      toolConcurrency: options.toolConcurrency ?? 1,
      compaction: options.compaction,
      active: new Set(),
      runs,
      telemetry: internal.makeTelemetry(model.info, options.captureContent === true)
    }
    const toUser = (input: string | UserMessage) =>
      typeof input === "string" ? new UserMessage({ content: input }) : input
    return Agent.of({
      run: (input) => internal.run(engine, toUser(input)),
      compact: internal.compact(engine),
      steer: (message) => Effect.sync(() => internal.steer(engine, toUser(message))),
      accept: (config, event) =>
        Effect.sync(() =>
          extensions.filter((extension) => {
            try {
              return extension.accept?.(config, event) === true
            } catch {
              return false
            }
          }).map((extension) => extension.name)
        ),
      pending: runs.pending,
      extensions
    })
  }
)

/**
 * @since 1.0.0
 * @category layers
 */
export const layer = <const Extensions extends ReadonlyArray<ExtensionInput> = ReadonlyArray<Extension.Any>>(
  options: Options<Extensions> = {}
): Layer.Layer<Agent, DuplicateExtension | ErrorOf<Extensions>, Model | ContextOf<Extensions>> =>
  Layer.effect(Agent, make(options))

/**
 * Runs one request with the agent in context.
 *
 * @since 1.0.0
 * @category accessors
 */
export const run = (input: string | UserMessage): Effect.Effect<AssistantMessage, AgentError, Agent> =>
  Agent.use((agent) => agent.run(input))
