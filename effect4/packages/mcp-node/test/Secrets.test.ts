/**
 * B2 end to end: a realistic set of requests (a stdio server with an environment secret that prints it and
 * puts it in its error texts, an HTTP server with header secrets that echoes them, a 401 and a 500 that
 * echo the request headers in their bodies, a server that dies during a call) runs with every log level on,
 * a tracer that keeps every span in memory, and the `zett` command on the same configuration. No header or
 * environment value may appear in a log line, an annotation, a span name, attribute or event, an error the
 * model or the caller sees, or the command's output. (The 3 line's test on Effect 4: the command is not on this
 * line, so its part is a test of its own, skipped.)
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Agent, ScriptedModel } from "@zett/agent"
import { McpClientFactory, McpExtension, McpServerConfig } from "@zett/mcp"
import { McpAuthorization, McpTokenStore } from "@zett/mcp-auth"
import { NodeMcpClientFactory, ProcessGroups } from "@zett/mcp-node"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Formatter from "effect/Formatter"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as References from "effect/References"
import * as Tracer from "effect/Tracer"
import * as Crypto from "node:crypto"
import * as Util from "node:util"
import { faultFactoryLayer, faultyServer, httpFault, node, withMarker } from "./utils/faults.js"
import * as McpLayers from "./utils/mcpLayers.js"
import * as OAuthServer from "./utils/oauthServer.js"

const secrets = {
  env: "env-secret-Q7v1x9Lm",
  envCrash: "env-secret-crash-T5r2",
  envRefuse: "env-secret/refuse+Z3k9",
  envLong: "env-secret-long-line-abcdefghijklmnopqrstuvwxyz012345",
  bearer: "hdr-secret-M4k8z2Wd",
  apiKey: "hdr-secret-key-N6p0",
  locked: "hdr-secret-401-P3w6",
  down: "hdr-secret-500-H8j4",
  revoked: "hdr-secret/revoked+Y7u1",
  garbled: "HDRSECRET4garbled-K2m8",
  basicUser: "basic-user-W2e4",
  basicPass: "basic-pass/R5t7+x"
}
const basicHeader = `Basic ${Buffer.from(`${secrets.basicUser}:${secrets.basicPass}`).toString("base64")}`
// Every form a careless server may quote a secret in: whole, URL-encoded, base64 (with and without padding)
const secretForms = Object.values(secrets).flatMap((secret) => {
  const b64 = Buffer.from(secret).toString("base64")
  return [secret, encodeURIComponent(secret), b64, b64.replace(/=+$/, ""), Buffer.from(secret).toString("base64url")]
})
const secretValues = [...new Set([...secretForms, basicHeader.slice("Basic ".length)])]

/** A tracer that keeps every span: name, attributes, events, links and how it ended (Effect's own spans, kept). */
const memoryTracer = () => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  const texts = () =>
    spans.flatMap((span) => [
      span.name,
      ...[...span.attributes].map(([key, value]) => `${key}=${Util.inspect(value, { depth: 10 })}`),
      ...span.events.map(([name, _startTime, attributes]) => `${name} ${Util.inspect(attributes, { depth: 10 })}`),
      span.status._tag === "Started" || Exit.isSuccess(span.status.exit) ? "" : Cause.pretty(span.status.exit.cause)
    ])
  return { spans, tracer, texts }
}

/** A logger that keeps every line, at every level, with its annotations, spans and cause. */
const memoryLogger = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ cause, fiber, logLevel, message }) => {
    lines.push([
      logLevel,
      Util.inspect(message, { depth: 10 }),
      JSON.stringify(fiber.getRef(References.CurrentLogAnnotations)),
      fiber.getRef(References.CurrentLogSpans).map(([label]) => label).join(","),
      cause.reasons.length === 0 ? "" : Cause.pretty(cause)
    ].join(" "))
  })
  // Effect 4's logger is a service: the layer must reach the run (provided to it, not to another layer)
  return {
    lines,
    layer: Layer.merge(Logger.layer([logger]), Layer.succeed(References.MinimumLogLevel)("All"))
  }
}

