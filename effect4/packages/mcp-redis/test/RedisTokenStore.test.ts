/**
 * Shared authorization: `RedisTokenStore.layer` against a real `redis-server` (`./utils/redisServer.ts`), each store
 * on its own connection as another process of a fleet would have, and a local authorization server with a protected
 * MCP server (the driver's tests' `oauthServer`, the 3 line's `@zett/testing/OAuthServer` on Effect 4).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { McpClientFactory, McpServerConfig } from "@zett/mcp"
import { McpAuthorization, McpTokenStore } from "@zett/mcp-auth"
import { NodeMcpClientFactory, ProcessGroups } from "@zett/mcp-node"
import { McpRedis, RedisTokenStore } from "@zett/mcp-redis"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/testing/TestClock"
import { Redis } from "ioredis"
import * as ChildProcess from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as OAuthServer from "../../mcp-node/test/utils/oauthServer.js"
import * as RedisLock from "../src/internal/redisLock.js"
import { captureLogs } from "./utils/logs.js"
import * as Processes from "./utils/processes.js"
import * as RedisServer from "./utils/redisServer.js"

const key = "https://docs.example/mcp"
const accessSecret = "acc-5ecret-0f-the-token"
const refreshSecret = "ref-5ecret-0f-the-token"
const issuer = "https://auth.docs.example"
const entry: McpTokenStore.Entry = {
  issuer,
  credentials: {
    [issuer]: {
      tokens: { access_token: accessSecret, token_type: "Bearer", refresh_token: refreshSecret, expires_at: 1_000 },
      clientInformation: { client_id: "dcr-1", redirect_uris: ["http://127.0.0.1:7777/callback"] }
    }
  }
}

/** A store on a connection of its own, as another process would have. */
const storeOn = (url: string, options?: RedisTokenStore.Options, connection: Partial<McpRedis.Options> = {}) =>
  Effect.flatMap(
    Layer.build(McpRedis.layer({ url, ...connection })),
    (context) => Effect.provideContext(RedisTokenStore.make(options), context)
  )

const rawClient = (url: string) =>
  Effect.acquireRelease(Effect.sync(() => new Redis(url)), (client) => Effect.sync(() => client.disconnect()))

/** A client factory of one "process": its own Redis connection and token store. */
const processOn = (redisUrl: string, as: OAuthServer.OAuthServer) =>
  Effect.gen(function*() {
    const store = yield* storeOn(redisUrl)
    const factory = yield* NodeMcpClientFactory.make().pipe(
      Effect.provide(ProcessGroups.layerNone),
      Effect.provideService(McpTokenStore.McpTokenStore, store),
      Effect.provide(NodeServices.layer)
    )
    const server = McpServerConfig.http({ name: "docs", url: as.url, auth: {} })
    const whoami = Effect.scoped(Effect.gen(function*() {
      const client = yield* factory.connect(server)
      const result = yield* client.callTool("whoami", {})
      const block = result.content[0]
      return block?.type === "text" ? block.text : ""
    }))
    return { store, factory, server, whoami }
  })

const tokenApp = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "fixtures", "token-app.ts")

/** A process of fixtures/token-app.ts that exited before it printed READY. */
class ExitedBeforeReady extends Data.TaggedError("ExitedBeforeReady")<{ readonly message: string }> {}

