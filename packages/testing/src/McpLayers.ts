/**
 * The MCP extension as a Node host with config files composes it: the servers of `McpConfiguration` (files and
 * servers written in code), the SDK's client factory, a tool cache and `NodeContext`. Tests give the extension's
 * options as they are (`McpExtension.Options`, flat, beside the configuration's) and every other service's in its
 * group, as a user gives `NodeMcpExtension.layer`: `factory`, `cache`, `clientFactory`, `elicitation`, `sampling`,
 * `roots`.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Agent from "@zett/agent/Agent"
import * as ScriptedModel from "@zett/agent/ScriptedModel"
import type { McpClientFactory, McpError, McpExtension, McpRoots } from "@zett/mcp"
import * as McpConfiguration from "@zett/mcp-config/McpConfiguration"
import * as NodeMcpExtension from "@zett/mcp-node/NodeMcpExtension"
import * as McpExtensionModule from "@zett/mcp/McpExtension"
import { recording } from "@zett/testing-core/FakeMcp"
import * as Layer from "effect/Layer"

export type Options =
  & McpExtension.Options
  & McpConfiguration.Options
  & Omit<NodeMcpExtension.Options, "extension">

const configurationKeys = ["servers", "configPath", "serverKeys", "strictConfig", "workspaceFolder"] as const
const serviceKeys = ["factory", "cache", "clientFactory", "elicitation", "sampling", "roots"] as const

/** The options of each service: the configuration's, the extension's and the others' groups. */
const split = (options: Options) => {
  const configuration: Record<string, unknown> = {}
  const services: Record<string, unknown> = {}
  const extension: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(options)) {
    if ((configurationKeys as ReadonlyArray<string>).includes(key)) configuration[key] = value
    else if ((serviceKeys as ReadonlyArray<string>).includes(key)) services[key] = value
    else extension[key] = value
  }
  return {
    configuration: configuration as McpConfiguration.Options,
    node: { ...services, extension } as NodeMcpExtension.Options
  }
}

export const layerNode = (
  options: Options = {}
): Layer.Layer<McpExtension.McpExtension, McpError.McpConfigError | McpRoots.InvalidRoot> => {
  const { configuration, node } = split(options)
  return NodeMcpExtension.layer(node).pipe(
    Layer.provide(McpConfiguration.layer(configuration)),
    Layer.provide(NodeContext.layer)
  )
}

/**
 * `McpExtension.layer` with the servers of `McpConfiguration` and a tool cache (`cache`, default in memory); the
 * client factory comes from context.
 */
export const layer = (
  options: McpExtension.Options & McpConfiguration.Options & Pick<NodeMcpExtension.Options, "cache"> = {}
): Layer.Layer<
  McpExtension.McpExtension,
  McpError.McpConfigError,
  McpClientFactory.McpClientFactory | FileSystem.FileSystem | Path.Path
> => {
  const { configuration, node } = split(options)
  return McpExtensionModule.layer(node.extension).pipe(
    Layer.provide(McpConfiguration.layer(configuration)),
    Layer.provide(NodeMcpExtension.layerCache(node.cache))
  )
}

/**
 * An agent with the MCP extension of `layerNode(options)` (configuration files, the SDK's client factory unless
 * `clientFactory` replaces it) and a scripted model, recording every model request. The same agent with no driver
 * and no file is `FakeMcp.agentWith`.
 */
export const agentWith = (
  options: Options,
  steps: ReadonlyArray<ScriptedModel.Step>,
  agentOptions: Agent.Options = {}
) => {
  const { recorded, requests } = recording(steps)
  const layer = Agent.layer({
    ...agentOptions,
    extensions: [McpExtensionModule.McpExtension, ...(agentOptions.extensions ?? [])]
  }).pipe(
    Layer.provide(layerNode(options)),
    Layer.provide(ScriptedModel.layer(recorded))
  )
  return { layer, requests }
}
