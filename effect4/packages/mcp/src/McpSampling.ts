/**
 * Sampling (`sampling/createMessage`), opt-in: a server asks the client's model for a completion during a tool
 * call. With an `McpSampling` in the client factory's context the factory declares the `sampling` capability;
 * without one it declares nothing (servers are declined by default).
 *
 * A request runs through a `Model` (`@zett/agent`): the one given in `Options.model`, otherwise the agent's own
 * (the MCP extension hands its agent's model to the tool calls it makes). It is counted against the agent
 * request (`maxCallsPerRequest`; outside an agent, against the connection) and refused, with an error naming the
 * limit, past it, or when it asks for more than `maxTokens`.
 *
 * @since 1.0.0
 */
import type { CreateMessageRequestParams, CreateMessageResult } from "@modelcontextprotocol/client"
import * as Message from "@zett/agent/Message"
import * as Model from "@zett/agent/Model"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { TypeId } from "./McpError.js"

/**
 * One `sampling/createMessage` request, with the server's name.
 *
 * @since 1.0.0
 * @category models
 */
export interface Request {
  readonly server: string
  readonly params: CreateMessageRequestParams
}

/**
 * Why a sampling request was refused; the server gets an error with `code` and this message.
 *
 * @since 1.0.0
 * @category errors
 */
export class SamplingRefused
  extends Schema.TaggedError<SamplingRefused>("@zett/mcp/SamplingRefused")("SamplingRefused", {
    server: Schema.String,
    reason: Schema.Literals(["Declined", "OverLimit", "TooManyTokens", "NoModel", "Unsupported", "ModelFailed"]),
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
    return `sampling request of MCP server ${this.server} refused: ${this.description}`
  }
  /**
   * The JSON-RPC error code sent back: `-1` (the user declined, as the specification's example), `-32600`
   * (invalid request: over a limit, unsupported content) or `-32603` (the model failed).
   *
   * @since 1.0.0
   */
  get code(): number {
    switch (this.reason) {
      case "Declined":
      case "NoModel":
        return -1
      case "ModelFailed":
        return -32603
      default:
        return -32600
    }
  }
}

/**
 * @since 1.0.0
 * @category models
 */
export interface Options {
  /** The model that answers; by default the agent's (given to the tool calls by the MCP extension). */
  readonly model?: Layer.Layer<Model.Model> | undefined
  /** The most tokens a request may ask for (its `maxTokens`); a request asking more is refused. */
  readonly maxTokens: number
  /** How many sampling requests one agent request (outside an agent: one connection) may make. */
  readonly maxCallsPerRequest: number
  /** Asked before each request runs (`zett` asks on a terminal); `false` declines it. By default every request runs. */
  readonly approve?: ((request: Request) => Effect.Effect<boolean>) | undefined
  /**
   * The `model` field of the result: by default the name the model that answered gives (`Model.info`, as
   * `gpt-4.1-mini`), else `"unknown"`.
   */
  readonly modelName?: string | undefined
}

/**
 * @since 1.0.0
 * @category models
 */
export interface Service {
  /**
   * Whether servers are told that the client answers these requests (the capability is declared): false for the
   * default `none`, true for a service made here; a service of your own says which it is.
   */
  readonly offered: boolean
  readonly handle: (request: Request) => Effect.Effect<CreateMessageResult, SamplingRefused>
}

/**
 * Answers sampling requests. Provided to the client factory's layer (or with the extension's `sampling` option),
 * it makes the factory declare the capability when it is `offered`; by default it is `none`, which is not, and
 * nothing is declared.
 *
 * @since 1.0.0
 * @category tags
 */
export const McpSampling: Context.Reference<Service> = Context.Reference<Service>("@zett/mcp/McpSampling", {
  defaultValue: (): Service => none
})

/**
 * The default: sampling is not offered (the capability is not declared, so servers do not ask).
 *
 * @since 1.0.0
 * @category constructors
 */
export const none: Service = {
  offered: false,
  handle: (request) =>
    Effect.fail(
      new SamplingRefused({ server: request.server, reason: "Unsupported", description: "sampling is not offered" })
    )
}

/**
 * Counts the sampling requests of one agent request. The MCP extension provides a fresh one per agent request to
 * its tool calls (a server's request during a call runs in that call's context); a connection provides its own
 * for requests made outside an agent.
 *
 * @since 1.0.0
 * @category tags
 */
