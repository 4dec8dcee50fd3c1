/**
 * The rules of the 2026-07-28 revision for `x-mcp-header`, the annotation that mirrors a tool argument into an
 * `Mcp-Param-{Name}` HTTP header: a non-empty RFC 9110 token, unique whatever its case, on a property of a
 * primitive type (`string`, `integer`, `boolean`) reached through `properties` alone. A tool that breaks one is
 * left out of the listing over HTTP (the SDK's own check runs only on the listing it makes itself, which the
 * driver does not use). The SDK mirrors the headers of a tool it is given. The driver of either Effect line uses
 * this one module.
 *
 * @since 0.1.0
 */

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const PRIMITIVE: ReadonlyArray<unknown> = ["string", "integer", "boolean"]

// subschemas whose properties are not reached through `properties` alone
const UNREACHABLE = [
  "items",
  "prefixItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "patternProperties",
  "dependentSchemas",
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "$defs",
  "definitions"
] as const
const NAMED: ReadonlyArray<string> = ["patternProperties", "dependentSchemas", "$defs", "definitions"]

// the keys from the root to a node, as links to the parent: copying an array per level would be quadratic in depth
type Path = { readonly key: string; readonly up: Path } | undefined

const keys = (path: Path): Array<string> => {
  const out: Array<string> = []
  for (let at = path; at !== undefined; at = at.up) out.push(at.key)
  return out.reverse()
}

const where = (path: Path) => (path === undefined ? "the input schema" : `property ${keys(path).join(".")}`)

/**
 * What an input schema declares: whether it has any `x-mcp-header`, and the first rule it breaks, if one.
 *
 * @example
 * ```ts
 * import { McpParamHeaders } from "@zett/common"
 *
 * McpParamHeaders.scan({ type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } })
 * // { declares: true }
 * ```
 *
 * @since 0.1.0
 * @category utils
 */
export const scan = (inputSchema: unknown): { readonly declares: boolean; readonly broken?: string } => {
  const seen = new Map<string, string>()
  // a walk with its own stack: the schemas come from the server
  const stack: Array<{ readonly node: unknown; readonly path: Path; readonly reachable: boolean }> = [
    { node: inputSchema, path: undefined, reachable: true }
  ]
  while (stack.length > 0) {
    const { node, path, reachable } = stack.pop()!
    if (typeof node !== "object" || node === null) continue
    const schema = node as Record<string, unknown>
    if (Object.hasOwn(schema, "x-mcp-header")) {
      const name = schema["x-mcp-header"]
      if (!reachable || path === undefined) {
        return {
          declares: true,
          broken: `${where(path)}: x-mcp-header is allowed only on a property reached through properties alone`
        }
      }
      if (typeof name !== "string" || name.length === 0) {
        return { declares: true, broken: `${where(path)}: x-mcp-header must be a non-empty string` }
      }
      if (!TOKEN.test(name)) return { declares: true, broken: `${where(path)}: x-mcp-header is not an HTTP token` }
      if (!PRIMITIVE.includes(schema.type)) {
        return {
          declares: true,
          broken: `${where(path)}: x-mcp-header is allowed only on a string, integer or boolean`
        }
      }
      const earlier = seen.get(name.toLowerCase())
      if (earlier !== undefined) return { declares: true, broken: `${where(path)}: x-mcp-header repeats ${earlier}'s` }
      seen.set(name.toLowerCase(), keys(path).join("."))
    }
    const properties = schema.properties
    if (typeof properties === "object" && properties !== null) {
      for (const [key, child] of Object.entries(properties)) {
        stack.push({ node: child, path: { key, up: path }, reachable })
      }
    }
    for (const keyword of UNREACHABLE) {
      const sub = schema[keyword]
      if (sub === undefined) continue
      const branches = Array.isArray(sub)
        ? sub
        : NAMED.includes(keyword) && typeof sub === "object" && sub !== null
        ? Object.values(sub)
        : [sub]
      for (const branch of branches) {
        stack.push({ node: branch, path: { key: `<${keyword}>`, up: path }, reachable: false })
      }
    }
  }
  return { declares: seen.size > 0 }
}