/** Starts one process of fixtures/token-app.ts; the scope kills it if it is still running. */
const startApp = (env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = ChildProcess.spawn(process.execPath, [...Processes.nodeArgs, tokenApp], {
        env: { ...process.env, ...env },
        stdio: ["pipe", "pipe", "pipe"]
      })
      const output = { stdout: "", stderr: "" }
      child.stdout.on("data", (chunk: Buffer) => void (output.stdout += chunk.toString("utf8")))
      child.stderr.on("data", (chunk: Buffer) => void (output.stderr += chunk.toString("utf8")))
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
      return { child, output, exited }
    }),
    ({ child }) =>
      Effect.promise(async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill("SIGKILL")
          await new Promise((resolve) => child.once("exit", resolve))
        }
      })
  ).pipe(Effect.map(({ child, exited, output }) => ({
    pid: child.pid!,
    ready: Effect.gen(function*() {
      while (!output.stdout.includes("READY")) {
        if (child.exitCode !== null) {
          return yield* Effect.fail(new ExitedBeforeReady({ message: `exited before READY:\n${output.stderr}` }))
        }
        yield* Effect.sleep("20 millis")
      }
    }),
    go: Effect.sync(() => void child.stdin.end("go\n")),
    result: Effect.map(Effect.promise(() => exited), (code) => {
      const line = output.stdout.split("\n").find((l) => l.startsWith("RESULT "))
      assert.strictEqual(code, 0, output.stderr)
      assert.isDefined(line, output.stdout + output.stderr)
      return { ...JSON.parse(line!.slice("RESULT ".length)) as { pid: number; answer: string }, stderr: output.stderr }
    })
  })))

const refreshes = (as: OAuthServer.OAuthServer) =>
  as.requests.filter((r) => r.path === "/token" && r.form.grant_type === "refresh_token").length

