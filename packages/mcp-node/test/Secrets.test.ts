/**
 * B2 end to end: a realistic set of requests (a stdio server with an environment secret that prints it and
 * puts it in its error texts, an HTTP server with header secrets that echoes them, a 401 and a 500 that
 * echo the request headers in their bodies, a server that dies during a call) runs with every log level on,
 * a tracer that keeps every span in memory, and the `zett` command on the same configuration. No header or
 * environment value may appear in a log line, an annotation, a span name, attribute or event, an error the
 * model or the caller sees, or the command's output.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Agent, ScriptedModel } from "@zett/agent"
import { McpClientFactory, McpExtension, McpServerConfig } from "@zett/mcp"
import { McpAuthorization, McpTokenStore } from "@zett/mcp-auth"
import { NodeMcpClientFactory, ProcessGroups } from "@zett/mcp-node"
import * as Source from "@zett/testing-core/Source"
import * as TempDir from "@zett/testing-core/TempDir"
import * as McpLayers from "@zett/testing/McpLayers"
import * as OAuthServer from "@zett/testing/OAuthServer"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HashMap from "effect/HashMap"
import * as Inspectable from "effect/Inspectable"
import * as Layer from "effect/Layer"
import * as List from "effect/List"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import * as ChildProcess from "node:child_process"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Util from "node:util"
import { factoryLayer, faultyServer, httpFault, node, withMarker } from "./utils/faults.js"

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

/** A tracer that keeps every span: name, attributes, events, links and how it ended. */
const memoryTracer = () => {
  const spans: Array<{
    name: string
    attributes: Map<string, unknown>
    events: Array<[string, Record<string, unknown> | undefined]>
    exit: Exit.Exit<unknown, unknown> | undefined
  }> = []
  let id = 0
  const tracer = Tracer.make({
    span: (name, parent, context, links, _startTime, kind) => {
      const record = {
        name,
        attributes: new Map<string, unknown>(),
        events: [] as Array<[string, Record<string, unknown> | undefined]>,
        exit: undefined as Exit.Exit<unknown, unknown> | undefined
      }
      spans.push(record)
      const spanId = `span${++id}`
      const span: Tracer.Span = {
        _tag: "Span",
        name,
        spanId,
        traceId: Option.isSome(parent) ? parent.value.traceId : `trace${id}`,
        parent,
        context,
        status: { _tag: "Started", startTime: 0n },
        attributes: record.attributes,
        links: [...links],
        sampled: true,
        kind,
        end: (_endTime, exit) => void (record.exit = exit),
        attribute: (key, value) => void record.attributes.set(key, value),
        event: (name, _startTime, attributes) => void record.events.push([name, attributes]),
        addLinks: () => {}
      }
      return span
    },
    context: (f) => f()
  })
  const texts = () =>
    spans.flatMap((span) => [
      span.name,
      ...[...span.attributes].map(([key, value]) => `${key}=${Util.inspect(value, { depth: 10 })}`),
      ...span.events.map(([name, attributes]) => `${name} ${Util.inspect(attributes, { depth: 10 })}`),
      span.exit === undefined || Exit.isSuccess(span.exit)
        ? ""
        : Cause.pretty(span.exit.cause, { renderErrorCause: true })
    ])
  return { spans, tracer, texts }
}

/** A logger that keeps every line, at every level, with its annotations, spans and cause. */
const memoryLogger = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ annotations, cause, logLevel, message, spans }) => {
    lines.push([
      logLevel.label,
      Util.inspect(message, { depth: 10 }),
      JSON.stringify(Object.fromEntries(HashMap.toEntries(annotations))),
      List.toArray(spans).map((span) => span.label).join(","),
      Cause.isEmpty(cause) ? "" : Cause.pretty(cause, { renderErrorCause: true })
    ].join(" "))
  })
  return {
    lines,
    layer: Layer.merge(Logger.replace(Logger.defaultLogger, logger), Logger.minimumLogLevel(LogLevel.All))
  }
}

const zett = (args: ReadonlyArray<string>, home: string) =>
  Effect.async<{ readonly code: number | null; readonly output: string }>((resume) => {
    const child = ChildProcess.execFile(
      node,
      [...Source.zettArgs, ...args],
      { cwd: home, env: { PATH: process.env.PATH ?? "", HOME: home }, timeout: 100_000 },
      (error, stdout, stderr) =>
        resume(Effect.succeed({ code: error ? (error.code as number) ?? 1 : 0, output: `${stdout}\n${stderr}` }))
    )
    return Effect.sync(() => child.kill("SIGKILL"))
  })

