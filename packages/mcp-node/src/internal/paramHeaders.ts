/**
 * The rules of the 2026-07-28 revision for `x-mcp-header`, the annotation that mirrors a tool argument into an
 * `Mcp-Param-{Name}` HTTP header: a non-empty RFC 9110 token, unique whatever its case, on a property of a
 * primitive type (`string`, `integer`, `boolean`) reached through `properties` alone. A tool that breaks one is
 * left out of the listing over HTTP (the SDK's own check runs only on the listing it makes itself, which the
 * driver does not use). The SDK mirrors the headers of a tool it is given.
 *
 * @internal
 */

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const PRIMITIVE: ReadonlySet<unknown> = new Set(["string", "integer", "boolean"])

// subschemas whose properties are not reached through `properties` alone
const UNREACHABLE = [
  "items", "prefixItems", "contains", "additionalProperties", "unevaluatedProperties", "unevaluatedItems",
  "propertyNames", "patternProperties", "dependentSchemas", "oneOf", "anyOf", "allOf", "not", "if", "then", "else",
  "$defs", "definitions"
] as const
const NAMED: ReadonlySet<string> = new Set(["patternProperties", "dependentSchemas", "$defs", "definitions"])

const where = (path: ReadonlyArray<string>) => (path.length === 0 ? "the input schema" : `property ${path.join(".")}`)

/** What an input schema declares: whether it has any `x-mcp-header`, or the first rule it breaks. @internal */
export const scan = (inputSchema: unknown): { readonly declares: boolean; readonly broken?: string } => {
  const seen = new Map<string, string>()
  // a walk with its own stack: the schemas come from the server
  const stack: Array<{ readonly node: unknown; readonly path: ReadonlyArray<string>; readonly reachable: boolean }> = [
    { node: inputSchema, path: [], reachable: true }
  ]
  while (stack.length > 0) {
    const { node, path, reachable } = stack.pop()!
    if (typeof node !== "object" || node === null) continue
    const schema = node as Record<string, unknown>
    if (Object.hasOwn(schema, "x-mcp-header")) {
      const name = schema["x-mcp-header"]
      if (!reachable || path.length === 0) {
        return { declares: true, broken: `${where(path)}: x-mcp-header is allowed only on a property reached through properties alone` }
      }
      if (typeof name !== "string" || name.length === 0) return { declares: true, broken: `${where(path)}: x-mcp-header must be a non-empty string` }
      if (!TOKEN.test(name)) return { declares: true, broken: `${where(path)}: x-mcp-header is not an HTTP token` }
      if (!PRIMITIVE.has(schema.type)) {
        return { declares: true, broken: `${where(path)}: x-mcp-header is allowed only on a string, integer or boolean` }
      }
      const earlier = seen.get(name.toLowerCase())
      if (earlier !== undefined) return { declares: true, broken: `${where(path)}: x-mcp-header repeats ${earlier}'s` }
      seen.set(name.toLowerCase(), path.join("."))
    }
    const properties = schema.properties
    if (typeof properties === "object" && properties !== null) {
      for (const [key, child] of Object.entries(properties)) stack.push({ node: child, path: [...path, key], reachable })
    }
    for (const keyword of UNREACHABLE) {
      const sub = schema[keyword]
      if (sub === undefined) continue
      const branches = Array.isArray(sub) ? sub : NAMED.has(keyword) && typeof sub === "object" && sub !== null ? Object.values(sub) : [sub]
      for (const branch of branches) stack.push({ node: branch, path: [...path, `<${keyword}>`], reachable: false })
    }
  }
  return { declares: seen.size > 0 }
}
