/**
 * What `zett` answers when a server asks the client (issue 13): elicitation on the terminal, field by field
 * (types, choices and defaults shown), a URL printed (and opened when a browser can be), sampling approved or
 * not by the user. Without a terminal it declines, saying so on standard error; `--yes-defaults` answers a form
 * with its defaults without asking.
 *
 * @internal
 */
import * as Prompt from "@effect/cli/Prompt"
import * as Terminal from "@effect/platform/Terminal"
import type { Model } from "@zett/agent"
import { McpElicitation, McpSampling } from "@zett/mcp"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ChildProcess from "node:child_process"
import * as Output from "../Output.js"

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
  const parts: Array<string> = [field.type === "array" ? "choose any" : field.choices !== undefined ? "choose one" : field.type]
  if (field.format !== undefined) parts.push(field.format)
  const { maxItems, minItems } = itemCount(field)
  if (minItems !== undefined && maxItems !== undefined) parts.push(`${minItems} to ${maxItems} choices`)
  else if (minItems !== undefined) parts.push(`at least ${minItems} choices`)
  else if (maxItems !== undefined) parts.push(`at most ${maxItems} choices`)
  if (field.minimum !== undefined && field.maximum !== undefined) parts.push(`${field.minimum} to ${field.maximum}`)
  else if (field.minimum !== undefined) parts.push(`at least ${field.minimum}`)
  else if (field.maximum !== undefined) parts.push(`at most ${field.maximum}`)
  parts.push(field.required ? "required" : "optional")
  if (field.default !== undefined) parts.push(`default ${Array.isArray(field.default) ? field.default.join(", ") : String(field.default)}`)
  return parts.join(", ")
}

