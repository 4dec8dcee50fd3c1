/**
 * The configuration service while running, on a disk whose answers a test sets: when a request re-reads the
 * file, what a failing stat or read gives, and every line and span it writes (found by mutation testing of
 * McpConfiguration.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import { McpServerConfig } from "@zett/mcp"
import { McpConfiguration } from "@zett/mcp-config"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as PlatformError from "effect/PlatformError"
import * as References from "effect/References"
import * as Utils from "./utils.js"

const path = "/p/mcp.json"

/** One file whose state a test changes between requests; every stat and read is counted. */
const disk = (text: string | undefined) => {
  const state = {
    text,
    mtime: Option.some(1_700_000_000_000) as Option.Option<number>,
    size: undefined as number | undefined,
    directory: false,
    statError: undefined as PlatformError.PlatformError | undefined,
    readError: undefined as PlatformError.PlatformError | undefined,
    defect: false,
    stats: 0,
    reads: 0
  }
  const notFound = (method: string) =>
    PlatformError.systemError({ module: "FileSystem", method, _tag: "NotFound", pathOrDescriptor: path })
  const info = (): FileSystem.File.Info =>
    Utils.fileInfo({
      type: state.directory ? "Directory" : "File",
      mtime: Option.map(state.mtime, (ms) => new Date(ms)),
      size: state.size ?? state.text?.length ?? 0
    })
  const layer = Layer.merge(
    FileSystem.layerNoop({
      stat: () =>
        Effect.suspend(() => {
          state.stats++
          if (state.defect) return Effect.die(new Error("disk on fire"))
          if (state.statError !== undefined) return Effect.fail(state.statError)
          return state.text === undefined && !state.directory ? Effect.fail(notFound("stat")) : Effect.succeed(info())
        }),
      readFileString: () =>
        Effect.suspend(() => {
          state.reads++
          if (state.readError !== undefined) return Effect.fail(state.readError)
          return state.text === undefined ? Effect.fail(notFound("readFileString")) : Effect.succeed(state.text)
        })
    }),
    Path.layer
  )
  return { state, layer }
}

const permissionDenied = (method: string) =>
  PlatformError.systemError({ module: "FileSystem", method, _tag: "PermissionDenied", pathOrDescriptor: path })
const badArgument = (method: string) => PlatformError.badArgument({ module: "FileSystem", method, description: "bad" })

/** Every log line's level, message and annotations, debug included. */
const recording = () => {
  const lines: Array<
    { readonly level: string; readonly message: unknown; readonly annotations: Record<string, unknown> }
  > = []
  const logger = Logger.make(({ fiber, logLevel, message }) =>
    void lines.push({
      level: logLevel.toUpperCase(),
      message: Array.isArray(message) && message.length === 1 ? message[0] : message,
      annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }
    })
  )
  const layer = Layer.merge(Logger.layer([logger]), Layer.succeed(References.MinimumLogLevel, "Debug"))
  const messages = (level?: string) =>
    lines.filter((line) => level === undefined || line.level === level).map((line) => line.message)
  return { lines, layer, messages }
}

/** A definition whose tool prefix the configuration chose, as `withPrefix` makes them. */
const prefixed = (server: McpServerConfig.McpServerConfig, toolPrefix: string): McpServerConfig.McpServerConfig => {
  if (server._tag === "McpHttpServer") {
    const { _tag, ...fields } = server
    return new McpServerConfig.McpHttpServer({ ...fields, toolPrefix })
  }
  const { _tag, ...fields } = server
  return new McpServerConfig.McpStdioServer({ ...fields, toolPrefix })
}

const json = (servers: Record<string, unknown>) => JSON.stringify({ servers })
const names = (servers: ReadonlyArray<McpServerConfig.McpServerConfig>) => servers.map((server) => server.name)
const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  assert(Exit.isFailure(exit), "succeeded")
  return Option.getOrThrow(Cause.findErrorOption(exit.cause))
}

