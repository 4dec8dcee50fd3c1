/** @internal */
import { closest } from "@zett/common/EditDistance"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { ActiveRuns, Compaction } from "../Agent.js"
import { ExtensionError, MaxTurnsExceeded } from "../AgentError.js"
import type { AgentError } from "../AgentError.js"
import type * as Extension from "../Extension.js"
import type { Message, ToolCall, Usage } from "../Message.js"
import { addUsage, AssistantMessage, SystemMessage, ToolMessage, UserMessage } from "../Message.js"
import type { ModelError, ModelEvent, ModelRequest, ServerTool } from "../Model.js"
import * as Model from "../Model.js"
import * as Tool from "../Tool.js"
import { operationDuration, tokenUsage, tracedWith } from "../Tracing.js"

/** @internal */
export interface Engine {
  readonly model: Model.Model["Service"]
  readonly extensions: ReadonlyArray<Extension.Any>
  /** The hooks of a request when no extension builds its own (`request`): the extensions themselves. */
  readonly hooks: ReadonlyArray<Bound> | undefined
  readonly tools: ReadonlyArray<Tool.Tool>
  readonly systemPrompt: string | undefined
  readonly maxTurns: number
  readonly toolTimeout: Duration.Duration | undefined
  readonly toolConcurrency: number
  readonly compaction: Compaction | undefined
  /** The runs of this agent, newest last: where steering goes. */
  readonly active: Set<RunState>
  /** The runs of every agent that shares them, by extension: what `pending` reads. */
  readonly runs: ActiveRuns["Service"]
  readonly telemetry: Telemetry
}

/**
 * Span names, attributes and metric keys of one agent, made once (OpenTelemetry GenAI conventions): a model call
 * is `chat {model}`, a tool call `execute_tool {name}`, a run `invoke_agent`. Content (messages, arguments,
 * results) only with `captureContent`.
 *
 * @internal
 */
export interface Telemetry {
  readonly modelSpan: string
  readonly modelAttributes: Readonly<Record<string, unknown>>
  readonly runAttributes: Readonly<Record<string, unknown>>
  readonly captureContent: boolean
  readonly inputTokens: Metric.Histogram<number>
  readonly outputTokens: Metric.Histogram<number>
  readonly duration: Metric.Histogram<number>
}

/** @internal */
export const makeTelemetry = (info: Model.ModelInfo | undefined, captureContent: boolean): Telemetry => {
  const common: Record<string, string> = {
    "gen_ai.operation.name": "chat",
    ...(info !== undefined ? { "gen_ai.provider.name": info.provider, "gen_ai.request.model": info.model } : {})
  }
  const tagged = (metric: Metric.Histogram<number>, extra: Record<string, string> = {}) =>
    Metric.withAttributes(metric, { ...common, ...extra })
  return {
    modelSpan: info !== undefined ? `chat ${info.model}` : "chat",
    modelAttributes: common,
    runAttributes: { ...common, "gen_ai.operation.name": "invoke_agent" },
    captureContent,
    inputTokens: tagged(tokenUsage, { "gen_ai.token.type": "input" }),
    outputTokens: tagged(tokenUsage, { "gen_ai.token.type": "output" }),
    duration: tagged(operationDuration)
  }
}

const usageAttributes = (usage: Usage | undefined): Record<string, unknown> =>
  usage === undefined ? {} : {
    "gen_ai.usage.input_tokens": usage.inputTokens,
    "gen_ai.usage.output_tokens": usage.outputTokens,
    ...(usage.cachedInputTokens !== undefined
      ? { "gen_ai.usage.cache_read.input_tokens": usage.cachedInputTokens }
      : {})
  }

let nextRunId = 0

/** One extension's hooks for one request. */
interface Bound {
  readonly name: string
  readonly hooks: Extension.Hooks<unknown>
}

/** @internal */
export const staticHooks = (extensions: ReadonlyArray<Extension.Any>): ReadonlyArray<Bound> | undefined =>
  extensions.some((extension) => extension.request !== undefined)
    ? undefined
    : extensions.map((extension) => ({ name: extension.name, hooks: extension }))

