/**
 * MCP tools in an `effect/ai` app of its own, without `@zett/agent`: `LanguageModel.generateText` on
 * `@zett/ai-chat-completions` (OpenAI's Chat Completions API; no `effect/ai` provider runs on Effect 4.1 yet), in
 * the app's own loop, with the tools of server-everything over stdio and of a second server-everything over
 * Streamable HTTP (which the app starts on a free port of 127.0.0.1) as one toolkit. The Effect 4 line of the 3 line's
 * `packages/mcp-node/examples/toolkit.ts`.
 *
 *   OPENAI_API_KEY=sk-... npm run example:toolkit -- "What is 2 + 3? Then echo the answer."
 *
 * `OPENAI_BASE_URL` points it at another Chat Completions endpoint (a local llama.cpp, Ollama or vLLM server; the
 * tests use a local fake one); `OPENAI_MODEL` names the model (default gpt-4.1-mini).
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { ChatCompletionsClient, ChatCompletionsLanguageModel } from "@zett/ai-chat-completions"
import { McpServerConfig, McpServers, McpToolCache, McpToolkit } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import { LanguageModel, Prompt } from "effect/ai"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ChildProcess from "node:child_process"
import { createRequire } from "node:module"
import * as Net from "node:net"
import * as Path from "node:path"

const require = createRequire(import.meta.url)
const everything = Path.join(
  Path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js"
)

const freePort = Effect.callback<number>((resume) => {
  const probe = Net.createServer()
  probe.listen(0, "127.0.0.1", () => {
    const { port } = probe.address() as Net.AddressInfo
    probe.close(() => resume(Effect.succeed(port)))
  })
})

/** server-everything over Streamable HTTP for as long as the scope lasts; its URL once it listens. */
const httpEverything = Effect.flatMap(freePort, (port) =>
  Effect.acquireRelease(
    Effect.callback<ChildProcess.ChildProcess>((resume) => {
      const child = ChildProcess.spawn(process.execPath, [everything, "streamableHttp"], {
        env: { ...process.env, PORT: String(port) },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      const onData = (chunk: Buffer) => {
        output += chunk.toString("utf8")
        if (/listening on port/.test(output)) resume(Effect.succeed(child))
      }
      child.stdout.on("data", onData)
      child.stderr.on("data", onData)
      child.once("exit", (code) => resume(Effect.die(new Error(`server-everything exited with ${code}: ${output}`))))
    }),
    (child) =>
      Effect.callback<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGTERM")
      })
  ).pipe(Effect.as(`http://127.0.0.1:${port}/mcp`)))

/** The app's own loop: ask the model, run the tools it calls, give it their results, until it answers. */
const converse = (question: string) =>
  Effect.scoped(Effect.gen(function*() {
    // every connection the toolkit opens lives in this scope: the conversation's end closes them all
    let mcp = yield* McpToolkit.make({ callTimeout: "30 seconds" })
    let prompt = Prompt.make([{ role: "system", content: mcp.system }, { role: "user", content: question }])
    for (let turn = 0; turn < 8; turn++) {
      const response = yield* LanguageModel.generateText({ prompt, toolkit: mcp.toolkit })
      prompt = Prompt.concat(prompt, Prompt.fromResponseParts(response.content))
      for (const result of response.toolResults) {
        yield* Console.log(`${result.name}${result.isFailure ? " failed" : ""}: ${JSON.stringify(result.result)}`)
      }
      if (response.toolCalls.length === 0) return response.text
      // the tools for the next turn: a list that changed or expired is listed again
      mcp = yield* mcp.refresh
    }
    return "(no answer after 8 turns)"
  }))

const program = Effect.gen(function*() {
  const question = process.argv[2] ?? "What is 2 + 3? Then echo the answer."
  const url = yield* httpEverything
  const answer = yield* converse(question).pipe(
    Effect.provide(McpServers.layer([
      McpServerConfig.stdio({ name: "everything", command: process.execPath, args: [everything, "stdio"] }),
      McpServerConfig.http({ name: "everything_http", url })
    ]))
  )
  yield* Console.log(answer)
})

const OpenAi = ChatCompletionsLanguageModel.layer({ model: process.env.OPENAI_MODEL ?? "gpt-4.1-mini" }).pipe(
  Layer.provide(ChatCompletionsClient.layerConfig({
    apiKey: Config.Redacted("OPENAI_API_KEY"),
    apiUrl: Config.String("OPENAI_BASE_URL").pipe(Config.withDefault(undefined))
  })),
  Layer.provide(NodeHttpClient.layerUndici)
)

const Mcp = Layer.mergeAll(NodeMcpClientFactory.layer(), McpToolCache.layerMemory({ ttl: "5 minutes" }))

program.pipe(
  Effect.scoped,
  Effect.provide(Layer.merge(OpenAi, Mcp)),
  NodeRuntime.runMain
)
