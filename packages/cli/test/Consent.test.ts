/**
 * Nothing is opened without the user's yes: a URL a server sends (URL-mode elicitation) or an authorization
 * URL is shown whole with its domain; on a terminal it is opened in the browser only once the user says yes,
 * only when it is https: (or http: to loopback); any other scheme is refused with a line naming it, and the
 * request declined. Piped, nothing is opened. `zett` is a real process, on a pseudo-terminal (`script` of
 * util-linux) or piped, with a desktop (DISPLAY) whose `xdg-open` is a script that records what it was given.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Output } from "@zett/cli"
import { McpAuthorization } from "@zett/mcp-auth"
import * as Source from "@zett/testing-core/Source"
import * as OAuthServer from "@zett/testing/OAuthServer"
import * as Processes from "@zett/testing/Processes"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { loopbackHook } from "../src/internal/loopback.js"
import * as OpenUrl from "../src/internal/openUrl.js"
import { onTerminal, piped, plain } from "./utils/process.js"
import { tempDir, writeFile } from "./utils/zett.js"

const here = Path.dirname(fileURLToPath(import.meta.url))
const fixture = Path.join(here, "fixtures", "hostile-server.mjs")

/** A desktop whose browser opener records each URL it is given, one a line, in `opened`. */
const desktop = (dir: string) => {
  const bin = Path.join(dir, "bin")
  const opened = Path.join(dir, "opened.txt")
  writeFile(bin, "xdg-open", `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`)
  Fs.chmodSync(Path.join(bin, "xdg-open"), 0o755)
  return {
    env: { PATH: `${bin}${Path.delimiter}${process.env.PATH ?? ""}`, DISPLAY: ":99" },
    opened:
      () => (Fs.existsSync(opened) ? Fs.readFileSync(opened, "utf8").split("\n").filter((line) => line !== "") : [])
  }
}

const configIn = (dir: string) =>
  writeFile(dir, "mcp.json", { mcpServers: { hostile: { command: process.execPath, args: [fixture] } } })

type Step = readonly [RegExp, string | (() => string)]

/** `zett ...args` on a pseudo-terminal: each step's keys are typed once its prompt has shown. */
const zettOnTerminal = (
  args: ReadonlyArray<string>,
  home: string,
  env: Readonly<Record<string, string>>,
  steps: ReadonlyArray<Step>
) =>
  Effect.suspend(() => {
    let step = 0
    let seenUpTo = 0
    return Effect.map(
      onTerminal(args, home, env, (printed, type) => {
        while (step < steps.length) {
          const [prompt, keys] = steps[step]!
          const match = prompt.exec(plain(printed.slice(seenUpTo)))
          if (match === null) break
          seenUpTo = printed.length
          step++
          type(typeof keys === "string" ? keys : keys())
        }
      }),
      (run) => ({ ...run, stdout: plain(run.stdout).replaceAll("\r", ""), typed: step })
    )
  })

/**
 * `zett ...args` with piped output, its standard error read as it comes: `onStderr` sees all of it so far and
 * may start something (a browser's steps) once, which the run waits for.
 */
const pipedLive = (
  args: ReadonlyArray<string>,
  home: string,
  env: Readonly<Record<string, string>>,
  onStderr: (stderr: string) => Promise<void> | undefined
) =>
  Effect.async<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = ChildProcess.spawn(process.execPath, [...Source.zettArgs, ...args], {
      cwd: Source.root,
      env: { PATH: process.env.PATH ?? "", HOME: home, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    let started: Promise<void> | undefined
    child.stdout.on("data", (chunk: Buffer) => void (stdout += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
      started ??= onStderr(stderr)
    })
    child.once("exit", (code) =>
      void Promise.resolve(started).finally(() => resume(Effect.succeed({ code, stdout, stderr }))))
    return Effect.sync(() =>
      child.kill("SIGKILL")
    )
  })

/** The JSON the fixture's tool returned, from `zett call`'s output (the result's text block). */
const answered = (stdout: string): unknown => {
  const text = /"text": "((?:[^"\\]|\\.)*)"/.exec(stdout)?.[1]
  return text === undefined ? undefined : JSON.parse(JSON.parse(`"${text}"`))
}

const openArgs = (config: string, url: string) => ["call", "--config", config, "hostile__open", JSON.stringify({ url })]

