// npx tsx --conditions=@zett/source scripts/toolsearch/tokens.ts
//
// What tool search saves in prompt tokens (o200k_base, as `zett tools` counts), with the agent itself: 20 fake
// servers holding 1,000 tools taken from the real servers' lists (fixtures/tools.json, round robin), a scripted
// model, and every model request counted as the JSON of its messages and tool definitions.
//
// - the first model request, with every tool offered and with tool search;
// - a whole run as a real model would go: with tool search it searches once (limit 2, so two tools are loaded),
//   calls one of them and answers; with every tool it calls the tool at once and answers;
// - the index builds (McpToolSearch.indexBuilds) of that run with tool search done twice on one agent: the first
//   (cold) request builds the index, the second (warm: the cache hands out the same lists) builds none.
import { Agent, type Model, type ScriptedModel } from "@zett/agent"
import { McpServerConfig, McpToolSearch } from "@zett/mcp"
import { agentWith, fakeFactory } from "@zett/testing-core/FakeMcp"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { loadFixture } from "./evaluate.js"

const fixture = loadFixture()
const pool = fixture.servers.flatMap((server) => server.tools.map((tool) => ({ server: server.name, tool })))
// each server takes the next 50 tools of the pool whose names it does not have yet (github and gitlab share names)
let next = 0
const servers = Array.from({ length: 20 }, (_, i) => {
  const tools: Array<(typeof pool)[number]> = []
  while (tools.length < 50) {
    const entry = pool[next++ % pool.length]!
    if (!tools.some((taken) => taken.tool.name === entry.tool.name)) tools.push(entry)
  }
  return { name: `${tools[0]!.server}${i}`, tools: tools.map((entry) => entry.tool) }
})
const definitions = servers.map((server) =>
  McpServerConfig.http({ name: server.name, url: `http://127.0.0.1:1/${server.name}` })
)
const { factory } = fakeFactory(
  Object.fromEntries(servers.map((server) => [server.name, { tools: server.tools as never }]))
)

const tokensOf = (request: Model.ModelRequest) =>
  countTokens(
    JSON.stringify({
      messages: request.messages,
      tools: request.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters
      }))
    }),
    { disallowedSpecial: new Set() }
  )

// the tool the user's task needs: the first server's first tool whose name says it creates something
const target = servers.flatMap((server) => server.tools.map((tool) => ({ server: server.name, tool })))
  .find((entry) => entry.tool.name === "create_issue")!
const targetName = `${target.server}__${target.tool.name}`

const builds = Effect.map(Metric.value(McpToolSearch.indexBuilds), (state) => state.count)

const run = (search: boolean, times = 1) =>
  Effect.gen(function*() {
    const counts: Array<number> = []
    const built: Array<number> = []
    const record =
      (reply: ScriptedModel.Reply) => (request: Model.ModelRequest) => (counts.push(tokensOf(request)), reply)
    const steps: Array<ScriptedModel.Step> = search
      ? [
        record({ toolCalls: [{ name: "search_tools", arguments: { query: "create an issue", limit: 2 } }] }),
        (request) => {
          const found = (request.messages.at(-1) as { content: { tools: Array<{ name: string }> } }).content.tools
          console.log(`the search found: ${found.map((tool) => tool.name).join(", ")}`)
          return record({ toolCalls: [{ name: targetName, arguments: { title: "Login broken" } }] })(request)
        },
        record({ text: "Filed." })
      ]
      : [
        record({ toolCalls: [{ name: targetName, arguments: { title: "Login broken" } }] }),
        record({ text: "Filed." })
      ]
    const { layer } = agentWith(
      { servers: definitions, clientFactory: factory, toolSearch: { mode: search ? "always" : "off" } },
      Array.from({ length: times }, () => steps).flat()
    )
    yield* Effect.gen(function*() {
      for (let i = 0; i < times; i++) {
        const before = yield* builds
        yield* Agent.run("Open an issue: the login page is broken")
        built.push((yield* builds) - before)
      }
    }).pipe(Effect.provide(layer))
    return { counts: counts.slice(0, steps.length), built }
  })

const [{ counts: all }, { built, counts: searched }] = await Effect.runPromise(
  Effect.all([run(false), run(true, 2)])
)
const sum = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0)
const n = (x: number) => x.toLocaleString("en-US")
console.log(
  `${servers.length} servers, ${n(servers.reduce((k, s) => k + s.tools.length, 0))} tools; tokens in o200k_base\n`
)
console.log(
  `first model request: every tool ${n(all[0]!)}, tool search ${n(searched[0]!)} (${
    (100 * searched[0]! / all[0]!).toFixed(1)
  }%)`
)
console.log(
  `whole run, every tool: ${all.length} model requests, ${n(sum(all))} input tokens (${all.map(n).join(" + ")})`
)
console.log(
  `whole run, tool search: ${searched.length} model requests, ${n(sum(searched))} input tokens (${
    searched.map(n).join(" + ")
  }); ` +
    `${searched.length - all.length} more step, ${(100 * sum(searched) / sum(all)).toFixed(1)}% of the tokens`
)
console.log(
  `index builds with tool search: ${built[0]} on the first request, ${built[1]} on the next (warm) request`
)
