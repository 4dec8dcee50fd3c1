/**
 * The client the conformance suite tests on the Effect 4 line: scripts/conformance/client.ts (the 3 line's, whose
 * comment says what it does) written with the 4 line's public API only, so that `npm run conformance` holds both
 * lines to the same scenarios. The differences are Effect 4's: `Effect.result` for `Effect.either`, the
 * platform's services from `NodeServices`, `McpAuthorization` a `Context.Reference` given with `provideService`.
 *
 * Exit status: 0 when every call and every skill load succeeded; 1 when any failed; 3 when the scenario's context
 * holds something this driver does not know what to do with (`cannot drive`).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Agent, type Message, Model, ScriptedModel } from "@zett/agent"
import { McpClient, McpClientFactory, McpElicitation, McpSkills, type McpTool } from "@zett/mcp"
import { McpAuthorization } from "@zett/mcp-auth"
import { McpConfiguration } from "@zett/mcp-config"
import { NodeMcpClientFactory, NodeMcpExtension } from "@zett/mcp-node"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

const url = process.argv.at(-1)!
const mode = process.argv.includes("--agent") ? "agent" : "client"
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? ""
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as Record<string, unknown> & {
  readonly toolCalls?: ReadonlyArray<{ readonly name: string; readonly arguments?: Record<string, unknown> }>
}

// the client ID metadata document the suite's authorization server knows (it fetches nothing)
const clientMetadataUrl = "https://conformance-test.local/client-metadata.json"

/**
 * The `auth` a user would write for the scenario's server, in mcp.json keys; `{{key}}` is the context's value,
 * `{{file:key}}` a file holding it (a workload's token is mounted as a file). Every other server gets
 * `{ clientMetadataUrl }`, which is used only when the server asks for OAuth.
 */
const configured: Record<string, Record<string, string>> = {
  "auth/pre-registration": { clientId: "{{client_id}}", clientSecret: "{{client_secret}}" },
  "auth/client-credentials-basic": {
    grant: "client_credentials",
    clientId: "{{client_id}}",
    clientSecret: "{{client_secret}}"
  },
  "auth/client-credentials-jwt": {
    grant: "client_credentials",
    clientId: "{{client_id}}",
    privateKey: "{{private_key_pem}}",
    algorithm: "{{signing_algorithm}}"
  },
  "auth/enterprise-managed-authorization": {
    grant: "enterprise_managed",
    clientId: "{{client_id}}",
    clientSecret: "{{client_secret}}",
    idToken: "{{idp_id_token}}",
    idpIssuer: "{{idp_issuer}}",
    idpTokenEndpoint: "{{idp_token_endpoint}}",
    idpClientId: "{{idp_client_id}}"
  },
  "auth/wif-jwt-bearer": { grant: "workload_identity", clientId: "{{client_id}}", assertionFile: "{{file:valid_jwt}}" }
}

/**
 * Context keys a user would not configure, and why: the runner drives a scenario only when every other key of
 * its context is used by its `auth`.
 */
const unused: Record<string, string> = {
  name: "the scenario's name",
  toolCalls: "the calls the model makes",
  issuer: "the authorization server's issuer: Zett discovers it",
  wrong_audience_jwt: "a token the platform would not give this workload",
  expired_jwt: "a token the platform would have rotated"
}

/** What the user asks of a scenario's server, where it is not "use every tool and every skill". */
const tasks: Record<string, "list-skills-only"> = {
  // the user's request needs no skill: the model is shown the index, and loads nothing
  "sep-2640-client-no-prefetch": "list-skills-only"
}

const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "zett-conformance-"))
process.on("exit", () => Fs.rmSync(dir, { recursive: true, force: true }))

const fill = (template: string): string | undefined =>
  template.replace(/\{\{(file:)?(\w+)\}\}/g, (_, file: string | undefined, key: string) => {
    const value = String(context[key] ?? "")
    if (file === undefined) return value
    const path = Path.join(dir, key)
    Fs.writeFileSync(path, value)
    return path
  })

const cannotDrive = (why: string) => {
  process.stderr.write(`zett-conformance: cannot drive ${scenario}: ${why}\n`)
  process.exit(3)
}

