/**
 * A `Model` for `@zett/agent` on `@effect/ai`'s `LanguageModel`, so every @effect/ai provider works
 * (`@effect/ai-openai`, `@effect/ai-anthropic`, ...). Tools reach the provider with the JSON Schema the agent
 * holds, and the agent, not @effect/ai, runs every tool call (`disableToolCallResolution`), so every hook runs.
 *
 * @since 0.1.0
 */
import type * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Response from "@effect/ai/Response"
import * as Message from "@zett/agent/Message"
import * as Model from "@zett/agent/Model"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import type { ProviderFailure } from "./internal/failure.js"
import { fromAiError, fromStreamError, undecodedToolCallChunk, unparsedToolCallOf } from "./internal/failure.js"
import { toPrompt, toToolkit } from "./internal/prompt.js"

/**
 * When a request is tried again: on a network failure, a 408/409/425/429/5xx/529 answer or a rate-limit /
 * overload error inside the stream, and only while nothing has been emitted yet (a retry never repeats text).
 * Delays start at `delay` and double up to `maxDelay`; a `Retry-After` from the provider lengthens a delay
 * (capped at `maxDelay`).
 *
 * @since 0.1.0
 * @category models
 */
export interface RetryOptions {
  /** Retries after the first attempt; default 3. */
  readonly times?: number | undefined
  /** The first delay; default 1 second. */
  readonly delay?: Duration.DurationInput | undefined
  /** The longest delay; default 30 seconds. */
  readonly maxDelay?: Duration.DurationInput | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Names the provider in error reasons, e.g. `openai`; default `the model provider`. */
  readonly provider?: string | undefined
  /** `false` disables retries. */
  readonly retry?: RetryOptions | false | undefined
  /** Values cut out of every error reason, like the API key (key-shaped `sk-...` strings always are). */
  readonly redact?: ReadonlyArray<Redacted.Redacted> | undefined
  /** What an HTTP 404 from this provider means, in the reason; default `not found: check the base URL and the model name`. */
  readonly notFound?: string | undefined
  /** The provider (as `gen_ai.provider.name` spells it) and the model, for the agent's spans and metrics. */
  readonly info?: Model.ModelInfo | undefined
  /** The level of the line each retry logs ("model unreachable, retrying in 2 s (1/3)"); default `Info`. */
  readonly retryLogLevel?: LogLevel.LogLevel | undefined
  /**
   * Offer a request's deferred tools (`ModelRequest.deferredTools`: what MCP tool search holds back) to the
   * provider beside its tools, named in `DeferredTools` for a client that marks them for the provider's own
   * deferred loading (`AnthropicToolSearch.transformClient`, `OpenAiToolSearch.transformClient`). Only with such a
   * client: without one, every tool held
   * back reaches the model as an ordinary tool. Default `false`: deferred tools are not sent.
   */
  readonly deferLoading?: boolean | undefined
}

/**
 * The tools of the model request being sent that the provider should hold back until a search loads them, and the
 * tool whose results name the tools a search loaded; `undefined` outside such a request. `AiModel` sets it (with
 * `deferLoading`) around the provider's call, where a client transform reads it.
 *
 * @since 0.1.0
 * @category deferred loading
 */
export class DeferredTools extends Context.Reference<DeferredTools>()("@zett/ai/AiModel/DeferredTools", {
  defaultValue: (): {
    readonly names: ReadonlySet<string>
    readonly toolSearch: string | undefined
  } | undefined => undefined
}) {}

const finishReason = (reason: Response.FinishReason): string => reason.replace(/-/g, "_")

const usageOf = (usage: Response.Usage): Message.Usage | undefined =>
  usage.inputTokens === undefined && usage.outputTokens === undefined
    ? undefined
    : new Message.Usage({
      inputTokens: usage.inputTokens ?? 0,
      outputTokens: usage.outputTokens ?? 0,
      ...(usage.cachedInputTokens !== undefined ? { cachedInputTokens: usage.cachedInputTokens } : {})
    })

