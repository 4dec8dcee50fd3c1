/**
 * `${input:ID}` for `zett`: asked on the terminal (hidden for `password: true`), once per process; without a
 * terminal, a clear failure naming the input.
 *
 * @internal
 */
import * as Prompt from "@effect/cli/Prompt"
import * as Terminal from "@effect/platform/Terminal"
import * as McpInputs from "@zett/mcp-config/McpInputs"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

const ask = (environment: Context.Context<Prompt.Prompt.Environment>) => (input: McpInputs.Input) =>
  Effect.gen(function*() {
    if (!(yield* Context.get(environment, Terminal.Terminal).isTTY)) {
      return yield* new McpInputs.InputError({
        id: input.id,
        reason: "Unavailable",
        description: "zett is not running on a terminal, so it cannot ask for it; run zett interactively"
      })
    }
    const message = input.description === undefined ? `Value of ${input.id}` : `${input.description} (${input.id})`
    return input.password
      ? yield* Prompt.run(Prompt.password({ message }))
      : Redacted.make(
        yield* Prompt.run(Prompt.text({ message, ...(input.default !== undefined ? { default: input.default } : {}) }))
      )
  }).pipe(
    Effect.provide(environment),
    Effect.catchTag(
      "QuitException",
      () => new McpInputs.InputError({ id: input.id, reason: "Cancelled", description: "the prompt was cancelled" })
    )
  )

/** The terminal prompt; an `McpInputs` already in context (a test's, an app's) is kept. */
export const layer: Layer.Layer<McpInputs.McpInputs, never, Prompt.Prompt.Environment> = Layer.effect(
  McpInputs.McpInputs,
  Effect.flatMap(Effect.context<Prompt.Prompt.Environment>(), (environment) => McpInputs.make(ask(environment)))
)

/** Provides the terminal prompt unless an `McpInputs` other than the default is in context already. */
export const provide = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Prompt.Prompt.Environment> =>
  Effect.flatMap(
    McpInputs.McpInputs,
    (given): Effect.Effect<A, E, R | Prompt.Prompt.Environment> =>
      given !== McpInputs.unavailable ? self : Effect.provide(self, layer)
  )