const messageOf = (field: McpElicitation.Field) =>
  `${field.title} (${typeText(field)})${field.description === undefined ? "" : `: ${field.description}`}`

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
      // checked while asking, so a count the server refuses can be chosen again; with a default, choosing
      // nothing answers the default
      ...(maxItems !== undefined ? { max: maxItems } : {}),
      ...(minItems !== undefined && field.default === undefined ? { min: minItems } : {}),
      choices: field.choices.map((choice) => ({
        title: chosen.has(choice.value) ? `${choice.title} (default)` : choice.title,
        value: choice.value
      }))
    }).pipe(Prompt.map((values) => values.length === 0 && field.default !== undefined ? field.default : values))
  }
  if (field.choices !== undefined) {
    // the default first: the cursor starts on it
    const choices = [...field.choices].sort((a, b) => Number(b.value === field.default) - Number(a.value === field.default))
    return Prompt.select({
      message,
      choices: [
        ...choices.map((choice) => ({ title: choice.value === field.default ? `${choice.title} (default)` : choice.title, value: choice.value })),
        ...(field.required ? [] : [{ title: "(leave out)", value: skip }])
      ]
    }).pipe(Prompt.map((value) => value === skip ? undefined : value))
  }
  const numeric = field.type === "number" || field.type === "integer"
  return Prompt.text({
    message,
    ...(field.default !== undefined ? { default: String(field.default) } : {}),
    validate: (text) => {
      if (text === "") return field.required && field.default === undefined ? Effect.fail("a value is required") : Effect.succeed(text)
      if (!numeric) {
        // a format (email, uri, date) or length the server asks for is checked here, so it can be typed again
        const problem = McpElicitation.checkField(field, text)
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

/** Opens a URL in the desktop's browser, when there is a desktop; never fails. */
const openInBrowser = (url: string) =>
  Effect.sync(() => {
    const command = process.platform === "darwin"
      ? "open"
      : process.platform === "win32"
      ? "explorer"
      : process.env.DISPLAY !== undefined || process.env.WAYLAND_DISPLAY !== undefined
      ? "xdg-open"
      : undefined
    if (command === undefined) return false
    try {
      const child = ChildProcess.spawn(command, [url], { stdio: "ignore", detached: true })
      child.on("error", () => {})
      child.unref()
      return true
    } catch {
      return false
    }
  })

const form = (request: McpElicitation.FormRequest, settings: Settings) =>
  Effect.gen(function*() {
    const fields = McpElicitation.fields(request.requestedSchema)
    const asked = `MCP server ${request.server} asks: ${quote(request.message)}`
    // the library fills in the defaults and checks the result against the schema
    const missing = fields.filter((field) => field.required && field.default === undefined)
    if (settings.yesDefaults && missing.length === 0) {
      yield* Output.errorLine(`zett: ${asked}; answered with the defaults (--yes-defaults)`)
      return { action: "accept" } as const
    }
    if (!(yield* isTerminal)) {
      yield* Output.errorLine(
        `zett: ${asked}; declined: zett is not running on a terminal` +
          (settings.yesDefaults ? ` and ${missing.map((field) => field.name).join(", ")} has no default` : " (--yes-defaults answers with the defaults)")
      )
      return { action: "decline" } as const
    }
    yield* Output.line(asked)
    if (!(yield* Prompt.run(Prompt.confirm({ message: `Answer ${request.server}?`, initial: true })))) {
      return { action: "decline" } as const
    }
    const content: Record<string, McpElicitation.Value> = {}
    for (const field of settings.yesDefaults ? missing : fields) {
      const value = yield* Prompt.run(askField(field))
      if (value !== undefined) content[field.name] = value
    }
    return { action: "accept", content } as const
  })

const url = (request: McpElicitation.UrlRequest, settings: Settings) =>
  Effect.gen(function*() {
    const asked = `MCP server ${request.server} asks you to open ${request.url}: ${quote(request.message)}`
    if (!(yield* isTerminal)) {
      yield* Output.errorLine(`zett: ${asked}; declined: zett is not running on a terminal`)
      return { action: "decline" } as const
    }
    yield* Output.line(asked)
    const opened = settings.openUrls === false ? false : yield* openInBrowser(request.url)
    if (opened) yield* Output.line("(opened in your browser)")
    const done = yield* Prompt.run(Prompt.confirm({ message: `Done with ${request.url}? (no declines)`, initial: true }))
    return { action: done ? "accept" : "decline" } as const
  })

const elicit = (environment: Context.Context<Environment>, settings: Settings): McpElicitation.Handler => (request) =>
  (request._tag === "Form" ? form(request, settings) : url(request, settings)).pipe(
    Effect.catchTag("QuitException", () => Effect.succeed({ action: "cancel" } as const)),
    Effect.provide(environment)
  )

const approve = (environment: Context.Context<Environment>) => (request: McpSampling.Request) =>
  Effect.gen(function*() {
    const last = request.params.messages.at(-1)
    const blocks = last === undefined ? [] : Array.isArray(last.content) ? last.content : [last.content]
    const text = blocks.map((block) => block.type === "text" ? block.text : `[${block.type}]`).join(" ")
    const asked = `MCP server ${request.server} asks the model (up to ${request.params.maxTokens} tokens): ${quote(text)}`
    if (!(yield* isTerminal)) {
      yield* Output.errorLine(`zett: ${asked}; declined: zett is not running on a terminal`)
      return false
    }
    yield* Output.line(asked)
    return yield* Prompt.run(Prompt.confirm({ message: `Let ${request.server} use the model?`, initial: false }))
  }).pipe(Effect.catchTag("QuitException", () => Effect.succeed(false)), Effect.provide(environment))

/** The defaults of `zett`'s sampling: a few requests per run, of a reasonable size. */
export const samplingLimits = { maxTokens: 4_096, maxCallsPerRequest: 5 } as const

/** `McpElicitation` (always) and `McpSampling` (when a model is there), answering on the terminal. */
export const layer = (settings: Settings): Layer.Layer<never, never, Environment> =>
  Layer.unwrapEffect(Effect.map(Effect.context<Environment>(), (environment) => {
    const elicitation = Layer.succeed(McpElicitation.McpElicitation, McpElicitation.McpElicitation.of({ handle: elicit(environment, settings) }))
    if (settings.sampling === undefined) return elicitation
    const model = settings.sampling === "agent" ? undefined : Layer.orDie(settings.sampling)
    const sampling = McpSampling.layer({ ...samplingLimits, approve: approve(environment), ...(model !== undefined ? { model } : {}) })
    return Layer.merge(elicitation, sampling)
  })) as Layer.Layer<never, never, Environment>
