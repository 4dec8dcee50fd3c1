/**
 * What a connection keeps of the tools it listed: their output schemas, against which a call's structured content
 * is checked, and, on the 2026-07-28 revision over HTTP, the definitions whose arguments the SDK mirrors into
 * `Mcp-Param-*` headers (a tool whose `x-mcp-header` breaks the rules is left out of the listing). The SDK keeps
 * these only for its own listing, and the driver lists pages itself. The output rules are the SDK's (content that
 * does not match, or none from a tool that has a schema, fails the call). A tool listed on another connection (a
 * cached tool list) is not checked, as the SDK would not check it.
 *
 * @internal
 */
import type { CallToolResult, JsonSchemaType, JsonSchemaValidator, Tool } from "@modelcontextprotocol/client"
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/client"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv"
import * as ParamHeaders from "./paramHeaders.js"

/** @internal */
export class ListedTools {
  private readonly schemas = new Map<string, JsonSchemaType | JsonSchemaValidator<unknown>>()
  private readonly mirrored = new Map<string, Tool>()
  /** The tools that run as tasks (`execution.taskSupport`, the 2025-11-25 revision), by name. */
  private readonly taskTools = new Map<string, "required" | "optional">()
  /** Whether a listing was kept here (a connection that calls from a cached tool list has none). */
  listed = false
  // One Ajv per connection, made when the first schema is compiled: an Ajv keeps every schema it compiled, and
  // one shared by all servers would keep them all (and mix up `$id`s).
  private ajv: AjvJsonSchemaValidator | undefined

  /** `headers`: whether the connection mirrors arguments into headers (the 2026-07-28 revision over HTTP). */
  constructor(readonly headers: boolean) {}

  /** Keeps what calls need of `tools`; the tools to list, and why each of the others is left out. */
  remember(
    tools: ReadonlyArray<Tool>
  ): { readonly tools: ReadonlyArray<Tool>; readonly excluded: ReadonlyArray<string> } {
    const kept: Array<Tool> = []
    const excluded: Array<string> = []
    for (const tool of tools) {
      if (this.headers) {
        const { broken, declares } = ParamHeaders.scan(tool.inputSchema)
        if (broken !== undefined) {
          excluded.push(`tool ${JSON.stringify(tool.name.slice(0, 64))} is left out: ${broken}`)
          continue
        }
        // the output schema is checked here, not by the SDK, which would compile it for every call
        if (declares) this.mirrored.set(tool.name, { name: tool.name, inputSchema: tool.inputSchema })
        else this.mirrored.delete(tool.name)
      }
      const support = (tool as { readonly execution?: { readonly taskSupport?: unknown } }).execution?.taskSupport
      if (support === "required" || support === "optional") this.taskTools.set(tool.name, support)
      else this.taskTools.delete(tool.name)
      if (tool.outputSchema !== undefined) this.schemas.set(tool.name, tool.outputSchema as JsonSchemaType)
      else this.schemas.delete(tool.name)
      kept.push(tool)
    }
    this.listed = true
    return { tools: kept, excluded }
  }

  /** How the tool `name` runs as a task, as listed here (`undefined`: forbidden, or not listed here). */
  taskSupport(name: string): "required" | "optional" | undefined {
    return this.taskTools.size === 0 ? undefined : this.taskTools.get(name)
  }

  /** The definition the SDK mirrors headers from, when the tool declares any and was listed here. */
  definition(name: string): Tool | undefined {
    return this.mirrored.size === 0 ? undefined : this.mirrored.get(name)
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
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Tool '${name}' has an invalid outputSchema: ${message}`
        )
      }
      this.schemas.set(name, validate)
    }
    if (result.structuredContent === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `Tool ${name} has an output schema but did not return structured content`
      )
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
