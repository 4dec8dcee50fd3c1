/**
 * A fleet of 8 processes of an app built from the public API (fixtures/fleet-app.ts), all cold,
 * against 5 slow MCP servers that count their `tools/list` requests, sharing the tool cache through a real
 * Redis. The 3 line's tests on this line's packages, run from their TypeScript sources.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { Redis } from "ioredis"
import * as ChildProcess from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as CountingServer from "./utils/countingServer.js"
import * as Processes from "./utils/processes.js"
import * as RedisServer from "./utils/redisServer.js"

const app = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "fixtures", "fleet-app.ts")
const instances = 8
const delay = 1_500

/** An instance that exited before it printed READY. */
class ExitedBeforeReady extends Data.TaggedError("ExitedBeforeReady")<{ readonly message: string }> {}

interface Instance {
  readonly pid: number
  readonly ready: Effect.Effect<void, ExitedBeforeReady>
  readonly go: Effect.Effect<void>
  /** The exit: the code (or the signal) and all stdout and stderr. */
  readonly exit: Effect.Effect<
    { readonly code: number | null; readonly signal: string | null; readonly stdout: string; readonly stderr: string }
  >
}

/** Starts one instance; the scope kills it if it is still running. */
const start = (env: Record<string, string>): Effect.Effect<Instance, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = ChildProcess.spawn(process.execPath, [...Processes.nodeArgs, app], {
        env: { ...process.env, FLEET_WAIT: "1", ...env },
        stdio: ["pipe", "pipe", "pipe"]
      })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk: Buffer) => void (stdout += chunk.toString("utf8")))
      child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString("utf8")))
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
        child.once("exit", (code, signal) => resolve({ code, signal }))
      )
      return { child, stdout: () => stdout, stderr: () => stderr, exited }
    }),
    ({ child }) =>
      Effect.promise(async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill("SIGKILL")
          await new Promise((resolve) => child.once("exit", resolve))
        }
      })
  ).pipe(Effect.map(({ child, exited, stderr, stdout }) => ({
    pid: child.pid!,
    ready: Effect.gen(function*() {
      while (!stdout().includes("READY")) {
        if (child.exitCode !== null) {
          return yield* Effect.fail(
            new ExitedBeforeReady({ message: `exited before READY:\n${stdout()}\n${stderr()}` })
          )
        }
        yield* Effect.sleep("20 millis")
      }
    }),
    go: Effect.sync(() => void child.stdin.end("go\n")),
    exit: Effect.map(Effect.promise(() => exited), (exit) => ({ ...exit, stdout: stdout(), stderr: stderr() }))
  })))

const resultOf = (stdout: string) => {
  const line = stdout.split("\n").find((l) => l.startsWith("RESULT "))
  assert.isDefined(line, stdout)
  return JSON.parse(line!.slice("RESULT ".length)) as { pid: number; seen: ReadonlyArray<Record<string, string>> }
}

/** 5 slow servers and 8 ready instances of the app, cold, waiting for the signal to run their request. */
const fleet = (redisUrl: string | undefined, env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const servers = yield* Effect.forEach(["alpha", "bravo", "charlie", "delta", "echo"], (name) =>
      Effect.map(CountingServer.make({ name, delay }), (server) => ({ name, server })))
    const fleetEnv = {
      FLEET_SERVERS: JSON.stringify(servers.map(({ name, server }) => ({ name, url: server.url }))),
      ...(redisUrl === undefined ? {} : { REDIS_URL: redisUrl }),
      // only a Redis that is down makes these processes work alone: on 2 busy cores, a blocked event loop can
      // let a timer fire before a reply that already arrived
      FLEET_OPERATION_TIMEOUT: "60000",
      FLEET_CONNECT_TIMEOUT: "180000",
      // long enough that a holder starved of CPU by the other seven still renews in time
      FLEET_LOCK_TTL: "30000",
      ...env
    }
    const apps = yield* Effect.forEach(Array.from({ length: instances }), () =>
      start(fleetEnv))
    yield* Effect.forEach(apps, (instance) => instance.ready, { concurrency: "unbounded", discard: true })
    return { servers, apps }
  })

const run = (apps: ReadonlyArray<Instance>) =>
  Effect.andThen(
    Effect.forEach(apps, (instance) => instance.go, { discard: true }),
    Effect.forEach(apps, (instance) => instance.exit, { concurrency: "unbounded" })
  )

const discoveries = (servers: ReadonlyArray<{ readonly server: CountingServer.CountingServer }>) =>
  servers.reduce((sum, { server }) => sum + server.listings(), 0)

