/**
 * `zett call` and `zett run` offer the OAuth login when they run on a terminal; elsewhere the server is
 * unavailable with `needs authorization: run zett auth login <server>` (`call` exits 1, `run` warns and goes on).
 * `zett` is a real process: on a pseudo-terminal (`script` of util-linux) or piped, HOME in a temporary folder
 * (a fresh file token store), against `@zett/testing/OAuthServer` in this process. The login is finished the
 * way a browser would: the printed URL is followed with `redirect: "manual"` and the redirect is delivered to
 * the listener `zett` opened on 127.0.0.1.
 */
import { assert, describe, it } from "@effect/vitest"
import * as FakeProvider from "@zett/testing/FakeProvider"
import * as OAuthServer from "@zett/testing/OAuthServer"
import * as Processes from "@zett/testing/Processes"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { onTerminal, piped } from "./utils/process.js"
import { tempDir, writeFile } from "./utils/zett.js"

/** `zett ...args` with piped output and no standard input. */
const zettPiped = (args: ReadonlyArray<string>, home: string, env: Readonly<Record<string, string>> = {}) =>
  piped(args, home, env, { closeStdin: true })

/** `zett ...args` on a pseudo-terminal; `onOutput` sees everything printed so far, each time more comes. */
const zettOnTerminal = (
  args: ReadonlyArray<string>,
  home: string,
  onOutput: (printed: string) => void,
  env: Readonly<Record<string, string>> = {}
) => onTerminal(args, home, env, onOutput)

const plain = (text: string) => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "").replaceAll("\r", "")

/** What a browser does: follow the authorization URL, then deliver the redirect to the listener. */
const browse = async (url: string) => {
  const authorized = await fetch(url, { redirect: "manual" })
  const location = authorized.headers.get("location")!
  const callback = await fetch(location)
  return { location, page: await callback.text() }
}

const tokenFiles = (home: string) => {
  const dir = Path.join(home, ".zett", "auth")
  return Fs.existsSync(dir) ? Fs.readdirSync(dir).map((name) => Path.join(dir, name)) : []
}

