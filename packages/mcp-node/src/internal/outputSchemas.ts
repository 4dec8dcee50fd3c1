/**
 * The output schemas of the tools a connection listed, and the check of a call's structured content against its
 * tool's. The SDK checks only what its own listing cached, and the driver lists pages itself; the rules are the
 * SDK's (content that does not match, or none from a tool that has a schema, fails the call). A tool listed on
 * another connection (a cached tool list) is not checked, as the SDK would not.
 *
 * @internal
 */
import type { CallToolResult, JsonSchemaType, JsonSchemaValidator, Tool } from "@modelcontextprotocol/client"
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/client"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv"

/** @internal */
export class OutputSchemas {
  private readonly schemas = new Map<string, JsonSchemaType | JsonSchemaValidator<unknown>>()
  // One Ajv per connection, made when the first schema is compiled: an Ajv keeps every schema it compiled, and
  // one shared by all servers would keep them all (and mix up `$id`s).
  private ajv: AjvJsonSchemaValidator | undefined

  remember(tools: ReadonlyArray<Tool>): void {
    for (const tool of tools) {
      if (tool.outputSchema !== undefined) this.schemas.set(tool.name, tool.outputSchema as JsonSchemaType)
      else this.schemas.delete(tool.name)
    }
  }

  /** `result`, when it matches its tool's output schema; a `ProtocolError` when it does not. */
  check<R extends CallToolResult>(name: string, result: R): R {
    if (this.schemas.size === 0 || result.isError === true) return result
    const known = this.schemas.get(name)
    if (known === undefined) return result
    let validate: JsonSchemaValidator<unknown>
    if (typeof known === "function") {
      validate = known
    } else {
      try {
        validate = (this.ajv ??= new AjvJsonSchemaValidator()).getValidator(known)
      } catch (error) {
        const message = (error instanceof Error ? error.message : String(error)).slice(0, 200)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool '${name}' has an invalid outputSchema: ${message}`)
      }
      this.schemas.set(name, validate)
    }
    if (result.structuredContent === undefined) {
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `Tool ${name} has an output schema but did not return structured content`)
    }
    const outcome = validate(result.structuredContent)
    if (!outcome.valid) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Structured content does not match the tool's output schema: ${outcome.errorMessage}`
      )
    }
    return result
  }
}