const seconds = (delay: Duration.Duration): string => `${Number((Duration.toMillis(delay) / 1000).toFixed(1))} s`

const retrySchedule = (options: RetryOptions, stop: () => boolean, logLevel: LogLevel.LogLevel) => {
  const maxDelay = Duration.decode(options.maxDelay ?? Duration.seconds(30))
  const times = options.times ?? 3
  return Schedule.exponential(options.delay ?? Duration.seconds(1), 2).pipe(
    Schedule.intersect(Schedule.recurs(times)),
    Schedule.intersect(Schedule.identity<ProviderFailure>()),
    Schedule.modifyDelay(([, failure], delay) =>
      Duration.min(
        maxDelay,
        Option.match(failure.retryAfter, { onNone: () => delay, onSome: (after) => Duration.max(delay, after) })
      )
    ),
    Schedule.whileInput((failure: ProviderFailure) => failure.retryable && !stop()),
    // one line per retry, with the delay it really waits; the final failure is the caller's to report
    Schedule.modifyDelayEffect(([[, attempt], failure], delay) =>
      Effect.as(
        Effect.logWithLevel(logLevel, `${failure.brief}, retrying in ${seconds(delay)} (${attempt + 1}/${times})`).pipe(
          Effect.annotateLogs("reason", failure.description)
        ),
        delay
      )
    )
  )
}

/**
 * What the model's functions share, made once by `make`: the provider's `LanguageModel`, the options and what
 * `make` derives from them.
 */
interface Env {
  readonly languageModel: LanguageModel.Service
  readonly options: Options
  readonly provider: string
  readonly secrets: ReadonlyArray<Redacted.Redacted>
  readonly retry: RetryOptions | undefined
  /** The bad calls that got an id here (their stream named none) so far: each id is new for the model's life. */
  unparsedCalls: number
}

const events = (
  env: Env,
  part: Response.StreamPart<any>,
  open: Map<string, string>
): Effect.Effect<ReadonlyArray<Model.ModelEvent>, ProviderFailure> => {
  switch (part.type) {
    case "text-delta":
      return Effect.succeed(part.delta === "" ? [] : [Model.textDelta(part.delta)])
    case "tool-params-start":
      open.set(part.id, part.name)
      return Effect.succeed([])
    case "tool-params-end":
      open.delete(part.id)
      return Effect.succeed([])
    case "tool-call": {
      open.delete(part.id)
      // tools the provider ran itself (web search, ...) are not the agent's to run
      if (part.providerExecuted === true) return Effect.succeed([])
      const params: unknown = part.params
      const invalid = typeof params !== "object" || params === null || Array.isArray(params)
      return Effect.succeed([
        Model.toolCall(
          new Message.ToolCall({
            id: part.id,
            name: part.name,
            arguments: params,
            ...(invalid ? { invalidArguments: "the arguments are not a JSON object" } : {})
          })
        )
      ])
    }
    case "finish":
      return Effect.succeed([Model.finish(finishReason(part.reason), usageOf(part.usage))])
    case "error":
      return Effect.fail(fromStreamError(part.error, env.provider, env.secrets))
    default:
      return Effect.succeed([])
  }
}

/**
 * A bad tool call ends the provider's stream: @effect/ai-openai and -anthropic fail it when the argument text is
 * not JSON, and @effect/ai fails the chunk holding a call of a tool that was not offered. What the model said up
 * to there becomes events, with the bad call marked, so the agent tells the model instead of ending the run.
 */
const repair = (
  env: Env,
  error: AiError.AiError,
  open: Map<string, string>,
  offered: ReadonlySet<string>
): Effect.Effect<ReadonlyArray<Model.ModelEvent>, ProviderFailure> | undefined => {
  const unparsed = unparsedToolCallOf(error)
  if (unparsed !== undefined) {
    let id: string | undefined
    for (const [key, name] of open) if (name === unparsed.name) id = key
    return Effect.succeed([
      Model.toolCall(
        new Message.ToolCall({
          id: id ?? `call_unparsed_${++env.unparsedCalls}`,
          name: unparsed.name,
          arguments: unparsed.text,
          invalidArguments: unparsed.problem
        })
      )
    ])
  }
  const chunk = undecodedToolCallChunk(error, offered)
  if (chunk === undefined) return undefined
  return Effect.map(
    Effect.forEach(chunk, (part) => events(env, part as Response.StreamPart<any>, open)),
    (events) => events.flat()
  )
}

