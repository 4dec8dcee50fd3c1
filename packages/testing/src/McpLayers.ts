/**
 * The MCP extension as a Node host with config files composes it: the servers of `McpConfiguration` (files and
 * servers written in code), the SDK's client factory, and `NodeContext`. One function, so that tests name
 * their options as the user does.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type { McpClientFactory, McpError, McpExtension, McpRoots } from "@zett/mcp"
import { McpExtension as McpExtensionModule } from "@zett/mcp"
import { McpConfiguration } from "@zett/mcp-config"
import { NodeMcpExtension } from "@zett/mcp-node"
import * as Layer from "effect/Layer"

export type Options = NodeMcpExtension.Options & McpConfiguration.Options

export const layerNode = (
  options: Options = {}
): Layer.Layer<McpExtension.McpExtension, McpError.McpConfigError | McpRoots.InvalidRoot> =>
  NodeMcpExtension.layer(options).pipe(
    Layer.provide(McpConfiguration.layer(options)),
    Layer.provide(NodeContext.layer)
  )

/** `McpExtension.layer` with the servers of `McpConfiguration`; the client factory comes from context. */
export const layer = (
  options: McpExtension.Options & McpConfiguration.Options = {}
): Layer.Layer<
  McpExtension.McpExtension,
  McpError.McpConfigError,
  McpClientFactory.McpClientFactory | FileSystem.FileSystem | Path.Path
> => McpExtensionModule.layer(options).pipe(Layer.provide(McpConfiguration.layer(options)))
