/**
 * Values a configuration file asks the user for (`${input:ID}`, declared in its `inputs`, as VS Code writes
 * them). The library cannot ask anyone: by default an input fails with an error naming it. An application
 * provides its own way to ask with `make` or `layer`.
 *
 * @since 1.0.0
 */
import { InputError } from "@zett/mcp/McpError"
import * as Cache from "effect/Cache"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Equal from "effect/Equal"
import * as Hash from "effect/Hash"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

/**
 * One input of a file's `inputs`.
 *
 * @since 1.0.0
 * @category models
 */
export interface Input {
  readonly id: string
  readonly description?: string | undefined
  /** Asked without echo. */
  readonly password: boolean
  readonly default?: string | undefined
}

export {
  /**
   * An input that has no value: nobody can be asked, or asking failed (`McpError.InputError` of `@zett/mcp`).
   *
   * @since 1.0.0
   * @category errors
   */
  InputError
} from "@zett/mcp/McpError"

/**
 * @since 1.0.0
 * @category models
 */
export interface Service {
  readonly get: (input: Input) => Effect.Effect<Redacted.Redacted<string>, InputError>
}

/**
 * The default: nobody can be asked, so every input fails, naming itself (reason `Unavailable`).
 *
 * @since 1.0.0
 * @category constructors
 */
export const unavailable: Service = {
  get: (input) =>
    Effect.fail(
      new InputError({
        id: input.id,
        reason: "Unavailable",
        description: "nobody can be asked for it here (the zett command asks on a terminal; in code, provide McpInputs)"
      })
    )
}

/**
 * Who answers a file's `${input:ID}`: `unavailable` unless one is provided (`layer`, `layerValues`).
 *
 * @since 1.0.0
 * @category services
 */
export const McpInputs: Context.Reference<Service> = Context.Reference<Service>("@zett/mcp-config/McpInputs", {
  defaultValue: () => unavailable
})

// An input is asked for by its id: the key of the cache compares ids only (a file re-read with another
// description for an id does not ask again).
class InputKey implements Equal.Equal {
  constructor(readonly input: Input) {}
  [Equal.symbol](that: Equal.Equal): boolean {
    return that instanceof InputKey && that.input.id === this.input.id
  }
  [Hash.symbol](): number {
    return Hash.string(this.input.id)
  }
}

/**
 * The service over `ask`, which is called once per input id: its answer, or its failure, is kept for the life of
 * the service, and concurrent requests for one id share one question (a file that is re-read, or several requests
 * at once, ask only once). Effect 4's `Cache` does this; the 3 line kept a `Deferred` per id by hand.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (
  ask: (input: Input) => Effect.Effect<Redacted.Redacted<string>, InputError>
): Effect.Effect<Service> =>
  Effect.map(
    Cache.make({ capacity: Number.MAX_SAFE_INTEGER, lookup: (key: InputKey) => ask(key.input) }),
    (cache): Service => ({ get: (input) => Cache.get(cache, new InputKey(input)) })
  )

/**
 * The service over `ask` (see `make`).
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (
  ask: (input: Input) => Effect.Effect<Redacted.Redacted<string>, InputError>
): Layer.Layer<never> => Layer.effect(McpInputs, make(ask))

/**
 * Inputs with fixed values, e.g. from a secret store or in tests; any other input fails.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerValues = (
  values: Readonly<Record<string, string | Redacted.Redacted<string>>>
): Layer.Layer<never> =>
  layer((input) => {
    const value = Object.prototype.hasOwnProperty.call(values, input.id) ? values[input.id] : undefined
    return value === undefined
      ? Effect.fail(new InputError({ id: input.id, reason: "Missing", description: "no value was given for it" }))
      : Effect.succeed(Redacted.isRedacted(value) ? value : Redacted.make(value))
  })

/**
 * The `McpInputs` in context (`unavailable` unless one is provided).
 *
 * @since 1.0.0
 * @category accessors
 */
export const current: Effect.Effect<Service> = Effect.service(McpInputs)