// one scenario at a time: 8 processes starting at once already fill 2 cores
describe("fleet", { concurrent: false }, () => {
  it.live(
    "8 cold processes against 5 slow servers run 5 discoveries and see the same tools; none is left",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.make
        const { apps, servers } = yield* fleet(redis.url)
        const exits = yield* run(apps)
        for (const exit of exits) assert.strictEqual(exit.code, 0, exit.stderr)
        const results = exits.map((exit) => resultOf(exit.stdout))
        assert.strictEqual(discoveries(servers), 5, exits.map((exit) => exit.stderr).join("\n"))
        for (const { server } of servers) assert.strictEqual(server.listings(), 1)
        // every tool of every server, from the one discovery of each
        assert.strictEqual(Object.keys(results[0]!.seen[0]!).length, 10)
        for (const description of Object.values(results[0]!.seen[0]!)) assert.strictEqual(description, "discovery 1")
        for (const result of results) assert.deepStrictEqual(result.seen, results[0]!.seen)
        assert.deepStrictEqual(Processes.livePids(apps.map((instance) => instance.pid)), [])
        yield* redis.stop
        assert.deepStrictEqual(Processes.livePids(exits.map((exit) => resultOf(exit.stdout).pid)), [])
      }),
    240_000
  )

  it.live(
    "the lock holder killed during discovery: the 7 others finish with the same tools, after 5 to 5 + its locks discoveries",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.make
        const { apps, servers } = yield* fleet(redis.url, { FLEET_LOCK_TTL: "10000" })
        const raw = yield* Effect.acquireRelease(
          Effect.sync(() => new Redis(redis.url)),
          (client) => Effect.sync(() => client.disconnect())
        )
        yield* Effect.forEach(apps, (instance) => instance.go, { discard: true })
        // the lock keys name the server (zett:lock:mcp-tools:<server>:<hash>:ns) and their token the holder's pid
        const locks = async () => {
          const keys = await raw.keys("zett:lock:*")
          const tokens = await Promise.all(keys.map((key) => raw.get(key)))
          return keys.flatMap((key, i) =>
            tokens[i] == null ? [] : [{ server: key.split(":")[3]!, pid: Number(tokens[i]!.split("/")[1]) }]
          )
        }
        let victim: number | undefined
        while (victim === undefined) {
          victim = (yield* Effect.promise(locks))[0]?.pid
          if (victim === undefined) yield* Effect.sleep("5 millis")
        }
        process.kill(victim, "SIGKILL")
        // its locks stay until they expire (10 s): nobody else discovers those servers meanwhile
        const held = (yield* Effect.promise(locks)).filter((lock) => lock.pid === victim).map((lock) => lock.server)
        assert.isAtLeast(held.length, 1)
        const exits = yield* Effect.forEach(apps, (instance) => instance.exit, { concurrency: "unbounded" })
        const survivors = exits.filter((_, i) => apps[i]!.pid !== victim)
        assert.strictEqual(survivors.length, 7)
        for (const exit of survivors) assert.strictEqual(exit.code, 0, exit.stderr)
        assert.strictEqual(exits.find((_, i) => apps[i]!.pid === victim)!.signal, "SIGKILL")
        // the servers the victim was discovering are discovered once more (if its listing had reached them), by
        // one survivor after its lock expired; every other server once
        const total = discoveries(servers)
        assert.isAtLeast(total, 5)
        assert.isAtMost(total, 5 + held.length)
        for (const { server } of servers) assert.isAtLeast(server.listings(), 1)
        const results = survivors.map((exit) => resultOf(exit.stdout))
        assert.strictEqual(Object.keys(results[0]!.seen[0]!).length, 10)
        for (const result of results) assert.deepStrictEqual(result.seen, results[0]!.seen)
        assert.deepStrictEqual(Processes.livePids(apps.map((instance) => instance.pid)), [])
      }),
    240_000
  )

  it.live(
    "Redis stopped before the requests: every process discovers by itself, warns, and succeeds",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.make
        const { apps, servers } = yield* fleet(redis.url)
        yield* redis.stop
        const exits = yield* run(apps)
        for (const exit of exits) {
          assert.strictEqual(exit.code, 0, exit.stderr)
          assert.include(exit.stderr, "shared tool cache")
          assert.include(exit.stderr, "discovering it in this process")
          assert.strictEqual(Object.keys(resultOf(exit.stdout).seen[0]!).length, 10)
        }
        // each process once per server (its own single flight still holds)
        assert.strictEqual(discoveries(servers), 5 * instances)
        for (const { server } of servers) assert.strictEqual(server.listings(), instances)
        assert.deepStrictEqual(Processes.livePids(apps.map((instance) => instance.pid)), [])
      }),
    240_000
  )
})
