import { assert, describe, it } from "@effect/vitest"
import { McpServerConfig } from "@zett/mcp"
import { McpConfiguration } from "@zett/mcp-config"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as References from "effect/References"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as Utils from "./utils.js"

// Header and env values of every generated file contain this marker; no message or log line may.
const SECRET = "pbt-secret-Q7x1"

type Json = null | boolean | number | string | Array<Json> | { [key: string]: Json }

/** Loads `text` as `/virtual/mcp.json` from an in-memory file system; returns the exit and every log line. */
const load = (text: string, strict: boolean) => {
  const { layer, lines } = Utils.virtualFile(text)
  const exit = Effect.runSyncExit(
    McpConfiguration.fromFile("/virtual/mcp.json", { strict }).pipe(
      Effect.provideService(References.MinimumLogLevel, "All"),
      Effect.provide(layer)
    )
  )
  return { exit, lines }
}

const name = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/)
// no `$`: variables have a property test of their own (McpConfiguration.variables.test.ts)
const plain = (maxLength: number) => fc.string({ maxLength }).filter((s) => !s.includes("$"))
const secretValue = plain(8).map((s) => `${SECRET}${s}`)
const secrets = fc.dictionary(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,10}$/), secretValue, { maxKeys: 3 })

const httpEntry: fc.Arbitrary<{ [key: string]: Json }> = fc.record(
  {
    type: fc.constantFrom("http", "streamable-http"),
    url: fc.constantFrom("https://example.com/mcp", "http://127.0.0.1:3000/mcp"),
    headers: secrets
  },
  { requiredKeys: ["url"] }
)

const stdioEntry: fc.Arbitrary<{ [key: string]: Json }> = fc.record(
  {
    type: fc.constant("stdio"),
    command: fc.constantFrom("node", "npx", "/usr/bin/python3", "C:\\Program Files\\x.exe"),
    args: fc.array(plain(10), { maxLength: 4 }),
    env: secrets,
    cwd: fc.constant("/tmp")
  },
  { requiredKeys: ["command"] }
)

const validFile = fc.record({
  rootKey: fc.constantFrom("servers", "mcpServers"),
  entries: fc.uniqueArray(fc.tuple(name, fc.oneof(httpEntry, stdioEntry)), { selector: ([n]) => n, maxLength: 5 })
})

/** A value of a type a field does not expect; when it replaces a secret, it still holds the secret. */
const wrongValue = (holdsSecret: boolean): fc.Arbitrary<Json> =>
  holdsSecret
    ? fc.constantFrom<Json>([SECRET], { value: SECRET }, 42, true, null, `${SECRET}\r\nX-Injected: 1`)
    : fc.oneof(
      fc.constantFrom<Json>(42, -1.5, true, false, null, "", [], {}, "x".repeat(100_000), "ftp://x", "not a url"),
      fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>
    )

type Mutation = (file: { rootKey: string; entries: Array<[string, { [key: string]: Json }]> }) => string

