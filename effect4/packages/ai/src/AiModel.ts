/**
 * A `Model` for `@zett/agent` on `effect/ai`'s `LanguageModel`, so every `effect/ai` provider works
 * (`@effect/ai-openai`, `@effect/ai-anthropic`, ...). Tools reach the provider with the JSON Schema the agent
 * holds (`Tool.dynamic`), and the agent, not `effect/ai`, runs every tool call (`disableToolCallResolution`), so
 * every hook runs; calls are not validated by `effect/ai` either (`toolCallValidation: "deferred"`): a call of a
 * tool that was not offered, or with arguments that are not an object, reaches the agent, which tells the model.
 *
 * @since 1.0.0
 */
import * as Message from "@zett/agent/Message"
import * as Model from "@zett/agent/Model"
import type * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import type * as Response from "effect/ai/Response"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import type { ProviderFailure } from "./internal/failure.js"
import { fromAiError, fromSchemaError, fromStreamError, unparsedToolCallOf } from "./internal/failure.js"
import { toPrompt, toToolkit } from "./internal/prompt.js"

/**
 * When a request is tried again: on a network failure, a 408/409/425/429/5xx/529 answer or a rate-limit /
 * overload error inside the stream, and only while nothing has been emitted yet (a retry never repeats text).
 * Delays start at `delay` and double up to `maxDelay`; a `Retry-After` from the provider lengthens a delay
 * (capped at `maxDelay`).
 *
 * @since 1.0.0
 * @category models
 */
export interface RetryOptions {
  /** Retries after the first attempt; default 3. */
  readonly times?: number | undefined
  /** The first delay; default 1 second. */
  readonly delay?: Duration.Input | undefined
  /** The longest delay; default 30 seconds. */
  readonly maxDelay?: Duration.Input | undefined
}

/**
 * @since 1.0.0
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
  readonly retryLogLevel?: LogLevel.Severity | undefined
  /**
   * Offer a request's deferred tools (`ModelRequest.deferredTools`: what MCP tool search holds back) to the
   * provider beside its tools, named in `DeferredTools` for a provider that holds them back itself
   * (`@zett/ai-anthropic` sends them with `defer_loading`). Only with such a provider: any other gets every tool held
   * back as an ordinary tool. Default `false`: deferred tools are not sent.
   */
  readonly deferLoading?: boolean | undefined
}

/**
 * What the provider should hold back until a search loads it, for the model request being sent: the tools' names,
 * and the tool whose results name the tools a search loaded; `undefined` outside such a request. `AiModel` sets it
 * (with `deferLoading`) around the provider's call.
 *
 * @since 1.0.0
 * @category deferred loading
 */
export const DeferredTools: Context.Reference<DeferredToolsOf | undefined> = Context.Reference<
  DeferredToolsOf | undefined
>("@zett/ai/AiModel/DeferredTools", { defaultValue: () => undefined })

/**
 * @since 1.0.0
 * @category deferred loading
 */
export interface DeferredToolsOf {
  readonly names: ReadonlySet<string>
  readonly toolSearch: string | undefined
}

const finishReason = (reason: Response.FinishReason): string => reason.replace(/-/g, "_")

const usageOf = (usage: Response.Usage): Message.Usage | undefined =>
  usage.inputTokens.total === undefined && usage.outputTokens.total === undefined
    ? undefined
    : new Message.Usage({
      inputTokens: usage.inputTokens.total ?? 0,
      outputTokens: usage.outputTokens.total ?? 0,
      ...(usage.inputTokens.cacheRead !== undefined ? { cachedInputTokens: usage.inputTokens.cacheRead } : {})
    }, { disableChecks: true })

const seconds = (delay: Duration.Duration): string => `${Number((Duration.toMillis(delay) / 1000).toFixed(1))} s`

/** The delay before retry `attempt` (from 0): doubling from `delay`, lengthened by a `Retry-After`, within `maxDelay`. */
const delayOf = (options: RetryOptions, attempt: number, failure: ProviderFailure): Duration.Duration => {
  const maxDelay = Duration.fromInputUnsafe(options.maxDelay ?? Duration.seconds(30))
  const base = Duration.times(Duration.fromInputUnsafe(options.delay ?? Duration.seconds(1)), 2 ** attempt)
  return Duration.min(
    maxDelay,
    Option.match(failure.retryAfter, { onNone: () => base, onSome: (after) => Duration.max(base, after) })
  )
}

/**
 * What the model's functions share, made once by `make`: the provider's `LanguageModel`, the options and what
 * `make` derives from them.
 */
interface Env {
  readonly languageModel: LanguageModel.LanguageModel
  readonly options: Options
  readonly provider: string
  readonly secrets: ReadonlyArray<Redacted.Redacted>
  readonly retry: RetryOptions | undefined
  readonly logLevel: LogLevel.Severity
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
          }, { disableChecks: true })
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
 * A provider that cannot parse a tool call's argument text fails its stream: what the model said up to there
 * was emitted, and the bad call becomes a call marked `invalidArguments`, so the agent tells the model instead of
 * ending the run.
 */
