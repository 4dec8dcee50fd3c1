/**
 * The `dpop` key of an entry's `auth` (or `oauth`) in the config files: read into every grant's definition, and
 * a value that is not a boolean refused with the file, the entry and the reason.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpServerConfig } from "@zett/mcp"
import { McpConfiguration } from "@zett/mcp-config"
import * as Effect from "effect/Effect"
import * as Utils from "./utils.js"

const load = (path: string, servers: Record<string, unknown>) => {
  const { layer } = Utils.virtualFile(JSON.stringify({ mcpServers: servers }))
  return McpConfiguration.fromFile(path).pipe(
    Utils.withEnv(Object.fromEntries([["IDT", "id-token"], ["CS", "secret"]])),
    Effect.provide(layer)
  )
}

const authOf = (server: McpServerConfig.McpServerConfig) => {
  assert.strictEqual(server._tag, "McpHttpServer")
  return (server as McpServerConfig.McpHttpServer).auth
}

describe("the dpop key of auth", () => {
  it.effect("dpop true or false is read into every grant; omitted, the definition has none (DPoP when the server asks)", () =>
    Effect.gen(function*() {
      const snapshot = yield* load("/p/.mcp.json", {
        code: { type: "http", url: "https://a.example/mcp", auth: { clientId: "app", dpop: true } },
        robot: {
          type: "http",
          url: "https://b.example/mcp",
          auth: { grant: "client_credentials", clientId: "r", clientSecret: "${CS}", dpop: false }
        },
        enterprise: {
          type: "http",
          url: "https://c.example/mcp",
          auth: {
            grant: "enterprise_managed",
            clientId: "app",
            clientSecret: "${CS}",
            idToken: "${IDT}",
            idpIssuer: "https://idp.example",
            idpClientId: "idp-app",
            dpop: true
          }
        },
        pod: {
          type: "http",
          url: "https://d.example/mcp",
          oauth: { grant: "workload_identity", clientId: "pod", assertionEnv: "T", dpop: true }
        },
        plain: { type: "http", url: "https://e.example/mcp", auth: { clientId: "app" } }
      })
      const auths = snapshot.servers.map(authOf)
      assert.deepStrictEqual(auths.map((auth) => auth?._tag), [
        "AuthorizationCode",
        "ClientCredentials",
        "EnterpriseManaged",
        "WorkloadIdentity",
        "AuthorizationCode"
      ])
      assert.deepStrictEqual(auths.map((auth) => auth !== undefined && "dpop" in auth ? auth.dpop : "absent"), [
        true,
        false,
        true,
        true,
        "absent"
      ])
      assert.deepStrictEqual(auths[0], new McpServerConfig.AuthorizationCode({ clientId: "app", dpop: true }))
    }))

  it.effect("a dpop that is not true or false names the file, the entry and the reason", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        load("/p/mcp.json", { s: { url: "https://s.example/mcp", auth: { clientId: "app", dpop: "yes" } } })
      )
      assert.strictEqual(error._tag, "McpConfigError")
      assert.strictEqual(error.reason, "InvalidEntry")
      assert.strictEqual(error.path, "/p/mcp.json")
      assert.strictEqual(error.entry, "mcpServers.s.auth.dpop")
      assert.strictEqual(error.description, "expected true or false, got a string")
    }))
})
