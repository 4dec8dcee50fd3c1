/**
 * What `zett` answers when a server asks the client: elicitation on the terminal, field by field (types,
 * choices and defaults shown), a URL shown whole with its domain (opened in a browser only when the user says
 * yes, and only an https: one, see `openUrl.ts`), sampling approved or not by the user. Without a terminal it
 * declines, saying so on standard error; `--yes-defaults` answers a form with its defaults without asking.
 * The server's text is printed inert (`inert.ts`), and past the first few requests of one server in a command,
 * the rest are declined without asking, counted for one summary line (`chatter.ts`).
 *
 * @internal
 */
import * as Prompt from "@effect/cli/Prompt"
import * as Terminal from "@effect/platform/Terminal"
import type { Model } from "@zett/agent"
import * as NodeMcpElicitation from "@zett/mcp-node/NodeMcpElicitation"
import * as McpElicitation from "@zett/mcp/McpElicitation"
import * as McpSampling from "@zett/mcp/McpSampling"
import type * as Context from "effect/Context"
import type * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Output from "../Output.js"
import * as Progress from "../Progress.js"
import * as Chatter from "./chatter.js"
import { inert } from "./inert.js"
import * as OpenUrl from "./openUrl.js"
import * as Quit from "./quit.js"

export interface Settings {
  /** Answer a form with its defaults, without asking (`--yes-defaults`). */
  readonly yesDefaults: boolean
  /**
   * Sampling: `"agent"` through the agent's model (`zett run`), a model layer (`zett call` with a model
   * configured), or `undefined` for none (the capability is not declared).
   */
  readonly sampling: "agent" | Layer.Layer<Model.Model, unknown> | undefined
  /** Open URLs in a browser when one can be (default: when a display is there). */
  readonly openUrls?: boolean | undefined
}

type Environment = Prompt.Prompt.Environment | Output.Output

/** How many choices a multiple choice takes (`minItems`, `maxItems` of its schema). */
const itemCount = (field: McpElicitation.Field) => ({
  minItems: typeof field.schema.minItems === "number" ? field.schema.minItems : undefined,
  maxItems: typeof field.schema.maxItems === "number" ? field.schema.maxItems : undefined
})

const typeText = (field: McpElicitation.Field) => {
  const parts: Array<string> = [
    field.type === "array" ? "choose any" : field.choices !== undefined ? "choose one" : field.type
  ]
  if (field.format !== undefined) parts.push(field.format)
  const { maxItems, minItems } = itemCount(field)
  if (minItems !== undefined && maxItems !== undefined) parts.push(`${minItems} to ${maxItems} choices`)
  else if (minItems !== undefined) parts.push(`at least ${minItems} choices`)
  else if (maxItems !== undefined) parts.push(`at most ${maxItems} choices`)
  if (field.minimum !== undefined && field.maximum !== undefined) parts.push(`${field.minimum} to ${field.maximum}`)
  else if (field.minimum !== undefined) parts.push(`at least ${field.minimum}`)
  else if (field.maximum !== undefined) parts.push(`at most ${field.maximum}`)
  parts.push(field.required ? "required" : "optional")
  if (field.default !== undefined) {
    parts.push(`default ${Array.isArray(field.default) ? field.default.join(", ") : String(field.default)}`)
  }
  return parts.join(", ")
}

const messageOf = (field: McpElicitation.Field) =>
  inert(`${field.title} (${typeText(field)})${field.description === undefined ? "" : `: ${field.description}`}`)

const skip = "\u0000skip"

