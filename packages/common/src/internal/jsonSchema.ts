/**
 * @since 0.1.0
 * @internal
 */

type JsonObject = { [key: string]: unknown }

// How each keyword's value is walked; keywords not listed here are copied unchanged.
const Annotation = 1 // dropped: the model does not need it
const Subschema = 2 // one schema (or, for `items`/`additionalItems` in older drafts, a tuple array)
const SubschemaArray = 3 // an array of schemas
const SubschemaMap = 4 // names (data) to schemas; `dependencies` values may also be string arrays
type Kind = typeof Annotation | typeof Subschema | typeof SubschemaArray | typeof SubschemaMap

const kinds: { readonly [key: string]: Kind | undefined } = Object.assign(Object.create(null), {
  title: Annotation,
  $schema: Annotation,
  items: Subschema,
  additionalItems: Subschema,
  additionalProperties: Subschema,
  not: Subschema,
  if: Subschema,
  then: Subschema,
  else: Subschema,
  contains: Subschema,
  propertyNames: Subschema,
  unevaluatedItems: Subschema,
  unevaluatedProperties: Subschema,
  contentSchema: Subschema,
  allOf: SubschemaArray,
  anyOf: SubschemaArray,
  oneOf: SubschemaArray,
  prefixItems: SubschemaArray,
  properties: SubschemaMap,
  patternProperties: SubschemaMap,
  $defs: SubschemaMap,
  definitions: SubschemaMap,
  dependentSchemas: SubschemaMap,
  dependencies: SubschemaMap
})

/** @internal */
export const maxDepth = 256

const isObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)

// A plain assignment of "__proto__" would set the prototype instead of an own key (JSON.parse creates one).
const set = (out: JsonObject, key: string, value: unknown): void => {
  if (key === "__proto__") {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
  } else {
    out[key] = value
  }
}

// Copy on write: a node whose subtree needs no change is returned as it is, so a schema without annotations
// costs a walk and no copy; a changed node is a new object that shares its unchanged children with the input.

const cleanArray = (value: ReadonlyArray<unknown>, depth: number): ReadonlyArray<unknown> => {
  let out: Array<unknown> | undefined
  for (let i = 0; i < value.length; i++) {
    const item = value[i]
    const cleaned = clean(item, depth)
    if (out === undefined && cleaned !== item) out = value.slice(0, i)
    if (out !== undefined) out.push(cleaned)
  }
  return out ?? value
}

const cleanMap = (value: JsonObject, depth: number): JsonObject => {
  let out: JsonObject | undefined
  const keys = Object.keys(value)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const entry = value[key]
    // `dependencies: { a: ["b"] }` lists property names: data, kept as is
    const cleaned = Array.isArray(entry) ? entry : clean(entry, depth)
    if (out === undefined && cleaned !== entry) out = copyOf(value, keys, i)
    if (out !== undefined) set(out, key, cleaned)
  }
  return out ?? value
}

/** A new object with the first `count` keys of `node`. */
const copyOf = (node: JsonObject, keys: ReadonlyArray<string>, count: number): JsonObject => {
  const out: JsonObject = {}
  for (let i = 0; i < count; i++) set(out, keys[i]!, node[keys[i]!])
  return out
}

// marks an annotation: its key is left out of the copy
const dropped: unique symbol = Symbol()

// Booleans and malformed values in schema positions are returned untouched.
const clean = (node: unknown, depth: number): unknown => {
  if (!isObject(node) || depth >= maxDepth) return node
  const next = depth + 1
  let out: JsonObject | undefined
  const keys = Object.keys(node)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const value = node[key]
    let cleaned: unknown
    switch (kinds[key]) {
      case Annotation:
        // the root's `$schema` names the dialect the schema is written in (2020-12 when absent): kept
        cleaned = depth === 0 && key === "$schema" ? value : dropped
        break
      case Subschema:
        cleaned = Array.isArray(value) ? cleanArray(value, next) : clean(value, next)
        break
      case SubschemaArray:
        cleaned = Array.isArray(value) ? cleanArray(value, next) : value
        break
      case SubschemaMap:
        cleaned = isObject(value) ? cleanMap(value, next) : value
        break
      default:
        cleaned = value
    }
    if (out === undefined && cleaned !== value) out = copyOf(node, keys, i)
    if (out !== undefined && cleaned !== dropped) set(out, key, cleaned)
  }
  return out ?? node
}

