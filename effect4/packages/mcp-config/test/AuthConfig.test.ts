/**
 * The `auth` option in code and in mcp.json (`oauth` / `auth` keys as Claude Code, Gemini CLI and
 * Zett write them), with the file's variable expansion; secrets stay `Redacted`, out of cache keys and out of
 * every shown form of the definition.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpServerConfig } from "@zett/mcp"
import { McpConfiguration } from "@zett/mcp-config"
import * as Effect from "effect/Effect"
import * as Inspectable from "effect/Inspectable"
import * as Redacted from "effect/Redacted"
import * as Util from "node:util"
import * as Utils from "./utils.js"

const SECRET = "cfg-client-secret-Z81q"
const KEY =
  "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----"

const load = (path: string, servers: Record<string, unknown>, vars: Record<string, string> = {}) => {
  const root = path.includes(".vscode") ? "servers" : "mcpServers"
  const { layer } = Utils.virtualFile(JSON.stringify({ [root]: servers }))
  return McpConfiguration.fromFile(path).pipe(
    Utils.withEnv(vars),
    Effect.provide(layer)
  )
}

const httpOf = (server: McpServerConfig.McpServerConfig) => {
  assert.strictEqual(server._tag, "McpHttpServer")
  return server as McpServerConfig.McpHttpServer
}

describe("auth option", () => {
  it("McpServerConfig.http takes the three forms; secrets are Redacted and absent from every shown form", () => {
    const code = McpServerConfig.http({
      name: "a",
      url: "https://a.example/mcp",
      auth: { clientId: "id", clientSecret: SECRET, scopes: ["x"], redirectPort: 8765 }
    })
    assert.strictEqual(code.auth?._tag, "AuthorizationCode")
    const basic = McpServerConfig.http({
      name: "b",
      url: "https://b.example/mcp",
      auth: { grant: "client_credentials", clientId: "robot", clientSecret: SECRET }
    })
    assert.strictEqual(basic.auth?._tag, "ClientCredentials")
    const jwt = McpServerConfig.http({
      name: "c",
      url: "https://c.example/mcp",
      auth: { grant: "client_credentials", clientId: "robot", privateKey: Redacted.make(KEY), algorithm: "RS256" }
    })
    const provider = {
      get redirectUrl() {
        return undefined
      },
      get clientMetadata() {
        return { redirect_uris: [] }
      },
      clientInformation: () => undefined,
      tokens: () => undefined,
      saveTokens: () => {},
      redirectToAuthorization: () => {},
      saveCodeVerifier: () => {},
      codeVerifier: () => ""
    }
    const custom = McpServerConfig.http({ name: "d", url: "https://d.example/mcp", auth: provider })
    assert.strictEqual(custom.auth?._tag, "CustomProvider")
    // a provider's own fields (tokens, secrets) never show in the definition
    const holding = McpServerConfig.http({
      name: "e",
      url: "https://e.example/mcp",
      auth: { ...provider, secretField: SECRET } as typeof provider
    })
    for (
      const shown of [
        String(holding),
        Util.inspect(holding, { depth: 10 }),
        JSON.stringify(holding),
        Inspectable.toStringUnknown(holding)
      ]
    ) {
      assert.notInclude(shown, SECRET)
      assert.include(shown, "OAuthClientProvider")
    }
    assert.strictEqual(custom.auth?._tag === "CustomProvider" ? custom.auth.provider : undefined, provider)
    const withSecret = (server: McpServerConfig.McpHttpServer) => server === jwt ? KEY : SECRET
    for (const server of [code, basic, jwt]) {
      const shown = [
        String(server),
        Util.inspect(server, { depth: 10 }),
        JSON.stringify(server),
        Inspectable.toStringUnknown(server),
        McpServerConfig.cacheKey(server),
        McpServerConfig.describe(server)
      ].join("\n")
      assert.notInclude(shown, SECRET)
      assert.notInclude(shown, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7")
      const scrubbed = McpServerConfig.scrubberOf(server).scrub(
        `token request failed: ${withSecret(server)} / MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7`
      )
      assert.notInclude(scrubbed, withSecret(server))
      if (server === jwt) assert.notInclude(scrubbed, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7")
    }
    // another secret or client is another cache entry; the same is the same
    const other = McpServerConfig.http({
      name: "b",
      url: "https://b.example/mcp",
      auth: { grant: "client_credentials", clientId: "robot", clientSecret: "x" }
    })
    const same = McpServerConfig.http({
      name: "b",
      url: "https://b.example/mcp",
      auth: { grant: "client_credentials", clientId: "robot", clientSecret: SECRET }
    })
    assert.notStrictEqual(McpServerConfig.cacheKey(other), McpServerConfig.cacheKey(basic))
    assert.strictEqual(McpServerConfig.cacheKey(same), McpServerConfig.cacheKey(basic))
    // a definition without auth keeps the key it had
    const plain = McpServerConfig.http({ name: "b", url: "https://b.example/mcp" })
    assert.notStrictEqual(McpServerConfig.cacheKey(plain), McpServerConfig.cacheKey(basic))
  })

  it.effect("Claude Code's oauth (clientId, callbackPort) with ${VAR} expansion of the secret", () =>
    Effect.gen(function*() {
      const snapshot = yield* load(
        "/p/.mcp.json",
        {
          docs: {
            type: "http",
            url: "https://docs.example/mcp",
            oauth: { clientId: "zett-app", clientSecret: "${DOCS_SECRET}", callbackPort: 8765 }
          }
        },
        { DOCS_SECRET: SECRET }
      )
      const auth = httpOf(snapshot.servers[0]!).auth
      assert.strictEqual(auth?._tag, "AuthorizationCode")
      if (auth?._tag !== "AuthorizationCode") return
      assert.strictEqual(auth.clientId, "zett-app")
      assert.strictEqual(auth.redirectPort, 8765)
      assert.strictEqual(Redacted.value(auth.clientSecret!), SECRET)
      assert.notInclude(Util.inspect(snapshot, { depth: 20 }), SECRET)
    }))

  it.effect("Gemini CLI's oauth (enabled, scopes, redirectUri, endpoint overrides ignored); enabled false is no auth", () =>
    Effect.gen(function*() {
      const snapshot = yield* load("/home/u/.gemini/settings.json", {
        on: {
          httpUrl: "https://on.example/mcp",
          oauth: {
            enabled: true,
            clientId: "$GEM_ID",
            scopes: ["read"],
            redirectUri: "http://localhost:7777/oauth/callback",
            tokenUrl: "https://x/token"
          }
        },
        off: { httpUrl: "https://off.example/mcp", oauth: { enabled: false, clientId: "x" } }
      }, { GEM_ID: "gemini-client" })
      const on = httpOf(snapshot.servers.find((s) => s.name === "on")!).auth
      assert.strictEqual(on?._tag, "AuthorizationCode")
      if (on?._tag !== "AuthorizationCode") return
      assert.strictEqual(on.clientId, "gemini-client")
      assert.deepStrictEqual(on.scopes, ["read"])
      assert.strictEqual(on.redirectPort, 7777)
      assert.isUndefined(httpOf(snapshot.servers.find((s) => s.name === "off")!).auth)
    }))

  it.effect("auth with client_credentials and a private key from ${env:VAR} (VS Code)", () =>
    Effect.gen(function*() {
      const snapshot = yield* load(
        "/p/.vscode/mcp.json",
        {
          m2m: {
            type: "http",
            url: "https://m2m.example/mcp",
            auth: { grant: "client_credentials", clientId: "robot", privateKey: "${env:ROBOT_KEY}", algorithm: "RS256" }
          }
        },
        { ROBOT_KEY: KEY }
      )
      const auth = httpOf(snapshot.servers[0]!).auth
      assert.strictEqual(auth?._tag, "ClientCredentials")
      if (auth?._tag !== "ClientCredentials") return
      assert.strictEqual(Redacted.value(auth.privateKey!), KEY)
      assert.strictEqual(auth.algorithm, "RS256")
    }))

  it.effect("enterprise-managed authorization: the ID token and both secrets from ${env:VAR}, all held as secrets of the definition", () =>
    Effect.gen(function*() {
      const snapshot = yield* load(
        "/p/.vscode/mcp.json",
        {
          corp: {
            type: "http",
            url: "https://corp.example/mcp",
            auth: {
              grant: "enterprise_managed",
              clientId: "zett-at-corp",
              clientSecret: "${env:CORP_SECRET}",
              idToken: "${env:CORP_ID_TOKEN}",
              idpIssuer: "https://idp.corp.example",
              idpClientId: "zett-at-idp",
              idpClientSecret: "${env:IDP_SECRET}",
              scopes: ["mcp:read"]
            }
          }
        },
        {
          CORP_SECRET: SECRET,
          CORP_ID_TOKEN: "eyJhbGciOiJSUzI1NiJ9.id-token-of-the-user.sig",
          IDP_SECRET: "idp-5ecret-value"
        }
      )
      const server = httpOf(snapshot.servers[0]!)
      const auth = server.auth
      assert.strictEqual(auth?._tag, "EnterpriseManaged")
      if (auth?._tag !== "EnterpriseManaged") return
      assert.strictEqual(Redacted.value(auth.idToken), "eyJhbGciOiJSUzI1NiJ9.id-token-of-the-user.sig")
      assert.strictEqual(auth.idpIssuer, "https://idp.corp.example")
      assert.deepStrictEqual(auth.scopes, ["mcp:read"])
      const scrubbed = McpServerConfig.scrubberOf(server).scrub(
        `${SECRET} eyJhbGciOiJSUzI1NiJ9.id-token-of-the-user.sig idp-5ecret-value`
      )
      for (const secret of [SECRET, "id-token-of-the-user", "idp-5ecret-value"]) {
        assert.notInclude(scrubbed, secret)
        assert.notInclude(Util.inspect(snapshot, { depth: 20 }), secret)
      }
      // the ID token names the user: another one is another cache entry
      const other = McpServerConfig.http({
        name: "corp",
        url: "https://corp.example/mcp",
        auth: {
          grant: "enterprise_managed",
          clientId: "zett-at-corp",
          clientSecret: SECRET,
          idToken: "another-user",
          idp: { issuer: "https://idp.corp.example", clientId: "zett-at-idp" },
          scopes: ["mcp:read"]
        }
      })
      assert.notStrictEqual(McpServerConfig.cacheKey(other), McpServerConfig.cacheKey(server))
    }))

  it.effect("workload identity: the token's file or variable (not the token) is in the definition, with the audience and scopes", () =>
    Effect.gen(function*() {
      const snapshot = yield* load(
        "/p/.mcp.json",
        {
          k8s: {
            type: "http",
            url: "https://k8s.example/mcp",
            auth: {
              grant: "workload_identity",
              clientId: "${WORKLOAD_CLIENT}",
              assertionFile: "/var/run/secrets/tokens/mcp",
              audience: "https://as.example",
              scopes: ["mcp:read"]
            }
          },
          ci: {
            type: "http",
            url: "https://ci.example/mcp",
            auth: { grant: "workload_identity", clientId: "ci", assertionEnv: "CI_OIDC_TOKEN" }
          }
        },
        { WORKLOAD_CLIENT: "pod-7" }
      )
      const [k8s, ci] = snapshot.servers.map((server) => httpOf(server).auth)
      assert.deepStrictEqual(
        k8s,
        new McpServerConfig.WorkloadIdentity({
          clientId: "pod-7",
          assertion: { file: "/var/run/secrets/tokens/mcp" },
          audience: "https://as.example",
          scopes: ["mcp:read"]
        })
      )
      assert.deepStrictEqual(
        ci,
        new McpServerConfig.WorkloadIdentity({ clientId: "ci", assertion: { env: "CI_OIDC_TOKEN" } })
      )
      // the workload is named by its token's source: a definition is its own cache entry, with no login
      assert.isTrue(McpServerConfig.authorizedByDefinition(snapshot.servers[0]!))
    }))

  it.effect("invalid auth entries name the file, the field and the reason, without the secret", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [unknown, string, string]> = [
        [
          { grant: "client_credentials", clientSecret: SECRET },
          "mcpServers.s.auth.clientId",
          "missing (client_credentials needs a client)"
        ],
        [
          { grant: "client_credentials", clientId: "r" },
          "mcpServers.s.auth",
          "client_credentials needs either clientSecret or privateKey"
        ],
        [
          { grant: "client_credentials", clientId: "r", privateKey: SECRET },
          "mcpServers.s.auth.algorithm",
          "missing (privateKey needs an algorithm such as RS256)"
        ],
        [
          { grant: "password" },
          "mcpServers.s.auth.grant",
          "expected \"authorization_code\", \"client_credentials\", \"enterprise_managed\" or \"workload_identity\""
        ],
        [
          { grant: "workload_identity", assertionFile: "/t" },
          "mcpServers.s.auth.clientId",
          "missing (workload_identity needs a client)"
        ],
        [
          { grant: "workload_identity", clientId: "w" },
          "mcpServers.s.auth",
          "workload_identity needs either assertionFile or assertionEnv"
        ],
        [
          { grant: "workload_identity", clientId: "w", assertionFile: "/t", assertionEnv: "T" },
          "mcpServers.s.auth",
          "workload_identity needs either assertionFile or assertionEnv"
        ],
        [
          { grant: "workload_identity", clientId: "w", assertionEnv: "T", clientSecret: SECRET },
          "mcpServers.s.auth.clientSecret",
          "not used with \"grant\": \"workload_identity\" (the workload's token authenticates)"
        ],
        [
          { clientId: "app", assertionFile: "/t" },
          "mcpServers.s.auth.assertionFile",
          "only used with \"grant\": \"workload_identity\""
        ],
        [
          {
            grant: "enterprise_managed",
            clientId: "app",
            clientSecret: SECRET,
            idpIssuer: "https://idp.example",
            idpClientId: "idp-app"
          },
          "mcpServers.s.auth.idToken",
          "missing (enterprise_managed needs it)"
        ],
        [
          { clientId: "app", idToken: SECRET },
          "mcpServers.s.auth.idToken",
          "only used with \"grant\": \"enterprise_managed\""
        ],
        [{ clientSecret: 42 }, "mcpServers.s.auth.clientSecret", "expected a string, got a number"],
        [{ redirectPort: 70000 }, "mcpServers.s.auth.redirectPort", "expected a port number (0 to 65535), got 70000"],
        [{ clientSecrt: SECRET }, "mcpServers.s.auth.clientSecrt", "unknown key"]
      ]
      for (const [auth, entry, reason] of cases) {
        const error = yield* Effect.flip(load("/p/mcp.json", { s: { url: "https://s.example/mcp", auth } }))
        assert.strictEqual(error.entry, entry, JSON.stringify(auth))
        assert.strictEqual(error.reason, "InvalidEntry", JSON.stringify(auth))
        assert.strictEqual(error.description, reason, JSON.stringify(auth))
        assert.notInclude(error.message, SECRET)
      }
      const both = yield* Effect.flip(load("/p/mcp.json", { s: { url: "https://s.example/mcp", auth: {}, oauth: {} } }))
      assert.strictEqual(both.description, "both oauth and auth are given; use one")
    }))
})
