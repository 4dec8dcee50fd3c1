/**
 * Entry by entry: what the `oauth` / `auth` and `resources` keys of an entry load as, and
 * the file, entry and description of each refusal (found by mutation testing of internal/config.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import { McpServerConfig } from "@zett/mcp"
import { McpConfiguration } from "@zett/mcp-config"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Utils from "./utils.js"

// a file that does not say who wrote it: every variable form expands, in every field
const PATH = "/p/mcp.json"
const URL_ = "https://s.example/mcp"
const SECRET = "entries-client-secret-Q4w"
const KEY = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAAentries\n-----END PRIVATE KEY-----"

const load = (entry: unknown, vars: Record<string, string> = {}) => {
  const { layer } = Utils.virtualFile(JSON.stringify({ mcpServers: { s: entry } }))
  return McpConfiguration.fromFile(PATH).pipe(
    Utils.withEnv(vars),
    Effect.provide(layer)
  )
}

const serverOf = (entry: unknown) =>
  Effect.map(load(entry), (snapshot) => {
    assert.strictEqual(snapshot.servers.length, 1)
    return snapshot.servers[0]!
  })

const authOf = (oauth: unknown, key: "oauth" | "auth" = "oauth") =>
  Effect.map(serverOf({ url: URL_, [key]: oauth }), (server) => {
    assert.strictEqual(server._tag, "McpHttpServer")
    return (server as McpServerConfig.McpHttpServer).auth
  })

/** The file, entry and description of the error an entry is refused with. */
const refusalOf = (entry: unknown) =>
  Effect.map(Effect.flip(load(entry)), (error) => {
    assert.notInclude(error.message, SECRET)
    return [error.path, error.entry, error.description]
  })

