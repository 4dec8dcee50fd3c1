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
import * as Schema from "effect/Schema"
import { TypeId } from "./McpError.js"

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