describe("RedisTokenStore.layer", () => {
  it.live("an entry written by one process is read, listed and removed by another; Redis holds it as JSON under the normalized URL", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const first = yield* storeOn(redis.url)
      const second = yield* storeOn(redis.url)
      assert.isTrue(Option.isNone(yield* second.get(key)))
      yield* first.set(key, entry)
      yield* first.set("https://other.example", {
        issuer,
        credentials: { [issuer]: { clientInformation: { client_id: "dcr-2", redirect_uris: [] } } }
      })
      assert.deepStrictEqual(yield* second.get(key), Option.some(entry))
      assert.deepStrictEqual(yield* second.keys, ["https://docs.example/mcp", "https://other.example"])
      const raw = yield* rawClient(redis.url)
      assert.deepStrictEqual(JSON.parse((yield* Effect.promise(() => raw.get(`zett:mcp-tokens:${key}`)))!), entry)
      // an entry with a refresh token lives as long as a refresh token (30 days by default), not as its access token
      const ttl = yield* Effect.promise(() => raw.pttl(`zett:mcp-tokens:${key}`))
      assert.isAbove(ttl, 29 * 24 * 3_600_000)
      assert.isAtMost(ttl, 30 * 24 * 3_600_000)
      yield* McpTokenStore.modify(second, key, McpTokenStore.withoutTokens)
      assert.deepStrictEqual(yield* first.get(key), Option.some(McpTokenStore.withoutTokens(entry)))
      yield* second.remove(key)
      assert.isTrue(Option.isNone(yield* first.get(key)))
      assert.deepStrictEqual(yield* first.keys, ["https://other.example"])
    }))

  it.live("keys lists only its own store, also with a prefix that holds glob characters", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const tokens = yield* storeOn(redis.url, undefined, { prefix: "fleet[1]*:" })
      const others = yield* storeOn(redis.url, undefined, { prefix: "fleet1x:" })
      yield* tokens.set(key, entry)
      yield* others.set("https://other.example", entry)
      const raw = yield* rawClient(redis.url)
      yield* Effect.promise(() => raw.set("fleet[1]*:mcp-tools:x", "{}"))
      assert.deepStrictEqual(yield* tokens.keys, [key])
      assert.deepStrictEqual(yield* others.keys, ["https://other.example"])
    }))

  it.live("an entry that is not valid is absent, with a warning naming the key and not the value", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const logs = captureLogs()
      const store = yield* storeOn(redis.url)
      const raw = yield* rawClient(redis.url)
      yield* Effect.promise(() => raw.set(`zett:mcp-tokens:${key}`, `{"tokens":{"access_token":"${accessSecret}"}}`))
      assert.isTrue(Option.isNone(yield* store.get(key).pipe(Effect.provide(logs.layer))))
      assert.strictEqual(logs.lines.length, 1)
      assert.include(logs.lines[0]!, `ignoring ${key} in Redis`)
      assert.notInclude(logs.lines[0]!, accessSecret)
    }))

  it.live("withLock excludes across connections: the second holder starts after the first ended", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const first = yield* storeOn(redis.url)
      const second = yield* storeOn(redis.url)
      const events: Array<string> = []
      const inside = yield* Deferred.make<void>()
      const holder = yield* first.withLock(
        key,
        Effect.gen(function*() {
          events.push("first in")
          yield* Deferred.succeed(inside, undefined)
          yield* Effect.sleep("300 millis")
          events.push("first out")
        })
      ).pipe(Effect.forkChild)
      yield* Deferred.await(inside)
      // another key is not held by it
      yield* second.withLock("https://other.example", Effect.sync(() => events.push("other key")))
      yield* second.withLock(key, Effect.sync(() => events.push("second in")))
      yield* Fiber.join(holder)
      assert.deepStrictEqual(events, ["first in", "other key", "first out", "second in"])
      // released: nothing is left in Redis
      const raw = yield* rawClient(redis.url)
      assert.deepStrictEqual(yield* Effect.promise(() => raw.keys("zett:lock:*")), [])
    }))

  it.live("withLock passes the effect's own failure through, and a holder that stays too long makes the waiter fail typed", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const first = yield* storeOn(redis.url)
      const second = yield* storeOn(redis.url, { lockWait: "200 millis" })
      const own = yield* Effect.flip(first.withLock(key, Effect.fail("own failure" as const)))
      assert.strictEqual(own, "own failure")
      const inside = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const holder = yield* first.withLock(
        key,
        Effect.andThen(Deferred.succeed(inside, undefined), Deferred.await(release))
      )
        .pipe(Effect.forkChild)
      yield* Deferred.await(inside)
      const error = yield* Effect.flip(second.withLock(key, Effect.void))
      assert.strictEqual(error._tag, "McpTokenStoreError")
      assert.strictEqual(error.reason, "Lock")
      assert.strictEqual(error.message, `token store: ${key}: cannot lock: another process held the lock too long`)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
    }))

  it.live("three processes connecting at once with an expired access token make one refresh request, and all connect", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const as = yield* OAuthServer.make({})
      const fleet = yield* Effect.all([processOn(redis.url, as), processOn(redis.url, as), processOn(redis.url, as)])
      const headless = OAuthServer.headless()
      yield* McpAuthorization.login(fleet[0].server).pipe(
        Effect.provideService(McpClientFactory.McpClientFactory, fleet[0].factory),
        Effect.provideService(McpTokenStore.McpTokenStore, fleet[0].store),
        Effect.provide(headless.layer)
      )
      // the other processes see the login's tokens
      const normalized = McpTokenStore.normalizeKey(as.url)
      const stored = Option.getOrThrow(yield* fleet[2].store.get(normalized))
      assert.strictEqual(McpTokenStore.current(stored).tokens?.access_token, as.issued[0]!.accessToken)
      as.expireAccessTokens()
      yield* fleet[1].store.set(
        normalized,
        McpTokenStore.updateCredentials(
          stored,
          stored.issuer!,
          (c) => ({ ...c, tokens: { ...c.tokens!, expires_at: 0 } })
        )
      )
      const answers = yield* Effect.all(fleet.map((instance) => instance.whoami), { concurrency: "unbounded" })
      for (const answer of answers) assert.include(answer, `client ${as.registered[0]!.client_id}`)
      assert.strictEqual(refreshes(as), 1)
      // the refreshed tokens are the fleet's: a later connect of any process makes no token request
      assert.strictEqual(
        McpTokenStore.current(Option.getOrThrow(yield* fleet[0].store.get(normalized))).tokens?.access_token,
        as.issued[1]!.accessToken
      )
      const tokenRequests = as.count("/token")
      yield* fleet[2].whoami
      assert.strictEqual(as.count("/token"), tokenRequests)
    }))

  it.live(
    "three separate processes with an expired access token connect at once: one refresh request, all connect, none left",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.make
        const as = yield* OAuthServer.make({})
        // the login of an operator, through the same Redis
        const operator = yield* processOn(redis.url, as)
        yield* McpAuthorization.login(operator.server).pipe(
          Effect.provideService(McpClientFactory.McpClientFactory, operator.factory),
          Effect.provideService(McpTokenStore.McpTokenStore, operator.store),
          Effect.provide(OAuthServer.headless().layer)
        )
        const normalized = McpTokenStore.normalizeKey(as.url)
        const stored = Option.getOrThrow(yield* operator.store.get(normalized))
        as.expireAccessTokens()
        yield* operator.store.set(
          normalized,
          McpTokenStore.updateCredentials(
            stored,
            stored.issuer!,
            (c) => ({ ...c, tokens: { ...c.tokens!, expires_at: 0 } })
          )
        )
        const apps = yield* Effect.forEach([1, 2, 3], () => startApp({ REDIS_URL: redis.url, SERVER_URL: as.url }))
        yield* Effect.forEach(apps, (app) => app.ready, { concurrency: "unbounded", discard: true })
        yield* Effect.forEach(apps, (app) => app.go, { discard: true })
        const results = yield* Effect.forEach(apps, (app) => app.result, { concurrency: "unbounded" })
        for (const result of results) {
          assert.include(result.answer, `client ${as.registered[0]!.client_id} scope`, result.stderr)
        }
        assert.strictEqual(refreshes(as), 1)
        assert.strictEqual(
          new Set(results.map((result) => result.pid)).size,
          3
        )
        // no token in any process's output
        for (const result of results) {
          for (const issued of as.issued) {
            assert.notInclude(result.stderr, issued.accessToken)
            if (issued.refreshToken !== undefined) assert.notInclude(result.stderr, issued.refreshToken)
          }
        }
        assert.deepStrictEqual(Processes.livePids(apps.map((app) => app.pid)), [])
      })
  )

  it.live("Redis stopped: every operation fails with McpTokenStoreError, without a stored value; a connect fails and does not wait", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const as = yield* OAuthServer.make({})
      const instance = yield* processOn(redis.url, as)
      yield* instance.store.set(key, entry)
      yield* redis.stop
      const failures = [
        yield* Effect.flip(instance.store.get(key)),
        yield* Effect.flip(instance.store.set(key, entry)),
        yield* Effect.flip(instance.store.remove(key)),
        yield* Effect.flip(instance.store.keys),
        yield* Effect.flip(instance.store.withLock(key, Effect.void))
      ]
      for (const error of failures) {
        assert.strictEqual(error._tag, "McpTokenStoreError")
        assert.strictEqual(error.reason, "Unavailable")
        assert.match(error.message, /cannot (read|write|remove|list|lock) in Redis: unavailable/)
        assert.notInclude(error.message, accessSecret)
        assert.notInclude(error.message, refreshSecret)
      }
      assert.strictEqual(failures[0]!.key, key)
      // the connect renews under the lock, which Redis cannot give: the server is unavailable, with the reason
      const error = yield* Effect.flip(Effect.scoped(instance.factory.connect(instance.server)))
      assert.strictEqual(error.reason, "Unauthorized")
      assert.include(error.description, "token store")
      assert.include(error.description, "in Redis: unavailable")
      assert.strictEqual(as.count("/token"), 0)
    }))

  it.live("Redis frozen: get, set and withLock fail with McpTokenStoreError after operationTimeout instead of waiting", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const store = yield* storeOn(redis.url, undefined, { operationTimeout: "200 millis" })
      yield* store.set(key, entry)
      yield* redis.freeze
      const failures = [
        yield* Effect.flip(store.get(key)),
        yield* Effect.flip(store.set(key, entry)),
        yield* Effect.flip(store.withLock(key, Effect.void))
      ]
      yield* redis.thaw
      for (const error of failures) {
        assert.strictEqual(error._tag, "McpTokenStoreError")
        assert.strictEqual(error.reason, "Timeout")
        assert.match(error.message, /cannot (read|write|lock) in Redis: no answer in time/)
      }
      // back: the entry is still there
      assert.deepStrictEqual(yield* store.get(key), Option.some(entry))
    }))

  it.effect("a Redis command times out also where it cannot be interrupted (the acquire of withLock), without waiting for its reply", () =>
    Effect.gen(function*() {
      // a reply that never comes: before, the timeout waited for it, so withLock on a frozen Redis took ioredis's own timeout
      const fiber = yield* RedisLock.command("lock:k", "200 millis", () => new Promise<never>(() => {})).pipe(
        Effect.uninterruptible,
        Effect.flip,
        Effect.forkChild
      )
      yield* TestClock.adjust("200 millis")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.reason, "Timeout")
    }))
})

