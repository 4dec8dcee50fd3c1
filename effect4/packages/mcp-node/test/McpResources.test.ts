/**
 * `McpResources` and `McpPrompts` against server-everything over stdio and
 * Streamable HTTP, and against SDK servers in-process for the edges (unsubscribe on close, list_changed,
 * pagination guard, scrubbing). A client without `request`, and prompt content as a model reads it, on the core
 * alone: packages/mcp/test/McpResources.test.ts.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Client, InMemoryTransport } from "@modelcontextprotocol/client"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { McpServer as SdkMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import {
  ListResourcesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Message, Scrubber } from "@zett/agent"
import type { McpClient } from "@zett/mcp"
import { McpClientFactory, McpPrompts, McpResources, McpServerConfig } from "@zett/mcp"
import { NodeMcpClient, NodeMcpClientFactory } from "@zett/mcp-node"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import { pipe } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { createRequire } from "node:module"
import * as Path from "node:path"
import * as Processes from "./utils/processes.js"

const require = createRequire(import.meta.url)
const everything = Path.join(
  Path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js"
)
const node = process.execPath

/** What server-everything offers as resources and prompts, the same over every transport. */
const tour = (client: McpClient.McpClient) =>
  Effect.gen(function*() {
    const resources = yield* McpResources.list(client)
    const uris = resources.map((r) => r.uri)
    assert.include(uris, "demo://resource/static/document/architecture.md")
    const templates = yield* McpResources.listTemplates(client)
    assert.deepStrictEqual(templates.map((t) => t.uriTemplate).sort(), [
      "demo://resource/dynamic/blob/{resourceId}",
      "demo://resource/dynamic/text/{resourceId}"
    ])

    // a static text resource
    const [doc] = yield* McpResources.read(client, "demo://resource/static/document/architecture.md")
    assert.strictEqual(doc!.mimeType, "text/markdown")
    assert.isTrue("text" in doc! && doc.text.length > 100)

    // a template's text and blob resources
    const [text] = yield* McpResources.read(client, "demo://resource/dynamic/text/3")
    assert.match(McpResources.textOf(text!)!, /^Resource 3: This is a plaintext resource/)
    const [blob] = yield* pipe(client, McpResources.read("demo://resource/dynamic/blob/4"))
    assert.isTrue("blob" in blob!)
    assert.match(Buffer.from(McpResources.bytesOf(blob!)).toString("utf8"), /^Resource 4: This is a base64 blob/)
    // text/plain in a blob is shown to a model as text
    assert.match(String(McpResources.forModel(blob!).text), /^Resource 4: This is a base64 blob/)

    // an unknown resource is the server's error, typed
    const unknown = yield* Effect.flip(McpResources.read(client, "demo://resource/dynamic/text/zero"))
    assert.strictEqual(unknown._tag, "McpRequestError")
    assert.strictEqual(unknown.method, "resources/read")

    const prompts = yield* McpPrompts.list(client)
    assert.includeMembers(prompts.map((p) => p.name), ["simple-prompt", "args-prompt", "resource-prompt"])
    const args = prompts.find((p) => p.name === "args-prompt")!
    assert.deepStrictEqual(args.arguments?.map((a) => [a.name, a.required ?? false]), [["city", true], [
      "state",
      false
    ]])

    const weather = yield* McpPrompts.get(client, "args-prompt", { city: "Paris", state: "TX" })
    assert.deepStrictEqual(weather.messages, [Message.user("What's weather in Paris, TX?")])
    const embedded = yield* pipe(client, McpPrompts.get("resource-prompt", { resourceType: "Blob", resourceId: "2" }))
    assert.strictEqual(embedded.messages.length, 2)
    assert.match(
      embedded.messages[1]!.content,
      /^Resource demo:\/\/resource\/dynamic\/blob\/2 \(text\/plain\):\nResource 2: This is a base64 blob/
    )
    // a missing required argument: the server refuses it with invalid params
    const missing = yield* Effect.flip(McpPrompts.get(client, "args-prompt", {}))
    assert.strictEqual(missing.code, -32602)

    // subscribe, then ask the server to send updates: the first one comes at once
    const uri = "demo://resource/static/document/features.md"
    const updates = yield* McpResources.subscribe(client, uri)
    const first = yield* Stream.runHead(updates).pipe(Effect.forkChild)
    yield* client.callTool("toggle-subscriber-updates", {})
    const update = yield* Fiber.join(first)
    assert.deepStrictEqual(update._tag === "Some" ? { ...update.value } : undefined, {
      _tag: "ResourceUpdated",
      server: client.server,
      uri
    })
  })

