/**
 * `zett auth login | status | logout` and `zett tools` against a local authorization server and a
 * protected SDK MCP server (`@zett/testing/OAuthServer`), in-process, HOME in a temporary folder. The login
 * is finished the way a browser would: the printed URL is followed with `redirect: "manual"` and the redirect
 * is delivered to the listener `zett` opened on 127.0.0.1.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cli, Output } from "@zett/cli"
import * as OAuthServer from "@zett/testing/OAuthServer"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { awaitSleeps, tempDir, writeFile } from "./utils/zett.js"

const start = (args: ReadonlyArray<string>, home: string) =>
  Effect.gen(function*() {
    const { captured, output } = Output.makeMemory()
    const fiber = yield* Cli.run(args).pipe(
      Effect.provideService(Output.Output, output),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["HOME", home]]))),
      Effect.fork
    )
    return { fiber, captured }
  })

const zett = (args: ReadonlyArray<string>, home: string) =>
  Effect.gen(function*() {
    const { captured, fiber } = yield* start(args, home)
    const code = yield* Fiber.join(fiber)
    return { code, stdout: captured.stdout(), stderr: captured.stderr() }
  })

const waitFor = (read: () => string, pattern: RegExp) =>
  Effect.gen(function*() {
    for (let i = 0; i < 2000; i++) {
      const match = pattern.exec(read())
      if (match !== null) return match
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
    }
    return yield* Effect.die(new Error(`never printed ${pattern}: ${read()}`))
  })

/** What a browser does: follow the authorization URL, then deliver the redirect to the listener. */
const browse = (url: string) =>
  Effect.promise(async () => {
    const authorized = await fetch(url, { redirect: "manual" })
    const location = authorized.headers.get("location")!
    const callback = await fetch(location)
    return { location, page: await callback.text() }
  })

