/**
 * The MCP extension over a configuration file: a malformed file fails the extension's layer with its
 * `McpConfigError` (strict), or loads without its invalid entries (lenient); the system message names the file,
 * even a missing one; a server edited in the file is a new cache entry and a new pooled connection, and its
 * `includeTools` apply at once. The extension's own logic on fake servers: packages/mcp/test/McpExtension.test.ts.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Agent } from "@zett/agent"
import { McpClientFactory, McpServerConfig } from "@zett/mcp"
import * as McpClient from "@zett/mcp/McpClient"
import { systemOf } from "@zett/testing-core/FakeAgent"
import { fakeFactory, text, tool } from "@zett/testing-core/FakeMcp"
import * as TempDir from "@zett/testing-core/TempDir"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as McpLayers from "./utils/mcpLayers.js"
import { agentWith } from "./utils/mcpLayers.js"
import { configFixtures } from "./utils/servers.js"

const http = (name: string) => McpServerConfig.http({ name, url: `http://127.0.0.1:1/${name}` })
const callOnce = { toolCalls: [{ name: "s__t" }] }

describe("McpExtension", () => {
  it.effect("McpExtension.layer fails with the McpConfigError of a malformed file; nothing is swallowed (C8)", () =>
    Effect.gen(function*() {
      const { factory } = fakeFactory({})
      const configPath = Path.join(configFixtures, "config", "invalid-entries.json")
      for (
        const layer of [
          McpLayers.layerNode({ configPath, clientFactory: factory }),
          McpLayers.layer({ configPath }).pipe(
            Layer.provide(Layer.succeed(McpClientFactory.McpClientFactory, factory)),
            Layer.provide(NodeServices.layer)
          )
        ]
      ) {
        const error = yield* Effect.flip(Layer.build(layer).pipe(Effect.scoped))
        assert.strictEqual(error._tag, "McpConfigError")
        assert.match(error.message, /invalid-entries\.json: servers\.docs\.url: expected a URL, got 42/)
      }
      // lenient: the same file loads, the invalid entry skipped
      yield* Layer.build(McpLayers.layerNode({ configPath, clientFactory: factory, strictConfig: false })).pipe(
        Effect.scoped
      )
    }))

  it.effect("the system message names the config path (even missing), the naming rule and unavailable servers (E8)", () =>
    Effect.gen(function*() {
      const { factory } = fakeFactory({ up: { tools: [tool("t")] }, down: { connectError: "connection refused" } })
      const path = `/nonexistent-${Date.now()}/mcp.json`
      const { layer, requests } = agentWith({
        configPath: path,
        servers: [http("up"), http("down")],
        clientFactory: factory
      }, [
        { text: "ok" }
      ])
      yield* Agent.run("hi").pipe(Effect.provide(layer))
      const system = systemOf(requests[0]!)
      assert.include(system, `MCP servers are configured in ${path}.`)
      assert.include(system, "Tools named <server>__<tool> belong to the MCP server <server>.")
      assert.include(system, "down (connection refused)")
      assert.notInclude(system, "up (")
    }))

  it.effect("a missing configuration file is no servers, and the request's system message still names the path (C7)", () =>
    Effect.gen(function*() {
      const path = `/nonexistent-${Date.now()}/mcp.json`
      const { layer, requests } = agentWith({ configPath: path }, [{ text: "ok" }])
      yield* Agent.run("hi").pipe(Effect.provide(layer))
      assert.strictEqual(requests[0]!.tools.length, 0)
      assert.include(systemOf(requests[0]!), path)
    }))

  it.effect("a server whose definition changes under the same name is discovered again (the cache is keyed by the definition) (D3)", () =>
    Effect.gen(function*() {
      const dir = yield* TempDir.make("zett-d3-")
      const file = Path.join(dir, "mcp.json")
      const write = (url: string, mtime: number) => {
        Fs.writeFileSync(file, JSON.stringify({ servers: { docs: { type: "http", url } } }))
        Fs.utimesSync(file, mtime, mtime)
      }
      // a factory whose tool is named after the URL it was given: what the model sees tells which definition ran
      const connects: Array<string> = []
      const factory = McpClientFactory.of((server) =>
        Effect.sync(() => {
          const url = server._tag === "McpHttpServer" ? server.url : ""
          connects.push(url)
          const name = url.split("/").at(-1)!
          return McpClient.make({
            server: server.name,
            listTools: () => Effect.succeed({ tools: [tool(name)], nextCursor: undefined }),
            callTool: () => Effect.succeed(text(name))
          })
        })
      )
      write("http://127.0.0.1:9/alpha", 1_700_000_000)
      const { layer, requests } = agentWith({ configPath: file, clientFactory: factory }, [
        { text: "1" },
        { text: "2" },
        { text: "3" }
      ])
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("a")
        yield* agent.run("b")
        // the same name, another definition
        write("http://127.0.0.1:9/beta-version-two", 1_700_000_100)
        yield* agent.run("c")
      }).pipe(Effect.provide(layer))
      assert.deepStrictEqual(requests.map((r) => r.tools.map((t) => t.name)), [["docs__alpha"], ["docs__alpha"], [
        "docs__beta-version-two"
      ]])
      assert.deepStrictEqual(connects, ["http://127.0.0.1:9/alpha", "http://127.0.0.1:9/beta-version-two"])
    }))

  it.effect("pooled connections are keyed by the whole definition: an edited server gets a new connection (C10)", () =>
    Effect.gen(function*() {
      const dir = yield* TempDir.make("zett-pool-")
      const file = Path.join(dir, "mcp.json")
      const write = (url: string) => Fs.writeFileSync(file, JSON.stringify({ servers: { s: { type: "http", url } } }))
      write("http://127.0.0.1:1/a")
      const { factory, stats } = fakeFactory({ s: { tools: [tool("t")] } })
      const { layer } = agentWith(
        { configPath: file, clientFactory: factory, connectionPool: { idleTimeToLive: "1 hour" }, cache: { ttl: 0 } },
        [callOnce, { text: "1" }, callOnce, { text: "2" }, callOnce, { text: "3" }]
      )
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("a")
        yield* agent.run("b")
        assert.deepStrictEqual(stats.connects, { s: 1 })
        write("http://127.0.0.1:1/a-changed")
        yield* agent.run("c")
        assert.deepStrictEqual(stats.connects, { s: 2 })
      }).pipe(Effect.provide(layer))
    }))

  it.effect("a server's includeTools changed in the file applies while its tool list is still cached", () =>
    Effect.gen(function*() {
      const dir = yield* TempDir.make("zett-include-")
      const file = Path.join(dir, "mcp.json")
      const write = (includeTools: ReadonlyArray<string>, mtime: number) => {
        Fs.writeFileSync(
          file,
          JSON.stringify({ servers: { s: { type: "http", url: "http://127.0.0.1:9/s", includeTools } } })
        )
        Fs.utimesSync(file, mtime, mtime)
      }
      const { factory, stats } = fakeFactory({ s: { tools: [tool("a"), tool("b")] } })
      write(["a"], 1_700_000_000)
      const { layer, requests } = agentWith({ configPath: file, clientFactory: factory }, [{ text: "1" }, {
        text: "2"
      }])
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("a")
        write(["b"], 1_700_000_100)
        yield* agent.run("b")
      }).pipe(Effect.provide(layer))
      assert.deepStrictEqual(requests.map((r) => r.tools.map((t) => t.name)), [["s__a"], ["s__b"]])
      // the cache key leaves includeTools out: the second request's list came from the cache
      assert.strictEqual(stats.connects.s, 1)
    }))
})
