/**
 * `McpClient.request`: any request other than tools (`resources/read`, `prompts/get` ...), its result checked
 * against the protocol's schema when the core reads it, scrubbed.
 *
 * @internal
 */
import {
  GetPromptResultSchema,
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ReadResourceResultSchema
} from "@modelcontextprotocol/core"
import * as Tracing from "@zett/agent/Tracing"
import type { McpRequestError } from "@zett/mcp/McpError"
import * as Effect from "effect/Effect"
import { z } from "zod"
import * as Connection from "./connection.js"

// the results the core reads are checked against the protocol's schemas; any other passes as an object
const LooseResult = z.looseObject({})
const resultSchemas: Readonly<Record<string, z.ZodType<object>>> = {
  "resources/list": ListResourcesResultSchema,
  "resources/templates/list": ListResourceTemplatesResultSchema,
  "resources/read": ReadResourceResultSchema,
  "prompts/list": ListPromptsResultSchema,
  "prompts/get": GetPromptResultSchema
}

/** @internal */
export const make =
  (connection: Connection.Connection) =>
  (method: string, params?: Record<string, unknown> | undefined): Effect.Effect<unknown, McpRequestError> =>
    Tracing.withTraceparent((traceparent) =>
      Effect.tryPromise({
        try: async (signal) =>
          connection.scrubber.scrubDeep(
            await connection.client.request(
              params === undefined && traceparent === undefined
                ? { method }
                : { method, params: Connection.withTrace(params ?? {}, traceparent) },
              resultSchemas[method] ?? LooseResult,
              { signal, timeout: Connection.sdkTimeoutDisabled }
            )
          ),
        catch: Connection.requestError(connection, method)
      })
    ).pipe(Tracing.traced("McpClient.request", () => ({
      attributes: { "mcp.server": connection.server, "mcp.method": method },
      captureStackTrace: false
    })))
