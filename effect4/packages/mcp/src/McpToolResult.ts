/**
 * What a `tools/call` gives the model: the tool's JSON result (its structured content when it has some), or the text of
 * an ordinary tool failure, chosen by an `ErrorTextPolicy`. Everything here is pure: no connection, no service, no
 * effect; the mapping and the policies are `@zett/common`'s `McpToolResult`, shared with the Effect 3 line.
 *
 * @since 1.0.0
 */
import type { CallToolResult, CompatibilityCallToolResult } from "@modelcontextprotocol/client"
import * as Common from "@zett/common/McpToolResult"
import * as Data from "effect/Data"
import { dual } from "effect/Function"
import type { McpRequestError } from "./McpError.js"

/**
 * What a call gives the model: `Success` carries the tool's JSON result, `Failure` the text of an ordinary
 * tool failure (`TOOL_FAILED`, the run goes on).
 *
 * @since 1.0.0
 * @category models
 */
export type ToolOutcome = Data.TaggedEnum<{
  readonly Success: { readonly value: unknown }
  readonly Failure: { readonly message: string }
}>

/**
 * Constructors and matchers for `ToolOutcome`: `ToolOutcome.Success({ value })`,
 * `ToolOutcome.Failure({ message })`, `ToolOutcome.$is("Success")`, `ToolOutcome.$match(...)`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const ToolOutcome = Data.taggedEnum<ToolOutcome>()

/**
 * A remote failure whose text may or may not reach the model, as the application decides: a tool result with
 * `isError: true` (`ToolError`), or a `tools/call` that failed at the protocol or transport level (`RequestError`).
 *
 * @since 1.0.0
 * @category models
 */
export type RemoteFailure = Data.TaggedEnum<{
  readonly ToolError: { readonly result: CallToolResult }
  readonly RequestError: { readonly error: McpRequestError }
}>

/**
 * Constructors and matchers for `RemoteFailure`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const RemoteFailure = Data.taggedEnum<RemoteFailure>()

/**
 * Chooses the text the model sees for a remote failure, since remote text may hold what the model should not read. Any
 * function will do; the ready-made ones are in `ErrorTextPolicy.toolText` (the default), `ErrorTextPolicy.generic` and
 * `ErrorTextPolicy.verbose`.
 *
 * @since 1.0.0
 * @category models
 */
export interface ErrorTextPolicy {
  (failure: RemoteFailure): string
}

/**
 * The longest remote text a ready-made policy passes on; longer text is cut and marked `… (truncated)`.
 *
 * @since 1.0.0
 * @category results
 */
export const maxErrorTextLength: number = Common.maxErrorTextLength

/**
 * Ready-made error text policies (`@zett/common`'s, the same on both Effect lines): how much remote text the model
 * may read.
 *
 * - `toolText` (the default): a tool's own `isError` text content (its text blocks joined by newlines, at
 *   most `maxErrorTextLength` characters); a failed request only as a fixed line such as
 *   `the server failed to run the tool (connection closed)`: no remote description, no stack trace, no URL.
 *   Where Zett itself says why the call ended (`McpError.RequestFailure`: a response that never came or was not
 *   valid, too many rounds of input, a scope never granted, a request of the server the client refused), the
 *   line says that: `the server failed to run the tool (the server asked for input 10 times without finishing)`.
 * - `generic`: never any remote text: `the tool failed` / `the server failed to run the tool`, with Zett's own
 *   reasons as in `toolText`.
 * - `verbose`: for development: the tool's text (or its structured content when it sent no text), and a
 *   failed request's server, method, code and description.
 *
 * @since 1.0.0
 * @category results
 */
export const ErrorTextPolicy: {
  readonly toolText: ErrorTextPolicy
  readonly generic: ErrorTextPolicy
  readonly verbose: ErrorTextPolicy
} = Common.ErrorTextPolicy

/**
 * The text the model sees for a remote failure under `policy`.
 *
 * @since 1.0.0
 * @category results
 */
export const describeFailure: {
  (policy: ErrorTextPolicy): (failure: RemoteFailure) => string
  (failure: RemoteFailure, policy: ErrorTextPolicy): string
} = dual(2, (failure: RemoteFailure, policy: ErrorTextPolicy): string => policy(failure))

/**
 * Maps a `tools/call` result to what the model sees: the structured value when there is one, otherwise the
 * content, and for a failure the text `policy` allows (`@zett/common`'s `McpToolResult.outcome`).
 *
 * - `isError: true`: a `Failure` whose message is what `policy` allows.
 * - `structuredContent` present: `Success` with that structured value.
 * - otherwise: `Success` with the content blocks as an array of plain JSON objects (`text`, `image`,
 *   `audio`, `resource`, `resource_link` ...). Image and audio blocks stay data (`{ type: "image", data,
 *   mimeType }`); they are not promoted to vision messages. `_meta` and `annotations` are dropped.
 * - a result in the 2024-10-07 compatibility shape (`{ toolResult }`): `Success` with `toolResult`.
 *
 * @since 1.0.0
 * @category results
 */
export const toResult: {
  (policy: ErrorTextPolicy): (result: CallToolResult | CompatibilityCallToolResult) => ToolOutcome
  (result: CallToolResult | CompatibilityCallToolResult, policy: ErrorTextPolicy): ToolOutcome
} = dual(2, (result: CallToolResult | CompatibilityCallToolResult, policy: ErrorTextPolicy): ToolOutcome => {
  const outcome = Common.outcome<CallToolResult>(result, (call) => policy(RemoteFailure.ToolError({ result: call })))
  return outcome._tag === "Success"
    ? ToolOutcome.Success({ value: outcome.value })
    : ToolOutcome.Failure({ message: outcome.message })
})
