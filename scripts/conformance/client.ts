/**
 * The client the conformance suite tests: Zett's public API only. The harness appends the server URL and sets
 * `MCP_CONFORMANCE_SCENARIO`, `MCP_CONFORMANCE_CONTEXT` (JSON: for example `toolCalls`, the calls to make) and,
 * with `--spec-version`, `MCP_CONFORMANCE_PROTOCOL_VERSION`.
 *
 * What it does, as an app would: connect through `NodeMcpClientFactory` (an elicitation handler that accepts a
 * form with its defaults), list every tool as the agent's extension does (`McpClient.discover`: names, cleaned
 * schemas), then make the context's calls, or call every tool with a value for each required argument, as a model
 * would (and `json_schema_echo` with the other tool's schema as the model is given it).
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { McpClient, McpClientFactory, McpElicitation, McpServerConfig, type McpTool } from "@zett/mcp"
import { McpAuthorization, NodeMcpClientFactory } from "@zett/mcp-node"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

const url = process.argv.at(-1)!
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? ""
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as {
  readonly toolCalls?: ReadonlyArray<{ readonly name: string; readonly arguments?: Record<string, unknown> }>
  readonly client_id?: string
  readonly client_secret?: string
  readonly private_key_pem?: string
  readonly signing_algorithm?: string
  readonly idp_client_id?: string
  readonly idp_id_token?: string
  readonly idp_issuer?: string
  readonly idp_token_endpoint?: string
}

// the client ID metadata document the suite's authorization server knows (it fetches nothing)
const clientMetadataUrl = "https://conformance-test.local/client-metadata.json"

/** The server's `auth` option, as a user would write it for the scenario's authorization server. */
const auth = (): McpServerConfig.Auth | undefined => {
  if (!scenario.startsWith("auth/")) return undefined
  if (scenario === "auth/enterprise-managed-authorization") {
    return new McpServerConfig.EnterpriseManaged({
      clientId: context.client_id ?? "",
      clientSecret: Redacted.make(context.client_secret ?? ""),
      idToken: Redacted.make(context.idp_id_token ?? ""),
      idpIssuer: context.idp_issuer ?? "",
      ...(context.idp_token_endpoint !== undefined ? { idpTokenEndpoint: context.idp_token_endpoint } : {}),
      idpClientId: context.idp_client_id ?? ""
    })
  }
  if (scenario.startsWith("auth/client-credentials-")) {
    return new McpServerConfig.ClientCredentials({
      clientId: context.client_id ?? "",
      ...(context.client_secret !== undefined ? { clientSecret: Redacted.make(context.client_secret) } : {}),
      ...(context.private_key_pem !== undefined ? { privateKey: Redacted.make(context.private_key_pem) } : {}),
      ...(context.signing_algorithm !== undefined ? { algorithm: context.signing_algorithm } : {})
    })
  }
  return new McpServerConfig.AuthorizationCode({
    clientMetadataUrl,
    ...(context.client_id !== undefined ? { clientId: context.client_id } : {}),
    ...(context.client_secret !== undefined ? { clientSecret: Redacted.make(context.client_secret) } : {})
  })
}

// the user's browser: it follows the authorization URL, and the suite's server redirects at once with the code
const browser = McpAuthorization.McpAuthorization.of({
  login: () =>
    Effect.succeed({
      redirectUrl: "http://127.0.0.1:3999/callback",
      authorize: (authorizationUrl: URL) =>
        Effect.tryPromise({
          try: async () => {
            const response = await fetch(authorizationUrl, { redirect: "manual" })
            const location = new URL(response.headers.get("location") ?? "", authorizationUrl)
            return location.searchParams
          },
          catch: (cause) =>
            new McpAuthorization.McpAuthorizationError({ server: "conformance", reason: "Unavailable", description: String(cause) })
        }).pipe(Effect.flatMap((params) => McpAuthorization.callback("conformance", params)))
    })
})

// a form is accepted with the defaults its schema gives (what a user who presses enter sends)
const elicitation = McpElicitation.layer((request) =>
  Effect.succeed(
    request._tag === "Url"
      ? { action: "decline" as const }
      : {
        action: "accept" as const,
        content: McpElicitation.applyDefaults(request.requestedSchema, {}) as Record<string, McpElicitation.Value>
      }
  )
)

/** Arguments a model might give: a value of its type for every required property. */
const argumentsFor = (schema: McpTool.JsonSchema): Record<string, unknown> => {
  const properties = (schema.properties ?? {}) as Record<string, { readonly type?: unknown }>
  const required = Array.isArray(schema.required) ? (schema.required as Array<string>) : []
  const sample = (type: unknown): unknown =>
    type === "number" || type === "integer" ? 2 : type === "boolean" ? true : type === "array" ? [] : type === "object" ? {} : "x"
  return Object.fromEntries(required.map((name) => [name, sample(properties[name]?.type)]))
}

const program = Effect.scoped(Effect.gen(function*() {
  const factory = yield* McpClientFactory.McpClientFactory
  const option = auth()
  const server = McpServerConfig.http({ name: "conformance", url, ...(option !== undefined ? { auth: option } : {}) })
  const client = yield* factory.connect(server)
  const tools = yield* McpClient.discover(client, { namespace: false })
  yield* Console.error(`listed ${tools.length} tools: ${tools.map((tool) => tool.name).join(", ")}`)
  // the schema echo of json-schema-2020-12-preservation gets the other tool's schema as the model is given it
  const echo = (name: string) => {
    const focal = tools.find((tool) => tool.remoteName !== name)
    return { schema: focal?.parameters ?? {} }
  }
  const calls = context.toolCalls ?? tools.map((tool) => ({
    name: tool.remoteName,
    arguments: tool.remoteName === "json_schema_echo" ? echo(tool.remoteName) : argumentsFor(tool.parameters)
  }))
  for (const call of calls) {
    const result = yield* Effect.either(client.callTool(call.name, call.arguments ?? {}))
    yield* Console.error(`${call.name}: ${result._tag === "Right" ? "ok" : result.left.message}`)
  }
}))

program.pipe(
  Effect.provide(NodeMcpClientFactory.layer({ interactive: true }).pipe(Layer.provide(elicitation))),
  Effect.provideService(McpAuthorization.McpAuthorization, browser),
  Effect.provide(NodeContext.layer),
  Effect.runPromise
).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${String(error)}\n`)
    process.exit(1)
  }
)
