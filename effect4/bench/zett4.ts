// The 4 line's Zett as an application uses it, as scripts/bench/zett.ts does for the 3 line: an agent with the MCP
// extension on Node (`NodeMcpExtension.layerAgent`, default services, the tool cache in memory) and a scripted model.
// "Open" is one `Agent.run` up to the moment the model is called with every tool registered (the layers built and
// every server discovered through the tool cache and the client factory); the calls are the agent's own path.
import { Agent, type Message, type Model, ScriptedModel } from "@zett/agent"
import { McpServerConfig } from "@zett/mcp"
import { NodeMcpExtension } from "@zett/mcp-node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { join } from "node:path"
import {
  type Adapter,
  contextSwitches,
  packageVersion,
  rootDir,
  type ServerSpec,
  type Session
} from "../../scripts/bench/common.js"

const effect4Dir = join(rootDir, "effect4")

const toServer = (s: ServerSpec): McpServerConfig.McpServerConfig =>
  s.transport === "stdio"
    ? McpServerConfig.stdio({ name: s.name, command: s.command, args: [...s.args] })
    : McpServerConfig.http({ name: s.name, url: s.url })

export const echoName = (s: ServerSpec) => `${s.name}__${s.prefix}echo`

// every tool reaches the model, as the 3 line's lanes have it (tool search is on past 40 tools by default)
const agentLayer = (servers: ReadonlyArray<ServerSpec>, model: Layer.Layer<Model.Model>) =>
  NodeMcpExtension.layerAgent(servers.map(toServer), { extension: { toolSearch: { mode: "off" } } }).pipe(
    Layer.provide(model)
  )

const deferred = <A>() => {
  let resolve!: (a: A) => void
  const promise = new Promise<A>((r) => (resolve = r))
  return { promise, resolve }
}

export const packages = () => [
  "@zett/* 1.0.0-next.0 (effect4/)",
  packageVersion("effect", effect4Dir),
  packageVersion("@modelcontextprotocol/client", effect4Dir)
]

/**
 * Discovery and the large case: `open` runs `Agent.run` until the scripted model is called with the tools; `echo`
 * (once) lets that step return one call of the first server's echo tool, which the agent runs, and resolves with
 * the tool message's content.
 */
export const zett4: Adapter = {
  label: "Zett 4 (NodeMcpExtension.layerAgent + Agent)",
  packages,
  load: async () => ({}),
  open: async (_lib, servers): Promise<Session> => {
    const opened = deferred<number>()
    const echoText = deferred<string>()
    const echoed = deferred<unknown>()
    const name = echoName(servers[0]!)
    const model = ScriptedModel.layer([
      (request) =>
        Effect.promise(async () => {
          opened.resolve(request.tools.length)
          const text = await echoText.promise
          return { toolCalls: [{ name, arguments: { text } }] }
        }),
      (request) => {
        echoed.resolve((request.messages.at(-1) as Message.ToolMessage).content)
        return { text: "done" }
      }
    ])
    const runtime = ManagedRuntime.make(agentLayer(servers, model))
    const done = runtime.runPromise(Agent.run("go"))
    const tools = await Promise.race([
      opened.promise,
      done.then(() => {
        throw new Error("the request ended before the model was called")
      })
    ])
    return {
      tools,
      echo: (text) => {
        echoText.resolve(text)
        return echoed.promise
      },
      again: () => Promise.reject(new Error("zett4: a second request is not measured")),
      close: async () => {
        echoText.resolve("close")
        await done
        await runtime.dispose()
      }
    }
  }
}

/**
 * The agent's own path for tool calls, as scripts/bench/zett.ts's `agentCalls`: one `Agent.run` whose scripted
 * model answers the first request with `warmup` calls of `echo`, the second with `calls` calls, the third with text.
 * Timed: from the model's second step (the calls handed to the agent) to its third (every result appended, the next
 * model request built), wall clock and this process's CPU.
 */
export const agentCalls = async (
  servers: ReadonlyArray<ServerSpec>,
  options: { readonly warmup: number; readonly calls: number; readonly prefix?: string | undefined }
) => {
  const name = echoName(servers[0]!)
  const batch = (n: number, label: string) => ({
    toolCalls: Array.from(
      { length: n },
      (_, i) => ({ name, arguments: { text: `${options.prefix ?? ""}${label} ${i}` } })
    )
  })
  let start = 0
  let cpu: NodeJS.CpuUsage | undefined
  let ms = 0
  let cpuUs = 0
  let switches = contextSwitches()
  let switched = switches
  let results: ReadonlyArray<Message.Message> = []
  const model = ScriptedModel.layer([
    // a step without calls would end the run
    ...(options.warmup > 0 ? [batch(options.warmup, "warm")] : []),
    () => {
      switches = contextSwitches()
      cpu = process.cpuUsage()
      start = performance.now()
      return batch(options.calls, "hello")
    },
    (request) => {
      ms = performance.now() - start
      const used = process.cpuUsage(cpu)
      cpuUs = used.user + used.system
      switched = contextSwitches(switches)
      results = request.messages
      return { text: "done" }
    }
  ])
  const runtime = ManagedRuntime.make(agentLayer(servers, model))
  const reply = await runtime.runPromise(Agent.run("go"))
  await runtime.dispose()
  const tools = results.filter((m): m is Message.ToolMessage => m._tag === "ToolMessage")
  const last = tools.at(-1)
  return {
    ms,
    cpuUs,
    switched,
    ok: reply.content === "done" && tools.length === options.warmup + options.calls &&
      tools.every((m) => m.status === "ok") && JSON.stringify(last?.content).includes(`hello ${options.calls - 1}`)
  }
}