describe("McpConfiguration, while running", () => {
  it.effect("a disk without modification times makes every request read the file again", () =>
    Effect.gen(function*() {
      const { layer, state } = disk(json({ a: { command: "node" } }))
      state.mtime = Option.none()
      const config = yield* McpConfiguration.make({ configPath: path }).pipe(Effect.provide(layer))
      assert.strictEqual(state.reads, 1)
      state.text = json({ b: { command: "node" } })
      state.size = json({ a: { command: "node" } }).length
      assert.deepStrictEqual(names((yield* config.current).servers), ["b"])
      yield* config.current
      assert.deepStrictEqual({ stats: state.stats, reads: state.reads }, { stats: 3, reads: 3 })
    }))

  it.effect("a file that stays missing is not loaded again: a prefix clash is warned once, not per request", () =>
    Effect.gen(function*() {
      const { layer, state } = disk(undefined)
      const logs = recording()
      const explicit = [
        McpServerConfig.stdio({ name: "y", command: "node" }),
        prefixed(McpServerConfig.stdio({ name: "x", command: "node" }), "y")
      ]
      const config = yield* McpConfiguration.make({ configPath: path, servers: explicit }).pipe(
        Effect.provide(Layer.mergeAll(layer, logs.layer))
      )
      const first = yield* config.current.pipe(Effect.provide(logs.layer))
      const second = yield* config.current.pipe(Effect.provide(logs.layer))
      assert.strictEqual(second, first)
      assert.deepStrictEqual(names(second.servers), ["y", "x"])
      assert.strictEqual(logs.messages("WARN").length, 1)
      // the missing file is said once, at the start, not per request
      assert.deepStrictEqual(logs.messages("INFO"), [
        `${path}: no such configuration file; no servers from it until it exists`
      ])
      assert.strictEqual(state.reads, 0)
      assert.strictEqual(state.stats, 3)
    }))

  it.effect("the removed-file line is written once, when a file that was there goes; not for an edit", () =>
    Effect.gen(function*() {
      const { layer, state } = disk(json({ a: { command: "node" } }))
      const logs = recording()
      const config = yield* McpConfiguration.make({ configPath: path }).pipe(Effect.provide(layer))
      state.text = json({ bb: { command: "node" } })
      assert.deepStrictEqual(names((yield* config.current.pipe(Effect.provide(logs.layer))).servers), ["bb"])
      assert.deepStrictEqual(logs.lines, [])

      state.text = undefined
      const gone = yield* config.current.pipe(Effect.provide(logs.layer))
      assert.deepStrictEqual(gone, { path, servers: [], skipped: [] })
      yield* config.current.pipe(Effect.provide(logs.layer))
      assert.deepStrictEqual(logs.lines, [{
        level: "INFO",
        message: `${path}: configuration file removed; using no servers from it`,
        annotations: { "mcp.config.path": path }
      }])

      // back again, then an edit: no line
      state.text = json({ c: { command: "node" } })
      assert.deepStrictEqual(names((yield* config.current.pipe(Effect.provide(logs.layer))).servers), ["c"])
      assert.strictEqual(logs.lines.length, 1)
    }))

  it.effect("a configPath that names no file is one info line naming the file; the file is used once it exists", () =>
    Effect.gen(function*() {
      const { layer, state } = disk(undefined)
      const logs = recording()
      const config = yield* McpConfiguration.make({ configPath: path }).pipe(
        Effect.provide(Layer.mergeAll(layer, logs.layer))
      )
      assert.deepStrictEqual(config.servers, [])
      assert.deepStrictEqual(logs.lines, [{
        level: "INFO",
        message: `${path}: no such configuration file; no servers from it until it exists`,
        annotations: { "mcp.config.path": path }
      }])
      state.text = json({ a: { command: "node" } })
      assert.deepStrictEqual(names((yield* config.current.pipe(Effect.provide(logs.layer))).servers), ["a"])
      assert.strictEqual(logs.lines.length, 1)
    }))

  it.effect("the default file missing (no configPath) writes no line: having none is the usual case", () =>
    Effect.gen(function*() {
      const { layer } = disk(undefined)
      const logs = recording()
      const config = yield* McpConfiguration.make().pipe(
        Effect.provide(Layer.mergeAll(layer, logs.layer)),
        Utils.withEnv(Object.fromEntries([["HOME", "/p"]]))
      )
      assert.deepStrictEqual(config.servers, [])
      assert.strictEqual(config.path, "/p/.zett/mcp.json")
      assert.deepStrictEqual(logs.lines, [])
    }))

  it.effect("a file missing from the start and a removed directory write no removed-file line", () =>
    Effect.gen(function*() {
      const { layer, state } = disk(undefined)
      const logs = recording()
      const config = yield* McpConfiguration.make({ configPath: path }).pipe(Effect.provide(layer))
      state.text = json({ a: { command: "node" } })
      assert.deepStrictEqual(names((yield* config.current.pipe(Effect.provide(logs.layer))).servers), ["a"])
      state.text = undefined
      state.directory = true
      assert.deepStrictEqual(names((yield* config.current.pipe(Effect.provide(logs.layer))).servers), ["a"])
      assert.deepStrictEqual(logs.messages(), [
        `${path}: is a directory, expected a JSON file; keeping the last valid configuration`
      ])
    }))

  it.effect("a stat or read that fails names the file and the system's reason", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<[string, (state: ReturnType<typeof disk>["state"]) => void, string]> = [
        [
          "stat denied",
          (state) => (state.statError = permissionDenied("stat")),
          "cannot read the file (PermissionDenied)"
        ],
        ["stat bad argument", (state) => (state.statError = badArgument("stat")), "cannot read the file"],
        [
          "read denied",
          (state) => (state.readError = permissionDenied("readFileString")),
          "cannot read the file (PermissionDenied)"
        ],
        ["read bad argument", (state) => (state.readError = badArgument("readFileString")), "cannot read the file"],
        ["directory", (state) => (state.directory = true), "is a directory, expected a JSON file"]
      ]
      for (const [name, breakIt, reason] of cases) {
        const { layer, state } = disk(json({ a: { command: "node" } }))
        breakIt(state)
        const error = failureOf(yield* Effect.exit(McpConfiguration.fromFile(path).pipe(Effect.provide(layer))))
        assert.deepStrictEqual([name, error._tag, error.path, error.entry, error.reason, error.description], [
          name,
          "McpConfigError",
          path,
          undefined,
          "Unreadable",
          reason
        ])
        const built = failureOf(
          yield* Effect.exit(McpConfiguration.make({ configPath: path }).pipe(Effect.provide(layer)))
        )
        assert.strictEqual(built.message, `${path}: ${reason}`, name)
      }
    }))

  it.effect("a file deleted between the stat and the read is no servers; the same while running", () =>
    Effect.gen(function*() {
      const { layer, state } = disk(json({ a: { command: "node" } }))
      state.readError = PlatformError.systemError({
        module: "FileSystem",
        method: "readFileString",
        _tag: "NotFound",
        pathOrDescriptor: path
      })
      const explicit = McpServerConfig.stdio({ name: "mine", command: "node" })
      assert.deepStrictEqual(yield* McpConfiguration.fromFile(path).pipe(Effect.provide(layer)), {
        path,
        servers: [],
        skipped: []
      })
      const config = yield* McpConfiguration.make({ configPath: path, servers: [explicit] }).pipe(Effect.provide(layer))
      assert.deepStrictEqual(names(config.servers), ["mine"])
    }))

  it.effect("while running, a failing stat or read keeps the last list and says why, once per version", () =>
    Effect.gen(function*() {
      const { layer, state } = disk(json({ a: { command: "node" } }))
      const logs = recording()
      const config = yield* McpConfiguration.make({ configPath: path }).pipe(Effect.provide(layer))
      state.statError = permissionDenied("stat")
      assert.deepStrictEqual(names((yield* config.current.pipe(Effect.provide(logs.layer))).servers), ["a"])
      state.statError = undefined
      state.readError = badArgument("readFileString")
      state.text = json({ bb: { command: "node" } })
      assert.deepStrictEqual(names((yield* config.current.pipe(Effect.provide(logs.layer))).servers), ["a"])
      assert.deepStrictEqual(names((yield* config.current.pipe(Effect.provide(logs.layer))).servers), ["a"])
      state.defect = true
      assert.deepStrictEqual(names((yield* config.current.pipe(Effect.provide(logs.layer))).servers), ["a"])
      const shown = (message: unknown) => (Array.isArray(message) ? message.map(String) : message)
      assert.deepStrictEqual(logs.lines.map((line) => [line.level, shown(line.message), line.annotations]), [
        [
          "WARN",
          `${path}: cannot read the file (PermissionDenied); keeping the last valid configuration`,
          { "mcp.config.path": path }
        ],
        ["WARN", `${path}: cannot read the file; keeping the last valid configuration`, { "mcp.config.path": path }],
        [
          "WARN",
          [`${path}: cannot check the configuration; keeping the last valid configuration`, "Error: disk on fire"],
          { "mcp.config.path": path }
        ]
      ])
      // mended: the file is read again
      state.defect = false
      state.readError = undefined
      state.text = json({ ccc: { command: "node" } })
      assert.deepStrictEqual(names((yield* config.current).servers), ["ccc"])
    }))

  it.effect("disabled entries are logged at debug; skipped entries at warning, each with the file", () =>
    Effect.gen(function*() {
      const { layer } = disk(json({
        off: { command: "x", disabled: true },
        a: { command: "node" },
        b: { url: 1 },
        gone: { command: "y", disabled: true },
        c: { command: 2 }
      }))
      const logs = recording()
      const snapshot = yield* McpConfiguration.fromFile(path, { strict: false }).pipe(
        Effect.provide(Layer.mergeAll(layer, logs.layer))
      )
      assert.deepStrictEqual(names(snapshot.servers), ["a"])
      assert.deepStrictEqual(snapshot.skipped, [
        { entry: "servers.b.url", server: "b", reason: "expected a URL, got 1" },
        { entry: "servers.c.command", server: "c", reason: "expected a non-empty string, got 2" }
      ])
      assert.deepStrictEqual(logs.lines.map((line) => [line.level, line.message, line.annotations]), [
        ["DEBUG", `${path}: disabled entries left out: off, gone`, { "mcp.config.path": path }],
        ["WARN", `${path}: servers.b.url: expected a URL, got 1 (entry skipped)`, { "mcp.config.path": path }],
        ["WARN", `${path}: servers.c.command: expected a non-empty string, got 2 (entry skipped)`, {
          "mcp.config.path": path
        }]
      ])
    }))

  it.effect("strict mode names the first invalid entry and counts the rest, in the singular for one", () =>
    Effect.gen(function*() {
      const reasons: Array<[string | undefined, string]> = []
      for (
        const servers of [{ b: { url: 1 } }, { b: { url: 1 }, c: { command: 2 } }, {
          b: { url: 1 },
          c: { command: 2 },
          d: {}
        }]
      ) {
        const { layer } = disk(json(servers))
        const error = failureOf(yield* Effect.exit(McpConfiguration.fromFile(path).pipe(Effect.provide(layer))))
        reasons.push([error.entry, error.description])
      }
      assert.deepStrictEqual(reasons, [
        ["servers.b.url", "expected a URL, got 1"],
        ["servers.b.url", "expected a URL, got 1 (and 1 more invalid entry)"],
        ["servers.b.url", "expected a URL, got 1 (and 2 more invalid entries)"]
      ])
    }))

  it.effect("a file entry named like an explicit server: strict fails on it, lenient skips it with a warning", () =>
    Effect.gen(function*() {
      const explicit = McpServerConfig.stdio({ name: "mine", command: "node" })
      const text = json({ a: { command: "node" }, mine: { command: "other" } })
      const strict = failureOf(
        yield* Effect.exit(
          McpConfiguration.make({ configPath: path, servers: [explicit] }).pipe(Effect.provide(disk(text).layer))
        )
      )
      assert.deepStrictEqual([strict.path, strict.entry, strict.reason, strict.description], [
        path,
        "servers.mine",
        "DuplicateName",
        "duplicate server name: also given in the servers option"
      ])
      const logs = recording()
      const config = yield* McpConfiguration.make({ configPath: path, servers: [explicit], strictConfig: false }).pipe(
        Effect.provide(Layer.mergeAll(disk(text).layer, logs.layer))
      )
      assert.deepStrictEqual(names(config.servers), ["a", "mine"])
      assert.strictEqual(config.servers[1], explicit)
      assert.deepStrictEqual(config.skipped, [
        { entry: "servers.mine", server: "mine", reason: "duplicate server name: also given in the servers option" }
      ])
      assert.deepStrictEqual(logs.messages(), [
        `${path}: servers.mine: duplicate server name: also given in the servers option (entry skipped)`
      ])
    }))

  it.effect("the explicit list alone: a repeated name fails; a prefix clash is told apart with a warning", () =>
    Effect.gen(function*() {
      const a = McpServerConfig.stdio({ name: "a", command: "node" })
      const twice = failureOf(
        yield* Effect.exit(
          McpConfiguration.make({ servers: [a, McpServerConfig.stdio({ name: "b", command: "x" }), a] })
        )
      )
      assert.deepStrictEqual([twice.path, twice.entry, twice.reason, twice.description], [
        "servers option",
        "a",
        "DuplicateName",
        "duplicate server name"
      ])

      const logs = recording()
      const config = yield* McpConfiguration.make({
        servers: [a, prefixed(McpServerConfig.stdio({ name: "b", command: "node" }), "a")]
      }).pipe(Effect.provide(logs.layer))
      assert.strictEqual(config.path, undefined)
      assert.deepStrictEqual(config.skipped, [])
      const other = McpServerConfig.toolPrefix(config.servers[1]!)
      assert.notStrictEqual(other, "a")
      assert.deepStrictEqual(logs.messages(), [
        `servers option: the servers "a" and "b" map to one tool prefix (a); the tools of "b" are named ${other}__<tool>`
      ])
      const snapshot = yield* config.current
      assert.deepStrictEqual(snapshot, { path: undefined, servers: config.servers, skipped: [] })
      assert.strictEqual(yield* config.current, snapshot)
    }).pipe(Effect.provide(disk(undefined).layer)))

  it.effect("prefix clashes: the first server keeps the prefix, the warning names it, a new prefix takes no one else's", () =>
    Effect.gen(function*() {
      // the prefix the second "x" would get first ("x#2" sanitised) is the name of a server written after it
      const x2 = McpServerConfig.toolPrefix(McpServerConfig.stdio({ name: "x#2", command: "node" }))
      const servers = [
        McpServerConfig.stdio({ name: "y", command: "node" }),
        prefixed(McpServerConfig.http({ name: "x", url: "https://x.example/mcp" }), "y"),
        prefixed(McpServerConfig.stdio({ name: "z", command: "node" }), "y"),
        McpServerConfig.stdio({ name: x2, command: "node" })
      ]
      const logs = recording()
      const config = yield* McpConfiguration.make({ servers }).pipe(Effect.provide(logs.layer))
      const prefixes = config.servers.map(McpServerConfig.toolPrefix)
      const x3 = McpServerConfig.toolPrefix(McpServerConfig.stdio({ name: "x#3", command: "node" }))
      const z2 = McpServerConfig.toolPrefix(McpServerConfig.stdio({ name: "z#2", command: "node" }))
      assert.deepStrictEqual(prefixes, ["y", x3, z2, x2])
      assert.strictEqual(config.servers[1]!._tag, "McpHttpServer")
      assert.deepStrictEqual(config.servers.map((server) => server.name), ["y", "x", "z", x2])
      assert.deepStrictEqual(logs.messages(), [
        `servers option: the servers "y" and "x" map to one tool prefix (y); the tools of "x" are named ${x3}__<tool>`,
        `servers option: the servers "y" and "z" map to one tool prefix (y); the tools of "z" are named ${z2}__<tool>`
      ])
    }).pipe(Effect.provide(disk(undefined).layer)))

  it.effect("combine tells apart names of one prefix, naming the files in the warning", () =>
    Effect.gen(function*() {
      const logs = recording()
      const combined = yield* McpConfiguration.combine([
        { path: "/a.json", servers: [McpServerConfig.stdio({ name: "y", command: "node" })], skipped: [] },
        {
          path: "/b.json",
          servers: [prefixed(McpServerConfig.stdio({ name: "x", command: "node" }), "y")],
          skipped: []
        }
      ]).pipe(Effect.provide(logs.layer))
      const other = McpServerConfig.toolPrefix(combined.servers[1]!)
      assert.notStrictEqual(other, "y")
      // snapshots of code alone: the warning names the servers option
      const code = yield* McpConfiguration.combine([
        { path: undefined, servers: [McpServerConfig.stdio({ name: "y", command: "node" })], skipped: [] },
        {
          path: undefined,
          servers: [prefixed(McpServerConfig.stdio({ name: "x", command: "node" }), "y")],
          skipped: []
        }
      ]).pipe(Effect.provide(logs.layer))
      assert.strictEqual(code.path, undefined)
      assert.deepStrictEqual(logs.messages(), [
        `/a.json, /b.json: the servers "y" and "x" map to one tool prefix (y); the tools of "x" are named ${other}__<tool>`,
        `servers option: the servers "y" and "x" map to one tool prefix (y); the tools of "x" are named ${other}__<tool>`
      ])
    }))

  it.effect("spans: McpConfiguration.fromFile, and McpConfiguration.current with the file's path", () =>
    Effect.gen(function*() {
      const { spans, tracer } = yield* Utils.recordingTracer
      const { layer } = disk(json({ a: { command: "node" } }))
      yield* McpConfiguration.fromFile(path).pipe(Effect.provide(layer), Effect.withTracer(tracer))
      const config = yield* McpConfiguration.make({ configPath: path }).pipe(Effect.provide(layer))
      yield* config.current.pipe(Effect.withTracer(tracer))
      assert.deepStrictEqual(
        spans.map((
          span
        ) => [span.name, Object.fromEntries([...span.attributes].filter(([key]) => key !== "code.stacktrace"))]),
        [["McpConfiguration.fromFile", {}], ["McpConfiguration.current", { "mcp.config.path": path }]]
      )
    }))
})
