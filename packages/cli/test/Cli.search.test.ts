/**
 * `zett tools --search`: what tool search returns for a query, with scores, over fake servers in-process; and
 * `zett run --tool-search`: what the model is offered.
 */
import { assert, describe, it } from "@effect/vitest"
import { ScriptedModel } from "@zett/agent"
import * as Effect from "effect/Effect"
import { fakeFactory, httpConfig, tempDir, tool, zett } from "./utils/zett.js"

const servers = () =>
  fakeFactory({
    github: {
      tools: [
        tool(
          "create_issue",
          { type: "object", properties: { title: { type: "string" } } },
          "Create a new issue in a GitHub repository. Needs a title."
        ),
        tool("search_code", { type: "object" }, "Search for code across GitHub repositories")
      ]
    },
    files: {
      tools: [tool("read_file", { type: "object", properties: { path: { type: "string" } } }, "Read a file as text")]
    },
    down: { connectError: "refused" }
  })

describe("zett tools --search", () => {
  it.scoped("prints the tools the search returns, best first, with scores and one-line descriptions", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["github", "files"])
      const result = yield* zett(["tools", "--config", config, "--search", "open an issue on github"], {
        clientFactory: servers().factory
      })
      assert.strictEqual(result.code, 0, result.stderr)
      const lines = result.stdout.trimEnd().split("\n")
      assert.strictEqual(lines[0], `3 tools of 2 servers searched for "open an issue on github":`)
      assert.match(lines[1]!, /^\s+\d+\.\d\d {2}github__create_issue {2}Create a new issue in a GitHub repository\.$/)
      // the server's name counts as context: its other tool comes next; the other server's tool not at all
      assert.match(lines[2]!, /^\s+\d+\.\d\d {2}github__search_code /)
      assert.strictEqual(lines.length, 3)
    }))

  it.scoped("--json gives the query, the tools searched and each hit's server and score; --limit keeps to it", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["github", "files"])
      const result = yield* zett(["tools", "--config", config, "--search", "github", "--limit", "1", "--json"], {
        clientFactory: servers().factory
      })
      const json = JSON.parse(result.stdout) as {
        query: string
        searched: number
        tools: Array<{ name: string; server: string; score: number }>
      }
      assert.strictEqual(json.query, "github")
      assert.strictEqual(json.searched, 3)
      assert.strictEqual(json.tools.length, 1)
      assert.strictEqual(json.tools[0]!.server, "github")
      assert.isAbove(json.tools[0]!.score, 0)
    }))

  it.scoped("a server's instructions count as its tools' context, as in the library", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["github", "ledger"])
      const { factory } = fakeFactory({
        github: { tools: [tool("create_issue", { type: "object" }, "Create a new issue in a GitHub repository")] },
        ledger: {
          instructions: "Keeps the company's invoices and refunds.",
          tools: [tool("run_job", { type: "object" }, "Runs a job")]
        }
      })
      const result = yield* zett(["tools", "--config", config, "--search", "refund an invoice", "--json"], {
        clientFactory: factory
      })
      const json = JSON.parse(result.stdout) as { tools: Array<{ name: string }> }
      assert.deepStrictEqual(json.tools.map((t) => t.name), ["ledger__run_job"])
    }))

  it.scoped("a query nothing matches says so; an unavailable server still fails the command", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["github", "down"])
      const result = yield* zett(["tools", "--config", config, "--search", "order pizza"], {
        clientFactory: servers().factory
      })
      assert.include(result.stdout, `2 tools of 1 server searched for "order pizza": no tool matched.`)
      assert.strictEqual(result.code, 1)
      assert.include(result.stderr, "down")
    }))
})

describe("zett run --tool-search", () => {
  // 41 tools: one more than the library's default threshold
  const many = () =>
    fakeFactory({
      big: { tools: Array.from({ length: 41 }, (_, i) => tool(`tool_${i}`, { type: "object" }, `Does thing ${i}`)) }
    })
  const offered = (args: ReadonlyArray<string>, factory: ReturnType<typeof many>["factory"]) =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["big"])
      const seen: Array<ReadonlyArray<string>> = []
      const model = ScriptedModel.layer([(request) => {
        seen.push(request.tools.map((t) => t.name))
        return { text: "done" }
      }])
      const result = yield* zett(["run", "Hi", "--config", config, ...args], { clientFactory: factory, model })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(seen.length, 1)
      return seen[0]!
    })

  it.scoped("auto (the default) searches past the library's threshold: the model is offered search_tools only", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* offered([], many().factory), ["search_tools"])
      assert.deepStrictEqual(yield* offered(["--tool-search", "auto"], many().factory), ["search_tools"])
    }))

  it.scoped("off offers every tool; always searches even below the threshold", () =>
    Effect.gen(function*() {
      const all = yield* offered(["--tool-search", "off"], many().factory)
      assert.strictEqual(all.length, 41)
      assert.notInclude(all, "search_tools")
      const few = fakeFactory({ big: { tools: [tool("one"), tool("two")] } })
      assert.deepStrictEqual(yield* offered([], few.factory), ["big__one", "big__two"])
      assert.deepStrictEqual(yield* offered(["--tool-search", "always"], few.factory), ["search_tools"])
    }))

  it.scoped("a value other than auto, always or off is refused", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["big"])
      const result = yield* zett(["run", "Hi", "--config", config, "--tool-search", "sometimes"], {
        clientFactory: many().factory,
        model: ScriptedModel.layer([{ text: "done" }])
      })
      assert.notStrictEqual(result.code, 0)
      assert.include(result.stderr, "auto, always, off")
    }))
})