describe("RedisTokenStore: tokens at rest", () => {
  const sealedKey = Redacted.make("a-random-key-of-the-fleet-0123456789abcdef")

  it.live("with an encryptionKey, Redis holds no token, client or issuer in any form; a process with the same key reads the entry", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const first = yield* storeOn(redis.url, { encryptionKey: sealedKey })
      const second = yield* storeOn(redis.url, { encryptionKey: sealedKey })
      yield* first.set(key, entry)
      const raw = yield* rawClient(redis.url)
      const stored = (yield* Effect.promise(() => raw.get(`zett:mcp-tokens:${key}`)))!
      assert.match(stored, /^zett:aes-256-gcm:[A-Za-z0-9+/=]+$/)
      const decoded = Buffer.from(stored.slice("zett:aes-256-gcm:".length), "base64").toString("latin1")
      for (const secret of [accessSecret, refreshSecret, "dcr-1", issuer]) {
        for (const form of [secret, Buffer.from(secret).toString("base64"), encodeURIComponent(secret)]) {
          assert.notInclude(stored, form)
          assert.notInclude(decoded, form)
        }
      }
      assert.deepStrictEqual(yield* second.get(key), Option.some(entry))
    }))

  it.live("an entry sealed for one key is absent, with a warning, to a store with another key, to one without a key, and under another server's key", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const sealed = yield* storeOn(redis.url, { encryptionKey: sealedKey })
      yield* sealed.set(key, entry)
      const logs = captureLogs()
      const other = yield* storeOn(redis.url, {
        encryptionKey: Redacted.make("another-key-of-another-fleet-0123456789")
      })
      assert.isTrue(Option.isNone(yield* other.get(key).pipe(Effect.provide(logs.layer))))
      const plain = yield* storeOn(redis.url)
      assert.isTrue(Option.isNone(yield* plain.get(key).pipe(Effect.provide(logs.layer))))
      // the ciphertext is bound to its key: copied under another server's, it does not open
      const raw = yield* rawClient(redis.url)
      const stored = (yield* Effect.promise(() => raw.get(`zett:mcp-tokens:${key}`)))!
      yield* Effect.promise(() => raw.set("zett:mcp-tokens:https://elsewhere.example/mcp", stored))
      assert.isTrue(Option.isNone(yield* sealed.get("https://elsewhere.example/mcp").pipe(Effect.provide(logs.layer))))
      assert.deepStrictEqual(logs.lines.map((line) => /message="([^"]*)"/.exec(line)?.[1]), [
        `token store: ignoring ${key} in Redis: it cannot be decrypted with this encryptionKey`,
        `token store: ignoring ${key} in Redis: it is encrypted, and this store has no encryptionKey`,
        "token store: ignoring https://elsewhere.example/mcp in Redis: it cannot be decrypted with this encryptionKey"
      ])
    }))

  it.live("with an encryptionKey, an entry in plain text is never used: it is absent, with a warning naming its key and not its value", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      // written as a process without the key would write it: plain JSON
      const planter = yield* storeOn(redis.url)
      yield* planter.set(key, entry)
      const logs = captureLogs()
      const sealed = yield* storeOn(redis.url, { encryptionKey: sealedKey })
      assert.isTrue(Option.isNone(yield* sealed.get(key).pipe(Effect.provide(logs.layer))))
      assert.strictEqual(logs.lines.length, 1)
      assert.include(logs.lines[0]!, "level=WARN")
      assert.include(
        logs.lines[0]!,
        `token store: ignoring ${key} in Redis: it is in plain text, and this store has an encryptionKey`
      )
      for (const secret of [accessSecret, refreshSecret, "dcr-1"]) assert.notInclude(logs.lines[0]!, secret)
      // left as it was: the store neither uses nor seals it
      const raw = yield* rawClient(redis.url)
      assert.deepStrictEqual(JSON.parse((yield* Effect.promise(() => raw.get(`zett:mcp-tokens:${key}`)))!), entry)
    }))

  it.live("a token planted in plain text beside sealed ones never reaches the MCP server: the process logs in anew", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const as = yield* OAuthServer.make()
      const raw = yield* rawClient(redis.url)
      const planted = "planted-access-token-of-an-attacker"
      const plantedEntry: McpTokenStore.Entry = {
        issuer: as.issuer,
        credentials: {
          [as.issuer]: { tokens: { access_token: planted, token_type: "Bearer", expires_at: Date.now() + 3_600_000 } }
        }
      }
      yield* Effect.promise(() =>
        raw.set(`zett:mcp-tokens:${McpTokenStore.normalizeKey(as.url)}`, JSON.stringify(plantedEntry))
      )
      const store = yield* storeOn(redis.url, { encryptionKey: sealedKey })
      const headless = OAuthServer.headless()
      const factory = yield* NodeMcpClientFactory.make({ interactive: true }).pipe(
        Effect.provide(ProcessGroups.layerNone),
        Effect.provideService(McpTokenStore.McpTokenStore, store),
        Effect.provide(headless.layer.pipe(Layer.provideMerge(NodeServices.layer)))
      )
      const server = McpServerConfig.http({ name: "docs", url: as.url, auth: {} })
      const answer = yield* Effect.scoped(
        Effect.flatMap(factory.connect(server), (client) => client.callTool("whoami", {}))
      )
      assert.strictEqual(answer.isError, undefined)
      assert.isFalse(as.requests.some((request) => request.authorization?.includes(planted) === true))
      assert.strictEqual(as.count("/authorize"), 1)
      // the new tokens are sealed in place of the planted ones
      assert.match(
        (yield* Effect.promise(() => raw.get(`zett:mcp-tokens:${McpTokenStore.normalizeKey(as.url)}`)))!,
        /^zett:aes-256-gcm:/
      )
    }))

  it.live("allowPlaintext: \"read-once\" reads a plain entry once, seals it in place and logs its key", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const before = yield* storeOn(redis.url)
      yield* before.set(key, entry)
      const logs = captureLogs()
      const after = yield* storeOn(redis.url, { encryptionKey: sealedKey, allowPlaintext: "read-once" })
      assert.deepStrictEqual(yield* after.get(key).pipe(Effect.provide(logs.layer)), Option.some(entry))
      const raw = yield* rawClient(redis.url)
      assert.match((yield* Effect.promise(() => raw.get(`zett:mcp-tokens:${key}`)))!, /^zett:aes-256-gcm:/)
      // it keeps the lifetime it had
      assert.isAbove(yield* Effect.promise(() => raw.pttl(`zett:mcp-tokens:${key}`)), 29 * 24 * 3_600_000)
      assert.deepStrictEqual(yield* after.get(key).pipe(Effect.provide(logs.layer)), Option.some(entry))
      assert.strictEqual(logs.lines.length, 1)
      assert.include(logs.lines[0]!, `token store: sealed ${key} in Redis, which was in plain text`)
      assert.notInclude(logs.lines.join("\n"), accessSecret)
    }))

  it.live("RedisTokenStore.migrate seals every plain entry once and returns their keys; sealed and invalid ones are left", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const plain = yield* storeOn(redis.url)
      yield* plain.set(key, entry)
      yield* plain.set("https://other.example/mcp", entry)
      const sealedStore = yield* storeOn(redis.url, { encryptionKey: sealedKey })
      yield* sealedStore.set("https://sealed.example/mcp", entry)
      const raw = yield* rawClient(redis.url)
      yield* Effect.promise(() => raw.set("zett:mcp-tokens:https://broken.example/mcp", "{not json"))
      const migrate = (yield* Layer.build(McpRedis.layer({ url: redis.url }))).pipe((context) =>
        Effect.provideContext(RedisTokenStore.migrate({ encryptionKey: sealedKey }), context)
      )
      assert.deepStrictEqual(yield* migrate, [key, "https://other.example/mcp"])
      assert.deepStrictEqual(yield* migrate, [])
      for (const name of [key, "https://other.example/mcp", "https://sealed.example/mcp"]) {
        assert.deepStrictEqual(yield* sealedStore.get(name), Option.some(entry))
      }
      assert.strictEqual(
        yield* Effect.promise(() => raw.get("zett:mcp-tokens:https://broken.example/mcp")),
        "{not json"
      )
    }))

  it.live("without a key, the store says at start that tokens are stored in plain text", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const logs = captureLogs()
      yield* storeOn(redis.url).pipe(Effect.provide(logs.layer))
      yield* storeOn(redis.url, { encryptionKey: sealedKey }).pipe(Effect.provide(logs.layer))
      assert.strictEqual(logs.lines.length, 1)
      assert.include(logs.lines[0]!, "level=WARN")
      assert.include(logs.lines[0]!, "OAuth tokens are stored in Redis (zett:mcp-tokens:*) in plain text")
    }))

  it.live("an entry lives as long as its tokens are worth something: its refresh token's own lifetime, else its access token's", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const store = yield* storeOn(redis.url, { refreshTokenLifetime: "7 days" })
      const raw = yield* rawClient(redis.url)
      const pttl = (name: string) => Effect.promise(() => raw.pttl(`zett:mcp-tokens:${name}`))
      const tokens = (extra: Record<string, unknown>): McpTokenStore.Entry => ({
        issuer,
        credentials: { [issuer]: { tokens: { access_token: accessSecret, token_type: "Bearer", ...extra } } }
      })
      yield* store.set("https://a.example", tokens({ refresh_token: refreshSecret }))
      yield* store.set("https://b.example", tokens({ refresh_token: refreshSecret, refresh_token_expires_in: 3_600 }))
      yield* store.set("https://c.example", tokens({ expires_at: Date.now() + 120_000 }))
      yield* store.set("https://d.example", {
        issuer,
        credentials: { [issuer]: { clientInformation: { client_id: "dcr-1", redirect_uris: [] } } }
      })
      const a = yield* pttl("https://a.example")
      assert.isAbove(a, 6 * 24 * 3_600_000)
      assert.isAtMost(a, 7 * 24 * 3_600_000)
      const b = yield* pttl("https://b.example")
      assert.isAbove(b, 3_500_000)
      assert.isAtMost(b, 3_600_000)
      const c = yield* pttl("https://c.example")
      assert.isAbove(c, 0)
      assert.isAtMost(c, 120_000)
      assert.isAbove(yield* pttl("https://d.example"), 6 * 24 * 3_600_000)
    }))
})