const duplicate = (tool: Tool.Tool) =>
  Effect.logWarning(`tool ${tool.name} is already registered; the later one is skipped`).pipe(
    Effect.annotateLogs("tool", tool.name)
  )

/** @internal */
export class RunState implements Extension.RunContext {
  readonly runId = ++nextRunId
  conversation: Array<Message> = []
  state: Array<string> = []
  readonly registry = new Map<string, Tool.Tool>()
  readonly serverToolList: Array<ServerTool> = []
  readonly steering: Array<UserMessage> = []
  hooks: ReadonlyArray<Bound> = []
  constructor(
    readonly kind: "run" | "compact",
    readonly scope: Scope.Closeable,
    public input: UserMessage,
    readonly toolTimeout: Duration.Duration | undefined
  ) {}

  readonly inputMessage = Effect.sync(() => this.input)
  readonly setInputMessage = (message: UserMessage) =>
    Effect.sync(() => {
      this.input = message
    })
  readonly messages = Effect.sync((): ReadonlyArray<Message> => this.conversation)
  readonly addMessage = (message: Message) =>
    Effect.sync(() => {
      this.conversation.push(message)
    })
  readonly replaceMessages = (messages: ReadonlyArray<Message>) =>
    Effect.sync(() => {
      this.conversation = [...messages]
    })
  readonly addState = (text: string) =>
    Effect.sync(() => {
      this.state.push(text)
    })
  readonly tools: Extension.ToolRegistry = {
    register: (tool) =>
      Effect.suspend(() => {
        if (this.registry.has(tool.name)) return Effect.as(duplicate(tool), false)
        this.registry.set(tool.name, tool)
        return Effect.succeed(true)
      }),
    registerAll: (tools) =>
      Effect.suspend(() => {
        let skipped: Array<Tool.Tool> | undefined
        for (const tool of tools) {
          if (this.registry.has(tool.name)) (skipped ??= []).push(tool)
          else this.registry.set(tool.name, tool)
        }
        return skipped === undefined ? Effect.void : Effect.forEach(skipped, duplicate, { discard: true })
      }),
    remove: (name) =>
      Effect.sync(() => {
        this.registry.delete(name)
      }),
    get: (name) => this.registry.get(name),
    list: Effect.sync(() => Array.from(this.registry.values()))
  }
  readonly serverTools: Extension.ServerToolRegistry = {
    add: (tool) =>
      Effect.sync(() => {
        this.serverToolList.push(tool)
      }),
    list: Effect.sync((): ReadonlyArray<ServerTool> => this.serverToolList)
  }
  readonly publish = (event: Extension.AgentEvent): Effect.Effect<void> =>
    Effect.catchCause(
      each(this, "onEvent", (e) => e.onEvent?.(this, event)),
      (cause) => Effect.logError(`an onEvent hook failed on ${event._tag}`, cause)
    )
  get observed(): boolean {
    for (const bound of this.hooks) if (bound.hooks.onEvent !== undefined) return true
    return false
  }
}

const hook = <A>(extension: string, name: Extension.HookName | "request", effect: Effect.Effect<A, unknown>) =>
  Effect.mapError(
    effect,
    (cause) => new ExtensionError({ extension, hook: name, reason: name === "request" ? "Request" : "Hook", cause })
  )

/** The hooks of this request: each extension's own, replaced where its `request` builds them (in the request scope). */
const bind = (engine: Engine, run: RunState): Effect.Effect<void, ExtensionError> => {
  if (engine.hooks !== undefined) {
    run.hooks = engine.hooks
    return Effect.void
  }
  run.hooks = engine.extensions.map((extension) => ({ name: extension.name, hooks: extension }))
  return Effect.forEach(
    engine.extensions,
    (extension): Effect.Effect<Bound, ExtensionError> =>
      extension.request === undefined
        ? Effect.succeed({ name: extension.name, hooks: extension })
        : hook(extension.name, "request", Scope.provide(extension.request(run), run.scope)).pipe(
          Effect.map((hooks) => ({ name: extension.name, hooks: { ...extension, ...hooks } }))
        )
  ).pipe(Effect.map((hooks) => void (run.hooks = hooks)))
}

