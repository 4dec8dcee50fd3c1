/**
 * Why a run (or building an agent) failed. The agent's errors are one family: each carries `TypeId`
 * (`isAgentError`) and says its kind in `reason` (a literal), as `@zett/mcp`'s `McpError` family does.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import type { ModelError } from "./Model.js"
import type { ToolError } from "./Tool.js"

/**
 * @since 1.0.0
 * @category type ids
 */
export const TypeId: unique symbol = Symbol.for("@zett/agent/AgentError")

/**
 * @since 1.0.0
 * @category type ids
 */
export type TypeId = typeof TypeId

/**
 * Every error of the family: a run's (`AgentError`), building an agent's (`DuplicateExtension`) and a tool's
 * (`Tool.ToolError`).
 *
 * @since 1.0.0
 * @category models
 */
export type Any = AgentError | DuplicateExtension | ToolError

/**
 * @since 1.0.0
 * @category refinements
 */
export const isAgentError = (u: unknown): u is Any => Predicate.hasProperty(u, TypeId)

// a reason with one value: filled in when constructed or decoded without it
const only = <const L extends string>(literal: L) =>
  Schema.Literal(literal).pipe(
    Schema.withConstructorDefault(Effect.succeed(literal)),
    Schema.withDecodingDefaultKey(Effect.succeed(literal))
  )

/**
 * Two extensions registered under one name: a name must identify one extension within an agent.
 *
 * @since 1.0.0
 * @category errors
 */
export class DuplicateExtension extends Schema.TaggedError<DuplicateExtension>("@zett/agent/DuplicateExtension")(
  "DuplicateExtension",
  { name: Schema.String, reason: only("DuplicateName") }
) {
  /**
   * @since 1.0.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * @since 1.0.0
   */
  override get message(): string {
    return `two extensions are registered under the name ${JSON.stringify(this.name)}`
  }
}

/**
 * The model kept calling tools past the `maxTurns` guard.
 *
 * @since 1.0.0
 * @category errors
 */
export class MaxTurnsExceeded extends Schema.TaggedError<MaxTurnsExceeded>("@zett/agent/MaxTurnsExceeded")(
  "MaxTurnsExceeded",
  { maxTurns: Schema.Number, reason: only("MaxTurns") }
) {
  /**
   * @since 1.0.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * @since 1.0.0
   */
  override get message(): string {
    return `the run did not finish within ${this.maxTurns} turns`
  }
}

/**
 * Where an `ExtensionError` arose: a hook, `request` (building a request's hooks), or `compact` (the agent's
 * `Compaction`).
 *
 * @since 1.0.0
 * @category models
 */
export const HookName = Schema.Literals([
  "request",
  "onMessage",
  "beforeRun",
  "beforeTurn",
  "onTool",
  "onState",
  "beforeModel",
  "afterModel",
  "beforeTool",
  "afterTool",
  "afterTurn",
  "afterRun",
  "onSuccess",
  "onError",
  "onEvent",
  "onCompact",
  "afterCompact",
  "compact"
])

/**
 * Which part of an extension failed: a `Hook`, building a request's hooks (`Request`), or the agent's
 * `Compaction`.
 *
 * @since 1.0.0
 * @category models
 */
export const ExtensionFailure = Schema.Literals(["Hook", "Request", "Compaction"])

/**
 * @since 1.0.0
 * @category models
 */
export type ExtensionFailure = typeof ExtensionFailure.Type

/**
 * A hook of an extension failed; the run fails with it.
 *
 * @since 1.0.0
 * @category errors
 */
export class ExtensionError extends Schema.TaggedError<ExtensionError>("@zett/agent/ExtensionError")(
  "ExtensionError",
  { extension: Schema.String, hook: HookName, reason: ExtensionFailure, cause: Schema.Defect() }
) {
  /**
   * @since 1.0.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * @since 1.0.0
   */
  override get message(): string {
    const cause = this.cause as { readonly message?: unknown } | undefined
    const detail = typeof cause?.message === "string" ? `: ${cause.message}` : ""
    return `extension ${this.extension} failed in ${this.hook}${detail}`
  }
}

/**
 * @since 1.0.0
 * @category models
 */
export type AgentError = ModelError | MaxTurnsExceeded | ExtensionError