describe("secrets", { concurrent: false }, () => {
  it.live(
    "no header or env value of any server is in a log line, span, error message or CLI output (B2)",
    () =>
      Effect.gen(function*() {
        const marker = Crypto.randomUUID()
        const [web, locked, down, revoked, garbled] = yield* Effect.all([
          httpFault(`${marker}-http`, ["echo-secrets"]),
          httpFault(`${marker}-http`, ["http-401"]),
          httpFault(`${marker}-http`, ["http-500"]),
          httpFault(`${marker}-http`, ["refuse-with-secrets"]),
          httpFault(`${marker}-http`, ["http-200-garbage"])
        ], { concurrency: "unbounded" })
        const stdio = (name: string, faults: ReadonlyArray<string>, token: string) =>
          McpServerConfig.stdio({
            name,
            command: node,
            args: [faultyServer, ...faults.map((f) => `--fault=${f}`), `--name=${name}`],
            env: { ZETT_TEST_MARKER: marker, API_TOKEN: token }
          })
        const servers = [
          stdio("vault", ["echo-secrets"], secrets.env),
          stdio("crashy", ["exit-during-call"], secrets.envCrash),
          McpServerConfig.http({
            name: "web",
            url: web,
            headers: { Authorization: `Bearer ${secrets.bearer}`, "X-Api-Key": secrets.apiKey }
          }),
          McpServerConfig.http({ name: "locked", url: locked, headers: { Authorization: `Bearer ${secrets.locked}` } }),
          McpServerConfig.http({ name: "down", url: down, headers: { "X-Api-Key": secrets.down } }),
          stdio("refuser", ["refuse-with-secrets"], secrets.envRefuse),
          stdio("chatty", ["long-stderr-secret"], secrets.envLong),
          McpServerConfig.http({
            name: "revoked",
            url: revoked,
            headers: { Authorization: `Bearer ${secrets.revoked}` }
          }),
          McpServerConfig.http({ name: "garbled", url: garbled, headers: { "X-Api-Key": secrets.garbled } }),
          McpServerConfig.http({ name: "basic", url: web, headers: { Authorization: basicHeader } })
        ]

        const logs = memoryLogger()
        const traces = memoryTracer()
        const seen: Array<string> = []
        const record = (request: { readonly messages: ReadonlyArray<unknown> }) =>
          void seen.push(Util.inspect(request.messages, { depth: 10 }))
        const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
          Layer.provide(McpLayers.layer({ servers, connectTimeout: "120 seconds", callTimeout: "120 seconds" })),
          Layer.provide(faultFactoryLayer()),
          Layer.provide(NodeServices.layer),
          Layer.provide(ScriptedModel.layer([
            (request) => (record(request), {
              toolCalls: [
                "vault__leak",
                "vault__boom",
                "vault__tell",
                "vault__echo",
                "web__leak",
                "web__boom",
                "web__tell",
                "web__echo",
                "basic__leak",
                "basic__boom",
                "basic__tell",
                "crashy__echo"
              ].map((name) => ({ name, arguments: { text: "hi" } }))
            }),
            (request) => (record(request), { text: "and now the model fails" })
          ]))
        )
        // a request that succeeds, and one that fails (the script has no step left for its first model call)
        const exits = yield* Effect.forEach(["go", "again"], (input) =>
          Effect.gen(function*() {
            const agent = yield* Agent.Agent
            return yield* agent.run(input)
          }).pipe(
            Effect.tapCause((cause) => Effect.logError("the run failed", cause)),
            Effect.exit
          ), { concurrency: 1 }).pipe(
            Effect.provide(layer.pipe(Layer.provideMerge(logs.layer))),
            Effect.withTracer(traces.tracer)
          )
        assert.isTrue(Exit.isSuccess(exits[0]!))
        assert.isTrue(Exit.isFailure(exits[1]!))
        assert.deepStrictEqual(withMarker(marker), [])

        // the secrets did reach the servers: they echoed them, and the extension kept them out
        const everything = seen.join("\n")
        assert.include(everything, "locked (HTTP 401 Unauthorized)")
        assert.include(everything, "down (HTTP 500 Internal Server Error)")
        assert.include(
          everything,
          "token <redacted>, bare <redacted>, url <redacted>, b64 <redacted>; authorization undefined"
        )
        assert.include(
          everything,
          "token undefined; authorization <redacted>, bare <redacted>, url <redacted>, b64 <redacted>; key <redacted>"
        )
        assert.include(everything, "user <redacted> pass <redacted>")
        assert.include(everything, "refuser (token <redacted>, bare <redacted>")
        assert.include(everything, "revoked (token undefined; authorization <redacted>, bare <redacted>")
        assert.include(everything, "garbled (the server sent a response that is not valid JSON)")
        assert.isTrue(
          logs.lines.some((line) => line.includes("env API_TOKEN=<redacted>")),
          "the stderr line was logged"
        )
        assert.isTrue(
          logs.lines.some((line) => line.includes("xxxxx<redacted> … (line cut at")),
          "the long line was cut"
        )
        assert.isAbove(traces.spans.length, 10)

        const texts = [
          ...logs.lines,
          ...traces.texts(),
          ...seen,
          ...exits.map((exit) => (Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "")),
          ...servers.flatMap((
            server
          ) => [
            String(server),
            Util.inspect(server, { depth: 10 }),
            JSON.stringify(server),
            Formatter.format(server)
          ])
        ]
        for (const text of texts) {
          for (const secret of secretValues) assert.notInclude(text, secret)
          // nor a piece of one: a long line cut in two must not leave a readable half
          for (const secret of Object.values(secrets)) {
            for (let i = 0; i + 12 <= secret.length; i += 4) assert.notInclude(text, secret.slice(i, i + 12))
          }
        }
        // a safety net, not a measure: two requests over ten servers take seconds on an idle two-core machine and
        // much longer on a loaded one
      }),
    180_000
  )

  // The 3 line's test above also runs the `zett` command on the same servers (a configuration file, debug logging)
  // and checks its output: "HTTP 401 Unauthorized", "revoked" and "<redacted>" in `tools` and `call vault__leak`,
  // "is revoked" in `tools --json`, "user <redacted> pass <redacted>" in `call basic__tell`, "bare <redacted>" in
  // `call vault__tell`, no marked process left, and none of the secrets (nor a 12-character piece of one) in any
  // output. The command is not on this line.
  it.skip("the zett command's output on the same servers holds no header or env value (B2) (NOT YET on this line: there is no zett command on the Effect 4 line)", () => {})

  it.live(
    "no access token, refresh token, client secret, private key or authorization code is in a log line, span, error, model message or inspect output",
    () =>
      Effect.gen(function*() {
        const clientSecret = "oauth-client-secret-V3n8Qp"
        const robotSecret = "oauth-robot-secret-J6d2Lx"
        const { privateKey, publicKey } = Crypto.generateKeyPairSync("rsa", { modulusLength: 2048 })
        const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString()
        const redirect = "http://127.0.0.1:47813/callback"
        const codeServer = yield* OAuthServer.make({
          clients: [{ client_id: "zett", client_secret: clientSecret, redirect_uris: [redirect] }]
        })
        const machine = yield* OAuthServer.make({ clients: [{ client_id: "robot", client_secret: robotSecret }] })
        const signing = yield* OAuthServer.make({
          clients: [{ client_id: "signer", publicKey: publicKey.export({ type: "spki", format: "pem" }).toString() }]
        })
        const revokedServer = yield* OAuthServer.make({})
        const loginOnly = yield* OAuthServer.make({})
        const servers = [
          McpServerConfig.http({ name: "coded", url: codeServer.url, auth: { clientId: "zett", clientSecret } }),
          McpServerConfig.http({
            name: "robot",
            url: machine.url,
            auth: { grant: "client_credentials", clientId: "robot", clientSecret: robotSecret }
          }),
          McpServerConfig.http({
            name: "signer",
            url: signing.url,
            auth: { grant: "client_credentials", clientId: "signer", privateKey: pem, algorithm: "RS256" }
          }),
          McpServerConfig.http({ name: "revoked", url: revokedServer.url, auth: {} }),
          McpServerConfig.http({ name: "fresh", url: loginOnly.url, auth: {} })
        ]
        const logs = memoryLogger()
        const traces = memoryTracer()
        const store = yield* McpTokenStore.makeMemory
        const headless = OAuthServer.headless()
        const factory = yield* NodeMcpClientFactory.make().pipe(
          Effect.provide(ProcessGroups.layerNone),
          Effect.provideService(McpTokenStore.McpTokenStore, store),
          Effect.provide(NodeServices.layer)
        )
        const login = (server: McpServerConfig.McpServerConfig) =>
          McpAuthorization.login(server as McpServerConfig.McpHttpServer).pipe(
            Effect.provideService(McpClientFactory.McpClientFactory, factory),
            Effect.provideService(McpTokenStore.McpTokenStore, store),
            Effect.provide(headless.layer)
          )
        yield* login(servers[0]!).pipe(Effect.provide(logs.layer), Effect.withTracer(traces.tracer))
        yield* login(servers[3]!).pipe(Effect.provide(logs.layer), Effect.withTracer(traces.tracer))
        // the revoked server's tokens expire and cannot be refreshed: it needs a login again
        revokedServer.expireAccessTokens()
        revokedServer.revokeRefreshTokens()
        const key = McpTokenStore.normalizeKey(revokedServer.url)
        const old = Option.getOrThrow(yield* store.get(key))
        yield* store.set(
          key,
          McpTokenStore.updateCredentials(old, old.issuer!, (c) => ({ ...c, tokens: { ...c.tokens!, expires_at: 0 } }))
        )

        const seen: Array<string> = []
        const record = (request: { readonly messages: ReadonlyArray<unknown> }) =>
          void seen.push(Util.inspect(request.messages, { depth: 10 }))
        const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
          Layer.provide(McpLayers.layer({ servers, connectTimeout: "120 seconds", callTimeout: "120 seconds" })),
          Layer.provide(Layer.succeed(McpClientFactory.McpClientFactory)(factory)),
          Layer.provide(NodeServices.layer),
          Layer.provide(ScriptedModel.layer([
            (request) => (record(request), {
              toolCalls: ["coded__whoami", "robot__whoami", "signer__whoami"].map((name) => ({ name, arguments: {} }))
            }),
            (request) => (record(request), { text: "done" })
          ]))
        )
        const exit = yield* Effect.gen(function*() {
          const agent = yield* Agent.Agent
          return yield* agent.run("go")
        }).pipe(
          Effect.exit,
          Effect.provide(layer.pipe(Layer.provideMerge(logs.layer))),
          Effect.withTracer(traces.tracer)
        )
        assert.isTrue(Exit.isSuccess(exit))
        const everything = seen.join("\n")
        assert.include(everything, "client zett scope")
        assert.include(everything, "client robot scope")
        assert.include(everything, "client signer scope")
        assert.include(everything, "needs authorization: run zett auth login revoked")
        assert.include(everything, "fresh (needs authorization: run zett auth login fresh)")

        const issued = [codeServer, machine, signing, revokedServer, loginOnly].flatMap((as) => as.issued)
        assert.isAtLeast(issued.length, 4)
        const codes = [codeServer, revokedServer, loginOnly].flatMap((as) =>
          as.requests.filter((r) => r.form.grant_type === "authorization_code").flatMap((
            r
          ) => [r.form.code ?? "", r.form.code_verifier ?? ""])
        )
        assert.isAbove(codes.length, 1)
        const assertions = [signing].flatMap((as) => as.requests.map((r) => r.form.client_assertion ?? "")).filter((
          a
        ) => a !== "")
        assert.isAbove(assertions.length, 0)
        const values = [
          clientSecret,
          robotSecret,
          ...pem.split("\n").filter((line) => line.length > 40),
          ...issued.flatMap((
            token
          ) => [token.accessToken, ...(token.refreshToken !== undefined ? [token.refreshToken] : [])]),
          ...codes,
          ...assertions
        ]
        const texts = [
          ...logs.lines,
          ...traces.texts(),
          ...seen,
          ...servers.flatMap((
            server
          ) => [
            String(server),
            Util.inspect(server, { depth: 10 }),
            JSON.stringify(server),
            Formatter.format(server)
          ])
        ]
        for (const text of texts) {
          for (const value of values) assert.notInclude(text, value)
        }
      })
  )
})
