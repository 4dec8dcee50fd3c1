/**
 * Expanding an entry's values: the variables of the file's dialect (`@zett/common`'s `McpConfigVariables` and
 * `McpConfigDialect`, shared with the Effect 3 line) resolved against the `ConfigProvider`, the predefined paths
 * and the inputs `McpInputs` answers. Every value that came from a variable or an input is kept in `secrets`, so
 * that whoever shows the server scrubs it.
 *
 * @internal
 */
import type { McpConfigDialect as Dialect } from "@zett/common"
import * as Variables from "@zett/common/McpConfigVariables"
import { segment, setOwn } from "@zett/common/McpConfigWording"
import type { InputError } from "@zett/mcp/McpError"
import * as Config from "effect/Config"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Redacted from "effect/Redacted"
import * as McpInputs from "../McpInputs.js"
import type * as Entries from "./entries.js"

/**
 * A problem found while building a server from its entry, for one field.
 *
 * @internal
 */
export class FieldIssue extends Data.TaggedError("FieldIssue")<{ readonly field: string; readonly reason: string }> {}

/**
 * What a value's variables are resolved against.
 *
 * @internal
 */
export interface Resolver {
  /** A variable's value (the `ConfigProvider`'s, the process environment by default), if set. */
  readonly variable: (name: string) => Effect.Effect<Option.Option<string>>
  readonly predefined: (name: Variables.Predefined) => string
  readonly input: (id: string) => Effect.Effect<string, InputError>
}

/** @internal */
export interface Expansion {
  readonly dialect: Dialect.Dialect
  readonly forms: Variables.Forms
  readonly fields: ReadonlyArray<Dialect.Field>
  readonly resolver: Resolver
  /** Every value that came from a variable or an input (not the predefined paths), in the order met. */
  readonly secrets: Array<string>
}

/** @internal */
export interface ResolverOptions {
  readonly workspace: string
  readonly home: string
  /** The file's `inputs`, by id. */
  readonly inputs: ReadonlyMap<string, typeof Entries.Inputs.Type[number]>
}

/**
 * The resolver of one file: variables from the `ConfigProvider`, `${input:ID}` from the `McpInputs` in context
 * (only for an input the file declares).
 *
 * @internal
 */
export const makeResolver = (options: ResolverOptions): Effect.Effect<Resolver, never, Path.Path> =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const askInput = yield* McpInputs.current
    const { home, inputs, workspace } = options
    return {
      variable: (name) => Effect.option(Config.String(name)),
      predefined: (name) => {
        switch (name) {
          case "workspaceFolder":
            return workspace
          case "workspaceFolderBasename":
            return path.basename(workspace)
          case "userHome":
            return home
          case "pathSeparator":
          case "/":
            return path.sep
        }
      },
      input: (id) => {
        const definition = inputs.get(id)
        return definition === undefined
          ? Effect.fail(
            new McpInputs.InputError({ id, reason: "Undeclared", description: "no such input in the file's inputs" })
          )
          : Effect.map(
            askInput.get({
              id,
              description: definition.description,
              password: definition.password ?? false,
              default: definition.default
            }),
            Redacted.value
          )
      }
    }
  })

const expand = (
  tokens: ReadonlyArray<Variables.Token>,
  resolver: Resolver,
  secrets: Array<string>
): Effect.Effect<string, Variables.Unset | InputError> =>
  Effect.reduce(tokens, () => "", (out, token): Effect.Effect<string, Variables.Unset | InputError> => {
    switch (token._tag) {
      case "Text":
        return Effect.succeed(out + token.text)
      case "Predefined":
        return Effect.succeed(out + resolver.predefined(token.name))
      case "Input":
        return Effect.map(resolver.input(token.id), (value) => {
          secrets.push(value)
          return out + value
        })
      case "Variable":
        return Effect.flatMap(resolver.variable(token.name), (set) => {
          const chosen = Variables.variableValue(token, Option.getOrUndefined(set))
          if ("_tag" in chosen) return Effect.fail(chosen)
          if (chosen.secret) secrets.push(chosen.value)
          return Effect.succeed(out + chosen.value)
        })
    }
  })

/**
 * One value of the field `field` (a path suffix such as `.args[1]`), expanded if its dialect expands `kind`.
 *
 * @internal
 */
export const expandText = (
  expansion: Expansion,
  kind: Dialect.Field,
  field: string,
  text: string
): Effect.Effect<string, FieldIssue> => {
  if (!expansion.fields.includes(kind)) return Effect.succeed(text)
  const tokens = Variables.parse(text, expansion.forms)
  // a shortcut: text without variables expands to itself
  if (!Variables.hasVariables(tokens)) return Effect.succeed(text)
  return expand(tokens, expansion.resolver, expansion.secrets).pipe(
    Effect.mapError((error) =>
      error._tag === "Unset"
        ? new FieldIssue({ field, reason: `the variable ${error.name} is not set and has no default` })
        : new FieldIssue({ field, reason: `the input ${JSON.stringify(error.id)} has no value: ${error.description}` })
    )
  )
}

/** @internal */
export const expandSecret = (
  expansion: Expansion,
  field: string,
  value: Redacted.Redacted<string>
): Effect.Effect<Redacted.Redacted<string>, FieldIssue> =>
  Effect.map(expandText(expansion, "auth", field, Redacted.value(value)), (text) => Redacted.make(text))

/**
 * A record of secrets (`env`, `headers`), each value expanded.
 *
 * @internal
 */
export const expandSecrets = (
  expansion: Expansion,
  kind: Dialect.Field,
  field: string,
  record: Readonly<Record<string, Redacted.Redacted<string>>> | undefined
): Effect.Effect<Record<string, Redacted.Redacted<string>>, FieldIssue> =>
  Effect.reduce(
    Object.entries(record ?? {}),
    (): Record<string, Redacted.Redacted<string>> => ({}),
    (out, [key, value]) =>
      Effect.map(expandText(expansion, kind, `${field}${segment(key)}`, Redacted.value(value)), (text) => {
        setOwn(out, key, Redacted.make(text))
        return out
      })
  )
