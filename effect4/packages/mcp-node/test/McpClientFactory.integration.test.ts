/**
 * The SDK-backed factory against real servers from npm (devDependencies, started with `node`, never npx).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import type { McpClient } from "@zett/mcp"
import { McpClientFactory, McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as TempDir from "@zett/testing-core/TempDir"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import * as Processes from "./utils/processes.js"

const require = createRequire(import.meta.url)
const entry = (name: string) => Path.join(Path.dirname(require.resolve(`${name}/package.json`)), "dist", "index.js")
const everything = entry("@modelcontextprotocol/server-everything")
const filesystem = entry("@modelcontextprotocol/server-filesystem")
const node = process.execPath

const listAll = (client: McpClient.McpClient) =>
  Effect.gen(function*() {
    const names: Array<string> = []
    const cursors = new Set<string>()
    let cursor: string | undefined = undefined
    do {
      const page: McpClient.ListToolsPage = yield* client.listTools(cursor)
      for (const tool of page.tools) names.push(tool.name)
      cursor = page.nextCursor
      if (cursor !== undefined) {
        assert.isFalse(cursors.has(cursor), "a repeated cursor")
        cursors.add(cursor)
      }
    } while (cursor !== undefined)
    return names
  })

const textOf = (result: { readonly content: ReadonlyArray<{ readonly type: string; readonly text?: unknown }> }) =>
  result.content.flatMap((block) => (block.type === "text" ? [String(block.text)] : []))

/** The tour of server-everything shared by the stdio and HTTP tests. */
const exerciseEverything = (client: McpClient.McpClient) =>
  Effect.gen(function*() {
    const names = yield* listAll(client)
    for (const name of ["echo", "get-structured-content", "get-tiny-image", "trigger-long-running-operation"]) {
      assert.include(names, name)
    }

    const echo = yield* client.callTool("echo", { message: "hello \"zett\" $(x)" })
    assert.deepStrictEqual(textOf(echo), ["Echo: hello \"zett\" $(x)"])
    assert.notStrictEqual(echo.isError, true)

    const weather = yield* client.callTool("get-structured-content", { location: "Chicago" })
    assert.deepStrictEqual(weather.structuredContent, {
      temperature: 36,
      conditions: "Light rain / drizzle",
      humidity: 82
    })

    const image = yield* client.callTool("get-tiny-image", {})
    const png = image.content.find((block) => block.type === "image") as
      | { readonly data: string; readonly mimeType: string }
      | undefined
    assert.isDefined(png)
    assert.strictEqual(png!.mimeType, "image/png")
    assert.isTrue(Buffer.from(png!.data, "base64").subarray(1, 4).equals(Buffer.from("PNG")))

    // invalid arguments come back as an isError result: a value, not a failure
    const invalid = yield* client.callTool("echo", {})
    assert.strictEqual(invalid.isError, true)
    assert.include(textOf(invalid).join("\n"), "message")

    // a 20 s operation, interrupted by the caller's timeout after 300 ms
    const slow = yield* client.callTool("trigger-long-running-operation", { duration: 20, steps: 20 }).pipe(
      Effect.timeoutOrElse({ duration: "300 millis", orElse: () => Effect.fail("timeout" as const) }),
      Effect.flip
    )
    assert.strictEqual(slow, "timeout")
    // the connection is still usable afterwards
    assert.deepStrictEqual(textOf(yield* client.callTool("echo", { message: "still here" })), ["Echo: still here"])
  })