const serialize = (rootKey: string, entries: ReadonlyArray<readonly [string, Json]>, extra: object = {}) =>
  JSON.stringify({ ...extra, [rootKey]: Object.fromEntries(entries) })

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  // Nothing changed: the file must load.
  fc.constant<Mutation>(({ entries, rootKey }) => serialize(rootKey, entries)),
  // A field of one entry gets a wrong type (secret fields keep their secret inside the wrong type).
  fc.tuple(
    fc.nat(),
    fc.constantFrom("type", "url", "command", "args", "cwd", "headers", "env", "disabled"),
    fc.boolean()
  )
    .chain(([index, field, secretField]) =>
      wrongValue(secretField && (field === "headers" || field === "env")).map(
        (value): Mutation => ({ entries, rootKey }) => {
          if (entries.length === 0) return serialize(rootKey, entries)
          const [entryName] = entries[index % entries.length]!
          const replaced: Json = secretField && (field === "headers" || field === "env")
            ? { Key: value }
            : value
          return serialize(
            rootKey,
            entries.map(([n, e]) => (n === entryName ? [n, { ...e, [field]: replaced }] : [n, e]))
          )
        }
      )
    ),
  // A required key is removed.
  fc.tuple(fc.nat(), fc.constantFrom("url", "command", "type")).map(([index, key]): Mutation => (file) =>
    serialize(
      file.rootKey,
      file.entries.map(([n, e], i) => {
        if (i !== index % Math.max(file.entries.length, 1)) return [n, e]
        const rest = { ...e }
        delete rest[key]
        return [n, rest]
      })
    )
  ),
  // An extra key, known or not.
  fc.tuple(
    fc.nat(),
    fc.oneof(fc.constantFrom("envFile", "autoApprove", "timeout", "url", "command", "headers"), fc.string()),
    fc.jsonValue({ maxDepth: 2 })
  ).map(([index, key, value]): Mutation => ({ entries, rootKey }) =>
    serialize(
      rootKey,
      entries.map(([n, e], i) => [n, i === index % Math.max(entries.length, 1) ? { ...e, [key]: value as Json } : e])
    )
  ),
  // Both root keys.
  fc.constant<Mutation>(({ entries, rootKey }) =>
    serialize(rootKey, entries, { [rootKey === "servers" ? "mcpServers" : "servers"]: {} })
  ),
  // A bad server name, possibly huge.
  fc.constantFrom("", "has space", "dot.ted", "x".repeat(100_000), "ünï", "__proto__", "constructor").map(
    (bad): Mutation => ({ entries, rootKey }) => serialize(rootKey, [...entries, [bad, { command: "node" }]])
  ),
  // A huge secret: must load, and still never be echoed.
  fc.constant<Mutation>(({ entries, rootKey }) =>
    serialize(rootKey, [...entries, ["huge", { url: "https://h.example/mcp", headers: { A: SECRET.repeat(20_000) } }]])
  ),
  // A duplicated name, written as JSON text (JSON.stringify cannot produce it).
  fc.constant<Mutation>(({ rootKey }) => {
    const text = serialize(rootKey, [["dup", { command: "a", env: { K: SECRET } }]])
    return text.replace(/}}$/, `},"dup":{"command":"b","env":{"K":"${SECRET}"}}}}`)
  }),
  // Not JSON: cut, or a stray character.
  fc.tuple(fc.nat(), fc.constantFrom("", "}", "{", ",", "'", "\u0000", "/* c */")).map(
    ([at, insert]): Mutation => ({ entries, rootKey }) => {
      const text = serialize(rootKey, entries)
      const position = at % (text.length + 1)
      return text.slice(0, position) + insert + (insert === "" ? "" : text.slice(position))
    }
  ),
  // Any JSON at all as the root or as the mapping.
  (fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>).chain((value) =>
    fc.constantFrom<Mutation>(
      () => JSON.stringify(value),
      ({ rootKey }) => JSON.stringify({ [rootKey]: value })
    )
  ),
  // Deep nesting.
  fc.integer({ min: 100, max: 5_000 }).map((depth): Mutation => ({ rootKey }) =>
    `{"${rootKey}":{"a":{"command":"n","args":${"[".repeat(depth)}${"]".repeat(depth)}}}}`
  )
)

describe("McpConfiguration (property)", () => {
  it("any mutated file either loads or fails with McpConfigError, never a defect, never a secret (C5) (C8, B2)", () => {
    let loaded = 0
    let failed = 0
    fc.assert(
      fc.property(validFile, mutation, fc.boolean(), (file, mutate, strict) => {
        const text = mutate(file)
        const { exit, lines } = load(text, strict)
        for (const line of lines) assert.notInclude(line, SECRET)
        if (Exit.isSuccess(exit)) {
          loaded++
          for (const server of exit.value.servers) assert.isTrue(Schema.is(McpServerConfig.McpServerConfig)(server))
          for (const skipped of exit.value.skipped) assert.notInclude(skipped.reason, SECRET)
          const warnings = lines.filter((line) => line.includes("level=WARN"))
          if (!strict) assert.strictEqual(warnings.length, exit.value.skipped.length)
          return
        }
        failed++
        const failure = Cause.findErrorOption(exit.cause)
        assert.isTrue(Option.isSome(failure), `not a typed failure: ${Cause.pretty(exit.cause)}`)
        const error = Option.getOrThrow(failure)
        assert.strictEqual(error._tag, "McpConfigError")
        assert.notInclude(error.message, SECRET)
        assert.notInclude(JSON.stringify(error), SECRET)
        assert.isBelow(error.message.length, 400)
      }),
      { numRuns: 400 }
    )
    // Both outcomes were exercised.
    assert.isAbove(loaded, 20)
    assert.isAbove(failed, 20)
  })

  it("unmutated generated files always load, in both modes, with every server (C4) (C5)", () => {
    fc.assert(
      fc.property(validFile, fc.boolean(), ({ entries, rootKey }, strict) => {
        const { exit } = load(serialize(rootKey, entries), strict)
        assert(Exit.isSuccess(exit))
        // JSON.stringify writes integer-like keys first; the servers come in the order of the text.
        assert.deepStrictEqual(exit.value.servers.map((s) => s.name), Object.keys(Object.fromEntries(entries)))
        assert.deepStrictEqual(exit.value.skipped, [])
      }),
      { numRuns: 200 }
    )
  })
})
