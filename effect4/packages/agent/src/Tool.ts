/**
 * Tools: a definition the model reads (name, description, JSON Schema of the input, guidelines) and a handler
 * the agent runs when the model calls it.
 *
 * @since 1.0.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { TypeId } from "./AgentError.js"
import type { RunContext } from "./Extension.js"
import type { ToolCall } from "./Message.js"

/**
 * A JSON Schema object describing a tool's input.
 *
 * @since 1.0.0
 * @category models
 */
export type JsonSchema = { readonly [key: string]: unknown }

/**
 * What the model is told about a tool.
 *
 * `guidelines`: usage guidance added to the system message by the tool-guidelines extension; `undefined`
 * lets that extension fall back to the description, `false` opts the tool out (MCP tools do).
 *
 * @since 1.0.0
 * @category models
 */
export interface Definition {
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema
  readonly guidelines?: string | false | undefined
}

/**
 * A tool the agent can run. `handle` receives the raw arguments of the model's call and the request it runs
 * in; any validation is the tool's own (see `make`). A failure of `handle` becomes a `TOOL_FAILED` tool
 * message, not a failed run.
 *
 * @since 1.0.0
 * @category models
 */
export interface Tool extends Definition {
  readonly handle: (args: unknown, call: ToolCall, context: RunContext) => Effect.Effect<unknown, unknown>
  readonly timeout?: Duration.Duration | undefined
  /**
   * The tool keeps its own time: the agent does not race it against a timer of its own, and the tool applies
   * `timeout` or, for one that sets none, the agent's (`RunContext.toolTimeout`) within its own limits (an MCP
   * tool, on its connection's deadline timer, so that a call is timed once).
   */
  readonly timesItself?: boolean | undefined
}

/**
 * The kind of a tool's failure, as the model reads it (`{ "error": { "type": ..., "message": ... } }`): the call's
 * arguments could not be used (`InvalidArguments`), no tool has the name (`UnknownTool`), the tool did not finish
 * in time (`Timeout`), the tool's source could not be reached (`Unavailable`) or failed the request
 * (`RequestFailed`), or the tool itself reported a failure (`ToolFailed`).
 *
 * @since 1.0.0
 * @category models
 */
export const ToolFailure = Schema.Literals([
  "InvalidArguments",
  "UnknownTool",
  "Timeout",
  "Unavailable",
  "RequestFailed",
  "ToolFailed"
])

/**
 * @since 1.0.0
 * @category models
 */
export type ToolFailure = typeof ToolFailure.Type

/**
 * The failure a tool reports to the model: `reason` is its kind (`ToolFailure`), `message` the text the model
 * sees. A tool with a kind of its own fails with a tagged error of its own: the model sees its `_tag`.
 *
 * @since 1.0.0
 * @category errors
 */
export class ToolError extends Schema.TaggedError<ToolError>("@zett/agent/ToolError")("ToolError", {
  reason: ToolFailure,
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  /**
   * @since 1.0.0
   */
  readonly [TypeId]: TypeId = TypeId
}

/**
 * What `make` and `dynamic` share: the description, the guidelines and a time limit of the tool's own.
 *
 * @since 1.0.0
 * @category models
 */
export interface Options {
  readonly description: string
  readonly guidelines?: string | false | undefined
  readonly timeout?: Duration.Input | undefined
  /** See `Tool.timesItself`. */
  readonly timesItself?: boolean | undefined
}

/**
 * A local tool whose parameters are declared with a Schema: the model sees the JSON Schema generated from it (closed to
 * other properties, as the decoder is), and arguments are decoded before the handler runs, so the handler only sees
 * valid input. Invalid arguments fail with a readable `ToolError` of reason `InvalidArguments`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = <P extends Schema.Codec<any, any>, A, E>(
  name: string,
  options: Options & {
    readonly parameters: P
    readonly handler: (params: P["Type"], call: ToolCall, context: RunContext) => Effect.Effect<A, E>
  }
): Tool => {
  const decode = Schema.decodeUnknownEffect(options.parameters, { errors: "all", onExcessProperty: "error" })
  return dynamic(name, {
    ...options,
    // Schema 4 writes the document the decoder enforces: closed objects, and no `$schema` dialect to cost tokens
    parameters: Schema.toJsonSchemaDocument(options.parameters, { onExcessProperty: "error" }).schema as JsonSchema,
    handler: (args, call, context) =>
      decode(args).pipe(
        Effect.mapError((error) =>
          new ToolError({ reason: "InvalidArguments", message: `invalid arguments for ${name}: ${error.message}` })
        ),
        Effect.flatMap((params) => options.handler(params, call, context))
      )
  })
}

/**
 * A tool described by a JSON Schema known only at run time (remote tools). Arguments are passed through
 * unvalidated: the tool's owner (the remote server) validates them.
 *
 * @since 1.0.0
 * @category constructors
 */
export const dynamic = (
  name: string,
  options: Options & {
    readonly parameters: JsonSchema
    readonly handler: (args: unknown, call: ToolCall, context: RunContext) => Effect.Effect<unknown, unknown>
  }
): Tool => ({
  name,
  description: options.description,
  parameters: options.parameters,
  guidelines: options.guidelines,
  timeout: options.timeout === undefined ? undefined : Duration.fromInputUnsafe(options.timeout),
  ...(options.timesItself === true ? { timesItself: true } : {}),
  handle: options.handler
})

/**
 * The part of a tool the model sees.
 *
 * @since 1.0.0
 * @category utils
 */
export const definition = (tool: Definition): Definition => ({
  name: tool.name,
  description: tool.description,
  parameters: tool.parameters,
  guidelines: tool.guidelines
})