/** One field's prompt; `undefined` leaves an optional field out. */
const askField = (field: McpElicitation.Field): Prompt.Prompt<McpElicitation.Value | undefined> => {
  const message = messageOf(field)
  if (field.type === "boolean") {
    return Prompt.confirm({ message, initial: field.default === true })
  }
  if (field.choices !== undefined && field.type === "array") {
    const chosen = new Set(Array.isArray(field.default) ? field.default : [])
    const { maxItems, minItems } = itemCount(field)
    return Prompt.multiSelect({
      message: `${message} (space selects, enter ends)`,
      // checked while asking, so a count the server refuses can be chosen again
      ...(maxItems !== undefined ? { max: maxItems } : {}),
      ...(minItems !== undefined ? { min: minItems } : {}),
      // the default is ticked: what is shown is what is sent
      choices: field.choices.map((choice) => ({
        title: inert(chosen.has(choice.value) ? `${choice.title} (default)` : choice.title),
        value: choice.value,
        ...(chosen.has(choice.value) ? { selected: true } : {})
      }))
    })
  }
  if (field.choices !== undefined) {
    // the default first: the cursor starts on it
    const choices = [...field.choices].sort((a, b) =>
      Number(b.value === field.default) - Number(a.value === field.default)
    )
    return Prompt.select({
      message,
      choices: [
        ...choices.map((choice) => ({
          title: inert(choice.value === field.default ? `${choice.title} (default)` : choice.title),
          value: choice.value
        })),
        ...(field.required ? [] : [{ title: "(leave out)", value: skip }])
      ]
    }).pipe(Prompt.map((value) => value === skip ? undefined : value))
  }
  const numeric = field.type === "number" || field.type === "integer"
  return Prompt.text({
    message,
    ...(field.default !== undefined ? { default: String(field.default) } : {}),
    validate: (text) => {
      if (text === "") {
        return field.required && field.default === undefined
          ? Effect.fail("a value is required")
          : Effect.succeed(text)
      }
      if (!numeric) {
        // a format (email, uri, date) or length the server asks for is checked here, so it can be typed again
        const problem = NodeMcpElicitation.checkField(field, text)
        return problem === undefined ? Effect.succeed(text) : Effect.fail(problem.replace(/^data\/[^ ]* /, ""))
      }
      const value = Number(text)
      if (!Number.isFinite(value)) return Effect.fail("a number is expected")
      if (field.type === "integer" && !Number.isInteger(value)) return Effect.fail("a whole number is expected")
      if (field.minimum !== undefined && value < field.minimum) return Effect.fail(`at least ${field.minimum}`)
      if (field.maximum !== undefined && value > field.maximum) return Effect.fail(`at most ${field.maximum}`)
      return Effect.succeed(text)
    }
  }).pipe(Prompt.map((text) => text === "" ? undefined : numeric ? Number(text) : text))
}

const isTerminal = Effect.flatMap(Terminal.Terminal, (terminal) => terminal.isTTY)

const quote = (text: string, max = 300) => JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text)

/** Whether one more request of `server` gets its line (or its question); past the limit it is declined unasked. */
const admitted = (chatter: Option.Option<Chatter.Service>, server: string) =>
  Option.isNone(chatter) || chatter.value.admit(server, "request")

const form = (request: McpElicitation.FormRequest, settings: Settings) =>
  Effect.gen(function*() {
    const fields = McpElicitation.fields(request.requestedSchema)
    const asked = inert(`MCP server ${request.server} asks: ${quote(request.message)}`)
    // the library fills in the defaults and checks the result against the schema
    const missing = fields.filter((field) => field.required && field.default === undefined)
    if (settings.yesDefaults && missing.length === 0) {
      yield* Output.errorLine(`zett: ${asked}; answered with the defaults (--yes-defaults)`)
      return { action: "accept" } as const
    }
    if (!(yield* isTerminal)) {
      yield* Output.errorLine(inert(
        `zett: ${asked}; declined: zett is not running on a terminal` +
          (settings.yesDefaults
            ? ` and ${missing.map((field) => field.name).join(", ")} has no default`
            : " (--yes-defaults answers with the defaults)")
      ))
      return { action: "decline" } as const
    }
    yield* Output.line(asked)
    if (!(yield* Prompt.run(Prompt.confirm({ message: inert(`Answer ${request.server}?`), initial: true })))) {
      return { action: "decline" } as const
    }
    const content: Record<string, McpElicitation.Value> = {}
    for (const field of settings.yesDefaults ? missing : fields) {
      const value = yield* Prompt.run(askField(field))
      if (value !== undefined) content[field.name] = value
    }
    return { action: "accept", content } as const
  })

/**
 * A URL the server wants the user to visit: shown whole with its domain; on a terminal opened only on the user's
 * yes, and only when `OpenUrl.check` allows it (any other scheme is declined, saying why); piped, declined.
 */
