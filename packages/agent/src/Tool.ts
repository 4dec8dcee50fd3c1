/**
 * Tools: a definition the model reads (name, description, JSON Schema of the input, guidelines) and a handler
 * the agent runs when the model calls it.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as JSONSchema from "effect/JSONSchema"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { RunContext } from "./Extension.js"
import type { ToolCall } from "./Message.js"

/**
 * A JSON Schema object describing a tool's input.
 *
 * @since 0.1.0
 * @category models
 */
export type JsonSchema = { readonly [key: string]: unknown }

/**
 * What the model is told about a tool.
 *
 * `guidelines`: usage guidance added to the system message by the tool-guidelines extension; `undefined`
 * lets that extension fall back to the description, `false` opts the tool out (MCP tools do).
 *
 * @since 0.1.0
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
 * @since 0.1.0
 * @category models
 */
export interface Tool extends Definition {
  readonly handle: (args: unknown, call: ToolCall, context: RunContext) => Effect.Effect<unknown, unknown>
  readonly timeout?: Duration.Duration | undefined
}

/**
 * The failure a tool reports to the model: `type` names the kind (`InvalidArguments` of the call, an
 * `UnknownTool`, a `TimeoutError`, the source of a remote tool `Unavailable` or failing the request
 * (`RemoteError`), or the tool's own `ToolError`), `message` is the text the model sees.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolError extends Schema.TaggedError<ToolError>("@zett/agent/ToolError")("ToolError", {
  type: Schema.Literal(
    "InvalidArguments",
    "UnknownTool",
    "TimeoutError",
    "Unavailable",
    "RemoteError",
    "ToolError"
  ),
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}

/**
 * What `make` and `dynamic` share: the description, the guidelines and a time limit of the tool's own.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly description: string
  readonly guidelines?: string | false | undefined
  readonly timeout?: Duration.DurationInput | undefined
}

const jsonSchemaOf = (schema: Schema.Schema.AnyNoContext): JsonSchema => {
  // the `$schema` dialect annotation only costs prompt tokens
  const { $schema: _, ...rest } = JSONSchema.make(schema) as unknown as Record<string, unknown>
  return rest
}

/**
 * A local tool whose parameters are declared with a Schema: the model sees the JSON Schema generated from it, and
 * arguments are decoded before the handler runs, so the handler only sees valid input. Invalid arguments fail with a
 * readable `ToolError` of type `InvalidArguments`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <P extends Schema.Schema.AnyNoContext, A, E>(
  name: string,
  options: Options & {
    readonly parameters: P
    readonly handler: (params: Schema.Schema.Type<P>, call: ToolCall, context: RunContext) => Effect.Effect<A, E>
  }
): Tool => {
  const decode = Schema.decodeUnknown(options.parameters, { errors: "all", onExcessProperty: "error" })
  return dynamic(name, {
    ...options,
    parameters: jsonSchemaOf(options.parameters),
    handler: (args, call, context) =>
      decode(args).pipe(
        Effect.mapError((error) =>
          new ToolError({
            type: "InvalidArguments",
            message: `invalid arguments for ${name}: ${ParseResult.TreeFormatter.formatErrorSync(error)}`
          })
        ),
        Effect.flatMap((params) => options.handler(params, call, context))
      )
  })
}

/**
 * A tool described by a JSON Schema known only at run time (remote tools). Arguments are passed through
 * unvalidated: the tool's owner (the remote server) validates them.
 *
 * @since 0.1.0
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
  timeout: options.timeout === undefined ? undefined : Duration.decode(options.timeout),
  handle: options.handler
})

/**
 * The part of a tool the model sees.
 *
 * @since 0.1.0
 * @category utils
 */
export const definition = (tool: Definition): Definition => ({
  name: tool.name,
  description: tool.description,
  parameters: tool.parameters,
  guidelines: tool.guidelines
})
