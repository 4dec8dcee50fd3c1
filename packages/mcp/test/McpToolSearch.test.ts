/**
 * Tool search in the agent, read from what the model was given at each step: the tools offered, the search's
 * result, the tool loaded and called. Fake servers; the same over real servers from npm is in
 * packages/mcp-node/test/ToolSearch.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Agent } from "@zett/agent"
import { McpServerConfig, McpToolSearch } from "@zett/mcp"
import { agentWith, fakeFactory, systemOf, tool, toolMessages } from "@zett/testing-core/FakeMcp"
import * as Effect from "effect/Effect"

const http = (name: string, extra: McpServerConfig.Extra = {}) =>
  McpServerConfig.http({ name, url: `http://127.0.0.1:1/${name}`, ...extra })

// 30 + 15 tools: past the default threshold of 40
const githubTools = [
  tool(
    "create_issue",
    { type: "object", properties: { title: { type: "string" } } },
    "Create a new issue in a GitHub repository"
  ),
  tool("create_pull_request", { type: "object" }, "Create a new pull request in a GitHub repository"),
  tool("search_code", { type: "object" }, "Search for code across GitHub repositories"),
  ...Array.from(
    { length: 27 },
    (_, i) => tool(`other_${i}`, { type: "object" }, `Another GitHub operation number ${i}`)
  )
]
const fileTools = [
  tool(
    "read_file",
    { type: "object", properties: { path: { type: "string" } } },
    "Read the complete contents of a file as text."
  ),
  tool("list_directory", { type: "object" }, "Get a detailed listing of all files and directories in a path"),
  ...Array.from(
    { length: 13 },
    (_, i) => tool(`file_op_${i}`, { type: "object" }, `Another file operation number ${i}`)
  )
]
const servers = () =>
  fakeFactory({ github: { tools: githubTools }, files: { tools: fileTools }, down: { connectError: "refused" } })

const names = (request: { tools: ReadonlyArray<{ name: string }> }) => request.tools.map((t) => t.name)

describe("tool search in the agent", () => {
  it.effect("past the threshold the model is offered search_tools and the always-loaded tools, and told so", () =>
    Effect.gen(function*() {
      const { factory } = servers()
      const { layer, requests } = agentWith({
        servers: [http("github"), http("files", { alwaysLoad: ["read_file"] }), http("down")],
        clientFactory: factory
      }, [{ text: "ok" }])
      yield* Agent.run("hi").pipe(Effect.provide(layer))
      assert.deepStrictEqual(names(requests[0]!), ["search_tools", "files__read_file"])
      const system = systemOf(requests[0]!)
      assert.include(
        system,
        "Tool search is on: 44 tools of the MCP servers github, files are not offered until found."
      )
      // a server whose list failed is still named
      assert.include(system, "Unavailable MCP servers (their tools are missing): down (")
      const search = requests[0]!.tools[0]! as unknown as {
        parameters: { properties: { server: { enum: Array<string> } } }
      }
      assert.deepStrictEqual(search.parameters.properties.server.enum, ["github", "files"])
    }))

  it.effect("a search returns names and one-line descriptions, and the next step is offered what it found; a call runs it", () =>
    Effect.gen(function*() {
      const { factory, stats } = servers()
      const { layer, requests } = agentWith({ servers: [http("github"), http("files")], clientFactory: factory }, [
        { toolCalls: [{ name: "search_tools", arguments: { query: "open a new issue", limit: 2 } }] },
        { toolCalls: [{ name: "github__create_issue", arguments: { title: "Login broken" } }] },
        { text: "done" }
      ])
      yield* Agent.run("file a bug about the login").pipe(Effect.provide(layer))
      assert.deepStrictEqual(names(requests[0]!), ["search_tools"])
      const found = toolMessages(requests[1]!)[0]!
      assert.strictEqual(found.status, "ok")
      const content = found.content as { tools: Array<{ name: string; description: string }>; note: string }
      assert.deepStrictEqual(content.tools[0], {
        name: "github__create_issue",
        description: "Create a new issue in a GitHub repository"
      })
      assert.strictEqual(content.tools.length, 2)
      assert.deepStrictEqual(names(requests[1]!), ["search_tools", ...content.tools.map((t) => t.name)])
      // loaded for the rest of the run
      assert.deepStrictEqual(names(requests[2]!), names(requests[1]!))
      assert.deepStrictEqual(stats.calls, [{ server: "github", name: "create_issue", args: { title: "Login broken" } }])
      assert.strictEqual(toolMessages(requests[2]!)[1]!.status, "ok")
    }))

  it.effect("each request names the tools held back as deferred and the search tool, the same after a search loaded some", () =>
    Effect.gen(function*() {
      const { factory } = servers()
      const { layer, requests } = agentWith({
        servers: [http("github"), http("files", { alwaysLoad: ["read_file"] })],
        clientFactory: factory
      }, [
        { toolCalls: [{ name: "search_tools", arguments: { query: "open a new issue", limit: 1 } }] },
        { text: "done" }
      ])
      yield* Agent.run("file a bug").pipe(Effect.provide(layer))
      const deferred = (i: number) => requests[i]!.deferredTools!.map((t) => t.name)
      // every MCP tool but the always-loaded one, in the servers' order, with the definitions the model would read
      assert.strictEqual(deferred(0).length, 44)
      assert.deepStrictEqual(deferred(0).slice(0, 2), ["github__create_issue", "github__create_pull_request"])
      assert.notInclude(deferred(0), "files__read_file")
      assert.deepStrictEqual(requests[0]!.deferredTools![0]!.parameters, {
        type: "object",
        properties: { title: { type: "string" } }
      })
      assert.strictEqual(requests[0]!.deferredTools![0]!.description, "Create a new issue in a GitHub repository")
      assert.strictEqual(requests[0]!.toolSearch, "search_tools")
      // the search loaded github__create_issue: offered now, and still among the deferred
      assert.include(names(requests[1]!), "github__create_issue")
      assert.deepStrictEqual(deferred(1), deferred(0))

      const off = agentWith({
        servers: [http("github"), http("files")],
        clientFactory: servers().factory,
        toolSearch: { mode: "off" }
      }, [{ text: "ok" }])
      yield* Agent.run("hi").pipe(Effect.provide(off.layer))
      assert.strictEqual(off.requests[0]!.deferredTools, undefined)
      assert.strictEqual(off.requests[0]!.toolSearch, undefined)
    }))

  it.effect("a call to a real tool that was not loaded loads it and runs it; an invented name is still unknown", () =>
    Effect.gen(function*() {
      const { factory, stats } = servers()
      const { layer, requests } = agentWith({ servers: [http("github"), http("files")], clientFactory: factory }, [
        { toolCalls: [{ name: "files__list_directory" }, { name: "files__delete_everything" }] },
        { text: "done" }
      ])
      yield* Agent.run("what is here?").pipe(Effect.provide(layer))
      const [listed, invented] = toolMessages(requests[1]!)
      assert.strictEqual(listed!.status, "ok")
      assert.deepStrictEqual(stats.calls.map((call) => call.name), ["list_directory"])
      assert.strictEqual(invented!.status, "TOOL_FAILED")
      const error = (invented!.content as { error: { type: string; message: string } }).error
      assert.strictEqual(error.type, "UnknownTool")
      // the closest names of every MCP tool, loaded or not, and how to find the right one
      assert.include(error.message, "the closest names are files__")
      assert.include(error.message, "search_tools finds tools by what they do")
      assert.deepStrictEqual(names(requests[1]!), ["search_tools", "files__list_directory"])
    }))

  it.effect("a search keeps to the server asked for, and a search with wrong arguments is an InvalidArguments failure", () =>
    Effect.gen(function*() {
      const { factory } = servers()
      const { layer, requests } = agentWith({ servers: [http("github"), http("files")], clientFactory: factory }, [
        {
          toolCalls: [
            { name: "search_tools", arguments: { query: "another operation", server: "files" } },
            { name: "search_tools", arguments: { query: "" } },
            { name: "search_tools", arguments: { query: "x", server: "nowhere" } }
          ]
        },
        { text: "done" }
      ])
      yield* Agent.run("hi").pipe(Effect.provide(layer))
      const [kept, empty, unknown] = toolMessages(requests[1]!)
      const tools = (kept!.content as { tools: Array<{ name: string }> }).tools
      assert.strictEqual(tools.length, 5)
      assert.isTrue(tools.every((t) => t.name.startsWith("files__")))
      assert.strictEqual((empty!.content as { error: { type: string } }).error.type, "InvalidArguments")
      assert.include((unknown!.content as { error: { message: string } }).error.message, `"github", "files"`)
    }))

  it.effect("a search that matches nothing says so and loads nothing", () =>
    Effect.gen(function*() {
      const { factory } = servers()
      const { layer, requests } = agentWith({ servers: [http("github"), http("files")], clientFactory: factory }, [
        { toolCalls: [{ name: "search_tools", arguments: { query: "order a pizza" } }] },
        { text: "done" }
      ])
      yield* Agent.run("hi").pipe(Effect.provide(layer))
      const content = toolMessages(requests[1]!)[0]!.content as { tools: Array<unknown>; note: string }
      assert.deepStrictEqual(content.tools, [])
      assert.include(content.note, "No tool matched")
      assert.deepStrictEqual(names(requests[1]!), ["search_tools"])
    }))

  it.effect("under the threshold, or with mode off, every tool is offered; mode always searches a few", () =>
    Effect.gen(function*() {
      const few = fakeFactory({ files: { tools: fileTools } })
      const under = agentWith({ servers: [http("files")], clientFactory: few.factory }, [{ text: "ok" }])
      yield* Agent.run("hi").pipe(Effect.provide(under.layer))
      assert.strictEqual(names(under.requests[0]!).length, 15)
      assert.notInclude(systemOf(under.requests[0]!), "Tool search")

      const off = agentWith({
        servers: [http("github"), http("files")],
        clientFactory: servers().factory,
        toolSearch: { mode: "off" }
      }, [
        { text: "ok" }
      ])
      yield* Agent.run("hi").pipe(Effect.provide(off.layer))
      assert.strictEqual(names(off.requests[0]!).length, 45)

      const always = agentWith({
        servers: [http("files", { alwaysLoad: true })],
        clientFactory: fakeFactory({ files: { tools: fileTools } }).factory,
        toolSearch: { mode: "always" }
      }, [{ text: "ok" }])
      yield* Agent.run("hi").pipe(Effect.provide(always.layer))
      // every tool of the server is always loaded: nothing is held back but search is still offered
      assert.strictEqual(names(always.requests[0]!)[0], "search_tools")
      assert.strictEqual(names(always.requests[0]!).length, 16)
    }))

  it.effect("a server's instructions are context for its tools: a query in their words finds the server's tools", () =>
    Effect.gen(function*() {
      const { factory } = fakeFactory({
        github: { tools: githubTools },
        ledger: {
          instructions: "Keeps the company's invoices and refunds.",
          tools: [
            tool("run_job", { type: "object" }, "Runs a job by its id"),
            tool("job_status", { type: "object" }, "Status of a job")
          ]
        }
      })
      const { layer, requests } = agentWith({
        servers: [http("github"), http("ledger")],
        clientFactory: factory,
        toolSearch: { mode: "always" }
      }, [
        { toolCalls: [{ name: "search_tools", arguments: { query: "refund an invoice" } }] },
        { text: "done" }
      ])
      yield* Agent.run("refund invoice 42").pipe(Effect.provide(layer))
      const found = (toolMessages(requests[1]!)[0]!.content as { tools: Array<{ name: string }> }).tools
      assert.deepStrictEqual(found.map((t) => t.name).sort(), ["ledger__job_status", "ledger__run_job"])
    }))

  it.effect("a threshold on tokens counts the definitions' weight", () =>
    Effect.gen(function*() {
      const { factory } = fakeFactory({ files: { tools: fileTools } })
      const { layer, requests } = agentWith({
        servers: [http("files")],
        clientFactory: factory,
        toolSearch: { threshold: { tokens: 100 } }
      }, [{ text: "ok" }])
      yield* Agent.run("hi").pipe(Effect.provide(layer))
      assert.isAbove(
        McpToolSearch.estimateTokens(
          fileTools.map((t) => ({ name: t.name, description: t.description!, parameters: t.inputSchema }))
        ),
        100
      )
      assert.deepStrictEqual(names(requests[0]!), ["search_tools"])
    }))
})