describe("URLs are opened only with the user's consent", () => {
  it("check allows https: and loopback http: only, and names the scheme it refuses", () => {
    for (
      const url of [
        "https://example.test/sign-in?x=1",
        "http://127.0.0.1:8123/cb",
        "http://127.9.8.7/",
        "http://localhost:3000/",
        "http://[::1]:9/x"
      ]
    ) {
      assert.strictEqual(OpenUrl.check(url)._tag, "Allowed", url)
    }
    const refused = (url: string) => {
      const checked = OpenUrl.check(url)
      return checked._tag === "Refused" ? checked.reason : `allowed: ${url}`
    }
    assert.strictEqual(
      refused("file:///etc/passwd"),
      "file: URLs are not opened (only https:, and http: on this machine)"
    )
    assert.include(refused("javascript:alert(document.domain)"), "javascript: URLs are not opened")
    assert.include(refused("data:text/html,<script>alert(1)</script>"), "data: URLs are not opened")
    assert.include(refused("ftp://example.test/"), "ftp: URLs are not opened")
    assert.strictEqual(
      refused("http://example.test/sign-in"),
      "http: URLs are opened only on this machine (localhost, 127.0.0.0/8, [::1]), not example.test"
    )
    // a host that only looks like loopback
    assert.include(refused("http://127.0.0.1.example.test/"), "not 127.0.0.1.example.test")
    assert.include(refused("http://localhost.example.test/"), "not localhost.example.test")
    assert.strictEqual(refused("not a url"), "it is not a valid URL")
  })

  it.scoped(
    "on a terminal an https: URL is shown with its domain, and opened only once the user says yes",
    () =>
      Effect.gen(function*() {
        const home = yield* tempDir
        const browser = desktop(home)
        const url = "https://sign-in.example.test/flow?step=1"
        let openedBeforeYes: ReadonlyArray<string> | undefined
        const yes = yield* zettOnTerminal(openArgs(configIn(home), url), home, browser.env, [
          [/Open sign-in\.example\.test in your browser\?/, () => {
            openedBeforeYes = browser.opened()
            return "y"
          }],
          [/Done with sign-in\.example\.test\?/, "y"]
        ])
        assert.strictEqual(yes.typed, 2, yes.stdout)
        assert.strictEqual(yes.code, 0, yes.stdout)
        assert.include(
          yes.stdout,
          `MCP server hostile asks you to open ${url}: "Sign in, please"\n(domain: sign-in.example.test)\n`
        )
        assert.deepStrictEqual(openedBeforeYes, [])
        assert.isTrue(yield* Processes.eventually(() => browser.opened().length === 1))
        assert.deepStrictEqual(browser.opened(), [url])
        assert.include(yes.stdout, "(opened in your browser)")
        assert.deepStrictEqual(answered(yes.stdout), { action: "accept" })

        // no: nothing is opened and the request is declined
        const no = yield* zettOnTerminal(openArgs(configIn(home), "https://other.example.test/"), home, browser.env, [
          [/Open other\.example\.test in your browser\?/, "n"]
        ])
        assert.strictEqual(no.code, 0, no.stdout)
        assert.deepStrictEqual(answered(no.stdout), { action: "decline" })
        assert.deepStrictEqual(browser.opened(), [url])
      })
  )

  it.scoped(
    "on a terminal a file:, javascript: or remote http: URL is refused with a line naming its scheme, and declined",
    () =>
      Effect.gen(function*() {
        const home = yield* tempDir
        const browser = desktop(home)
        const config = configIn(home)
        for (
          const [url, line] of [
            [
              "file:///etc/passwd",
              "zett: not opening it: file: URLs are not opened (only https:, and http: on this machine); declined"
            ],
            ["javascript:alert(document.domain)", "zett: not opening it: javascript: URLs are not opened"],
            [
              "http://example.test/sign-in",
              "zett: not opening it: http: URLs are opened only on this machine (localhost, 127.0.0.0/8, [::1]), not example.test"
            ]
          ] as const
        ) {
          const run = yield* zettOnTerminal(openArgs(config, url), home, browser.env, [])
          assert.strictEqual(run.code, 0, run.stdout)
          assert.include(run.stdout, `MCP server hostile asks you to open ${url}: "Sign in, please"`)
          assert.include(run.stdout, line)
          assert.notInclude(run.stdout, "in your browser?")
          assert.deepStrictEqual(answered(run.stdout), { action: "decline" })
        }
        // http: to this machine is asked like https:
        const local = yield* zettOnTerminal(openArgs(config, "http://127.0.0.1:8123/cb"), home, browser.env, [
          [/Open 127\.0\.0\.1:8123 in your browser\?/, "y"],
          [/Done with/, "y"]
        ])
        assert.deepStrictEqual(answered(local.stdout), { action: "accept" })
        assert.isTrue(yield* Processes.eventually(() => browser.opened().length === 1))
        assert.deepStrictEqual(browser.opened(), ["http://127.0.0.1:8123/cb"])
      })
  )

  it.scoped("piped, a URL is shown with its domain and declined, and nothing is opened", () =>
    Effect.gen(function*() {
      const home = yield* tempDir
      const browser = desktop(home)
      const run = yield* piped(openArgs(configIn(home), "https://sign-in.example.test/"), home, browser.env)
      assert.strictEqual(run.code, 0, run.stderr)
      assert.deepStrictEqual(answered(run.stdout), { action: "decline" })
      assert.include(
        run.stderr,
        "zett: MCP server hostile asks you to open https://sign-in.example.test/: \"Sign in, please\" (domain: sign-in.example.test); " +
          "declined: zett is not running on a terminal"
      )
      assert.deepStrictEqual(browser.opened(), [])
    }))

  it.scoped(
    "zett auth login on a terminal shows the authorization URL with its domain and opens it only on yes",
    () =>
      Effect.gen(function*() {
        const as = yield* OAuthServer.make({ challengeScope: "mcp:read" })
        const home = yield* tempDir
        const browser = desktop(home)
        const config = writeFile(home, "auth.json", { mcpServers: { docs: { type: "http", url: as.url, oauth: {} } } })
        let openedBeforeYes: ReadonlyArray<string> | undefined
        let finished: Promise<unknown> | undefined
        const run = yield* zettOnTerminal(["auth", "login", "docs", "--config", config], home, browser.env, [
          [/Open 127\.0\.0\.1:\d+ in your browser\?/, () => {
            openedBeforeYes = browser.opened()
            // once it is opened, the test is the browser: it follows the URL and delivers the redirect
            finished = (async () => {
              while (browser.opened().length === 0) await new Promise((resolve) => setTimeout(resolve, 20))
              const authorized = await fetch(browser.opened()[0]!, { redirect: "manual" })
              return fetch(authorized.headers.get("location")!).then((response) => response.text())
            })()
            return "y"
          }]
        ])
        assert.strictEqual(run.typed, 1, run.stdout)
        assert.isDefined(finished)
        assert.include(String(yield* Effect.promise(() => finished!)), "zett is authorized.")
        assert.strictEqual(run.code, 0, run.stdout)
        assert.deepStrictEqual(openedBeforeYes, [])
        const url = /^http:\/\/127\.0\.0\.1:\d+\/authorize\S+$/m.exec(run.stdout)?.[0]
        assert.isDefined(url, run.stdout)
        assert.deepStrictEqual(browser.opened(), [url])
        assert.include(run.stdout, `${url}\n(domain: ${new URL(url!).host})\n`)
        assert.include(run.stdout, "docs: authorized.")
      })
  )

  it.scoped(
    "zett auth login piped prints the URL with its domain and opens nothing, even with a desktop",
    () =>
      Effect.gen(function*() {
        const as = yield* OAuthServer.make({ challengeScope: "mcp:read" })
        const home = yield* tempDir
        const browser = desktop(home)
        const config = writeFile(home, "auth.json", { mcpServers: { docs: { type: "http", url: as.url, oauth: {} } } })
        // the test is the browser, once zett has printed the URL and waits for the redirect
        const run = yield* pipedLive(["auth", "login", "docs", "--config", config], home, browser.env, (stderr) => {
          const url = /^http:\/\/127\.0\.0\.1:\d+\/authorize\S+$/m.exec(stderr)?.[0]
          if (url === undefined || !stderr.includes("Waiting for the redirect")) return undefined
          return fetch(url, { redirect: "manual" }).then((authorized) => fetch(authorized.headers.get("location")!))
            .then(() => {})
        })
        assert.deepStrictEqual(browser.opened(), [])
        assert.strictEqual(run.code, 0, run.stderr)
        const url = /^http:\/\/127\.0\.0\.1:\d+\/authorize\S+$/m.exec(run.stderr)![0]
        assert.include(
          run.stderr,
          `To authorize zett for docs, open this URL in a browser:\n${url}\n(domain: ${new URL(url).host})\n`
        )
        assert.notInclude(run.stderr, "in your browser?")
      })
  )

  it.scoped(
    "the login hook refuses an authorization URL that is not https: (or loopback http:) without printing or opening it",
    () =>
      Effect.gen(function*() {
        const { captured, output } = Output.makeMemory({ interactive: true })
        const hook = yield* loopbackHook({ port: Option.none(), timeout: Duration.seconds(5), browser: true, output })
        for (
          const url of [
            "file:///etc/passwd",
            "javascript:alert(document.domain)",
            "http://evil.example.test/authorize?x=1"
          ]
        ) {
          const login = yield* hook.login({ name: "docs", url: "https://docs.example.test/mcp" })
          const error = yield* Effect.flip(login.authorize(new URL(url)))
          assert.instanceOf(error, McpAuthorization.McpAuthorizationError)
          assert.strictEqual(error.reason, "InvalidUrl")
          assert.include(error.description, "the authorization URL is refused: ")
          assert.include(error.description, new URL(url).protocol)
        }
        assert.strictEqual(captured.stderr(), "")
      }).pipe(Effect.provide(NodeContext.layer))
  )
})
