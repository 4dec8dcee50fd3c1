/**
 * A server's resources as two tools for the model (`resources: "tools"`): `<prefix>__list_resources`
 * and `<prefix>__read_resource`.
 *
 * @internal
 */
import * as Tool from "@zett/agent/Tool"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { McpClient } from "../McpClient.js"
import * as McpError from "../McpError.js"
import * as McpResources from "../McpResources.js"
import type * as McpServerConfig from "../McpServerConfig.js"
import * as McpToolResult from "../McpToolResult.js"

export const listSuffix = "list_resources"
export const readSuffix = "read_resource"

const noParameters = { type: "object", properties: {} } as const

const uriParameters = {
  type: "object",
  properties: {
    uri: {
      type: "string",
      description:
        "The resource's URI: one listed, one made from a URI template, or one from a resource link in a tool result"
    }
  },
  required: ["uri"]
} as const

const methodNotFound = -32601

/** A listed resource, the fields a model can use (no `_meta`, no `icons`). */
const resourceJson = (resource: McpResources.Resource) => ({
  uri: resource.uri,
  name: resource.name,
  ...(resource.title !== undefined ? { title: resource.title } : {}),
  ...(resource.description !== undefined ? { description: resource.description } : {}),
  ...(resource.mimeType !== undefined ? { mimeType: resource.mimeType } : {}),
  ...(resource.size !== undefined ? { size: resource.size } : {})
})

const templateJson = (template: McpResources.ResourceTemplate) => ({
  uriTemplate: template.uriTemplate,
  name: template.name,
  ...(template.title !== undefined ? { title: template.title } : {}),
  ...(template.description !== undefined ? { description: template.description } : {}),
  ...(template.mimeType !== undefined ? { mimeType: template.mimeType } : {})
})

/** The two tools of one server. `connect` gives the request's connection (its failure already a `ToolError`). */
export const make = (options: {
  readonly server: McpServerConfig.McpServerConfig
  readonly prefix: string
  readonly connect: Effect.Effect<McpClient, Tool.ToolError>
  readonly limit: Option.Option<Duration.Duration>
  readonly errorText: McpToolResult.ErrorTextPolicy
}): ReadonlyArray<Tool.Tool> => {
  const { errorText, prefix, server } = options
  const listName = `${prefix}__${listSuffix}`
  const readName = `${prefix}__${readSuffix}`

  const run = <A>(name: string, request: (client: McpClient) => Effect.Effect<A, McpError.McpRequestError>) =>
    Effect.flatMap(options.connect, request).pipe(
      McpError.within({ server: server.name, operation: "call", limit: options.limit }),
      Effect.catchTag(
        "McpTimeoutError",
        (error) =>
          new Tool.ToolError({
            reason: "Timeout",
            message: `${name} did not finish within ${Duration.format(error.timeout)}`
          })
      ),
      Effect.catchTag("McpRequestError", (error) =>
        new Tool.ToolError({
          reason: "RequestFailed",
          message: McpToolResult.describeFailure(McpToolResult.RemoteFailure.RequestError({ error }), errorText),
          cause: error
        })),
      Effect.withSpan("McpExtension.resources", { attributes: { "mcp.server": server.name, "mcp.tool": name } })
    )

  // a server with resources but no templates may not know the method: that is no templates, not a failure
  const templates = (client: McpClient) =>
    McpResources.listTemplates(client).pipe(
      Effect.catchIf((error) => error.code === methodNotFound, () => Effect.succeed([]))
    )

  return [
    Tool.dynamic(listName, {
      description: `Lists the resources (documents, files, data) of the MCP server ${JSON.stringify(server.name)}: ` +
        `their URIs, names, descriptions and MIME types, and URI templates for resources made from parameters. ` +
        `Read one with ${readName}.`,
      parameters: noParameters,
      guidelines: false,
      handler: () =>
        run(listName, (client) =>
          Effect.map(
            Effect.all([McpResources.list(client), templates(client)], { concurrency: 2 }),
            ([resources, templates]) => ({
              resources: resources.map(resourceJson),
              resourceTemplates: templates.map(templateJson)
            })
          ))
    }),
    Tool.dynamic(readName, {
      description: `Reads one resource of the MCP server ${JSON.stringify(server.name)} by its URI (listed by ` +
        `${listName}, made from one of its URI templates, or a resource link in a tool result). Text comes as ` +
        "text, binary content as base64 `blob`.",
      parameters: uriParameters,
      guidelines: false,
      handler: (args) => {
        const uri = (args as { readonly uri?: unknown } | null)?.uri
        if (typeof uri !== "string" || uri === "") {
          return new Tool.ToolError({ reason: "InvalidArguments", message: `${readName} needs a uri (a string)` })
        }
        return run(
          readName,
          (client) =>
            Effect.map(
              McpResources.read(client, uri),
              (contents) => ({ contents: contents.map(McpResources.forModel) })
            )
        )
      }
    })
  ]
}
