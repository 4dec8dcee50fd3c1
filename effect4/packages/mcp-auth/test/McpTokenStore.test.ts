/**
 * The token store. The file layer keeps one 0600 file per server URL (hashed name), writes through a
 * temporary file and a rename, treats a corrupt file as absent with a warning; both layers serialize work per
 * key with `withLock`. The Redis layer's own checks: packages/mcp-redis/test/RedisTokenStore.entries.test.ts.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { McpTokenStore } from "@zett/mcp-auth"
import { captureLogs } from "@zett/testing-core/CapturedLogs"
import * as TempDir from "@zett/testing-core/TempDir"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as PlatformError from "effect/PlatformError"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { entry, garbage, issuer, key } from "./utils/tokenEntries.js"

describe("McpTokenStore", () => {
  it("keys are the URL without query, fragment, user info or trailing slash", () => {
    assert.strictEqual(
      McpTokenStore.normalizeKey("HTTP://User:pw@Example.COM:443/mcp/?token=x#y"),
      "http://example.com:443/mcp"
    )
    assert.strictEqual(McpTokenStore.normalizeKey("https://example.com:443/"), "https://example.com")
  })

  it.effect("memory store keeps copies, lists and removes", () =>
    Effect.gen(function*() {
      const store = yield* McpTokenStore.makeMemory
      const mutable = { ...entry, codeVerifier: "a" }
      yield* store.set(key, mutable)
      mutable.codeVerifier = "changed"
      assert.deepStrictEqual(yield* store.get(key), Option.some({ ...entry, codeVerifier: "a" }))
      assert.deepStrictEqual(yield* store.keys, [key])
      yield* store.remove(key)
      assert.isTrue(Option.isNone(yield* store.get(key)))
    }))

  it.effect("file store writes one 0600 file per server through a rename, and reads it back", () =>
    Effect.gen(function*() {
      const dir = yield* TempDir.make()
      const directory = Path.join(dir, "auth")
      const store = yield* McpTokenStore.makeFile({ directory })
      yield* store.set(key, entry)
      yield* store.set(key, { ...entry, codeVerifier: "second" })
      yield* store.set("http://127.0.0.1:9/other", {})
      const files = Fs.readdirSync(directory).sort()
      assert.strictEqual(files.length, 2)
      for (const file of files) {
        assert.match(file, /^[0-9a-f]{40}\.json$/)
        assert.strictEqual(Fs.statSync(Path.join(directory, file)).mode & 0o777, 0o600)
      }
      assert.strictEqual(Fs.statSync(directory).mode & 0o777, 0o700)
      assert.deepStrictEqual(yield* store.get(key), Option.some({ ...entry, codeVerifier: "second" }))
      assert.deepStrictEqual(
        [...(yield* store.keys)].sort(),
        ["http://127.0.0.1:9/mcp", "http://127.0.0.1:9/other"].sort()
      )
      // a second store on the same folder (another process) sees the same entries
      const again = yield* McpTokenStore.makeFile({ directory })
      assert.deepStrictEqual(yield* again.get(key), Option.some({ ...entry, codeVerifier: "second" }))
      yield* store.remove(key)
      yield* store.remove(key)
      assert.isTrue(Option.isNone(yield* again.get(key)))
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("a corrupt token file is absent, with a warning that names the file and no content", () =>
    Effect.gen(function*() {
      const dir = yield* TempDir.make()
      const store = yield* McpTokenStore.makeFile({ directory: dir })
      yield* store.set(key, entry)
      const file = Path.join(dir, Fs.readdirSync(dir)[0]!)
      Fs.writeFileSync(file, "{\"key\": \"" + key + "\", \"entry\": {\"tokens\": {\"access_token\": 42")
      const logs: Array<string> = []
      const logger = Logger.make(({ message }) => logs.push(String(message)))
      const read = yield* store.get(key).pipe(Effect.provide(Logger.layer([logger])))
      assert.isTrue(Option.isNone(read))
      assert.strictEqual(logs.length, 1)
      assert.include(logs[0], file)
      assert.include(logs[0], "not a valid token file")
      // writing again replaces it
      yield* store.set(key, entry)
      assert.deepStrictEqual(yield* store.get(key), Option.some(entry))
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("an unwritable folder is a McpTokenStoreError without the entry's values", () =>
    Effect.gen(function*() {
      const dir = yield* TempDir.make()
      const blocker = Path.join(dir, "file")
      Fs.writeFileSync(blocker, "")
      const store = yield* McpTokenStore.makeFile({ directory: Path.join(blocker, "auth") })
      const error = yield* Effect.flip(store.set(key, entry))
      assert.strictEqual(error._tag, "McpTokenStoreError")
      assert.strictEqual(error.reason, "Unavailable")
      assert.include(error.message, key)
      assert.notInclude(error.message, "at-1")
      assert.notInclude(error.message, "rt-1")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("withLock runs one effect per key at a time, other keys in parallel", () =>
    Effect.gen(function*() {
      const store = yield* McpTokenStore.makeMemory
      const order: Array<string> = []
      const step = (name: string, k: string) =>
        store.withLock(
          k,
          Effect.gen(function*() {
            order.push(`${name}:start`)
            yield* Effect.yieldNow
            yield* Effect.yieldNow
            order.push(`${name}:end`)
          })
        )
      yield* Effect.all([step("a", "k1"), step("b", "k1"), step("c", "k2")], { concurrency: "unbounded" })
      const a = order.indexOf("a:end")
      const b = order.indexOf("b:start")
      assert.isTrue(a < b, order.join(","))
      // k2 did not wait for both of k1's
      assert.isTrue(order.indexOf("c:start") < order.indexOf("b:start"), order.join(","))
    }))

  it.effect("a token folder and files open to other users are made 0700 and 0600 on first use, with a warning naming the mode found", () =>
    Effect.gen(function*() {
      const directory = Path.join(yield* TempDir.make(), "auth")
      yield* Effect.flatMap(McpTokenStore.makeFile({ directory }), (store) => store.set(key, entry))
      const file = Path.join(directory, Fs.readdirSync(directory)[0]!)
      Fs.chmodSync(directory, 0o777)
      Fs.chmodSync(file, 0o644)
      const logs = captureLogs()
      const store = yield* McpTokenStore.makeFile({ directory })
      assert.deepStrictEqual(yield* store.get(key).pipe(Effect.provide(logs.layer)), Option.some(entry))
      assert.strictEqual(Fs.statSync(directory).mode & 0o777, 0o700)
      assert.strictEqual(Fs.statSync(file).mode & 0o777, 0o600)
      assert.deepStrictEqual(logs.lines.map((line) => `${line.level} ${line.message}`), [
        `WARN token store: ${directory} had mode 0777, open to other users: changed to 0700`,
        `WARN token store: ${file} had mode 0644, open to other users: changed to 0600`
      ])
      // checked once: a later change by someone else is not watched, and nothing more is logged
      yield* store.keys.pipe(Effect.provide(logs.layer))
      assert.strictEqual(logs.lines.length, 2)
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("a private token folder is used without a warning", () =>
    Effect.gen(function*() {
      const directory = Path.join(yield* TempDir.make(), "auth")
      const logs = captureLogs()
      const store = yield* McpTokenStore.makeFile({ directory })
      yield* store.set(key, entry).pipe(Effect.provide(logs.layer))
      const again = yield* McpTokenStore.makeFile({ directory })
      assert.deepStrictEqual(yield* again.get(key).pipe(Effect.provide(logs.layer)), Option.some(entry))
      assert.deepStrictEqual(logs.lines, [])
      assert.strictEqual(Fs.statSync(directory).mode & 0o777, 0o700)
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("a token folder open to others whose mode cannot be changed (another user's) fails every operation, naming it and why", () =>
    Effect.gen(function*() {
      const directory = Path.join(yield* TempDir.make(), "auth")
      Fs.mkdirSync(directory)
      Fs.chmodSync(directory, 0o775)
      // root may change any mode: the refusal a user meets on another user's folder is played by the file system
      const notOwner = Layer.effect(
        FileSystem.FileSystem,
        Effect.map(FileSystem.FileSystem, (fs) => ({
          ...fs,
          chmod: (path: string) =>
            Effect.fail(
              PlatformError.systemError({
                _tag: "PermissionDenied",
                module: "FileSystem",
                method: "chmod",
                pathOrDescriptor: path,
                description: "operation not permitted"
              })
            )
        }))
      ).pipe(Layer.provide(NodeServices.layer))
      const store = yield* McpTokenStore.makeFile({ directory }).pipe(Effect.provide(notOwner))
      const expected =
        `token store: cannot make ${directory} private: its mode is 0775, and changing it failed (PermissionDenied)`
      for (const operation of [store.get(key), store.set(key, entry), store.remove(key), store.keys]) {
        const error = yield* Effect.flip(operation)
        assert.strictEqual(error._tag, "McpTokenStoreError")
        assert.strictEqual(error.reason, "Insecure")
        assert.strictEqual(error.message, expected)
      }
      assert.deepStrictEqual(Fs.readdirSync(directory), [])
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("a token file whose entry has wrong types where the SDK reads, or nests 10,000 levels deep, is absent with a warning", () =>
    Effect.gen(function*() {
      const directory = yield* TempDir.make()
      const store = yield* McpTokenStore.makeFile({ directory })
      yield* store.set(key, entry)
      const file = Path.join(directory, Fs.readdirSync(directory)[0]!)
      for (const text of garbage) {
        Fs.writeFileSync(file, `{"key":${JSON.stringify(key)},"entry":${text}}`)
        const logs = captureLogs()
        assert.isTrue(Option.isNone(yield* store.get(key).pipe(Effect.provide(logs.layer))), text.slice(0, 80))
        assert.deepStrictEqual(logs.lines.map((line) => line.message), [
          `token store: ignoring ${file}: not a valid token file`
        ])
      }
      // writing again replaces it
      yield* store.set(key, entry)
      assert.deepStrictEqual(yield* store.get(key), Option.some(entry))
    }).pipe(Effect.provide(NodeServices.layer)))
})

describe("token files of Zett 0.1 (one set of credentials per server)", () => {
  const legacy = (entry: Record<string, unknown>) => JSON.stringify({ key, entry })
  const tokens = { access_token: "at-old", token_type: "Bearer", refresh_token: "rt-old", expires_at: 5_000 }
  const client = { client_id: "dcr-old", redirect_uris: ["http://127.0.0.1:1/callback"] }

  it.effect("are read as the credentials of the issuer of their discovery state, and written back in the new shape", () =>
    Effect.gen(function*() {
      const directory = yield* TempDir.make()
      const store = yield* McpTokenStore.makeFile({ directory })
      yield* store.set(key, {})
      const file = Path.join(directory, Fs.readdirSync(directory)[0]!)
      Fs.writeFileSync(file, legacy({ tokens, clientInformation: client, discoveryState: entry.discoveryState }))
      const read = Option.getOrThrow(yield* store.get(key))
      assert.strictEqual(read.issuer, issuer)
      assert.deepStrictEqual(McpTokenStore.current(read), { tokens, clientInformation: client })
      assert.deepStrictEqual(read.discoveryState, entry.discoveryState)
      yield* McpTokenStore.modify(store, key, (same) => same)
      const written = JSON.parse(Fs.readFileSync(file, "utf8")) as { entry: Record<string, unknown> }
      assert.deepStrictEqual(Object.keys(written.entry).sort(), ["credentials", "discoveryState", "issuer"])
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("an issuer the SDK stamped on the tokens wins over the discovery state", () =>
    Effect.gen(function*() {
      const directory = yield* TempDir.make()
      const store = yield* McpTokenStore.makeFile({ directory })
      yield* store.set(key, {})
      const file = Path.join(directory, Fs.readdirSync(directory)[0]!)
      Fs.writeFileSync(
        file,
        legacy({ tokens: { ...tokens, issuer: "https://stamped.example" }, discoveryState: entry.discoveryState })
      )
      const read = Option.getOrThrow(yield* store.get(key))
      assert.strictEqual(read.issuer, "https://stamped.example")
      assert.strictEqual(McpTokenStore.current(read).tokens?.access_token, "at-old")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("credentials of no known authorization server are dropped, so no server is shown another's", () =>
    Effect.gen(function*() {
      const directory = yield* TempDir.make()
      const store = yield* McpTokenStore.makeFile({ directory })
      yield* store.set(key, {})
      const file = Path.join(directory, Fs.readdirSync(directory)[0]!)
      Fs.writeFileSync(file, legacy({ tokens, clientInformation: client, codeVerifier: "v" }))
      assert.deepStrictEqual(yield* store.get(key), Option.some({ codeVerifier: "v" }))
    }).pipe(Effect.provide(NodeServices.layer)))
})