describe.sequential("secrets", () => {
  it.scopedLive(
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
          Layer.provide(factoryLayer()),
          Layer.provide(NodeContext.layer),
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
          Agent.Agent.pipe(
            Effect.flatMap((agent) => agent.run(input)),
            Effect.tapErrorCause((cause) => Effect.logError("the run failed", cause)),
            Effect.exit
          ), { concurrency: 1 }).pipe(
            Effect.provide(layer),
            Effect.provide(logs.layer),
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

        // the command, on the same servers as a configuration file, with debug logging
        const home = yield* TempDir.make("zett-secrets-")
        const config = Path.join(home, "mcp.json")
        const stdioEntry = (name: string, fault: string, token: string) => ({
          command: node,
          args: [faultyServer, `--fault=${fault}`, `--name=${name}`],
          env: { ZETT_TEST_MARKER: marker, API_TOKEN: token }
        })
        Fs.writeFileSync(
          config,
          JSON.stringify({
            mcpServers: {
              vault: stdioEntry("vault", "echo-secrets", secrets.env),
              crashy: stdioEntry("crashy", "exit-during-call", secrets.envCrash),
              web: {
                type: "streamable-http",
                url: web,
                headers: { Authorization: `Bearer ${secrets.bearer}`, "X-Api-Key": secrets.apiKey }
              },
              locked: { type: "streamable-http", url: locked, headers: { Authorization: `Bearer ${secrets.locked}` } },
              down: { type: "streamable-http", url: down, headers: { "X-Api-Key": secrets.down } },
              refuser: stdioEntry("refuser", "refuse-with-secrets", secrets.envRefuse),
              chatty: stdioEntry("chatty", "long-stderr-secret", secrets.envLong),
              revoked: {
                type: "streamable-http",
                url: revoked,
                headers: { Authorization: `Bearer ${secrets.revoked}` }
              },
              garbled: { type: "streamable-http", url: garbled, headers: { "X-Api-Key": secrets.garbled } },
              basic: { type: "streamable-http", url: web, headers: { Authorization: basicHeader } }
            }
          })
        )
        const cli = yield* Effect.forEach([
          ["--log-level", "debug", "tools", "--config", config],
          ["tools", "--config", config, "--json"],
          ["--log-level", "debug", "call", "--config", config, "vault__leak", "{}"],
          ["call", "--config", config, "web__boom", "{}"],
          ["call", "--config", config, "crashy__echo", "{}"],
          ["call", "--config", config, "basic__tell", "{}"],
          ["call", "--config", config, "basic__leak", "{}"],
          ["call", "--config", config, "vault__tell", "{}"]
        ], (args) => zett(args, home))
        assert.include(cli[0]!.output, "HTTP 401 Unauthorized")
        assert.include(cli[2]!.output, "<redacted>")
        assert.include(cli[0]!.output, "revoked")
        assert.include(cli[1]!.output, "is revoked")
        assert.include(cli[5]!.output, "user <redacted> pass <redacted>")
        assert.include(cli[7]!.output, "bare <redacted>")
        assert.deepStrictEqual(withMarker(marker), [])
        const texts = [
          ...logs.lines,
          ...traces.texts(),
          ...seen,
          ...exits.map((exit) => (Exit.isFailure(exit) ? Cause.pretty(exit.cause, { renderErrorCause: true }) : "")),
          ...cli.map((run) => run.output),
          ...servers.flatMap((
            server
          ) => [
            String(server),
            Util.inspect(server, { depth: 10 }),
            JSON.stringify(server),
            Inspectable.format(server)
          ])
        ]
        for (const text of texts) {
          for (const secret of secretValues) assert.notInclude(text, secret)
          // nor a piece of one: a long line cut in two must not leave a readable half
          for (const secret of Object.values(secrets)) {
            for (let i = 0; i + 12 <= secret.length; i += 4) assert.notInclude(text, secret.slice(i, i + 12))
          }
        }
        // a safety net, not a measure: two requests over ten servers and eight runs of zett take 25 s on an idle
        // two-core machine and over a minute on a loaded one
      }),
    180_000
  )

  it.scopedLive(
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
          Effect.provide(NodeContext.layer)
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
          Layer.provide(Layer.succeed(McpClientFactory.McpClientFactory, factory)),
          Layer.provide(NodeContext.layer),
          Layer.provide(ScriptedModel.layer([
            (request) => (record(request), {
              toolCalls: ["coded__whoami", "robot__whoami", "signer__whoami"].map((name) => ({ name, arguments: {} }))
            }),
            (request) => (record(request), { text: "done" })
          ]))
        )
        const exit = yield* Agent.Agent.pipe(
          Effect.flatMap((agent) => agent.run("go")),
          Effect.exit,
          Effect.provide(layer),
          Effect.provide(logs.layer),
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
            Inspectable.format(server)
          ])
        ]
        for (const text of texts) {
          for (const value of values) assert.notInclude(text, value)
        }
      })
  )
})