/**
 * Cleaning walks every schema of a tool list, which costs enough on a large list that it is done once per listing:
 * the tool cache keeps the cleaned tools, so a warm request cleans nothing (the measured cost and how to reproduce
 * it: docs/benchmarks.md, "Measurements behind choices in the code"). A schema without `title` anywhere nor
 * `$schema` below the root, with `type` and `properties` at the top, is returned as it is (no copy).
 *
 * @internal
 */
export const cleanInputSchema = (schema: unknown): { readonly [key: string]: unknown } => {
  if (!isObject(schema)) return { type: "object", properties: {} }
  const cleaned = clean(schema, 0) as JsonObject
  const withType: JsonObject = Object.hasOwn(cleaned, "type") ? cleaned : { type: "object", ...cleaned }
  // never added in place: `withType` may be the input itself
  if (withType.type === "object" && !Object.hasOwn(withType, "properties")) return { ...withType, properties: {} }
  return withType
}

/** @internal */
export const limits = { depth: 128, size: 1_000_000 } as const

/**
 * Why a schema is refused before anything walks it recursively: JSON nesting deeper than `limits.depth`, or
 * more than `limits.size` characters' worth of keys and values. The walk stops one level past `limits.depth`,
 * so a schema nested a million levels deep is refused without overflowing the stack (a recursive
 * `JSON.stringify` of it would not be). A schema that refers to another document (a `$ref` that is not a
 * pointer into the schema itself, nor to a `$id` in it) is refused too: nothing is fetched from the network, and
 * a model given the reference alone does not know what it means.
 *
 * @internal
 */
export const refusal = (schema: unknown): string | undefined => {
  let size = 0
  let external: Array<string> | undefined
  const ids = new Set<string>()
  // no arrays of keys and values are made: a thousand tools are checked in every cold discovery
  const walk = (node: unknown, depth: number, data: boolean): string | undefined => {
    if (typeof node === "string") {
      size += node.length + 2
    } else if (typeof node !== "object" || node === null) {
      size += 5
    } else {
      if (depth > limits.depth) return `its input schema nests deeper than ${limits.depth} levels`
      size += 2
      if (Array.isArray(node)) {
        size += node.length
        if (size > limits.size) return tooLarge
        for (const value of node) {
          const refused = walk(value, depth + 1, data)
          if (refused !== undefined) return refused
        }
      } else {
        for (const key in node) {
          size += key.length + 4
          if (size > limits.size) return tooLarge
          const value = (node as Record<string, unknown>)[key]
          if (!data && typeof value === "string") {
            if (key === "$ref" && !value.startsWith("#")) (external ??= []).push(value)
            else if (key === "$id") ids.add(value)
          }
          const refused = walk(value, depth + 1, data || isDataKeyword(key))
          if (refused !== undefined) return refused
        }
      }
    }
    return size > limits.size ? tooLarge : undefined
  }
  const refused = walk(schema, 1, false)
  if (refused !== undefined || external === undefined) return refused
  for (const ref of external) {
    const hash = ref.indexOf("#")
    if (!ids.has(hash === -1 ? ref : ref.slice(0, hash))) {
      const shown = ref.length > 80 ? `${ref.slice(0, 80)}…` : ref
      return `its input schema refers to another document (${JSON.stringify(shown)}), which is not fetched`
    }
  }
  return undefined
}

// values, not schemas: a `$ref` in them is data
const isDataKeyword = (key: string) => key === "const" || key === "enum" || key === "default" || key === "examples"

const tooLarge = `its input schema is larger than ${limits.size.toLocaleString("en-US")} characters`