const auth = (): Record<string, string> => {
  const form = configured[scenario] ?? { clientMetadataUrl }
  const used = new Set(
    Object.values(form).flatMap((value) => [...value.matchAll(/\{\{(?:file:)?(\w+)\}\}/g)].map((m) => m[1]!))
  )
  const stray = Object.keys(context).find((key) => !used.has(key) && unused[key] === undefined)
  if (stray !== undefined) cannotDrive(`the context's ${JSON.stringify(stray)} is used by no configuration`)
  const missing = [...used].find((key) => context[key] === undefined)
  if (missing !== undefined) {
    cannotDrive(`the configuration needs the context's ${JSON.stringify(missing)}, which it lacks`)
  }
  return Object.fromEntries(Object.entries(form).map(([key, value]) => [key, fill(value)!]))
}

const configPath = Path.join(dir, "mcp.json")
// skills are on: the user's agent may use the server's skills
Fs.writeFileSync(
  configPath,
  JSON.stringify({ mcpServers: { conformance: { type: "http", url, auth: auth(), skills: true } } })
)
const loadSkills = tasks[scenario] !== "list-skills-only"

// the user's browser: it follows the authorization URL, and the suite's server redirects at once with the code
const browser: McpAuthorization.Service = {
  login: () =>
    Effect.succeed({
      redirectUrl: "http://127.0.0.1:3999/callback",
      authorize: (authorizationUrl: URL) =>
        Effect.tryPromise({
          try: async () => {
            const response = await fetch(authorizationUrl, { redirect: "manual" })
            return new URL(response.headers.get("location") ?? "", authorizationUrl).searchParams
          },
          catch: (cause) =>
            new McpAuthorization.McpAuthorizationError({
              server: "conformance",
              reason: "Unavailable",
              description: String(cause)
            })
        }).pipe(Effect.flatMap((params) => McpAuthorization.callback("conformance", params)))
    })
}

// a user who presses enter: Zett fills in the form's defaults
const pressEnter = () => Effect.succeed({ action: "accept" as const, content: {} })

/** Arguments a model might give: a value of its type for every required property. */
const argumentsFor = (schema: McpTool.JsonSchema): Record<string, unknown> => {
  const properties = (schema.properties ?? {}) as Record<string, { readonly type?: unknown }>
  const required = Array.isArray(schema.required) ? (schema.required as Array<string>) : []
  const sample = (type: unknown): unknown =>
    type === "number" || type === "integer"
      ? 2
      : type === "boolean"
      ? true
      : type === "array"
      ? []
      : type === "object"
      ? {}
      : "x"
  return Object.fromEntries(required.map((name) => [name, sample(properties[name]?.type)]))
}

/** The calls to make, by the tools' names as listed: the context's, else every tool (the schema echo gets the other tool's schema). */
const callsFor = (tools: ReadonlyArray<{ readonly name: string; readonly parameters: McpTool.JsonSchema }>) =>
  context.toolCalls ?? tools.map((tool) => ({
    name: tool.name,
    arguments: /(^|__)json_schema_echo$/.test(tool.name)
      ? { schema: tools.find((other) => other.name !== tool.name)?.parameters ?? {} }
      : argumentsFor(tool.parameters)
  }))

const failures: Array<string> = []
const fail = (what: string) => {
  failures.push(what)
  process.stderr.write(`FAILED ${what}\n`)
}
const failed = (what: string) => Effect.sync(() => fail(what))

const clientMode = Effect.gen(function*() {
  const snapshot = yield* McpConfiguration.fromFile(configPath)
  const factory = yield* McpClientFactory.McpClientFactory
  const client = yield* factory.connect(snapshot.servers[0]!)
  const tools = yield* McpClient.discover(client, { namespace: false })
  yield* Console.error(`listed ${tools.length} tools: ${tools.map((tool) => tool.name).join(", ")}`)
  for (const call of callsFor(tools.map((tool) => ({ name: tool.remoteName, parameters: tool.parameters })))) {
    const result = yield* Effect.result(client.callTool(call.name, call.arguments ?? {}))
    if (result._tag === "Failure") yield* failed(`${call.name}: ${result.failure.message}`)
    else if (result.success.isError === true) yield* failed(`${call.name}: the tool answered isError`)
    else yield* Console.error(`${call.name}: ok`)
  }
  const skills = yield* McpSkills.list(client)
  yield* Console.error(`listed ${skills.length} skills: ${skills.map((skill) => skill.frontmatter.name).join(", ")}`)
  if (!loadSkills) return
  // a skill is loaded (its verified SKILL.md), then the files it lists are read, as a model following it would
  for (const skill of skills) {
    const manifest = yield* Effect.result(McpSkills.read(client, skill))
    if (manifest._tag === "Failure") {
      yield* failed(`skill ${skill.frontmatter.name}: ${manifest.failure.message}`)
      continue
    }
    for (const path of McpSkills.files(skill)) {
      const file = yield* Effect.result(McpSkills.read(client, skill, path))
      if (file._tag === "Failure") yield* failed(`skill ${skill.frontmatter.name} ${path}: ${file.failure.message}`)
    }
  }
})

