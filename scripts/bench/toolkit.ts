// The McpToolkit lanes: one warm `LanguageModel.generateText` step of `@effect/ai` in which the model calls one
// tool, as an app's own loop runs it. The language model answers at once from a script (no network), so a step
// is @effect/ai's own work plus the tool call. `toolkit`: the tool is an MCP tool of McpToolkit (the benchmark's
// echo server over stdio or HTTP); `local`: the same tools, answered by local handlers that return the same
// content at once, or with the echo tool calling the raw SDK client (the bridge an app writes by hand), which
// measures @effect/ai's part of the step around a tool that waits. The toolkit's part of a call is
// `toolkit - (bridge - raw call)`.
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import * as AiToolkit from "@effect/ai/Toolkit"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { McpServerConfig, McpServers, McpToolCache } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as McpToolkit from "@zett/mcp/McpToolkit"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import type { ServerSpec } from "./common.js"

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 }

/** A language model whose every step calls `tool` with `{ text }`. */
const callingModel = (tool: string) => {
  let id = 0
  return Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: () =>
        Effect.sync(() => [
          { type: "tool-call" as const, id: `call_${++id}`, name: tool, params: { text: `hello ${id}` } },
          { type: "finish" as const, reason: "tool-calls" as const, usage }
        ]),
      streamText: () => Effect.dieMessage("not streamed") as never
    })
  )
}

/** One call of a toolkit's handler for `tool`, as generateText makes it for a tool call. */
const handleOnce = (toolkit: AiToolkit.WithHandler<Record<string, McpToolkit.AnyTool>>, tool: string) =>
  Effect.suspend(() => {
    const text = `hello ${++handled}`
    return Effect.map(
      toolkit.handle(tool, { text }),
      (result) => !result.isFailure && JSON.stringify(result.result).includes(text)
    )
  })
let handled = 0

const toServer = (s: ServerSpec): McpServerConfig.McpServerConfig =>
  s.transport === "stdio"
    ? McpServerConfig.stdio({ name: s.name, command: s.command, args: [...s.args] })
    : McpServerConfig.http({ name: s.name, url: s.url })

export interface StepLane {
  readonly label: string
  /** One generateText step (the model's tool call and its result); resolves to whether the result is right. */
  readonly step: () => Promise<boolean>
  /** `n` steps one after another in one fiber, as an app's loop runs them: the ms of each. */
  readonly timeSteps: (n: number) => Promise<Array<number>>
  /** `n` calls of the toolkit's `handle` (what a step runs for each tool call) one after another in one fiber. */
  readonly timeHandles: (n: number) => Promise<Array<number>>
  /** The toolkit's tools. */
  readonly tools: () => Promise<Record<string, McpToolkit.AnyTool>>
  readonly close: () => Promise<void>
}

const timed = (step: Effect.Effect<boolean, unknown>) => (n: number) =>
  Effect.gen(function*() {
    const samples: Array<number> = []
    for (let i = 0; i < n; i++) {
      const start = performance.now()
      const ok = yield* step
      samples.push(performance.now() - start)
      if (!ok) return yield* Effect.dieMessage("a step's tool call failed")
    }
    return samples
  })

/** Steps whose tool is the first server's echo, through McpToolkit (connections in a scope the lane holds). */
export const toolkitLane = async (servers: ReadonlyArray<ServerSpec>): Promise<StepLane> => {
  const exposed = `${servers[0]!.name}__${servers[0]!.prefix}echo`
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(
      NodeMcpClientFactory.layer(),
      McpToolCache.layerMemory({ ttl: "1 hour" }),
      McpServers.layer(servers.map(toServer)).pipe(Layer.orDie),
      callingModel(exposed)
    ).pipe(Layer.provide(NodeContext.layer))
  )
  const scope = await runtime.runPromise(Scope.make())
  const mcp = await runtime.runPromise(Scope.extend(McpToolkit.make(), scope))
  const prompt = Prompt.make("echo")
  const step = Effect.map(
    LanguageModel.generateText({ prompt, toolkit: mcp.toolkit }),
    (response) => response.toolResults.length === 1 && !response.toolResults[0]!.isFailure
  )
  return {
    label: "McpToolkit: a generateText step calling an MCP tool",
    step: () => runtime.runPromise(step),
    timeSteps: (n) => runtime.runPromise(timed(step)(n)),
    timeHandles: (n) => runtime.runPromise(timed(handleOnce(mcp.toolkit, exposed))(n)),
    tools: () => Promise.resolve(mcp.toolkit.tools),
    close: async () => {
      await runtime.runPromise(Scope.close(scope, Exit.void))
      await runtime.dispose()
    }
  }
}

/**
 * The same steps with the same tools (the toolkit's, listed from the same server: @effect/ai's work per step grows
 * with the tools it decodes a response against), each answered at once by a local handler with the content the
 * echo server returns; or, with `echo`, the echo tool answered by that call (the raw SDK client's `callTool` in an
 * `Effect.async`: the bridge an app writes by hand), so that @effect/ai's work around a tool that waits is in it.
 */
export const localLane = async (
  servers: ReadonlyArray<ServerSpec>,
  bridge?: { readonly echo: (text: string) => Promise<unknown>; readonly close: () => Promise<void> }
): Promise<StepLane> => {
  const listed = await toolkitLane(servers)
  const tools = await listed.tools()
  await listed.close()
  const name = `${servers[0]!.name}__${servers[0]!.prefix}echo`
  const toolkit = AiToolkit.make(...Object.values(tools))
  const local = (params: { readonly text?: unknown }) => Effect.succeed([{ type: "text", text: String(params.text) }])
  const remote = (echo: (text: string) => Promise<unknown>) => (params: { readonly text?: unknown }) =>
    Effect.async<unknown>((resume) => {
      echo(String(params.text)).then(
        (result) => resume(Effect.succeed((result as { readonly content: unknown }).content)),
        (error) => resume(Effect.die(error))
      )
    })
  const handlers = Object.fromEntries(
    Object.keys(tools).map((tool) => [tool, tool === name && bridge !== undefined ? remote(bridge.echo) : local])
  )
  const runtime = ManagedRuntime.make(Layer.merge(toolkit.toLayer(handlers as never), callingModel(name)))
  const prompt = Prompt.make("echo")
  const step = Effect.map(
    LanguageModel.generateText({ prompt, toolkit }),
    (response) => response.toolResults.length === 1 && !response.toolResults[0]!.isFailure
  )
  return {
    label: bridge === undefined
      ? "@effect/ai alone: a generateText step calling a local tool"
      : "@effect/ai with the raw SDK call as the tool: a generateText step",
    step: () => runtime.runPromise(step),
    timeSteps: (n) => runtime.runPromise(timed(step)(n)),
    timeHandles: (n) =>
      runtime.runPromise(Effect.flatMap(toolkit, (withHandler) => timed(handleOnce(withHandler, name))(n))),
    tools: () => Promise.resolve(tools),
    close: async () => {
      await runtime.dispose()
      await bridge?.close()
    }
  }
}
