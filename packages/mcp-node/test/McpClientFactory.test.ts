import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { type McpClient, McpClientFactory, type McpError, McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import { FixtureError } from "@zett/testing-core/FixtureError"
import * as Source from "@zett/testing-core/Source"
import { wrapper } from "@zett/testing/Faults"
import * as Processes from "@zett/testing/Processes"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as HashMap from "effect/HashMap"
import * as Inspectable from "effect/Inspectable"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Util from "node:util"

const fixtures = Path.join(import.meta.dirname, "fixtures", "servers")
const probe = Path.join(fixtures, "probe-server.mjs")
const node = process.execPath

interface LogLine {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
}

/** Captures every log line (debug included) and lets a test wait for one that contains a text. */
const makeLogCapture = () => {
  const lines: Array<LogLine> = []
  const waiters: Array<{ readonly text: string; readonly resume: () => void }> = []
  const logger = Logger.make(({ annotations, logLevel, message }) => {
    const text = (Array.isArray(message) ? message : [message]).map(String).join(" ")
    lines.push({
      level: logLevel.label,
      message: text,
      annotations: Object.fromEntries(HashMap.toEntries(annotations))
    })
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (text.includes(waiters[i]!.text)) waiters.splice(i, 1)[0]!.resume()
    }
  })
  const layer = Layer.merge(Logger.replace(Logger.defaultLogger, logger), Logger.minimumLogLevel(LogLevel.Debug))
  const waitFor = (text: string) =>
    Effect.async<void>((resume) => {
      if (lines.some((line) => line.message.includes(text))) return resume(Effect.void)
      waiters.push({ text, resume: () => resume(Effect.void) })
    })
  return { lines, layer, waitFor }
}

/** The SDK-backed factory, starting stdio servers through Node's command executor. */
const sdkFactory = (options?: NodeMcpClientFactory.Options) =>
  NodeMcpClientFactory.layer(options).pipe(Layer.provide(NodeContext.layer))

const connectIn = (
  scope: Scope.Scope,
  server: McpServerConfig.McpServerConfig,
  options?: NodeMcpClientFactory.Options
) =>
  McpClientFactory.McpClientFactory.pipe(
    Effect.flatMap((factory) => factory.connect(server)),
    Scope.extend(scope),
    Effect.provide(sdkFactory(options))
  )

interface Report {
  readonly argv: ReadonlyArray<string>
  readonly cwd: string
  readonly env: Record<string, string>
  readonly envSha256: Record<string, string>
  readonly pid: number
  readonly ppid: number
}

const report = (client: McpClient.McpClient) =>
  Effect.map(client.callTool("report", {}), (result) => result.structuredContent as unknown as Report)

const elapsed = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = Date.now()
    const value = yield* self
    return [value, Date.now() - start] as const
  })

const liveOf = (pids: ReadonlyArray<number>, pgid: number) => [
  ...Processes.livePids(pids),
  ...Processes.liveInGroup(pgid)
]