const url = (request: McpElicitation.UrlRequest, settings: Settings) =>
  Effect.gen(function*() {
    const checked = OpenUrl.check(request.url)
    const shown = checked._tag === "Allowed" ? checked.url.href : request.url
    const domain = checked._tag === "Allowed" ? ` ${OpenUrl.domainLine(checked.url)}` : ""
    const asked = inert(`MCP server ${request.server} asks you to open ${shown}: ${quote(request.message)}`)
    if (!(yield* isTerminal)) {
      yield* Output.errorLine(`zett: ${asked}${inert(domain)}; declined: zett is not running on a terminal`)
      return { action: "decline" } as const
    }
    yield* Output.line(asked)
    if (checked._tag === "Refused") {
      yield* Output.line(`zett: not opening it: ${checked.reason}; declined`)
      return { action: "decline" } as const
    }
    yield* Output.line(OpenUrl.domainLine(checked.url))
    const offered = settings.openUrls === false ? "no-browser" : yield* OpenUrl.offer(checked.url)
    if (offered === "declined") return { action: "decline" } as const
    yield* Output.line(offered === "opened" ? "(opened in your browser)" : "(open it in a browser yourself)")
    const done = yield* Prompt.run(
      Prompt.confirm({ message: `Done with ${checked.url.host}? (no declines)`, initial: true })
    )
    return { action: done ? "accept" : "decline" } as const
  })

const elicit = (
  environment: Context.Context<Environment>,
  chatter: Option.Option<Chatter.Service>,
  quit: Option.Option<Deferred.Deferred<void>>,
  settings: Settings
): McpElicitation.Handler =>
(request) =>
  !admitted(chatter, request.server)
    ? Effect.succeed({ action: "decline" } as const)
    : (request._tag === "Form" ? form(request, settings) : url(request, settings)).pipe(
      // Ctrl-C: the server hears that the user cancelled, and the command is interrupted
      Effect.catchTag("QuitException", () => Effect.as(Quit.request(quit), { action: "cancel" } as const)),
      // the questions and their lines are not drawn over by the spinner of the command waiting for the server
      Progress.prompting,
      Effect.provide(environment)
    )

const approve = (
  environment: Context.Context<Environment>,
  chatter: Option.Option<Chatter.Service>,
  quit: Option.Option<Deferred.Deferred<void>>
) =>
(request: McpSampling.Request) =>
  Effect.gen(function*() {
    if (!admitted(chatter, request.server)) return false
    const last = request.params.messages.at(-1)
    const blocks = last === undefined ? [] : Array.isArray(last.content) ? last.content : [last.content]
    const text = blocks.map((block) => block.type === "text" ? block.text : `[${block.type}]`).join(" ")
    const asked = inert(
      `MCP server ${request.server} asks the model (up to ${request.params.maxTokens} tokens): ${quote(text)}`
    )
    if (!(yield* isTerminal)) {
      yield* Output.errorLine(`zett: ${asked}; declined: zett is not running on a terminal`)
      return false
    }
    yield* Output.line(asked)
    return yield* Prompt.run(Prompt.confirm({ message: inert(`Let ${request.server} use the model?`), initial: false }))
  }).pipe(
    Effect.catchTag("QuitException", () => Effect.as(Quit.request(quit), false)),
    Progress.prompting,
    Effect.provide(environment)
  )

/** The defaults of `zett`'s sampling: a few requests per run, of a reasonable size. */
export const samplingLimits = { maxTokens: 4_096, maxCallsPerRequest: 5 } as const

/** `McpElicitation` (always) and `McpSampling` (when a model is there), answering on the terminal. */
export const layer = (settings: Settings): Layer.Layer<never, never, Environment> =>
  Layer.unwrapEffect(
    Effect.map(
      Effect.all([
        Effect.context<Environment>(),
        Effect.serviceOption(Chatter.Chatter),
        Effect.serviceOption(Quit.Quit)
      ]),
      ([environment, chatter, quit]) => {
        const elicitation = Layer.succeed(
          McpElicitation.McpElicitation,
          McpElicitation.McpElicitation.of({ offered: true, handle: elicit(environment, chatter, quit, settings) })
        )
        if (settings.sampling === undefined) return elicitation
        const model = settings.sampling === "agent" ? undefined : Layer.orDie(settings.sampling)
        const sampling = McpSampling.layer({
          ...samplingLimits,
          approve: approve(environment, chatter, quit),
          ...(model !== undefined ? { model } : {})
        })
        return Layer.merge(elicitation, sampling)
      }
    )
  ) as Layer.Layer<never, never, Environment>