/** What the request provides to everything that runs in it: the agent's model and the services its extensions return. */
const services = (engine: Engine, run: RunState): Context.Context<never> => {
  let context = Context.make(Model.Model, engine.model) as Context.Context<never>
  for (const bound of run.hooks) {
    if (bound.hooks.services !== undefined) context = Context.merge(context, bound.hooks.services)
  }
  return context
}

/** Constructor options for messages built here from values already decoded (a `ToolCall`'s id and name). */
const trusted = { disableChecks: true } as const

/** Runs one hook of every extension that has it, in registration order. */
const each = (
  run: RunState,
  name: Extension.HookName,
  f: (hooks: Extension.Hooks<unknown>) => Effect.Effect<unknown, unknown> | undefined
): Effect.Effect<void, ExtensionError> => {
  // A run calls a dozen hook points; most have no extension hooked in.
  let any = false
  for (const bound of run.hooks) if (bound.hooks[name] !== undefined) any = true
  return !any ? Effect.void : Effect.forEach(
    run.hooks,
    (bound) => {
      const effect = f(bound.hooks)
      return effect === undefined ? Effect.void : hook(bound.name, name, effect)
    },
    { discard: true }
  )
}

/** The model's events, an array at a time: Effect 4 streams arrays, where the Effect 3 line pulled chunks by hand. */
const forEachEvent = <E>(
  stream: Stream.Stream<ModelEvent, E>,
  onEvent: (event: ModelEvent) => void
): Effect.Effect<void, E> =>
  Stream.runForEachArray(stream, (events) =>
    Effect.sync(() => {
      for (const event of events) onEvent(event)
    }))

const buildRequest = (engine: Engine, run: RunState): ModelRequest => {
  const system = [engine.systemPrompt, ...run.state].filter((part): part is string => part !== undefined && part !== "")
  return {
    messages: system.length === 0
      ? run.conversation.slice()
      : [new SystemMessage({ content: system.join("\n\n") }, trusted), ...run.conversation],
    tools: Array.from(run.registry.values(), Tool.definition),
    serverTools: run.serverToolList.slice()
  }
}

const callModel = (
  engine: Engine,
  run: RunState,
  request: ModelRequest
): Effect.Effect<AssistantMessage, ModelError> => {
  let stream = engine.model.stream
  for (let i = run.hooks.length - 1; i >= 0; i--) {
    const wrap = run.hooks[i]!.hooks.onModelRequest
    if (wrap !== undefined) {
      const next = stream
      stream = (request) => wrap(run, request, next)
    }
  }
  const acc = {
    text: "",
    calls: [] as Array<ToolCall>,
    usage: undefined as Usage | undefined,
    reason: undefined as string | undefined
  }
  const telemetry = engine.telemetry
  return forEachEvent(stream(request), (event) => {
    switch (event._tag) {
      case "TextDelta":
        acc.text += event.text
        break
      case "ToolCall":
        acc.calls.push(event.call)
        break
      case "Finish":
        acc.usage = event.usage
        acc.reason = event.reason
        break
    }
  }).pipe(
    Effect.map(() =>
      // from typed events (the model's decoder made them): validating again walks every call's arguments
      new AssistantMessage({
        content: acc.text,
        toolCalls: acc.calls,
        ...(acc.usage !== undefined ? { usage: acc.usage } : {})
      }, trusted)
    ),
    measured(telemetry),
    tracedWith(
      () => telemetry.modelSpan,
      () => ({ kind: "client", attributes: telemetry.modelAttributes }),
      (message) => ({
        ...usageAttributes(message.usage),
        ...(acc.reason !== undefined ? { "gen_ai.response.finish_reasons": [acc.reason] } : {}),
        ...(telemetry.captureContent
          ? {
            "gen_ai.input.messages": JSON.stringify(request.messages),
            "gen_ai.output.messages": JSON.stringify([message])
          }
          : {})
      })
    )
  )
}