const agentMode = Effect.gen(function*() {
  const given: Array<string> = []
  const isLoader = (name: string) => name.endsWith("__load_skill")
  /** The results of the last step's calls, failures reported. */
  const results = (request: Model.ModelRequest) => {
    const after = request.messages.findLastIndex((message) => message._tag === "AssistantMessage")
    const last = request.messages.slice(after + 1).filter((message): message is Message.ToolMessage =>
      message._tag === "ToolMessage"
    )
    for (const result of last) {
      if (result.status !== "ok") fail(`${result.name}: ${result.status} ${JSON.stringify(result.content)}`)
    }
    return last
  }
  const model = ScriptedModel.make([
    // the tools, and the skills of the index in the system text
    (request: Model.ModelRequest) => {
      for (const tool of request.tools) given.push(tool.name)
      const system = request.messages.flatMap((message) =>
        message._tag === "SystemMessage" ? message.content.split("\n") : []
      )
      const down = system.find((line) => line.startsWith("Unavailable MCP servers"))
      if (down !== undefined) fail(down)
      const tools = request.tools.filter((tool) => !isLoader(tool.name))
      // the model calls tools by the names it was given: the server's names behind the extension's prefix
      const byRemote = (name: string) => tools.find((tool) => tool.name.endsWith(`__${name}`))?.name ?? name
      const calls = context.toolCalls !== undefined
        ? context.toolCalls.map((call) => ({ name: byRemote(call.name), arguments: call.arguments ?? {} }))
        : callsFor(tools.map((tool) => ({ name: tool.name, parameters: tool.parameters as McpTool.JsonSchema })))
      const loader = request.tools.find((tool) => isLoader(tool.name))?.name
      const skills = loader === undefined || !loadSkills
        ? []
        : system.flatMap((line) => line.match(/^- ([^:]+): /)?.[1] ?? []).map((skill) => ({
          name: loader,
          arguments: { skill }
        }))
      return calls.length + skills.length === 0 ? { text: "nothing to do" } : { toolCalls: [...calls, ...skills] }
    },
    // the files each loaded skill lists
    (request: Model.ModelRequest) => {
      const loaded = results(request).filter((result) => isLoader(result.name) && result.status === "ok")
      const calls = loaded.flatMap((result) => {
        const { files = [], skill } = result.content as {
          readonly skill: string
          readonly files?: ReadonlyArray<string>
        }
        return files.map((path) => ({ name: result.name, arguments: { skill, path } }))
      })
      return calls.length === 0 ? { text: "done" } : { toolCalls: calls }
    },
    (request: Model.ModelRequest) => {
      results(request)
      return { text: "done" }
    }
  ])
  const AgentLive = NodeMcpExtension.layerAgent(
    McpConfiguration.layer({ configPath }).pipe(Layer.provide(NodeServices.layer)),
    {
      factory: { interactive: true },
      elicitation: pressEnter
    }
  ).pipe(Layer.provide(Layer.succeed(Model.Model, model)))
  const reply = yield* Agent.run("Use every tool you have.").pipe(Effect.provide(AgentLive))
  yield* Console.error(`agent: given ${given.join(", ") || "no tools"}; replied ${reply.content}`)
})

const program: Effect.Effect<void, unknown, NodeServices.NodeServices> = mode === "agent"
  ? agentMode
  : Effect.scoped(clientMode).pipe(
    Effect.provide(
      NodeMcpClientFactory.layer({ interactive: true }).pipe(Layer.provide(McpElicitation.layer(pressEnter)))
    )
  )

program.pipe(
  Effect.provideService(McpAuthorization.McpAuthorization, browser),
  Effect.provide(NodeServices.layer),
  Effect.runPromise
).then(
  () => process.exit(failures.length === 0 ? 0 : 1),
  (error) => {
    process.stderr.write(`${String(error)}\n`)
    process.exit(1)
  }
)
