/**
 * `zett resources`, `zett read`, `zett prompts` and `zett prompt`, run in-process with the SDK-backed
 * client factory against real servers: server-everything over stdio and Streamable HTTP on 127.0.0.1, the bundled
 * demo server (which offers neither resources nor prompts), and a server that is not there.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Processes from "@zett/testing/Processes"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { tempDir, writeFile, zett } from "./utils/zett.js"

const require = createRequire(import.meta.url)
const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
const demoServer = Path.join(root, "packages", "mcp", "examples", "demo-server.mjs")
const everything = Path.join(
  Path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js"
)
const node = process.execPath

const lines = (text: string) => text.split("\n").filter((line) => line !== "")

/** A configuration of server-everything (stdio, with a marker to find its process), the demo server and more. */
const setup = (marker: string, more: Record<string, unknown> = {}) =>
  Effect.map(tempDir, (dir) =>
    writeFile(dir, "mcp.json", {
      mcpServers: {
        everything: { command: node, args: [everything, "stdio", marker] },
        demo: { command: node, args: [demoServer] },
        ...more
      }
    }))

const noneLeft = (marker: string) =>
  Effect.map(
    Processes.eventually(() => Processes.liveWithCommand(marker).length === 0, 5_000),
    (gone) => assert.isTrue(gone, JSON.stringify(Processes.liveWithCommand(marker)))
  )

