/**
 * Workload identity against a local authorization server (`@zett/testing/OAuthServer`) that verifies the
 * workload's token: what the assertions read is what the authorization server received.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { McpServerConfig } from "@zett/mcp"
import { McpTokenStore } from "@zett/mcp-auth"
import { NodeMcpClientFactory, ProcessGroups } from "@zett/mcp-node"
import * as TempDir from "@zett/testing-core/TempDir"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Util from "node:util"
import * as OAuthServer from "./utils/oauthServer.js"

const { privateKey, publicKey } = Crypto.generateKeyPairSync("ec", { namedCurve: "P-256" })

/** A workload token as a platform issues one: ES256, for the audience of the authorization server. */
const workloadToken = (audience: string, options: { readonly expiresIn?: number; readonly subject?: string } = {}) => {
  const now = Math.floor(Date.now() / 1000)
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
  const header = part({ alg: "ES256", typ: "JWT" })
  const payload = part({
    iss: "https://k8s.example",
    sub: options.subject ?? "system:serviceaccount:agents:zett",
    aud: audience,
    iat: now,
    exp: now + (options.expiresIn ?? 600)
  })
  const signature = Crypto.sign("sha256", Buffer.from(`${header}.${payload}`), {
    key: privateKey,
    dsaEncoding: "ieee-p1363"
  })
  return `${header}.${payload}.${signature.toString("base64url")}`
}

const setup = (auth: (as: OAuthServer.OAuthServer) => McpServerConfig.AuthInput, options: OAuthServer.Options = {}) =>
  Effect.gen(function*() {
    const as = yield* OAuthServer.make({
      clients: [{ client_id: "pod-7" }],
      workload: { publicKey: publicKey.export({ type: "spki", format: "pem" }).toString() },
      ...options
    })
    const store = yield* McpTokenStore.makeMemory
    const server = McpServerConfig.http({ name: "k8s", url: as.url, auth: auth(as) })
    const factory = yield* NodeMcpClientFactory.make().pipe(
      Effect.provide(ProcessGroups.layerNone),
      Effect.provideService(McpTokenStore.McpTokenStore, store),
      Effect.provide(NodeServices.layer)
    )
    const tokenRequests = () => as.requests.filter((r) => r.path === "/token")
    const expire = Effect.gen(function*() {
      as.expireAccessTokens()
      const key = McpTokenStore.normalizeKey(as.url)
      const old = Option.getOrThrow(yield* store.get(key))
      yield* store.set(
        key,
        McpTokenStore.updateCredentials(old, old.issuer!, (c) => ({ ...c, tokens: { ...c.tokens!, expires_at: 0 } }))
      )
    })
    return { as, server, factory, tokenRequests, expire, whoami: () => OAuthServer.whoami(factory, server) }
  })

/** The variables the runtime's `ConfigProvider` reads (Effect 4: a `ConfigProvider` service over `env`). */
const withEnv = (env: Readonly<Record<string, string>>) =>
  Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env: { ...env } }))