describe("oauth / auth entries", () => {
  it.effect("a redirectPort or callbackPort is an integer from 0 to 65535", () =>
    Effect.gen(function*() {
      for (const key of ["redirectPort", "callbackPort"]) {
        for (const port of [0, 65535]) {
          const auth = yield* authOf({ [key]: port })
          assert.deepStrictEqual(auth, new McpServerConfig.AuthorizationCode({ redirectPort: port }), `${key} ${port}`)
        }
        for (const port of [-1, 1.5, 65536]) {
          assert.deepStrictEqual(
            yield* refusalOf({ url: URL_, oauth: { [key]: port } }),
            [PATH, `mcpServers.s.oauth.${key}`, `expected a port number (0 to 65535), got ${port}`],
            `${key} ${port}`
          )
        }
      }
    }))

  it.effect("under oauth or under auth, an error names that key and the field", () =>
    Effect.gen(function*() {
      const unset = "the variable U is not set and has no default"
      const cc = { grant: "client_credentials", clientId: "robot" }
      const cases: ReadonlyArray<readonly [Record<string, unknown>, string, string]> = [
        [{ clientId: "${U}" }, ".clientId", unset],
        [{ clientSecret: "${U}" }, ".clientSecret", unset],
        [{ ...cc, privateKey: "${U}", algorithm: "RS256" }, ".privateKey", unset],
        [{ scopes: ["read", "${U}"] }, ".scopes[1]", unset],
        [{ clientMetadataUrl: "https://app.example/${U}.json" }, ".clientMetadataUrl", unset],
        [{ redirectUri: "http://localhost:${U}/callback" }, ".redirectUri", unset],
        [
          { grant: "client_credentials", clientSecret: SECRET },
          ".clientId",
          "missing (client_credentials needs a client)"
        ],
        [cc, "", "client_credentials needs either clientSecret or privateKey"],
        [
          { ...cc, clientSecret: SECRET, privateKey: KEY, algorithm: "RS256" },
          "",
          "client_credentials needs either clientSecret or privateKey"
        ],
        [{ ...cc, privateKey: KEY }, ".algorithm", "missing (privateKey needs an algorithm such as RS256)"],
        [{ privateKey: KEY }, ".privateKey", "only used with \"grant\": \"client_credentials\""],
        [
          { grant: "authorization_code", privateKey: KEY, algorithm: "RS256" },
          ".privateKey",
          "only used with \"grant\": \"client_credentials\""
        ]
      ]
      for (const key of ["oauth", "auth"]) {
        for (const [oauth, field, reason] of cases) {
          assert.deepStrictEqual(
            yield* refusalOf({ url: URL_, [key]: oauth }),
            [PATH, `mcpServers.s.${key}${field}`, reason],
            `${key} ${JSON.stringify(oauth)}`
          )
        }
      }
      assert.deepStrictEqual(yield* refusalOf({ url: URL_, oauth: {}, auth: {} }), [
        PATH,
        "mcpServers.s.auth",
        "both oauth and auth are given; use one"
      ])
    }))

  it.effect("client_credentials loads with a secret or with a key and its algorithm, and only what was given", () =>
    Effect.gen(function*() {
      for (const key of ["oauth", "auth"] as const) {
        const basic = yield* authOf({
          grant: "client_credentials",
          clientId: "robot",
          clientSecret: SECRET,
          scopes: ["read", "write"]
        }, key)
        assert.deepStrictEqual(
          basic,
          new McpServerConfig.ClientCredentials({
            clientId: "robot",
            clientSecret: Redacted.make(SECRET),
            scopes: ["read", "write"]
          })
        )
        assert.strictEqual(
          basic?._tag === "ClientCredentials" ? Redacted.value(basic.clientSecret!) : undefined,
          SECRET
        )
        const jwt = yield* authOf({
          grant: "client_credentials",
          clientId: "robot",
          privateKey: KEY,
          algorithm: "ES256"
        }, key)
        assert.deepStrictEqual(
          jwt,
          new McpServerConfig.ClientCredentials({
            clientId: "robot",
            privateKey: Redacted.make(KEY),
            algorithm: "ES256"
          })
        )
        assert.strictEqual(jwt?._tag === "ClientCredentials" ? Redacted.value(jwt.privateKey!) : undefined, KEY)
      }
    }))

  it.effect("authorization_code loads every field given, and only those", () =>
    Effect.gen(function*() {
      const full = {
        clientId: "zett-app",
        clientSecret: SECRET,
        scopes: ["mcp:tools"],
        clientMetadataUrl: "https://app.example/client.json",
        redirectPort: 8765
      }
      for (const [key, oauth] of [["oauth", full], ["auth", { grant: "authorization_code", ...full }]] as const) {
        const auth = yield* authOf(oauth, key)
        assert.deepStrictEqual(
          auth,
          new McpServerConfig.AuthorizationCode({ ...full, clientSecret: Redacted.make(SECRET) }),
          key
        )
        assert.strictEqual(auth?._tag === "AuthorizationCode" ? Redacted.value(auth.clientSecret!) : undefined, SECRET)
      }
      assert.deepStrictEqual(yield* authOf({}), new McpServerConfig.AuthorizationCode({}))
    }))

  it.effect("the redirect port is redirectPort, else callbackPort, else the port redirectUri names", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Record<string, unknown>, number | undefined]> = [
        [{ redirectPort: 8765, redirectUri: "http://localhost:7777/oauth/callback" }, 8765],
        [{ callbackPort: 8766, redirectUri: "http://localhost:7777/oauth/callback" }, 8766],
        [{ redirectPort: 8765, callbackPort: 8766 }, 8765],
        [{ callbackPort: 8766 }, 8766],
        [{ redirectUri: "http://localhost:7777/oauth/callback" }, 7777],
        // no port, the scheme's own port, or no URL at all: no fixed port
        [{ redirectUri: "http://localhost/oauth/callback" }, undefined],
        [{ redirectUri: "https://localhost:443/oauth/callback" }, undefined],
        [{ redirectUri: "not a url" }, undefined]
      ]
      for (const [oauth, port] of cases) {
        const expected = new McpServerConfig.AuthorizationCode(port === undefined ? {} : { redirectPort: port })
        assert.deepStrictEqual(yield* authOf(oauth), expected, JSON.stringify(oauth))
      }
    }))

  it.effect("an entry without oauth, or with oauth disabled, is the definition McpServerConfig.http gives", () =>
    Effect.gen(function*() {
      const plain = McpServerConfig.http({ name: "s", url: URL_ })
      assert.deepStrictEqual(yield* serverOf({ url: URL_ }), plain)
      assert.deepStrictEqual(yield* serverOf({ url: URL_, oauth: { enabled: false, clientId: "x" } }), plain)
      assert.deepStrictEqual(
        yield* serverOf({ url: URL_, auth: { clientId: "x" } }),
        McpServerConfig.http({ name: "s", url: URL_, auth: new McpServerConfig.AuthorizationCode({ clientId: "x" }) })
      )
    }))
})