/** Records `gen_ai.client.operation.duration` (with `error.type` on failure) and `gen_ai.client.token.usage`. */
const measured = (telemetry: Telemetry) =>
<E extends { readonly _tag: string }>(
  self: Effect.Effect<AssistantMessage, E>
): Effect.Effect<AssistantMessage, E> =>
  Effect.flatMap(
    Clock.currentTimeMillis,
    (start) =>
      Effect.onExit(self, (exit) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const seconds = (now - start) / 1000
          if (Exit.isFailure(exit)) {
            const failure = Cause.findErrorOption(exit.cause)
            const type = Option.isSome(failure) ? failure.value._tag : "_OTHER"
            return Metric.update(Metric.withAttributes(telemetry.duration, { "error.type": type }), seconds)
          }
          const usage = exit.value.usage
          const duration = Metric.update(telemetry.duration, seconds)
          return usage === undefined ? duration : Effect.andThen(
            duration,
            Effect.andThen(
              Metric.update(telemetry.inputTokens, usage.inputTokens),
              Metric.update(telemetry.outputTokens, usage.outputTokens)
            )
          )
        }))
  )

/** What the model is told about a failed call: the kind and a readable message, never a stack trace. */
const failureContent = (cause: Cause.Cause<unknown>, call: ToolCall) => {
  const failure = Cause.findErrorOption(cause)
  if (Option.isNone(failure)) {
    return Effect.as(
      Effect.logError(`tool ${call.name} failed unexpectedly`, cause),
      { error: { type: "ToolDefect", message: `the tool ${call.name} failed unexpectedly` } }
    )
  }
  const error = failure.value as { readonly _tag?: unknown; readonly message?: unknown }
  // the model reads a ToolError's kind where another failure shows its tag
  if (error instanceof Tool.ToolError) {
    return Effect.succeed({ error: { type: error.reason, message: error.message } })
  }
  const type = typeof error?._tag === "string" ? error._tag : error instanceof Error ? error.name : "Error"
  const message = typeof error?.message === "string" ? error.message : String(error)
  return Effect.succeed({ error: { type, message } })
}

/** An unknown tool, with the names the model most likely meant: small models misspell and invent names. */
const unknownTool = (run: RunState, call: ToolCall) => {
  const names = closest(call.name, run.registry.keys())
  return new Tool.ToolError({
    reason: "UnknownTool",
    message: `there is no tool named ${JSON.stringify(call.name.slice(0, 100))}; ` +
      (names.length === 0 ? "no tools are available" : `the closest names are ${names.join(", ")}`)
  })
}