describe("workload identity", () => {
  it.effect("the token in its file is the JWT bearer grant's assertion: no login, no client secret, the audience and scopes sent", () =>
    Effect.gen(function*() {
      const dir = yield* TempDir.make()
      const file = Path.join(dir, "token")
      const { as, tokenRequests, whoami } = yield* setup((as) => {
        Fs.writeFileSync(file, `${workloadToken(as.issuer)}\n`)
        return {
          grant: "workload_identity",
          clientId: "pod-7",
          assertion: { file },
          audience: "https://audience.example",
          scopes: ["mcp:read"]
        }
      })
      assert.strictEqual(yield* whoami(), "client pod-7 scope mcp:read")
      assert.strictEqual(yield* whoami(), "client pod-7 scope mcp:read")
      const [request, ...more] = tokenRequests()
      assert.strictEqual(more.length, 0)
      assert.strictEqual(request!.form.grant_type, "urn:ietf:params:oauth:grant-type:jwt-bearer")
      assert.strictEqual(request!.form.assertion, Fs.readFileSync(file, "utf8").trim())
      assert.strictEqual(request!.form.client_id, "pod-7")
      assert.strictEqual(request!.form.audience, "https://audience.example")
      assert.strictEqual(request!.form.scope, "mcp:read")
      assert.strictEqual(request!.form.resource, as.url)
      assert.isUndefined(request!.authorization)
      assert.strictEqual(as.count("/authorize"), 0)
      assert.strictEqual(as.count("/register"), 0)
    }))

  it.effect("the file is read again at each token request: a rotated token is the next request's assertion", () =>
    Effect.gen(function*() {
      const dir = yield* TempDir.make()
      const file = Path.join(dir, "token")
      const { as, expire, tokenRequests, whoami } = yield* setup((as) => {
        Fs.writeFileSync(file, workloadToken(as.issuer, { subject: "first" }))
        return { grant: "workload_identity", clientId: "pod-7", assertion: { file } }
      })
      yield* whoami()
      Fs.writeFileSync(file, workloadToken(as.issuer, { subject: "rotated" }))
      yield* expire
      yield* whoami()
      const subjects = tokenRequests().map((r) =>
        JSON.parse(Buffer.from(r.form.assertion!.split(".")[1]!, "base64url").toString()).sub
      )
      assert.deepStrictEqual(subjects, ["first", "rotated"])
    }))

  it.effect("the token from an environment variable, read through the runtime's ConfigProvider", () =>
    Effect.gen(function*() {
      let token = ""
      const { tokenRequests, whoami } = yield* setup((as) => {
        token = workloadToken(as.issuer)
        return { grant: "workload_identity", clientId: "pod-7", assertion: { env: "CI_OIDC_TOKEN" } }
      })
      const answer = yield* whoami().pipe(
        withEnv({ CI_OIDC_TOKEN: token })
      )
      assert.strictEqual(answer, "client pod-7 scope ")
      assert.strictEqual(tokenRequests()[0]!.form.assertion, token)
    }))

  it.effect("a token that cannot be read fails the connect naming its file, before any token request", () =>
    Effect.gen(function*() {
      const dir = yield* TempDir.make()
      const file = Path.join(dir, "missing")
      const { factory, server, tokenRequests } = yield* setup(() => ({
        grant: "workload_identity",
        clientId: "pod-7",
        assertion: { file }
      }))
      const error = yield* Effect.flip(Effect.scoped(factory.connect(server)))
      assert.include(error.description, `cannot read the workload identity token from the file ${file} (ENOENT)`)
      assert.strictEqual(tokenRequests().length, 0)
      const empty = Path.join(dir, "empty")
      Fs.writeFileSync(empty, "\n")
      const unset = McpServerConfig.http({
        name: "k8s",
        url: server.url,
        auth: { grant: "workload_identity", clientId: "pod-7", assertion: { env: "NO_SUCH_TOKEN" } }
      })
      const unsetError = yield* Effect.flip(
        Effect.scoped(factory.connect(unset)).pipe(withEnv({}))
      )
      assert.include(
        unsetError.description,
        "cannot read the workload identity token from the environment variable NO_SUCH_TOKEN (not set)"
      )
      const blank = McpServerConfig.http({
        name: "k8s",
        url: server.url,
        auth: { grant: "workload_identity", clientId: "pod-7", assertion: { file: empty } }
      })
      assert.include((yield* Effect.flip(Effect.scoped(factory.connect(blank)))).description, "(empty)")
      assert.strictEqual(tokenRequests().length, 0)
    }))

  it.effect("a refused token is one token request, no other grant, and the error never quotes the token", () =>
    Effect.gen(function*() {
      let token = ""
      const { as, factory, server, tokenRequests } = yield* setup((as) => {
        token = workloadToken(as.issuer, { expiresIn: -60 })
        return { grant: "workload_identity", clientId: "pod-7", assertion: { env: "WORKLOAD_TOKEN" } }
      })
      const error = yield* Effect.flip(
        Effect.scoped(factory.connect(server)).pipe(
          withEnv({ WORKLOAD_TOKEN: token })
        )
      )
      assert.strictEqual(error.reason, "Unauthorized")
      assert.include(
        error.description,
        "the authorization server refused the workload identity token (it is not sent again)"
      )
      assert.deepStrictEqual(tokenRequests().map((r) => r.form.grant_type), [
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
      ])
      assert.strictEqual(as.count("/authorize"), 0)
      const signature = token.split(".")[2]!
      assert.notInclude(`${error.message} ${Util.inspect(error, { depth: 10 })}`, signature)
    }))

  it.effect("a token for another audience is refused by the authorization server", () =>
    Effect.gen(function*() {
      const { factory, server } = yield* setup(() => ({
        grant: "workload_identity",
        clientId: "pod-7",
        assertion: { env: "WORKLOAD_TOKEN" }
      }))
      const wrong = workloadToken("https://wrong.example")
      const error = yield* Effect.flip(
        Effect.scoped(factory.connect(server)).pipe(
          withEnv({ WORKLOAD_TOKEN: wrong })
        )
      )
      assert.include(error.description, "refused the workload identity token")
    }))
})