const repair = (
  env: Env,
  error: AiError.AiError,
  open: Map<string, string>
): ReadonlyArray<Model.ModelEvent> | undefined => {
  const unparsed = unparsedToolCallOf(error)
  if (unparsed === undefined) return undefined
  let id: string | undefined
  for (const [key, name] of open) if (name === unparsed.name) id = key
  return [
    Model.toolCall(
      new Message.ToolCall({
        id: id ?? `call_unparsed_${++env.unparsedCalls}`,
        name: unparsed.name,
        arguments: unparsed.text,
        invalidArguments: unparsed.problem
      }, { disableChecks: true })
    )
  ]
}

// tried again while nothing has been emitted, one log line per retry with the delay it waits; the final failure is
// the caller's to report
const retried = (
  env: Env,
  attempt: Stream.Stream<Model.ModelEvent, ProviderFailure>,
  emitted: () => boolean,
  n: number
): Stream.Stream<Model.ModelEvent, ProviderFailure> =>
  Stream.catch(attempt, (failure) => {
    const retry = env.retry
    if (retry === undefined || !failure.retryable || emitted() || n >= (retry.times ?? 3)) {
      return Stream.fromEffectDrain(
        Effect.logDebug("model request failed").pipe(
          Effect.annotateLogs({ provider: env.provider, reason: failure.description })
        )
      ).pipe(Stream.concat(Stream.fail(failure)))
    }
    const delay = delayOf(retry, n, failure)
    return Stream.fromEffectDrain(
      Effect.logWithLevel(env.logLevel)(
        `${failure.brief}, retrying in ${seconds(delay)} (${n + 1}/${retry.times ?? 3})`
      ).pipe(Effect.annotateLogs("reason", failure.description), Effect.andThen(Effect.sleep(delay)))
    ).pipe(Stream.concat(retried(env, attempt, emitted, n + 1)))
  })

const stream = (env: Env, request: Model.ModelRequest): Stream.Stream<Model.ModelEvent, Model.ModelError> =>
  Stream.suspend(() => {
    const { languageModel, options, provider, secrets } = env
    let emitted = false
    const prompt = toPrompt(request.messages)
    const deferred = options.deferLoading === true ? request.deferredTools ?? [] : []
    const deferredNames = new Set(deferred.map((tool) => tool.name))
    // a tool a search loaded is in both lists: it stays deferred, so what the provider is offered stays the same
    const toolkit = toToolkit(
      deferred.length === 0
        ? request.tools
        : [...request.tools.filter((tool) => !deferredNames.has(tool.name)), ...deferred]
    )
    const parts = (toolkit === undefined
      ? languageModel.streamText({ prompt })
      : languageModel.streamText({
        prompt,
        toolkit,
        disableToolCallResolution: true,
        toolCallValidation: "deferred"
      })) as Stream.Stream<
        Response.StreamPart<any>,
        AiError.AiError | { readonly _tag: "SchemaError"; readonly message: string }
      >
    const attempt: Stream.Stream<Model.ModelEvent, ProviderFailure> = Stream.suspend(() => {
      const open = new Map<string, string>()
      return parts.pipe(
        Stream.mapEffect((part) => events(env, part, open)),
        Stream.flattenIterable,
        Stream.catch((error): Stream.Stream<Model.ModelEvent, ProviderFailure> => {
          if (error._tag === "ProviderFailure") return Stream.fail(error)
          if (error._tag === "SchemaError") return Stream.fail(fromSchemaError(error, provider, secrets))
          const repaired = repair(env, error, open)
          return repaired === undefined
            ? Stream.fail(fromAiError(error, provider, secrets, options.notFound))
            : Stream.fromIterable(repaired)
        }),
        Stream.tap(() => Effect.sync(() => void (emitted = true)))
      )
    })
    const warnServerTools = request.serverTools.length === 0 ? Effect.void : Effect.logWarning(
      `server tools are not passed to ${provider} by @zett/ai: ${request.serverTools.map((t) => t.name).join(", ")}`
    )
    const sent = Stream.concat(Stream.fromEffectDrain(warnServerTools), retried(env, attempt, () => emitted, 0))
    return deferred.length === 0
      ? sent
      : Stream.provideService(sent, DeferredTools, { names: deferredNames, toolSearch: request.toolSearch })
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
 * @since 1.0.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: Options = {}) {
  const env: Env = {
    languageModel: yield* LanguageModel.LanguageModel,
    options,
    provider: options.provider ?? "the model provider",
    secrets: options.redact ?? [],
    retry: options.retry === false ? undefined : options.retry ?? {},
    logLevel: options.retryLogLevel ?? "Info",
    unparsedCalls: 0
  }
  const model = { stream: (request: Model.ModelRequest) => stream(env, request) }
  return Model.Model.of(options.info !== undefined ? { ...model, info: options.info } : model)
})

/**
 * @since 1.0.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<Model.Model, never, LanguageModel.LanguageModel> =>
  Layer.effect(Model.Model, make(options))