describe("McpClientFactory (real servers)", () => {
  it.live(
    "server-everything over stdio: tools, structured content, image, isError, interruption",
    () =>
      Effect.gen(function*() {
        const marker = `--zett-marker-${process.pid}-${Date.now()}`
        const scope = yield* Scope.make()
        const client = yield* McpClientFactory.McpClientFactory.pipe(
          Effect.flatMap((factory) =>
            factory.connect(
              McpServerConfig.stdio({ name: "everything", command: node, args: [everything, "stdio", marker] })
            )
          ),
          Scope.provide(scope),
          Effect.provide(NodeMcpClientFactory.layer().pipe(Layer.provideMerge(NodeServices.layer)))
        )
        const [server] = Processes.liveWithCommand(marker)
        assert.isDefined(server)
        yield* exerciseEverything(client)
        yield* Scope.close(scope, Exit.void)
        assert.deepStrictEqual([...Processes.liveWithCommand(marker), ...Processes.liveInGroup(server!.pgid)], [])
      })
  )

  it.live(
    "server-everything over Streamable HTTP: the same tour, and the session is terminated on close",
    () =>
      Effect.gen(function*() {
        const port = yield* Processes.freePort
        const serverScope = yield* Scope.make()
        // it listens on PORT (all interfaces, no host option); the client only talks to 127.0.0.1
        const http = yield* Processes.spawnScoped({
          command: node,
          args: [everything, "streamableHttp"],
          env: { PORT: String(port) },
          ready: /listening on port/
        }).pipe(Scope.provide(serverScope))
        const scope = yield* Scope.make()
        const client = yield* McpClientFactory.McpClientFactory.pipe(
          Effect.flatMap((factory) =>
            factory.connect(
              McpServerConfig.http({
                name: "everything-http",
                url: `http://127.0.0.1:${port}/mcp`,
                headers: { "X-Test-Token": "integration-secret-value" }
              })
            )
          ),
          Scope.provide(scope),
          Effect.provide(NodeMcpClientFactory.layer().pipe(Layer.provideMerge(NodeServices.layer)))
        )
        yield* exerciseEverything(client)
        assert.notInclude(http.output(), "Received session termination request")
        yield* Scope.close(scope, Exit.void)
        // terminateSession() ran before close(): the server saw the DELETE (its log line may arrive a little later)
        assert.isTrue(
          yield* Processes.eventually(() => http.output().includes("Received session termination request")),
          http.output()
        )
        yield* Scope.close(serverScope, Exit.void)
        assert.deepStrictEqual([...Processes.livePids([http.pid]), ...Processes.liveInGroup(http.pid)], [])
      })
  )

  it.live(
    "server-filesystem over stdio on a temporary folder: list, read and list a directory",
    () =>
      Effect.gen(function*() {
        const root = yield* TempDir.make("zett-fs-")
        Fs.writeFileSync(Path.join(root, "note.txt"), "forty-two\n")
        const scope = yield* Scope.make()
        const client = yield* McpClientFactory.McpClientFactory.pipe(
          Effect.flatMap((factory) =>
            factory.connect(McpServerConfig.stdio({ name: "fs", command: node, args: [filesystem, root] }))
          ),
          Scope.provide(scope),
          Effect.provide(NodeMcpClientFactory.layer().pipe(Layer.provideMerge(NodeServices.layer)))
        )
        const [server] = Processes.liveWithCommand(root)
        assert.isDefined(server)
        const names = yield* listAll(client)
        assert.includeMembers(names, ["read_text_file", "list_directory"])
        const read = yield* client.callTool("read_text_file", { path: Path.join(root, "note.txt") })
        assert.strictEqual(read.isError, undefined)
        assert.include(textOf(read).join(""), "forty-two")
        const listing = yield* client.callTool("list_directory", { path: root })
        assert.include(textOf(listing).join("\n"), "[FILE] note.txt")
        // outside the allowed folder: the server answers with an isError result
        const outside = yield* client.callTool("read_text_file", { path: "/etc/hostname" })
        assert.strictEqual(outside.isError, true)
        yield* Scope.close(scope, Exit.void)
        assert.deepStrictEqual([...Processes.liveWithCommand(root), ...Processes.liveInGroup(server!.pgid)], [])
      }).pipe(Effect.scoped)
  )
})