describe("McpResources and McpPrompts", () => {
  it.live(
    "server-everything over stdio: resources, templates, text and blob, prompts, a subscription",
    () =>
      Effect.gen(function*() {
        const marker = `--zett-resources-${process.pid}-${Date.now()}`
        const scope = yield* Scope.make()
        const client = yield* McpClientFactory.McpClientFactory.pipe(
          Effect.flatMap((factory) =>
            factory.connect(
              McpServerConfig.stdio({ name: "everything", command: node, args: [everything, "stdio", marker] })
            )
          ),
          Scope.provide(scope),
          Effect.provide(
            NodeMcpClientFactory.layer({ closeTimeout: "500 millis" }).pipe(
              Layer.provideMerge(NodeServices.layer)
            )
          )
        )
        const [server] = Processes.liveWithCommand(marker)
        assert.isDefined(server)
        yield* tour(client).pipe(Scope.provide(scope))
        yield* Scope.close(scope, Exit.void)
        assert.deepStrictEqual([...Processes.liveWithCommand(marker), ...Processes.liveInGroup(server!.pgid)], [])
      })
  )

  it.live("server-everything over Streamable HTTP: the same tour", () =>
    Effect.gen(function*() {
      const port = yield* Processes.freePort
      const serverScope = yield* Scope.make()
      const http = yield* Processes.spawnScoped({
        command: node,
        args: [everything, "streamableHttp"],
        env: { PORT: String(port) },
        ready: /listening on port/
      }).pipe(Scope.provide(serverScope))
      const scope = yield* Scope.make()
      const client = yield* McpClientFactory.McpClientFactory.pipe(
        Effect.flatMap((factory) =>
          factory.connect(McpServerConfig.http({ name: "everything-http", url: `http://127.0.0.1:${port}/mcp` }))
        ),
        Scope.provide(scope),
        Effect.provide(NodeMcpClientFactory.layer().pipe(Layer.provideMerge(NodeServices.layer)))
      )
      yield* tour(client).pipe(Scope.provide(scope))
      yield* Scope.close(scope, Exit.void)
      yield* Scope.close(serverScope, Exit.void)
      assert.deepStrictEqual([...Processes.livePids([http.pid]), ...Processes.liveInGroup(http.pid)], [])
    }))

  it.effect("a subscription ends with its scope: resources/unsubscribe reaches the server before the connection closes", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const make = () => {
        const server = new Server({ name: "watched", version: "1.0.0" }, {
          capabilities: { resources: { subscribe: true, listChanged: true } }
        })
        server.setRequestHandler(SubscribeRequestSchema, async (request) => {
          seen.push(`subscribe ${request.params.uri}`)
          // the update comes right behind the subscribe's answer
          setTimeout(() => server.sendResourceUpdated({ uri: request.params.uri }).catch(() => {}), 0)
          setTimeout(() => server.sendResourceUpdated({ uri: "file:///other" }).catch(() => {}), 0)
          return {}
        })
        server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
          seen.push(`unsubscribe ${request.params.uri}`)
          return {}
        })
        server.onclose = () => void seen.push("closed")
        return server
      }
      const factory = yield* NodeMcpClientFactory.makeInMemory({ watched: make })
      const inner = yield* Scope.make()
      const client = yield* factory.connect(McpServerConfig.http({ name: "watched", url: "http://127.0.0.1:1/unused" }))
      const updates = yield* McpResources.subscribe(client, "file:///watched.txt").pipe(Scope.provide(inner))
      const got = yield* Stream.runCollect(Stream.take(updates, 1))
      assert.deepStrictEqual(Array.from(got).map((n) => n.uri), ["file:///watched.txt"])
      assert.deepStrictEqual(seen, ["subscribe file:///watched.txt"])
      yield* Scope.close(inner, Exit.void)
      assert.deepStrictEqual(seen, ["subscribe file:///watched.txt", "unsubscribe file:///watched.txt"])
    }))

  it.effect("unsubscribe goes out when the connection's own scope closes, before the transport", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const make = () => {
        const server = new Server({ name: "watched", version: "1.0.0" }, {
          capabilities: { resources: { subscribe: true } }
        })
        server.setRequestHandler(SubscribeRequestSchema, async () => (seen.push("subscribe"), {}))
        server.setRequestHandler(UnsubscribeRequestSchema, async () => (seen.push("unsubscribe"), {}))
        server.onclose = () => void seen.push("closed")
        return server
      }
      const factory = yield* NodeMcpClientFactory.makeInMemory({ watched: make })
      const scope = yield* Scope.make()
      const updates = yield* Effect.flatMap(
        factory.connect(McpServerConfig.http({ name: "watched", url: "http://127.0.0.1:1/unused" })),
        (client) => McpResources.subscribe(client, "file:///a")
      ).pipe(Scope.provide(scope))
      const drained = yield* Effect.forkChild(Stream.runCollect(updates))
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(seen, ["subscribe", "unsubscribe", "closed"])
      // the stream of updates ends with the connection
      assert.deepStrictEqual(Array.from(yield* Fiber.join(drained)), [])
    }))

  it.effect("resources/list_changed and prompts/list_changed are surfaced as notifications", () =>
    Effect.gen(function*() {
      let sdk: SdkMcpServer | undefined
      const make = () => {
        sdk = new SdkMcpServer({ name: "changing", version: "1.0.0" })
        sdk.registerResource("a", "file:///a", {}, async (uri) => ({ contents: [{ uri: uri.href, text: "a" }] }))
        sdk.registerPrompt("p", {}, () => ({ messages: [] }))
        return sdk
      }
      const factory = yield* NodeMcpClientFactory.makeInMemory({ changing: make })
      const client = yield* factory.connect(
        McpServerConfig.http({ name: "changing", url: "http://127.0.0.1:1/unused" })
      )
      assert.deepStrictEqual((yield* McpResources.list(client)).map((r) => r.uri), ["file:///a"])
      const changes = yield* Effect.forkChild(Stream.runHead(McpResources.changes(client)))
      const all = yield* client.notifications
      yield* Effect.yieldNow
      sdk!.registerResource("b", "file:///b", {}, async (uri) => ({ contents: [{ uri: uri.href, text: "b" }] }))
      sdk!.registerPrompt("q", {}, () => ({ messages: [] }))
      const first = yield* Fiber.join(changes)
      assert.strictEqual(first._tag === "Some" ? first.value._tag : undefined, "ResourceListChanged")
      const tags = [(yield* Queue.take(all))._tag, (yield* Queue.take(all))._tag]
      assert.deepStrictEqual(tags, ["ResourceListChanged", "PromptListChanged"])
      assert.deepStrictEqual((yield* McpResources.list(client)).map((r) => r.uri), ["file:///a", "file:///b"])
    }))

  it.effect("listing resources keeps the cursor guard: a repeated cursor fails instead of looping", () =>
    Effect.gen(function*() {
      const make = () => {
        const server = new Server({ name: "loop", version: "1.0.0" }, { capabilities: { resources: {} } })
        let page = 0
        server.setRequestHandler(ListResourcesRequestSchema, async () => ({
          resources: [{ uri: `file:///${page++}`, name: "r" }],
          nextCursor: page > 2 ? "again" : `c${page}`
        }))
        return server
      }
      const factory = yield* NodeMcpClientFactory.makeInMemory({ loop: make })
      const client = yield* factory.connect(McpServerConfig.http({ name: "loop", url: "http://127.0.0.1:1/unused" }))
      const error = yield* Effect.flip(McpResources.list(client))
      assert.strictEqual(error.message, "loop: resources/list failed: the server repeated a pagination cursor")
    }))

  it.effect("a resource's text is scrubbed of the server's secrets; an invalid result is a typed error", () =>
    Effect.gen(function*() {
      const secret = "resource-secret-4f2a9c"
      const server = new Server({ name: "leaky", version: "1.0.0" }, { capabilities: { resources: {} } })
      server.setRequestHandler(ReadResourceRequestSchema, async (request) =>
        request.params.uri === "file:///bad"
          ? ({ contents: [{ uri: 42 }] } as never)
          : { contents: [{ uri: request.params.uri, text: `token=${secret}` }] })
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      yield* Effect.promise(() => server.connect(serverSide))
      const sdk = new Client({ name: "t", version: "1" })
      yield* Effect.promise(() => sdk.connect(clientSide))
      yield* Effect.addFinalizer(() => Effect.promise(() => sdk.close()))
      const client = NodeMcpClient.fromSdkClient(sdk, { server: "leaky", scrubber: Scrubber.make([secret]) })
      const [contents] = yield* McpResources.read(client, "file:///a")
      assert.strictEqual(McpResources.textOf(contents!), "token=<redacted>")
      const bad = yield* Effect.flip(McpResources.read(client, "file:///bad"))
      assert.match(bad.message, /^leaky: resources\/read failed: invalid response: contents\.0/)
    }))
})