describe("zett auth", () => {
  it.scoped(
    "tools says needs auth; login, status, tools again (also after expiry), logout",
    () =>
      Effect.gen(function*() {
        const as = yield* OAuthServer.make({ challengeScope: "mcp:read" })
        const home = yield* tempDir
        const config = writeFile(home, "mcp.json", {
          mcpServers: { docs: { type: "http", url: as.url, oauth: {} }, local: { command: "true" } }
        })

        const before = yield* zett(["tools", "--config", config], home)
        assert.strictEqual(before.code, 1)
        assert.match(
          before.stdout,
          /^docs\s+streamable-http\s+\S+\s+\S+ ms\s+-\s+-\s+needs auth: run zett auth login docs$/m
        )
        assert.include(before.stderr, "docs (needs authorization: run zett auth login docs)")

        const status0 = yield* zett(["auth", "status", "--config", config], home)
        assert.strictEqual(status0.code, 0, status0.stderr)
        assert.match(status0.stdout, /^docs\s+needs login\s+-$/m)
        assert.match(status0.stdout, /^local\s+no auth\s+-$/m)

        const { captured, fiber } = yield* start(["auth", "login", "docs", "--config", config, "--no-browser"], home)
        const [url] = yield* waitFor(captured.stderr, /http:\/\/127\.0\.0\.1:\d+\/authorize\S+/)
        const redirect = new URL(url).searchParams.get("redirect_uri")!
        assert.match(redirect, /^http:\/\/127\.0\.0\.1:\d+\/callback$/)
        assert.include(captured.stderr(), `Waiting for the redirect to ${redirect}`)
        const { location, page } = yield* browse(url)
        assert.include(page, "zett is authorized.")
        assert.strictEqual(yield* Fiber.join(fiber), 0)
        assert.strictEqual(captured.stdout(), "docs: authorized.\n")

        const files = Fs.readdirSync(Path.join(home, ".zett", "auth"))
        assert.strictEqual(files.length, 1)
        assert.strictEqual(Fs.statSync(Path.join(home, ".zett", "auth", files[0]!)).mode & 0o777, 0o600)

        const status1 = yield* zett(["auth", "status", "--config", config], home)
        assert.match(status1.stdout, /^docs\s+authorized, expires in (59m|1h).* {2}http:\/\/127\.0\.0\.1:\d+$/m)
        const after = yield* zett(["tools", "--config", config], home)
        assert.match(after.stdout, /^docs\s+streamable-http\s+\S+\s+\S+ ms\s+1\s+\d+\s+ok$/m)

        // the access token expires: the next command refreshes it without a login
        as.expireAccessTokens()
        yield* TestClock.adjust("2 hours")
        const expired = yield* zett(["tools", "--config", config], home)
        assert.match(expired.stdout, /^docs\s+streamable-http\s+\S+\s+\S+ ms\s+1\s+\d+\s+ok$/m)
        assert.strictEqual(as.requests.filter((r) => r.form.grant_type === "refresh_token").length, 1)

        // no token, code or verifier in anything zett printed
        const code = new URL(location).searchParams.get("code")!
        const printed = [before, status0, status1, after, expired].flatMap((r) => [r.stdout, r.stderr]).join("\n") +
          captured.stdout() + captured.stderr()
        for (const issued of as.issued) {
          assert.notInclude(printed, issued.accessToken)
          if (issued.refreshToken !== undefined) assert.notInclude(printed, issued.refreshToken)
        }
        assert.notInclude(printed, code)

        const logout = yield* zett(["auth", "logout", "docs", "--config", config], home)
        assert.strictEqual(logout.code, 0)
        assert.strictEqual(Fs.readdirSync(Path.join(home, ".zett", "auth")).length, 0)
        const status2 = yield* zett(["auth", "status", "--config", config], home)
        assert.match(status2.stdout, /^docs\s+needs login\s+-$/m)
      })
  )

  it.scoped("workload identity: tools uses the token in the workload's file, auth login has nothing to do, the token is never printed", () =>
    Effect.gen(function*() {
      const { privateKey, publicKey } = Crypto.generateKeyPairSync("ec", { namedCurve: "P-256" })
      const as = yield* OAuthServer.make({
        clients: [{ client_id: "agents-pod" }],
        workload: { publicKey: publicKey.export({ type: "spki", format: "pem" }).toString() }
      })
      const now = Math.floor(Date.now() / 1000)
      const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
      const unsigned = `${part({ alg: "ES256", typ: "JWT" })}.${
        part({ iss: "https://k8s.example", sub: "pod", aud: as.issuer, iat: now, exp: now + 600 })
      }`
      const signature = Crypto.sign("sha256", Buffer.from(unsigned), { key: privateKey, dsaEncoding: "ieee-p1363" })
        .toString("base64url")
      const home = yield* tempDir
      const tokenFile = writeFile(home, "token", `${unsigned}.${signature}\n`)
      const config = writeFile(home, "mcp.json", {
        mcpServers: {
          inventory: {
            type: "http",
            url: as.url,
            auth: { grant: "workload_identity", clientId: "agents-pod", assertionFile: tokenFile }
          }
        }
      })
      const tools = yield* zett(["tools", "--config", config], home)
      assert.strictEqual(tools.code, 0, tools.stderr)
      assert.match(tools.stdout, /^inventory\s+streamable-http\s+\S+\s+\S+ ms\s+1\s+\d+\s+ok$/m)
      const request = as.requests.find((r) => r.path === "/token")!
      assert.strictEqual(request.form.grant_type, "urn:ietf:params:oauth:grant-type:jwt-bearer")
      assert.strictEqual(request.form.assertion, `${unsigned}.${signature}`)
      const login = yield* zett(["auth", "login", "inventory", "--config", config], home)
      assert.strictEqual(login.code, 0)
      assert.strictEqual(
        login.stdout,
        "inventory uses workload identity (the platform's token for this workload): no login is needed.\n"
      )
      const status = yield* zett(["auth", "status", "--config", config], home)
      assert.match(status.stdout, /^inventory\s+authorized/m)
      const printed = [tools, login, status].flatMap((r) => [r.stdout, r.stderr]).join("\n")
      assert.notInclude(printed, signature)
      for (const issued of as.issued) assert.notInclude(printed, issued.accessToken)
    }))

  it.scoped(
    "a login nobody finishes times out with a clear message, and its listener is closed",
    () =>
      Effect.gen(function*() {
        const as = yield* OAuthServer.make({})
        const home = yield* tempDir
        const config = writeFile(home, "mcp.json", { mcpServers: { docs: { type: "http", url: as.url } } })
        const { captured, fiber } = yield* start([
          "auth",
          "login",
          "docs",
          "--config",
          config,
          "--no-browser",
          "--timeout",
          "5"
        ], home)
        const [url] = yield* waitFor(captured.stderr, /http:\/\/127\.0\.0\.1:\d+\/authorize\S+/)
        // the wait for the redirect is on the clock once it is scheduled
        yield* awaitSleeps(1)
        yield* TestClock.adjust("6 seconds")
        assert.strictEqual(yield* Fiber.join(fiber), 1)
        assert.include(
          captured.stderr(),
          "zett: cannot log in to docs: docs: authorization failed: no redirect came back within 5s; run zett auth login docs again"
        )
        const redirect = new URL(new URL(url).searchParams.get("redirect_uri")!)
        const refused = yield* Effect.promise(() => fetch(redirect).then(() => "answered", () => "refused"))
        assert.strictEqual(refused, "refused")
      })
  )

  it.scoped("auth login of an unknown or stdio server is a usage error", () =>
    Effect.gen(function*() {
      const home = yield* tempDir
      const config = writeFile(home, "mcp.json", { mcpServers: { local: { command: "true" } } })
      const unknown = yield* zett(["auth", "login", "nope", "--config", config], home)
      assert.strictEqual(unknown.code, 2)
      assert.include(unknown.stderr, "no server named nope")
      const stdio = yield* zett(["auth", "login", "local", "--config", config], home)
      assert.strictEqual(stdio.code, 2)
      assert.include(stdio.stderr, "local is a stdio server")
    }))
})