export class RequestCounter extends Context.Service<RequestCounter, {
  /** Counts one more request and returns how many there have been. */
  readonly next: Effect.Effect<number>
}>()("@zett/mcp/McpSampling/RequestCounter") {}

/**
 * A counter from zero.
 *
 * @since 1.0.0
 * @category constructors
 */
export const counter = (): RequestCounter["Service"] => {
  let n = 0
  return RequestCounter.of({ next: Effect.sync(() => ++n) })
}

const toMessages = (request: Request): Effect.Effect<ReadonlyArray<Message.Message>, SamplingRefused> =>
  Effect.suspend(() => {
    const out: Array<Message.Message> = []
    if (request.params.systemPrompt !== undefined) out.push(Message.system(request.params.systemPrompt))
    for (const message of request.params.messages) {
      const blocks = Array.isArray(message.content) ? message.content : [message.content]
      const texts: Array<string> = []
      for (const block of blocks) {
        if (block.type !== "text") {
          return new SamplingRefused({
            server: request.server,
            reason: "Unsupported",
            description: `${block.type} content is not supported, only text`
          })
        }
        texts.push(block.text)
      }
      out.push(message.role === "user" ? Message.user(texts.join("\n")) : Message.assistant(texts.join("\n")))
    }
    return Effect.succeed(out)
  })

/**
 * The handler of `Options`: checks the token cap, the budget and the approval, then runs the model.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (options: Options): Service => {
  const fallback = counter()
  const refuse = (request: Request, reason: SamplingRefused["reason"], description: string) =>
    new SamplingRefused({ server: request.server, reason, description })
  // a given layer is built around `use`, so that what it holds (an HTTP client's connections) lasts the request
  const withModel = <A, E>(
    request: Request,
    use: (model: Model.Model["Service"]) => Effect.Effect<A, E>
  ): Effect.Effect<A, E | SamplingRefused> =>
    options.model !== undefined
      ? Effect.provide(Effect.flatMap(Model.Model, use), options.model)
      : Effect.flatMap(Effect.serviceOption(Model.Model), (model) =>
        Option.match(model, {
          onNone: (): Effect.Effect<A, E | SamplingRefused> =>
            refuse(request, "NoModel", "no model is available to answer it (give sampling a model)"),
          onSome: use
        }))
  return {
    offered: true,
    handle: (request) =>
      Effect.gen(function*() {
        if (request.params.maxTokens > options.maxTokens) {
          return yield* refuse(
            request,
            "TooManyTokens",
            `it asks for up to ${request.params.maxTokens} tokens, more than the ${options.maxTokens} allowed (sampling.maxTokens)`
          )
        }
        // counted before approval: a request the user declines still counts
        const count = yield* Effect.flatMap(Effect.serviceOption(RequestCounter), (given) =>
          Option.getOrElse(given, () => fallback).next)
        if (count > options.maxCallsPerRequest) {
          return yield* refuse(
            request,
            "OverLimit",
            `more than ${options.maxCallsPerRequest} sampling requests in one request (sampling.maxCallsPerRequest)`
          )
        }
        if (options.approve !== undefined && !(yield* options.approve(request))) {
          return yield* refuse(request, "Declined", "the user declined it")
        }
        const messages = yield* toMessages(request)
        let text = ""
        let stopReason = "endTurn"
        let answered: string | undefined
        yield* withModel(request, (model) =>
          model.stream({ messages, tools: [], serverTools: [] }).pipe(
            Stream.ensuring(Effect.sync(() =>
              void (answered = model.info?.model)
            )),
            Stream.runForEach((event) =>
              Effect.sync(() => {
                if (event._tag === "TextDelta") text += event.text
                else if (event._tag === "Finish" && event.reason === "length") stopReason = "maxTokens"
              })
            ),
            Effect.mapError((error) => refuse(request, "ModelFailed", error.reason))
          ))
        const result: CreateMessageResult = {
          role: "assistant",
          content: { type: "text", text },
          model: options.modelName ?? answered ?? "unknown",
          stopReason
        }
        return result
      }).pipe(
        Effect.annotateLogs("mcp.server", request.server),
        Effect.withSpan("McpSampling.handle", {
          attributes: { "mcp.server": request.server }
        })
      )
  }
}

/**
 * @since 1.0.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<never> => Layer.succeed(McpSampling)(make(options))
