/**
 * `zett` and a remote server without an `auth` option that answers 401 with an OAuth challenge: the server is
 * unavailable with the hint to log in, in the table and in the unavailable line, as one with the option is.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cli, Output } from "@zett/cli"
import * as OAuthServer from "@zett/testing/OAuthServer"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import { tempDir, writeFile } from "./utils/zett.js"

const zett = (args: ReadonlyArray<string>, home: string) =>
  Effect.gen(function*() {
    const { captured, output } = Output.makeMemory()
    const code = yield* Cli.run(args).pipe(
      Effect.provideService(Output.Output, output),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["HOME", home]])))
    )
    return { code, stdout: captured.stdout(), stderr: captured.stderr() }
  })

describe("zett and a server that asks for OAuth", () => {
  it.scoped("zett tools: a server without an auth option that answers 401 with a Bearer challenge needs zett auth login", () =>
    Effect.gen(function*() {
      const as = yield* OAuthServer.make({})
      const home = yield* tempDir
      const config = writeFile(home, "mcp.json", { mcpServers: { docs: { type: "http", url: as.url } } })
      const result = yield* zett(["tools", "--config", config], home)
      assert.strictEqual(result.code, 1)
      assert.match(
        result.stdout,
        /^docs\s+streamable-http\s+\S+\s+(\d+ ms|\d+\.\d s)\s+-\s+-\s+needs auth: run zett auth login docs$/m
      )
      assert.strictEqual(
        result.stderr,
        "zett: 1 of 1 MCP server unavailable: docs (needs authorization: run zett auth login docs)\n"
      )
    }))
})