describe("McpClientFactory (stdio)", () => {
  it.live("command and arguments reach the server verbatim, never through a shell (B3)", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const tricky = ["a b", "\"quoted\"", "'single'", "$(echo pwned)", "`id`", "*", "; exit 1", "$HOME", ""]
      const client = yield* connectIn(
        scope,
        McpServerConfig.stdio({ name: "argv", command: node, args: [probe, ...tricky] })
      )
      const { argv } = yield* report(client)
      assert.deepStrictEqual(argv, tricky)
      yield* Scope.close(scope, Exit.void)
    }))

  it.live("env values arrive next to the default environment only; cwd is honoured (B2)", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const cwd = Fs.realpathSync(Os.tmpdir())
      const client = yield* connectIn(
        scope,
        McpServerConfig.stdio({
          name: "env",
          command: node,
          args: [probe],
          env: { API_TOKEN: "env-secret-5e6f7a" },
          cwd
        })
      )
      const { cwd: seenCwd, env, envSha256 } = yield* report(client)
      assert.strictEqual(envSha256.API_TOKEN, Crypto.createHash("sha256").update("env-secret-5e6f7a").digest("hex"))
      // the server's own secret in its result is scrubbed before anyone sees it
      assert.strictEqual(env.API_TOKEN, "<redacted>")
      assert.strictEqual(env.PATH, process.env.PATH)
      // the parent's other variables are not inherited (the SDK's default environment rule)
      assert.strictEqual(process.env.VITEST !== undefined, true)
      assert.strictEqual(env.VITEST, undefined)
      assert.strictEqual(seenCwd, cwd)
      yield* Scope.close(scope, Exit.void)
    }))

  it.live("the server's stderr goes to the logger at debug level, line by line, with the server name", () =>
    Effect.gen(function*() {
      const logs = makeLogCapture()
      const secret = "env-secret-echoed-1234"
      yield* Effect.gen(function*() {
        const scope = yield* Scope.make()
        const client = yield* connectIn(
          scope,
          McpServerConfig.stdio({ name: "noisy", command: node, args: [probe], env: { TOKEN: secret } })
        )
        yield* client.callTool("stderr", { lines: ["first line", "second line", `token is ${secret}`] })
        yield* logs.waitFor("token is")
        yield* Scope.close(scope, Exit.void)
      }).pipe(Effect.provide(logs.layer))
      const stderr = logs.lines.filter((line) => line.annotations["mcp.server"] === "noisy")
      assert.isTrue(stderr.some((line) => line.message.startsWith("probe ready")))
      const mine = stderr.filter((line) => /line|token/.test(line.message))
      assert.deepStrictEqual(mine.map((line) => line.message), ["first line", "second line", "token is <redacted>"])
      for (const line of stderr) {
        assert.strictEqual(line.level, "DEBUG")
        assert.strictEqual(line.annotations["mcp.stream"], "stderr")
      }
      assert.isFalse(logs.lines.some((line) => line.message.includes(secret)))
    }))

  it.live("interrupting a call over stdio cancels it on the server", () =>
    Effect.gen(function*() {
      const logs = makeLogCapture()
      yield* Effect.gen(function*() {
        const scope = yield* Scope.make()
        const client = yield* connectIn(scope, McpServerConfig.stdio({ name: "waiter", command: node, args: [probe] }))
        const fiber = yield* Effect.fork(client.callTool("wait", {}))
        yield* logs.waitFor("wait: started")
        yield* Fiber.interrupt(fiber)
        // the server's handler only sees its signal abort when notifications/cancelled arrives
        yield* logs.waitFor("wait: cancelled")
        yield* Scope.close(scope, Exit.void)
      }).pipe(Effect.provide(logs.layer))
    }))

  it.live("closing the scope ends the whole process group of a wrapper (npx-style)", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const client = yield* connectIn(
        scope,
        McpServerConfig.stdio({ name: "wrapped", command: node, args: [wrapper, probe] })
      )
      const { pid, ppid } = yield* report(client)
      const wrapperInfo = Processes.find(ppid)!
      assert.include(wrapperInfo.command, "wrapper.mjs")
      // the wrapper leads a group of its own, and the real server is in it
      assert.strictEqual(wrapperInfo.pgid, ppid)
      assert.sameMembers(Processes.liveInGroup(ppid).map((p) => p.pid), [ppid, pid])
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(liveOf([pid, ppid], ppid), [])
    }))

  it.live("a wrapper whose server ignores EOF and SIGTERM: the group is killed and nothing is left", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const client = yield* connectIn(
        scope,
        McpServerConfig.stdio({ name: "stubborn-wrapped", command: node, args: [wrapper, probe, "--stubborn"] }),
        { closeTimeout: "300 millis" }
      )
      const { pid, ppid } = yield* report(client)
      assert.strictEqual(Processes.liveInGroup(ppid).length, 2)
      const [, ms] = yield* elapsed(Scope.close(scope, Exit.void))
      assert.deepStrictEqual(liveOf([pid, ppid], ppid), [])
      // EOF grace, then SIGTERM (the wrapper dies, the server does not), then SIGKILL
      assert.isAtLeast(ms, 550)
    }))

  it.live(
    "a server that ignores EOF and SIGTERM is gone within 4-5 s with the default timeouts",
    () =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        const client = yield* connectIn(
          scope,
          McpServerConfig.stdio({ name: "stubborn", command: node, args: [probe, "--stubborn"] })
        )
        const { pid } = yield* report(client)
        const [, ms] = yield* elapsed(Scope.close(scope, Exit.void))
        assert.deepStrictEqual(liveOf([pid], pid), [])
        assert.isAtLeast(ms, 3_900)
      })
  )

  it.live("closing several stubborn servers in separate scopes in parallel takes the time of one", () =>
    Effect.gen(function*() {
      const scopes = yield* Effect.all(Array.from({ length: 3 }, () => Scope.make()))
      const clients = yield* Effect.forEach(scopes, (scope, i) =>
        connectIn(
          scope,
          McpServerConfig.stdio({ name: `stubborn-${i}`, command: node, args: [probe, "--stubborn"] }),
          { closeTimeout: "500 millis" }
        ), { concurrency: "unbounded" })
      const pids = yield* Effect.forEach(clients, (client) => Effect.map(report(client), (r) => r.pid))
      const [, ms] = yield* elapsed(
        Effect.forEach(scopes, (scope) => Scope.close(scope, Exit.void), { concurrency: "unbounded" })
      )
      assert.deepStrictEqual(Processes.livePids(pids), [])
      // one close takes ~1 s (500 ms after EOF, 500 ms after SIGTERM); that three take the time of one is
      // measured by the benchmark (case "closing"), not bounded by the wall clock here
      assert.isAtLeast(ms, 950)
    }))

  const runHost = (...extra: ReadonlyArray<string>) =>
    Effect.async<{ readonly stdout: string; readonly signal: string | null }, Error>((resume) => {
      const host = ChildProcess.spawn(node, [
        ...Source.nodeArgs,
        Path.join(fixtures, "exit-host.ts"),
        wrapper,
        probe,
        ...extra
      ], {
        cwd: Path.join(import.meta.dirname, ".."),
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stdout = ""
      let stderr = ""
      host.stdout.on("data", (chunk) => (stdout += chunk))
      host.stderr.on("data", (chunk) => (stderr += chunk))
      const timer = setTimeout(() => host.kill("SIGKILL"), 100_000)
      host.once("exit", (_code, signal) => {
        clearTimeout(timer)
        resume(
          stdout.includes("{") ? Effect.succeed({ stdout, signal }) : Effect.fail(new FixtureError({ message: stderr }))
        )
      })
    })

  it.live("a host calling process.exit() leaves no server process behind", () =>
    Effect.gen(function*() {
      const { stdout } = yield* runHost()
      const { pid, ppid } = JSON.parse(stdout.trim().split("\n").pop()!) as { pid: number; ppid: number }
      assert.isTrue(pid > 0 && ppid > 0)
      // the host has exited: its exit hook SIGKILLed the group of the wrapper and the stubborn server
      assert.deepStrictEqual(yield* Processes.awaitGone([pid, ppid], ppid), [])
    }))

  it.live("a host killed by a signal it does not handle leaves no server process behind", () =>
    Effect.gen(function*() {
      const { signal, stdout } = yield* runHost("--signal", "SIGTERM")
      const { pid, ppid } = JSON.parse(stdout.trim().split("\n").pop()!) as { pid: number; ppid: number }
      // the host still dies of the signal, as it would without us
      assert.strictEqual(signal, "SIGTERM")
      assert.deepStrictEqual(yield* Processes.awaitGone([pid, ppid], ppid), [])
    }))

  it.live("interrupting connect (the server never answers initialize) still ends the process", () =>
    Effect.gen(function*() {
      const logs = makeLogCapture()
      const marker = `zett-silent-${process.pid}-${Date.now()}`
      const silent = `process.stderr.write("silent up\\n"); setInterval(() => {}, 1000)`
      const scope = yield* Scope.make()
      const fiber = yield* Effect.fork(
        connectIn(scope, McpServerConfig.stdio({ name: "silent", command: node, args: ["-e", silent, marker] }), {
          closeTimeout: "200 millis"
        }).pipe(Effect.provide(logs.layer))
      )
      yield* logs.waitFor("silent up")
      assert.strictEqual(Processes.liveWithCommand(marker).length, 1)
      yield* Fiber.interrupt(fiber)
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(Processes.liveWithCommand(marker), [])
    }))

  it.live("connect under a caller's timeout fails in time and the process ends", () =>
    Effect.gen(function*() {
      const marker = `zett-slow-${process.pid}-${Date.now()}`
      const result = yield* Effect.scoped(
        McpClientFactory.McpClientFactory.pipe(
          Effect.flatMap((factory) =>
            factory.connect(
              McpServerConfig.stdio({
                name: "slow",
                command: node,
                args: ["-e", "setInterval(() => {}, 1000)", marker]
              })
            )
          ),
          Effect.timeoutFail({ duration: "300 millis", onTimeout: () => "connect timed out" as const }),
          Effect.provide(sdkFactory({ closeTimeout: "200 millis" })),
          Effect.flip
        )
      )
      assert.strictEqual(result, "connect timed out")
      assert.deepStrictEqual(Processes.liveWithCommand(marker), [])
    }))

  it.live("a command that does not exist is an McpConnectError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.scoped(
        McpClientFactory.McpClientFactory.pipe(
          Effect.flatMap((factory) =>
            factory.connect(McpServerConfig.stdio({ name: "missing", command: "zett-no-such-command" }))
          ),
          Effect.provide(sdkFactory()),
          Effect.flip
        )
      )
      assert.strictEqual(error._tag, "McpConnectError")
      assert.strictEqual(error.message, "missing: cannot start zett-no-such-command (ENOENT)")
      assert.strictEqual(error.reason, "Start")
    }))

  it.live("a working directory that does not exist is an McpConnectError that names it", () =>
    Effect.gen(function*() {
      const cwd = Path.join(Os.tmpdir(), `zett-no-such-dir-${Crypto.randomUUID()}`)
      const error = yield* Effect.scoped(
        McpClientFactory.McpClientFactory.pipe(
          Effect.flatMap((factory) => factory.connect(McpServerConfig.stdio({ name: "nowhere", command: node, cwd }))),
          Effect.provide(sdkFactory()),
          Effect.flip
        )
      )
      assert.strictEqual(error._tag, "McpConnectError")
      assert.strictEqual(error.message, `nowhere: cannot start ${node} in ${cwd} (ENOENT)`)
    }))

  it.live("a server that exits during initialize is an McpConnectError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.scoped(
        McpClientFactory.McpClientFactory.pipe(
          Effect.flatMap((factory) =>
            factory.connect(McpServerConfig.stdio({ name: "quitter", command: node, args: ["-e", "process.exit(3)"] }))
          ),
          Effect.provide(sdkFactory()),
          Effect.flip
        )
      )
      assert.strictEqual(error._tag, "McpConnectError")
      assert.strictEqual(error.code, -32000)
      assert.strictEqual(
        error.message,
        "quitter: Connection closed: the server process exited with code 3 (code -32000)"
      )
      assert.strictEqual(error.reason, "Exited")
    }))

  it.live("a server that dies at start is an McpConnectError with the stderr line that says why, scrubbed and cut", () =>
    Effect.gen(function*() {
      const script = [
        "console.error('starting')",
        "console.error('')",
        "console.error('Error: Cannot find module ./missing.js, token ' + process.env.API_TOKEN + ' ' + 'x'.repeat(500))",
        "console.error('    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)')",
        "console.error('Node.js v20.0.0')",
        "process.exit(1)"
      ].join(";")
      const error = yield* Effect.scoped(
        McpClientFactory.McpClientFactory.pipe(
          Effect.flatMap((factory) =>
            factory.connect(McpServerConfig.stdio({
              name: "broken",
              command: node,
              args: ["-e", script],
              env: { API_TOKEN: "sk-live-secret-token-value" }
            }))
          ),
          Effect.provide(sdkFactory()),
          Effect.flip
        )
      )
      assert.strictEqual(error.reason, "Exited")
      const line = "Error: Cannot find module ./missing.js, token sk-live-secret-token-value "
      assert.strictEqual(
        error.description,
        "Connection closed: the server process exited with code 1; stderr: " +
          `Error: Cannot find module ./missing.js, token <redacted> ${"x".repeat(200 - line.length)}…`
      )
      assert.notInclude(error.message, "sk-live-secret-token-value")
    }))

  it.live("a Node server whose file is missing says so: the error line, not the stack's tail or Node's banner", () =>
    Effect.gen(function*() {
      const error = yield* Effect.scoped(
        McpClientFactory.McpClientFactory.pipe(
          Effect.flatMap((factory) =>
            factory.connect(
              McpServerConfig.stdio({ name: "missing", command: node, args: ["/nonexistent/zett/server.js"] })
            )
          ),
          Effect.provide(sdkFactory()),
          Effect.flip
        )
      )
      assert.strictEqual(
        error.description,
        "Connection closed: the server process exited with code 1; stderr: Error: Cannot find module '/nonexistent/zett/server.js'"
      )
    }))

  it.live("a server whose stderr has no error line is described by its last lines", () =>
    Effect.gen(function*() {
      const script = ["starting", "config loaded", "no port given", "bye"].map((line) =>
        `console.error('${line}')`
      ).join(";") + ";process.exit(2)"
      const error = yield* Effect.scoped(
        McpClientFactory.McpClientFactory.pipe(
          Effect.flatMap((factory) =>
            factory.connect(McpServerConfig.stdio({ name: "quiet", command: node, args: ["-e", script] }))
          ),
          Effect.provide(sdkFactory()),
          Effect.flip
        )
      )
      assert.strictEqual(
        error.description,
        "Connection closed: the server process exited with code 2; stderr: config loaded | no port given | bye"
      )
    }))

  it.live("a server killed by a signal during initialize is an McpConnectError that names the signal", () =>
    Effect.gen(function*() {
      const error = yield* Effect.scoped(
        McpClientFactory.McpClientFactory.pipe(
          Effect.flatMap((factory) =>
            factory.connect(
              McpServerConfig.stdio({
                name: "victim",
                command: node,
                args: ["-e", "process.kill(process.pid, 'SIGKILL')"]
              })
            )
          ),
          Effect.provide(sdkFactory()),
          Effect.flip
        )
      )
      assert.strictEqual(
        error.message,
        "victim: Connection closed: the server process was killed by SIGKILL (code -32000)"
      )
    }))
})