describe("zett resources, read, prompts, prompt", () => {
  it.scoped(
    "zett resources lists resources and templates per server, in the table style of zett tools; --json; exit 1 for an unavailable server",
    () =>
      Effect.gen(function*() {
        const marker = `--zett-resources-cli-${process.pid}-${Date.now()}`
        const config = yield* setup(marker)
        const result = yield* zett(["resources", "--config", config])
        assert.strictEqual(result.code, 0, result.stderr)
        assert.strictEqual(result.stderr, "")
        const out = lines(result.stdout)
        assert.strictEqual(out[0], `MCP servers in ${config}`)
        assert.match(out[1]!, /^SERVER\s+TRANSPORT\s+TIME\s+RESOURCES\s+TEMPLATES\s+STATUS$/)
        assert.match(out[2]!, /^everything\s+stdio\s+[\d.]+ m?s\s+7\s+2\s+ok$/)
        assert.match(out[3]!, /^demo\s+stdio\s+[\d.]+ m?s\s+-\s+-\s+ok \(offers no resources\)$/)
        assert.include(result.stdout, "everything: 7 resources\n")
        assert.match(
          result.stdout,
          /^ {2}demo:\/\/resource\/static\/document\/architecture\.md\s+text\/markdown\s+Static document file/m
        )
        assert.include(result.stdout, "everything: 2 resource templates\n")
        assert.match(
          result.stdout,
          /^ {2}demo:\/\/resource\/dynamic\/blob\/\{resourceId\}\s+application\/octet-stream\s+Binary/m
        )
        assert.strictEqual(out.at(-1), "2 servers: 2 ok; 7 resources, 2 resource templates")

        // one server only, as JSON
        const json = yield* zett(["resources", "everything", "--json", "--config", config])
        assert.strictEqual(json.code, 0, json.stderr)
        const data = JSON.parse(json.stdout)
        assert.deepStrictEqual(data.servers.map((s: { name: string }) => s.name), ["everything"])
        assert.strictEqual(data.servers[0].offersResources, true)
        assert.deepInclude(data.servers[0].resources, {
          uri: "demo://resource/static/document/features.md",
          name: "features.md",
          mimeType: "text/markdown",
          description: "Static document file exposed from /docs: features.md"
        })
        assert.deepStrictEqual(data.totals, { servers: 1, available: 1, resources: 7, resourceTemplates: 2 })

        // an unavailable server: the others are listed, the exit code is 1, one line says why
        const down = yield* zett([
          "resources",
          "--config",
          yield* setup(marker, { gone: { type: "http", url: "http://127.0.0.1:9/mcp" } })
        ])
        assert.strictEqual(down.code, 1)
        assert.match(down.stdout, /^gone\s+streamable-http\s+.*unavailable: /m)
        assert.match(down.stderr, /^zett: 1 of 3 MCP servers unavailable: gone \(/)

        // a server that is not configured is bad usage
        const unknown = yield* zett(["resources", "nobody", "--config", config])
        assert.strictEqual(unknown.code, 2)
        assert.strictEqual(
          unknown.stderr,
          `zett: no MCP server named nobody in ${config}; configured: everything, demo\n`
        )
        yield* noneLeft(marker)
      })
  )

  it.scoped(
    "zett read prints a resource (a text blob as text), --json as sent; exit 1 for an unknown resource, 2 for an unknown server",
    () =>
      Effect.gen(function*() {
        const marker = `--zett-read-cli-${process.pid}-${Date.now()}`
        const config = yield* setup(marker)
        const text = yield* zett(["read", "everything", "demo://resource/dynamic/text/2", "--config", config])
        assert.strictEqual(text.code, 0, text.stderr)
        assert.match(text.stdout, /^Resource 2: This is a plaintext resource created at [^\n]+\n$/)
        const blob = yield* zett(["read", "everything", "demo://resource/dynamic/blob/3", "--config", config])
        assert.strictEqual(blob.code, 0, blob.stderr)
        assert.match(blob.stdout, /^Resource 3: This is a base64 blob created at [^\n]+\n$/)
        const json = yield* zett(["read", "everything", "demo://resource/dynamic/blob/3", "--json", "--config", config])
        assert.strictEqual(json.code, 0, json.stderr)
        const data = JSON.parse(json.stdout)
        assert.strictEqual(data.contents[0].mimeType, "text/plain")
        assert.match(
          Buffer.from(data.contents[0].blob, "base64").toString("utf8"),
          /^Resource 3: This is a base64 blob/
        )

        const missing = yield* zett(["read", "everything", "demo://resource/dynamic/text/0", "--config", config])
        assert.strictEqual(missing.code, 1)
        assert.match(
          missing.stderr,
          /^zett: cannot read demo:\/\/resource\/dynamic\/text\/0 of everything: resources\/read failed: .+\n$/
        )
        const noServer = yield* zett(["read", "nobody", "x:/y", "--config", config])
        assert.strictEqual(noServer.code, 2)
        const none = yield* zett(["read", "demo", "x:/y", "--config", config])
        assert.strictEqual(none.code, 1)
        assert.match(none.stderr, /^zett: cannot read x:\/y of demo: resources\/read failed: .*\(code -32601\)\n$/)
        const usage = yield* zett(["read", "everything", "--config", config])
        assert.strictEqual(usage.code, 2)
        yield* noneLeft(marker)
      })
  )

  it.scoped(
    "zett prompts lists prompts with their arguments; zett prompt gets one as messages; usage errors exit 2",
    () =>
      Effect.gen(function*() {
        const marker = `--zett-prompts-cli-${process.pid}-${Date.now()}`
        const config = yield* setup(marker)
        const list = yield* zett(["prompts", "--config", config])
        assert.strictEqual(list.code, 0, list.stderr)
        const out = lines(list.stdout)
        assert.match(out[1]!, /^SERVER\s+TRANSPORT\s+TIME\s+PROMPTS\s+STATUS$/)
        assert.match(out[2]!, /^everything\s+stdio\s+[\d.]+ m?s\s+4\s+ok$/)
        assert.match(out[3]!, /^demo\s+stdio\s+[\d.]+ m?s\s+-\s+ok \(offers no prompts\)$/)
        assert.match(list.stdout, /^ {2}args-prompt\s+city, state\?\s+A prompt with two arguments, one/m)
        assert.match(list.stdout, /^ {2}simple-prompt\s+A prompt with no arguments$/m)
        assert.strictEqual(out.at(-1), "2 servers: 2 ok; 4 prompts")
        const json = yield* zett(["prompts", "everything", "--json", "--config", config])
        const prompts = JSON.parse(json.stdout).servers[0].prompts as Array<
          { name: string; arguments?: Array<{ name: string }> }
        >
        assert.deepStrictEqual(prompts.find((p) => p.name === "args-prompt")?.arguments?.map((a) => a.name), [
          "city",
          "state"
        ])

        const got = yield* zett([
          "prompt",
          "everything",
          "args-prompt",
          "{\"city\": \"Paris\", \"state\": \"TX\"}",
          "--config",
          config
        ])
        assert.strictEqual(got.code, 0, got.stderr)
        assert.strictEqual(got.stdout, "user: What's weather in Paris, TX?\n")
        // numbers are given as strings; the embedded resource becomes text
        const embedded = yield* zett([
          "prompt",
          "everything",
          "resource-prompt",
          "{\"resourceType\": \"Text\", \"resourceId\": 2}",
          "--json",
          "--config",
          config
        ])
        assert.strictEqual(embedded.code, 0, embedded.stderr)
        const messages = JSON.parse(embedded.stdout).messages as Array<{ role: string; content: string }>
        assert.deepStrictEqual(messages.map((m) => m.role), ["user", "user"])
        assert.match(
          messages[1]!.content,
          /^Resource demo:\/\/resource\/dynamic\/text\/2 \(text\/plain\):\nResource 2: This is a plaintext resource/
        )

        const missing = yield* zett(["prompt", "everything", "args-prompt", "--config", config])
        assert.strictEqual(missing.code, 2)
        assert.strictEqual(
          missing.stderr,
          "zett: prompt args-prompt needs the argument city (its arguments: city, state?)\n"
        )
        const extra = yield* zett(["prompt", "everything", "simple-prompt", "{\"x\": \"1\"}", "--config", config])
        assert.strictEqual(extra.code, 2)
        assert.strictEqual(extra.stderr, "zett: prompt simple-prompt has no argument x; its arguments: none\n")
        const unknown = yield* zett(["prompt", "everything", "nope", "--config", config])
        assert.strictEqual(unknown.code, 2)
        assert.match(
          unknown.stderr,
          /^zett: no prompt named nope on everything; available: simple-prompt, args-prompt, /
        )
        const badJson = yield* zett(["prompt", "everything", "args-prompt", "{city", "--config", config])
        assert.strictEqual(badJson.code, 2)
        assert.match(badJson.stderr, /^zett: the prompt's arguments are not valid JSON/)
        const notString = yield* zett([
          "prompt",
          "everything",
          "args-prompt",
          "{\"city\": {\"name\": \"Paris\"}}",
          "--config",
          config
        ])
        assert.strictEqual(notString.code, 2)
        assert.strictEqual(notString.stderr, "zett: the prompt's argument city must be a string; got an object\n")
        yield* noneLeft(marker)
      })
  )

  it.scoped("the four commands over Streamable HTTP (server-everything on 127.0.0.1)", () =>
    Effect.gen(function*() {
      const port = yield* Processes.freePort
      const serverScope = yield* Scope.make()
      const http = yield* Processes.spawnScoped({
        command: node,
        args: [everything, "streamableHttp"],
        env: { PORT: String(port) },
        ready: /listening on port/
      }).pipe(Scope.extend(serverScope))
      const dir = yield* tempDir
      const config = writeFile(dir, "mcp.json", {
        servers: { web: { type: "http", url: `http://127.0.0.1:${port}/mcp` } }
      })
      const resources = yield* zett(["resources", "--config", config])
      assert.strictEqual(resources.code, 0, resources.stderr)
      assert.match(lines(resources.stdout)[2]!, /^web\s+streamable-http\s+[\d.]+ m?s\s+7\s+2\s+ok$/)
      const read = yield* zett(["read", "web", "demo://resource/static/document/features.md", "--config", config])
      assert.strictEqual(read.code, 0, read.stderr)
      assert.isAbove(read.stdout.length, 100)
      const prompts = yield* zett(["prompts", "--json", "--config", config])
      assert.strictEqual(JSON.parse(prompts.stdout).totals.prompts, 4)
      const prompt = yield* zett(["prompt", "web", "simple-prompt", "--config", config])
      assert.strictEqual(prompt.stdout, "user: This is a simple prompt without arguments.\n")
      yield* Scope.close(serverScope, Exit.void)
      assert.deepStrictEqual([...Processes.livePids([http.pid]), ...Processes.liveInGroup(http.pid)], [])
    }))
})