describe("resources entries", () => {
  it.effect("\"protocol\" pins a revision on a stdio or HTTP entry; a value that is no revision is refused, naming the choices", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(
        yield* serverOf({ url: URL_, protocol: "2025-11-25" }),
        McpServerConfig.http({ name: "s", url: URL_, protocol: "2025-11-25" })
      )
      assert.deepStrictEqual(
        yield* serverOf({ command: "node", protocol: "2026-07-28" }),
        McpServerConfig.stdio({ name: "s", command: "node", protocol: "2026-07-28" })
      )
      const error = yield* Effect.flip(serverOf({ command: "node", protocol: "2024" }))
      assert.strictEqual(
        error.message,
        "/p/mcp.json: mcpServers.s.protocol: expected \"auto\", \"2026-07-28\" or \"2025-11-25\", got a string"
      )
    }))

  it.effect("\"resources\": \"tools\" reaches the definition of a stdio or HTTP entry; without it there is none", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(
        yield* serverOf({ url: URL_, resources: "tools" }),
        McpServerConfig.http({ name: "s", url: URL_, resources: "tools" })
      )
      assert.deepStrictEqual(
        yield* serverOf({ command: "node", resources: "tools" }),
        McpServerConfig.stdio({ name: "s", command: "node", resources: "tools" })
      )
      assert.deepStrictEqual(
        yield* serverOf({ command: "node" }),
        McpServerConfig.stdio({ name: "s", command: "node" })
      )
      assert.deepStrictEqual(yield* refusalOf({ command: "node", resources: "all" }), [
        PATH,
        "mcpServers.s.resources",
        "expected \"tools\", got a string"
      ])
    }))

  it.effect("\"alwaysLoad\" (true, false or tool names) reaches the definition; anything else names the entry and what was expected", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(
        yield* serverOf({ command: "node", alwaysLoad: ["read_file", "list_directory"] }),
        McpServerConfig.stdio({ name: "s", command: "node", alwaysLoad: ["read_file", "list_directory"] })
      )
      assert.deepStrictEqual(
        yield* serverOf({ url: URL_, alwaysLoad: true }),
        McpServerConfig.http({ name: "s", url: URL_, alwaysLoad: true })
      )
      const listed = yield* serverOf({ command: "node", alwaysLoad: ["read_file"] })
      assert.isTrue(McpServerConfig.alwaysLoads(listed, "read_file"))
      assert.isFalse(McpServerConfig.alwaysLoads(listed, "write_file"))
      for (const wrong of ["all", 1, [1]]) {
        assert.deepStrictEqual(
          (yield* refusalOf({ command: "node", alwaysLoad: wrong })).slice(0, 2),
          [PATH, "mcpServers.s.alwaysLoad"],
          JSON.stringify(wrong)
        )
      }
      assert.match(
        (yield* refusalOf({ command: "node", alwaysLoad: "all" }))[2]!,
        /^expected true, false or an array of tool names, got /
      )
    }))
})