describe("zett call and zett run against an OAuth-protected server, as a process", () => {
  it.scoped(
    "on a terminal zett call offers the login, and the call goes through once it is finished",
    () =>
      Effect.gen(function*() {
        const as = yield* OAuthServer.make({ challengeScope: "mcp:read" })
        const home = yield* tempDir
        const config = writeFile(home, "mcp.json", { mcpServers: { docs: { type: "http", url: as.url, oauth: {} } } })

        let browsed: Promise<{ readonly location: string; readonly page: string }> | undefined
        const result = yield* zettOnTerminal(["call", "--config", config, "docs__whoami"], home, (printed) => {
          const url = /http:\/\/127\.0\.0\.1:\d+\/authorize\S+/.exec(plain(printed))?.[0]
          if (url !== undefined && browsed === undefined && /Waiting for the redirect/.test(printed)) {
            browsed = browse(url)
          }
        })
        const out = plain(result.stdout)
        assert.isDefined(browsed, out)
        const { location, page } = yield* Effect.promise(() => browsed!)
        assert.include(page, "zett is authorized.")

        assert.strictEqual(result.code, 0, out)
        assert.include(out, "docs needs an OAuth login.")
        const url = new URL(/http:\/\/127\.0\.0\.1:\d+\/authorize\S+/.exec(out)![0])
        const redirect = url.searchParams.get("redirect_uri")!
        assert.match(redirect, /^http:\/\/127\.0\.0\.1:\d+\/callback$/)
        assert.include(out, `Waiting for the redirect to ${redirect}`)
        assert.include(out, "docs: authorized.")
        // the tool's answer: the client zett registered, with the scope the server asked for
        assert.strictEqual(as.registered.length, 1)
        assert.include(out, `client ${as.registered[0]!.client_id} scope mcp:read`)

        // the tokens are kept, readable by the owner only
        const files = tokenFiles(home)
        assert.strictEqual(files.length, 1)
        assert.strictEqual(Fs.statSync(files[0]!).mode & 0o777, 0o600)

        // no token, code or verifier in anything zett printed
        assert.isAbove(as.issued.length, 0)
        for (const issued of as.issued) {
          assert.notInclude(out, issued.accessToken)
          if (issued.refreshToken !== undefined) assert.notInclude(out, issued.refreshToken)
        }
        assert.notInclude(out, new URL(location).searchParams.get("code")!)
        const verifier = as.requests.find((r) => r.form.grant_type === "authorization_code")?.form.code_verifier
        assert.isDefined(verifier)
        assert.notInclude(out, verifier!)

        // the listener is closed and no zett process is left
        const refused = yield* Effect.promise(() => fetch(redirect).then(() => "answered", () => "refused"))
        assert.strictEqual(refused, "refused")
        assert.isTrue(yield* Processes.eventually(() => Processes.liveWithCommand(config).length === 0))

        // the next call uses the stored tokens: no login offered
        const again = yield* zettOnTerminal(["call", "--config", config, "docs__whoami"], home, () => {})
        const againOut = plain(again.stdout)
        assert.strictEqual(again.code, 0, againOut)
        assert.notInclude(againOut, "needs an OAuth login")
        assert.include(againOut, `client ${as.registered[0]!.client_id} scope mcp:read`)
        assert.strictEqual(as.count("/authorize"), 1)
      })
  )

  it.scoped(
    "piped, zett call does not wait for a browser: exit 1 with needs authorization",
    () =>
      Effect.gen(function*() {
        const as = yield* OAuthServer.make({ challengeScope: "mcp:read" })
        const home = yield* tempDir
        const config = writeFile(home, "mcp.json", { mcpServers: { docs: { type: "http", url: as.url, oauth: {} } } })

        const result = yield* zettPiped(["call", "--config", config, "docs__whoami"], home)
        assert.strictEqual(result.code, 1, result.stdout + result.stderr)
        assert.include(
          result.stderr,
          "zett: cannot call docs__whoami: unavailable MCP server: docs (needs authorization: run zett auth login docs)\n"
        )
        assert.strictEqual(result.stdout, "")
        assert.notInclude(result.stderr, "/authorize")
        assert.notInclude(result.stderr, "Waiting for the redirect")
        // no login was started: nothing asked the authorization endpoint, no token, no zett process left
        assert.strictEqual(as.count("/authorize"), 0)
        assert.strictEqual(as.issued.length, 0)
        assert.strictEqual(as.registered.length, 0)
        // what the SDK kept on its way to the authorization step (its discovery), but no client and no token
        for (const file of tokenFiles(home)) {
          const stored = JSON.parse(Fs.readFileSync(file, "utf8"))
          assert.notProperty(stored.entry, "tokens", Object.keys(stored.entry).join(", "))
          assert.strictEqual(Fs.statSync(file).mode & 0o777, 0o600)
        }
        assert.isTrue(yield* Processes.eventually(() => Processes.liveWithCommand(config).length === 0))
      })
  )

  it.scoped(
    "on a terminal zett run offers the login before the agent starts, and the model gets the tool",
    () =>
      Effect.gen(function*() {
        const as = yield* OAuthServer.make({ challengeScope: "mcp:read" })
        const home = yield* tempDir
        const config = writeFile(home, "mcp.json", { mcpServers: { docs: { type: "http", url: as.url, oauth: {} } } })
        const key = "sk-zett-auth-test-0123456789SECRET"
        const openai = yield* FakeProvider.fakeProvider([
          FakeProvider.sse(
            FakeProvider.openAiEvents({ calls: [{ id: "call_1", name: "docs__whoami", pieces: ["{}"] }] })
          ),
          FakeProvider.sse(FakeProvider.openAiEvents({ text: ["The docs server knows us."] }))
        ])

        let browsed: Promise<{ readonly location: string; readonly page: string }> | undefined
        const result = yield* zettOnTerminal(
          ["run", "--config", config, "Who am I to the docs server?"],
          home,
          (printed) => {
            const url = /http:\/\/127\.0\.0\.1:\d+\/authorize\S+/.exec(plain(printed))?.[0]
            if (url !== undefined && browsed === undefined && /Waiting for the redirect/.test(printed)) {
              browsed = browse(url)
            }
          },
          { ZETT_MODEL: "openai:gpt-4.1-mini", OPENAI_API_KEY: key, OPENAI_BASE_URL: `${openai.url}/v1` }
        )
        const out = plain(result.stdout)
        assert.isDefined(browsed, out)
        const { location, page } = yield* Effect.promise(() => browsed!)
        assert.include(page, "zett is authorized.")
        assert.strictEqual(result.code, 0, out)
        // the login came before the model was asked anything
        assert.isBelow(out.indexOf("docs: authorized."), out.indexOf("→ docs__whoami"), out)
        assert.include(out, "The docs server knows us.")

        // the model was offered the tool and got the protected server's answer
        assert.strictEqual(openai.requests.length, 2)
        assert.include(openai.requests[0]!.body.tools.map((tool: { name: string }) => tool.name), "docs__whoami")
        const answer = openai.requests[1]!.body.input.at(-1)
        assert.strictEqual(answer.type, "function_call_output")
        assert.include(answer.output, `client ${as.registered[0]!.client_id} scope mcp:read`)

        const files = tokenFiles(home)
        assert.strictEqual(files.length, 1)
        assert.strictEqual(Fs.statSync(files[0]!).mode & 0o777, 0o600)
        // no token or code in zett's output nor in what the model was sent; the API key not printed
        const sent = JSON.stringify(openai.requests.map((r) => r.body))
        for (const issued of as.issued) {
          assert.notInclude(out + sent, issued.accessToken)
          if (issued.refreshToken !== undefined) assert.notInclude(out + sent, issued.refreshToken)
        }
        assert.notInclude(out + sent, new URL(location).searchParams.get("code")!)
        assert.notInclude(out, key)
        assert.isTrue(yield* Processes.eventually(() => Processes.liveWithCommand(config).length === 0))
      })
  )

  it.scoped(
    "piped, zett run does not wait for a browser: docs is unavailable with needs authorization, the model is not offered its tool",
    () =>
      Effect.gen(function*() {
        const as = yield* OAuthServer.make({ challengeScope: "mcp:read" })
        const home = yield* tempDir
        const config = writeFile(home, "mcp.json", { mcpServers: { docs: { type: "http", url: as.url, oauth: {} } } })
        const openai = yield* FakeProvider.fakeProvider([
          FakeProvider.sse(FakeProvider.openAiEvents({ text: ["No docs server today."] }))
        ])
        const result = yield* zettPiped(["run", "--config", config, "Who am I to the docs server?"], home, {
          ZETT_MODEL: "openai:gpt-4.1-mini",
          OPENAI_API_KEY: "sk-zett-auth-test-0123456789SECRET",
          OPENAI_BASE_URL: `${openai.url}/v1`
        })
        // like any unavailable server in a run: a warning with the reason, and the agent goes on without its tools
        assert.strictEqual(result.code, 0, result.stderr)
        assert.include(
          result.stderr,
          "zett: warning: MCP server docs is unavailable: needs authorization: run zett auth login docs\n"
        )
        assert.strictEqual(result.stdout, "No docs server today.\n")
        assert.strictEqual(openai.requests.length, 1)
        const offered = (openai.requests[0]!.body.tools ?? []).map((tool: { name: string }) => tool.name)
        assert.notInclude(offered, "docs__whoami")
        assert.notInclude(result.stdout + result.stderr, "/authorize")
        assert.strictEqual(as.count("/authorize"), 0)
        assert.strictEqual(as.issued.length, 0)
        assert.isTrue(yield* Processes.eventually(() => Processes.liveWithCommand(config).length === 0))
      })
  )
})