const executeCall = (engine: Engine, run: RunState, call: ToolCall): Effect.Effect<ToolMessage, ExtensionError> =>
  Effect.gen(function*() {
    yield* each(run, "beforeTool", (e) => e.beforeTool?.(run, call))
    let next = (call: ToolCall): Effect.Effect<unknown, unknown> => {
      const tool = run.registry.get(call.name)
      if (tool === undefined) return unknownTool(run, call)
      if (call.invalidArguments !== undefined) {
        return new Tool.ToolError({
          reason: "InvalidArguments",
          message: `the arguments of ${call.name} could not be read (${call.invalidArguments}); ` +
            "call it again with the arguments as one JSON object"
        })
      }
      const timeout = tool.timeout ?? engine.toolTimeout
      const handled = tool.handle(call.arguments, call, run)
      // a tool that keeps its own time applies the limit itself (one timer for a call, not two)
      return timeout === undefined || tool.timesItself === true ? handled : Effect.timeoutOrElse(handled, {
        duration: timeout,
        orElse: () =>
          Effect.fail(
            new Tool.ToolError({
              reason: "Timeout",
              message: `the tool ${call.name} did not finish within ${Duration.format(timeout)}`
            })
          )
      })
    }
    for (let i = run.hooks.length - 1; i >= 0; i--) {
      const wrap = run.hooks[i]!.hooks.onToolCall
      if (wrap !== undefined) {
        const inner = next
        next = (call) => wrap(run, call, inner)
      }
    }
    const exit = yield* Effect.exit(next(call))
    // built from a decoded call and a literal status: validating the fields again costs a Schema parse per call
    let message = Exit.isSuccess(exit)
      ? new ToolMessage({ toolCallId: call.id, name: call.name, status: "ok", content: exit.value ?? null }, trusted)
      : new ToolMessage({
        toolCallId: call.id,
        name: call.name,
        status: "TOOL_FAILED",
        content: yield* failureContent(exit.cause, call)
      }, trusted)
    const error = Exit.isFailure(exit) ? Option.some(Cause.squash(exit.cause)) : Option.none()
    for (const { hooks, name } of run.hooks) {
      if (hooks.afterTool !== undefined) {
        const replaced = yield* hook(name, "afterTool", hooks.afterTool(run, call, message, error))
        if (replaced instanceof ToolMessage) message = replaced
      }
    }
    return message
  }).pipe(tracedWith(
    () => `execute_tool ${call.name}`,
    () => ({
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": call.name,
        "gen_ai.tool.call.id": call.id,
        "gen_ai.tool.type": "function",
        ...(engine.telemetry.captureContent ? { "gen_ai.tool.call.arguments": JSON.stringify(call.arguments) } : {})
      }
    }),
    (message) => ({
      ...(message.status === "TOOL_FAILED" ? { "error.type": errorType(message.content) } : {}),
      ...(engine.telemetry.captureContent ? { "gen_ai.tool.call.result": JSON.stringify(message.content) } : {})
    })
  ))

const errorType = (content: unknown): string => {
  const type = (content as { readonly error?: { readonly type?: unknown } } | null)?.error?.type
  return typeof type === "string" ? type : "_OTHER"
}

const skipped = (call: ToolCall) =>
  new ToolMessage({
    toolCallId: call.id,
    name: call.name,
    status: "skipped",
    content: { skipped: "a new user message arrived before this call started" }
  }, trusted)

const deliverSteering = (run: RunState) => {
  for (const message of run.steering.splice(0)) run.conversation.push(message)
}

const turnLoop = (engine: Engine, run: RunState): Effect.Effect<AssistantMessage, AgentError> =>
  Effect.gen(function*() {
    let toolsRegistered = false
    let usage: Usage | undefined
    for (let turn = 1;; turn++) {
      if (turn > engine.maxTurns) return yield* new MaxTurnsExceeded({ maxTurns: engine.maxTurns })
      yield* each(run, "beforeTurn", (e) => e.beforeTurn?.(run))
      if (engine.compaction !== undefined && engine.compaction.shouldCompact(run.conversation)) {
        const compacted = yield* Effect.mapError(
          engine.compaction.compact(run.conversation),
          (cause) => new ExtensionError({ extension: "compaction", hook: "compact", reason: "Compaction", cause })
        )
        run.conversation = [...compacted]
      }
      if (!toolsRegistered) {
        toolsRegistered = true
        yield* run.tools.registerAll(engine.tools)
        yield* each(run, "onTool", (e) => e.onTool?.(run))
      }
      run.state = []
      yield* each(run, "onState", (e) => e.onState?.(run))
      for (const { hooks, name } of run.hooks) {
        if (hooks.beforeModel !== undefined) {
          yield* hook(name, "beforeModel", hooks.beforeModel(run, buildRequest(engine, run)))
        }
      }
      const response = yield* callModel(engine, run, buildRequest(engine, run))
      run.conversation.push(response)
      if (response.usage !== undefined) usage = usage === undefined ? response.usage : addUsage(usage, response.usage)
      yield* each(run, "afterModel", (e) => e.afterModel?.(run, response))
      if (response.toolCalls.length === 0 && run.steering.length === 0) {
        yield* each(run, "afterTurn", (e) => e.afterTurn?.(run, response))
        return usage === undefined ? response : new AssistantMessage({
          content: response.content,
          toolCalls: response.toolCalls,
          ...(response.usage !== undefined ? { usage: response.usage } : {}),
          runUsage: usage
        }, trusted)
      }
      const results = yield* Effect.forEach(
        response.toolCalls,
        (call) =>
          Effect.suspend(() =>
            run.steering.length > 0 ? Effect.succeed(skipped(call)) : executeCall(engine, run, call)
          ),
        { concurrency: engine.toolConcurrency }
      )
      for (const result of results) run.conversation.push(result)
      deliverSteering(run)
      yield* each(run, "afterTurn", (e) => e.afterTurn?.(run, response))
    }
  })