describe("McpClientFactory (http)", () => {
  it.live("a server that cannot be reached is an McpConnectError with a readable reason", () =>
    Effect.gen(function*() {
      const port = yield* Processes.freePort
      const error = yield* Effect.scoped(
        McpClientFactory.McpClientFactory.pipe(
          Effect.flatMap((factory) =>
            factory.connect(McpServerConfig.http({ name: "nobody", url: `http://127.0.0.1:${port}/mcp` }))
          ),
          Effect.provide(sdkFactory()),
          Effect.flip
        )
      )
      assert.strictEqual(error._tag, "McpConnectError")
      assert.strictEqual(error.message, "nobody: fetch failed (ECONNREFUSED)")
      assert.strictEqual(error.reason, "Network")
    }))

  it.scopedLive("a 401 that echoes the header never puts the secret in errors or logs (B2)", () =>
    Effect.gen(function*() {
      const secret = "hdr-secret-9a8b7c6d"
      const seen: Array<string | undefined> = []
      const server = Http.createServer((req, res) => {
        seen.push(req.headers.authorization)
        res.writeHead(401, { "content-type": "text/plain" })
        res.end(`invalid credentials: ${req.headers.authorization}`)
      })
      const port = yield* Effect.acquireRelease(
        Effect.async<number>((resume) => {
          server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as Net.AddressInfo).port)))
        }),
        () =>
          Effect.async<void>((resume) => {
            server.closeAllConnections()
            server.close(() => resume(Effect.void))
          })
      )
      const logs = makeLogCapture()
      const exit = yield* Effect.scoped(
        McpClientFactory.McpClientFactory.pipe(
          Effect.flatMap((factory) =>
            factory.connect(
              McpServerConfig.http({
                name: "guarded",
                url: `http://127.0.0.1:${port}/mcp`,
                headers: { Authorization: `Bearer ${secret}` }
              })
            )
          ),
          Effect.tapErrorCause((cause) => Effect.logError("connect failed", cause)),
          Effect.provide(sdkFactory()),
          Effect.provide(logs.layer),
          Effect.exit
        )
      )
      // the header did reach the server: unwrapped where the transport is built
      assert.deepStrictEqual(seen, [`Bearer ${secret}`])
      assert.isTrue(Exit.isFailure(exit))
      const cause = (exit as Exit.Failure<unknown, unknown>).cause
      const error = Cause.squash(cause) as McpError.McpConnectError
      assert.strictEqual(error._tag, "McpConnectError")
      assert.strictEqual(error.message, "guarded: HTTP 401 Unauthorized")
      assert.deepStrictEqual([error.reason, error.httpStatus], ["Unauthorized", 401])
      const texts = [
        error.message,
        error.description,
        String(error),
        JSON.stringify(error),
        Util.inspect(error, { depth: 10 }),
        Inspectable.format(error),
        Cause.pretty(cause, { renderErrorCause: true }),
        ...logs.lines.map((line) => `${line.message} ${JSON.stringify(line.annotations)}`)
      ]
      assert.isTrue(logs.lines.length > 0)
      for (const text of texts) assert.notInclude(text, secret)
    }))
})
