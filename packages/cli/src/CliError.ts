/**
 * How a `zett` command ends: the errors of the command itself, and the exit code and one-line message of any
 * failure (0 success, 1 a failed run, 2 bad usage or bad configuration, 130 interrupted).
 *
 * @since 0.1.0
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Cause from "effect/Cause"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as Util from "node:util"

/**
 * @since 0.1.0
 * @category type ids
 */
export const TypeId: unique symbol = Symbol.for("@zett/cli/CliError")

/**
 * @since 0.1.0
 * @category type ids
 */
export type TypeId = typeof TypeId

/**
 * @since 0.1.0
 * @category refinements
 */
export const isCliError = (u: unknown): u is UsageError | RunFailed => Predicate.hasProperty(u, TypeId)

/**
 * Why a command could not run as given: no subcommand (`MissingCommand`), an option or argument that cannot be
 * used (`InvalidArgument`: invalid JSON arguments, options that exclude each other), no server, tool, prompt,
 * skill or configuration file of the name (`NotFound`), no model configured (`NoModel`), or a server that does not
 * take what was asked (`Unsupported`: a login to a stdio server).
 *
 * @since 0.1.0
 * @category models
 */
export const UsageFailure = Schema.Literal("MissingCommand", "InvalidArgument", "NotFound", "NoModel", "Unsupported")

/**
 * @since 0.1.0
 * @category models
 */
export type UsageFailure = typeof UsageFailure.Type

/**
 * Bad usage: invalid JSON arguments, an unknown tool, a missing model. Exit code 2.
 *
 * @since 0.1.0
 * @category errors
 */
export class UsageError extends Schema.TaggedError<UsageError>("@zett/cli/UsageError")("UsageError", {
  reason: UsageFailure,
  message: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
}

/**
 * Why a command that ran did not succeed: MCP servers it needed were `Unavailable`, a request to one `Failed` (a
 * tool call, a prompt, a resource read, a completion, a skill), a login failed (`LoginFailed`), or the demo's check
 * failed (`CheckFailed`).
 *
 * @since 0.1.0
 * @category models
 */
export const RunFailure = Schema.Literal("Unavailable", "Failed", "LoginFailed", "CheckFailed")

/**
 * @since 0.1.0
 * @category models
 */
export type RunFailure = typeof RunFailure.Type

/**
 * A command that ran and did not succeed: a server was unavailable, a tool failed, the demo's check
 * failed. Exit code 1.
 *
 * @since 0.1.0
 * @category errors
 */
export class RunFailed extends Schema.TaggedError<RunFailed>("@zett/cli/RunFailed")("RunFailed", {
  reason: RunFailure,
  message: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
}

/**
 * @since 0.1.0
 * @category constants
 */
export const ExitCode = {
  ok: 0,
  failed: 1,
  usage: 2,
  interrupted: 130
} as const

const tagOf = (error: unknown): string | undefined =>
  Predicate.hasProperty(error, "_tag") && typeof error._tag === "string" ? error._tag : undefined

/**
 * The exit code for a failure: 2 for bad usage and bad configuration, 1 for anything else.
 *
 * @since 0.1.0
 * @category utils
 */
export const exitCodeOf = (error: unknown): number => {
  if (ValidationError.isValidationError(error)) return ExitCode.usage
  switch (tagOf(error)) {
    case "UsageError":
    case "McpConfigError":
    case "DuplicateExtension":
      return ExitCode.usage
    default:
      return ExitCode.failed
  }
}

/**
 * One readable line for a failure. `McpConfigError` already names the file and the entry.
 *
 * @since 0.1.0
 * @category utils
 */
export const messageOf = (error: unknown): string => {
  const text = error instanceof Error || Predicate.hasProperty(error, "message")
    ? String((error as { readonly message: unknown }).message)
    : String(error)
  return text.split("\n").map((part) => part.trim()).filter((part) => part !== "").join(" ")
}

/**
 * One line for an `@effect/cli` usage error (an unknown option, a missing argument, an invalid value): its
 * help text without styling, its lines joined.
 *
 * @since 0.1.0
 * @category utils
 */
export const usageMessageOf = (error: ValidationError.ValidationError): string => {
  const text = Util.stripVTControlCharacters(HelpDoc.toAnsiText(error.error))
  return messageOf(text) || "invalid usage (see zett --help)"
}

/**
 * The exit code and message of a failed command, every usage error included, as one line.
 *
 * @since 0.1.0
 * @category utils
 */
export const fromCause = (
  cause: Cause.Cause<unknown>
): { readonly code: number; readonly message: string | undefined } => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const error = failure.value
    if (ValidationError.isValidationError(error)) return { code: ExitCode.usage, message: usageMessageOf(error) }
    return { code: exitCodeOf(error), message: messageOf(error) }
  }
  if (Cause.isInterruptedOnly(cause)) return { code: ExitCode.interrupted, message: "interrupted" }
  const defect = Cause.dieOption(cause)
  return {
    code: ExitCode.failed,
    message: `internal error: ${Option.isSome(defect) ? messageOf(defect.value) : "unknown failure"}`
  }
}