const stream = (env: Env, request: Model.ModelRequest): Stream.Stream<Model.ModelEvent, Model.ModelError> =>
  Stream.suspend(() => {
    const { languageModel, options, provider, retry, secrets } = env
    let emitted = false
    const prompt = toPrompt(request.messages)
    const deferred = options.deferLoading === true ? request.deferredTools ?? [] : []
    const deferredNames = new Set(deferred.map((tool) => tool.name))
    // a tool a search loaded is in both lists: it stays deferred, so what the provider is offered stays the same
    const tools = deferred.length === 0
      ? request.tools
      : [...request.tools.filter((tool) => !deferredNames.has(tool.name)), ...deferred]
    const toolkit = toToolkit(tools)
    const offered = new Set(tools.map((tool) => tool.name))
    const open = new Map<string, string>()
    const parts: Stream.Stream<Response.StreamPart<any>, AiError.AiError> = toolkit === undefined
      ? languageModel.streamText({ prompt })
      : languageModel.streamText({ prompt, toolkit, disableToolCallResolution: true }) as Stream.Stream<
        Response.StreamPart<any>,
        AiError.AiError
      >
    const attempt = parts.pipe(
      Stream.mapConcatEffect((part) => events(env, part, open)),
      Stream.catchAll((error): Stream.Stream<Model.ModelEvent, ProviderFailure> => {
        if (error._tag === "ProviderFailure") return Stream.fail(error)
        const repaired = repair(env, error, open, offered)
        return repaired === undefined
          ? Stream.fail(fromAiError(error, provider, secrets, offered, options.notFound))
          : Stream.flattenIterables(Stream.fromEffect(repaired))
      }),
      Stream.tap(() => Effect.sync(() => void (emitted = true))),
      Stream.tapError((failure) =>
        failure.retryable && !emitted && retry !== undefined ?
          Effect.void :
          Effect.logDebug("model request failed").pipe(
            Effect.annotateLogs({ provider, reason: failure.description })
          )
      )
    )
    const sent = retry === undefined
      ? attempt
      : Stream.retry(attempt, retrySchedule(retry, () => emitted, options.retryLogLevel ?? LogLevel.Info))
    const retried = deferred.length === 0
      ? sent
      : Stream.provideService(sent, DeferredTools, { names: deferredNames, toolSearch: request.toolSearch })
    const warnServerTools = request.serverTools.length === 0 ? Effect.void : Effect.logWarning(
      `server tools are not passed to ${provider} by @zett/ai: ${request.serverTools.map((t) => t.name).join(", ")}`
    )
    return Stream.concat(Stream.execute(warnServerTools), retried)
  }).pipe(
    Stream.mapError((failure) =>
      new Model.ModelError({
        reason: failure.reason,
        description: failure.description,
        ...(failure.cause !== undefined ? { cause: failure.cause } : {})
      })
    ),
    Stream.withSpan("AiModel.stream", {
      attributes: {
        "ai.provider": env.provider,
        "ai.tools": request.tools.length,
        "ai.messages": request.messages.length
      }
    })
  )

/**
 * Builds the `Model` on the `LanguageModel` in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: Options = {}) {
  const env: Env = {
    languageModel: yield* LanguageModel.LanguageModel,
    options,
    provider: options.provider ?? "the model provider",
    secrets: options.redact ?? [],
    retry: options.retry === false ? undefined : options.retry ?? {},
    unparsedCalls: 0
  }
  const model = { stream: (request: Model.ModelRequest) => stream(env, request) }
  return Model.Model.of(options.info !== undefined ? { ...model, info: options.info } : model)
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<Model.Model, never, LanguageModel.LanguageModel> =>
  Layer.effect(Model.Model, make(options))
