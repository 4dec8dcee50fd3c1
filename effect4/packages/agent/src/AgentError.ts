/**
 * Why a run (or building an agent) failed.
 *
 * @since 1.0.0
 */
import * as Schema from "effect/Schema"
import type { ModelError } from "./Model.js"

/**
 * Two extensions registered under one name: a name must identify one extension within an agent.
 *
 * @since 1.0.0
 * @category errors
 */
export class DuplicateExtension extends Schema.TaggedError<DuplicateExtension>("@zett/agent/DuplicateExtension")(
  "DuplicateExtension",
  { name: Schema.String }
) {
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
  { maxTurns: Schema.Number }
) {
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
 * A hook of an extension failed; the run fails with it.
 *
 * @since 1.0.0
 * @category errors
 */
export class ExtensionError extends Schema.TaggedError<ExtensionError>("@zett/agent/ExtensionError")(
  "ExtensionError",
  { extension: Schema.String, hook: HookName, cause: Schema.Defect() }
) {
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