/** Runs terminal hooks without letting their failure hide the original outcome. */
const settle = (run: RunState, exit: Exit.Exit<AssistantMessage, AgentError>) => {
  if (Exit.isSuccess(exit)) {
    return Effect.as(each(run, "onSuccess", (e) => e.onSuccess?.(run, exit.value)), exit.value)
  }
  const observe = Cause.hasInterruptsOnly(exit.cause)
    ? each(run, "onEvent", (e) => e.onEvent?.(run, { _tag: "RunCancelled", runId: run.runId }))
    : each(run, "onError", (e) => e.onError?.(run, Cause.squash(exit.cause)))
  return Effect.andThen(
    Effect.catchCause(observe, (cause) => Effect.logError("a terminal hook failed", cause)),
    exit
  )
}

/** One request: its own scope, closed on success, failure and interruption, so whatever it acquired is released. */
export const run = (engine: Engine, input: UserMessage): Effect.Effect<AssistantMessage, AgentError> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const run = new RunState("run", scope, input, engine.toolTimeout)
      yield* engine.runs.enter(engine.extensions)
      engine.active.add(run)
      const exit = yield* Effect.exit(restore(
        Effect.gen(function*() {
          yield* bind(engine, run)
          return yield* Effect.provide(
            Effect.gen(function*() {
              yield* each(run, "onMessage", (e) => e.onMessage?.(run))
              run.conversation.push(run.input)
              yield* each(run, "beforeRun", (e) => e.beforeRun?.(run))
              const result = yield* turnLoop(engine, run)
              yield* each(run, "afterRun", (e) => e.afterRun?.(run, result))
              return result
            }),
            services(engine, run)
          )
        }).pipe(tracedWith(
          () => "invoke_agent",
          () => ({ attributes: { ...engine.telemetry.runAttributes, "zett.agent.run_id": run.runId } }),
          (result) => usageAttributes(result.runUsage ?? result.usage)
        ))
      ))
      engine.active.delete(run)
      const settled = yield* Effect.exit(settle(run, exit))
      yield* Scope.close(scope, settled)
      yield* engine.runs.exit(engine.extensions)
      return yield* settled
    })
  )

/** A maintenance pass with a scope of its own; it never reaches the success hooks. */
export const compact = (engine: Engine): Effect.Effect<void, ExtensionError> =>
  Effect.acquireUseRelease(
    Effect.zipWith(
      Scope.make(),
      engine.runs.enter(engine.extensions),
      (scope) => new RunState("compact", scope, new UserMessage({ content: "" }), engine.toolTimeout)
    ),
    (run) =>
      Effect.gen(function*() {
        yield* bind(engine, run)
        yield* Effect.provide(
          Effect.gen(function*() {
            yield* each(run, "onCompact", (e) => e.onCompact?.(run))
            if (engine.compaction !== undefined) {
              const compacted = yield* Effect.mapError(
                engine.compaction.compact(run.conversation),
                (cause) => new ExtensionError({ extension: "compaction", hook: "compact", reason: "Compaction", cause })
              )
              run.conversation = [...compacted]
            }
            yield* each(run, "afterCompact", (e) => e.afterCompact?.(run))
          }),
          services(engine, run)
        )
      }),
    (run, exit) => Effect.ensuring(Scope.close(run.scope, exit), engine.runs.exit(engine.extensions))
  )

/** Steering goes to the newest active run; `false` when none is active. */
export const steer = (engine: Engine, message: UserMessage): boolean => {
  let newest: RunState | undefined
  for (const run of engine.active) newest = run
  if (newest === undefined) return false
  newest.steering.push(message)
  return true
}
