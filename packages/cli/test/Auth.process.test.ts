/**
 * Issue 12: `zett call` offers the OAuth login when it runs on a terminal, and fails clearly when it does not.
 * `zett` is a real process: on a pseudo-terminal (`script` of util-linux) or piped, HOME in a temporary folder
 * (a fresh file token store), against `@zett/testing/OAuthServer` in this process. The login is finished the
 * way a browser would: the printed URL is followed with `redirect: "manual"` and the redirect is delivered to
 * the listener `zett` opened on 127.0.0.1.
 */
import { assert, describe, it } from "@effect/vitest"
import * as OAuthServer from "@zett/testing/OAuthServer"
import * as Processes from "@zett/testing/Processes"
import * as Source from "@zett/testing/Source"
import * as Effect from "effect/Effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { tempDir, writeFile } from "./utils/zett.js"

const node = process.execPath

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** `zett ...args` with piped output and no standard input. */
const zettPiped = (args: ReadonlyArray<string>, home: string): Effect.Effect<Run> =>
  Effect.async<Run>((resume) => {
    const child = ChildProcess.execFile(
      node,
      [...Source.zettArgs, ...args],
      { cwd: Source.root, timeout: 60_000, env: { PATH: process.env.PATH ?? "", HOME: home } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null
        resume(Effect.succeed({ code, stdout, stderr }))
      }
    )
    child.stdin?.end()
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/**
 * `zett ...args` on a pseudo-terminal (standard output and error both go to it); `onOutput` sees everything
 * printed so far, each time more comes.
 */
const zettOnTerminal = (
  args: ReadonlyArray<string>,
  home: string,
  onOutput: (printed: string) => void
): Effect.Effect<Run> =>
  Effect.async<Run>((resume) => {
    const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`
    const command = [node, ...Source.zettArgs, ...args].map(quote).join(" ")
    // no DISPLAY: zett opens no browser
    const child = ChildProcess.spawn("script", ["-qefc", command, "/dev/null"], {
      cwd: Source.root,
      env: { PATH: process.env.PATH ?? "", HOME: home, TERM: "xterm" }
    })
    let stdout = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
      onOutput(stdout)
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.once("exit", (code) => {
      clearTimeout(timer)
      resume(Effect.succeed({ code, stdout, stderr: "" }))
    })
    return Effect.sync(() => child.kill("SIGKILL"))
  })

// eslint-disable-next-line no-control-regex
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

describe("issue 12: zett call and an OAuth-protected server, as a process", () => {
  it.scoped("issue 12: on a terminal zett call offers the login, and the call goes through once it is finished", () =>
    Effect.gen(function*() {
      const as = yield* OAuthServer.make({ challengeScope: "mcp:read" })
      const home = yield* tempDir
      const config = writeFile(home, "mcp.json", { mcpServers: { docs: { type: "http", url: as.url, oauth: {} } } })

      let browsed: Promise<{ readonly location: string; readonly page: string }> | undefined
      const result = yield* zettOnTerminal(["call", "--config", config, "docs__whoami"], home, (printed) => {
        const url = /http:\/\/127\.0\.0\.1:\d+\/authorize\S+/.exec(plain(printed))?.[0]
        if (url !== undefined && browsed === undefined && /Waiting for the redirect/.test(printed)) browsed = browse(url)
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
    }), 90_000)

  it.scoped("issue 12: piped, zett call does not wait for a browser: exit 1 with needs authorization", () =>
    Effect.gen(function*() {
      const as = yield* OAuthServer.make({ challengeScope: "mcp:read" })
      const home = yield* tempDir
      const config = writeFile(home, "mcp.json", { mcpServers: { docs: { type: "http", url: as.url, oauth: {} } } })

      const result = yield* zettPiped(["call", "--config", config, "docs__whoami"], home)
      assert.strictEqual(result.code, 1, result.stdout + result.stderr)
      assert.include(result.stderr, "needs authorization: run zett auth login docs")
      assert.notInclude(result.stdout + result.stderr, "/authorize")
      assert.notInclude(result.stderr, "Waiting for the redirect")
      // no login was started: nothing asked the authorization endpoint, no token, no zett process left
      assert.strictEqual(as.count("/authorize"), 0)
      assert.strictEqual(as.issued.length, 0)
      // what the SDK kept on its way to the authorization step (a registered client), but no token
      for (const file of tokenFiles(home)) {
        const stored = JSON.parse(Fs.readFileSync(file, "utf8"))
        assert.notProperty(stored.entry, "tokens", Object.keys(stored.entry).join(", "))
        assert.strictEqual(Fs.statSync(file).mode & 0o777, 0o600)
      }
      assert.isTrue(yield* Processes.eventually(() => Processes.liveWithCommand(config).length === 0))
    }), 60_000)
})
