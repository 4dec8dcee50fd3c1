/**
 * `zett call … --arg key=value`: a tool's arguments built from its input schema, as the MCP Inspector's
 * `--tool-arg` builds them. Each value is read as its property's type says: a number or an integer, a boolean
 * (`true` or `false`), an array (JSON, or values separated by commas, each read as the items' type), an object
 * (JSON), a string as written; a property of no single type takes JSON where the value reads as JSON, else the
 * text. A key the schema does not have, or a value its type cannot read, is one usage line naming the key.
 *
 * @internal
 */
import * as EditDistance from "@zett/agent/EditDistance"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { isRecord } from "effect/Predicate"

const typeOf = (schema: unknown): string | undefined => {
  if (!isRecord(schema)) return undefined
  if (typeof schema.type === "string") return schema.type
  // `["string", "null"]`: the one type besides null
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((type) => type !== "null")
    return types.length === 1 && typeof types[0] === "string" ? types[0] : undefined
  }
  return undefined
}

const json = (text: string): Option.Option<unknown> => {
  try {
    return Option.some(JSON.parse(text))
  } catch {
    return Option.none()
  }
}

/** `text` read as a value of `schema`'s type, or what was expected. */
const read = (text: string, schema: unknown): Either.Either<unknown, string> => {
  switch (typeOf(schema)) {
    case "string":
      return Either.right(text)
    case "number": {
      const value = Number(text)
      return text.trim() !== "" && Number.isFinite(value) ? Either.right(value) : Either.left("a number")
    }
    case "integer": {
      const value = Number(text)
      return text.trim() !== "" && Number.isSafeInteger(value) ? Either.right(value) : Either.left("a whole number")
    }
    case "boolean":
      return text === "true"
        ? Either.right(true)
        : text === "false"
        ? Either.right(false)
        : Either.left("true or false")
    case "array": {
      if (text.trimStart().startsWith("[")) {
        const parsed = json(text)
        return Option.isSome(parsed) && Array.isArray(parsed.value)
          ? Either.right(parsed.value)
          : Either.left("a JSON array, or values separated by commas")
      }
      const items = isRecord(schema) ? schema.items : undefined
      const values: Array<unknown> = []
      for (const part of text === "" ? [] : text.split(",")) {
        const value = read(part.trim(), items)
        if (Either.isLeft(value)) return Either.left(`values separated by commas, each ${value.left}`)
        values.push(value.right)
      }
      return Either.right(values)
    }
    case "object": {
      const parsed = json(text)
      return Option.isSome(parsed) && isRecord(parsed.value) ? Either.right(parsed.value) : Either.left("a JSON object")
    }
    default:
      return Either.right(Option.getOrElse(json(text), () => text))
  }
}

/** The names of a schema's properties, when it lists them and takes no others. */
const closedNames = (schema: unknown): ReadonlyArray<string> | undefined => {
  if (!isRecord(schema) || !isRecord(schema.properties)) return undefined
  const extra = schema.additionalProperties
  return extra === true || isRecord(extra) ? undefined : Object.keys(schema.properties)
}

/**
 * `base` (the JSON arguments, if any) with each `key=value` of `pairs` set as `schema` reads it, or the one line
 * that says what is wrong.
 *
 * @internal
 */
export const build = (
  tool: string,
  schema: unknown,
  pairs: ReadonlyArray<string>,
  base: Readonly<Record<string, unknown>>
): Either.Either<Record<string, unknown>, string> => {
  const out: Record<string, unknown> = { ...base }
  const given = new Set<string>()
  const properties = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {}
  const names = closedNames(schema)
  for (const pair of pairs) {
    const equals = pair.indexOf("=")
    if (equals <= 0) return Either.left(`--arg expects key=value, got '${pair}'`)
    const key = pair.slice(0, equals)
    if (given.has(key)) return Either.left(`--arg ${key} is given twice`)
    given.add(key)
    if (names !== undefined && !names.includes(key)) {
      const near = EditDistance.nearest(key, names)
      return Either.left(
        `${tool} has no argument '${key}'${near === undefined ? "" : ` (did you mean ${near}?)`}; it takes ${
          names.length === 0 ? "none" : names.join(", ")
        }`
      )
    }
    const value = read(pair.slice(equals + 1), Object.hasOwn(properties, key) ? properties[key] : undefined)
    if (Either.isLeft(value)) return Either.left(`--arg ${key} expects ${value.left}, got '${pair.slice(equals + 1)}'`)
    // a plain assignment of "__proto__" would set the prototype
    Object.defineProperty(out, key, { value: value.right, enumerable: true, writable: true, configurable: true })
  }
  return Either.right(out)
}
