/**
 * How the configuration reader words what it found without echoing it: a value in a configuration file may be a
 * secret, and a huge one would make a line unreadable. The configuration reader (`@zett/mcp-config`) of either
 * Effect line uses this one module.
 *
 * @since 0.1.0
 */

/**
 * Whether a value is a JSON object (not an array, not null).
 *
 * @since 0.1.0
 * @category guards
 */
export const isObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Whether an object has `key` as its own key (a key such as `__proto__` or `toString` written in a file is one).
 *
 * @since 0.1.0
 * @category guards
 */
export const has = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key)

const truncate = (s: string, max = 40) => (s.length > max ? `${s.slice(0, max)}...` : s)

/**
 * A name or a type written in a file, quoted and cut to 40 characters.
 *
 * @example
 * ```ts
 * import { McpConfigWording } from "@zett/common"
 *
 * console.log(McpConfigWording.quote("websocket")) // "websocket"
 * ```
 *
 * @since 0.1.0
 * @category wording
 */
export const quote = (s: string): string => JSON.stringify(truncate(s))

/**
 * What a value is, for a reason. Only numbers, booleans and null are shown as they are (and not even those for a
 * `secret` field): a string (or anything holding one) may be a secret, and a huge value would make the line
 * unreadable.
 *
 * @example
 * ```ts
 * import { McpConfigWording } from "@zett/common"
 *
 * console.log(McpConfigWording.got("sk-123")) // a string
 * console.log(McpConfigWording.got(42)) // 42
 * console.log(McpConfigWording.got(42, true)) // a number
 * ```
 *
 * @since 0.1.0
 * @category wording
 */
export const got = (u: unknown, secret = false): string => {
  if (u === null) return "null"
  if (Array.isArray(u)) return "an array"
  switch (typeof u) {
    case "string":
      return u.length === 0 ? "an empty string" : "a string"
    case "number":
    case "boolean":
      return secret ? `a ${typeof u}` : String(u)
    case "object":
      return "an object"
    // a JSON value has no other type
    default:
      return typeof u
  }
}

/**
 * A readable path segment: `.docs` for plain names, `["my server"]` for the rest (shortened when huge), `[1]` for
 * an index.
 *
 * @example
 * ```ts
 * import { McpConfigWording } from "@zett/common"
 *
 * console.log(["mcpServers", "my server", "args", 1].map(McpConfigWording.segment).join(""))
 * // .mcpServers["my server"].args[1]
 * ```
 *
 * @since 0.1.0
 * @category wording
 */
export const segment = (key: string | number | symbol): string =>
  typeof key === "number"
    ? `[${key}]`
    : /^[A-Za-z0-9_$-]{1,64}$/.test(String(key))
    ? `.${String(key)}`
    : `[${quote(String(key))}]`

/**
 * Sets an own, enumerable key: a key such as `__proto__` written in a file stays a key of the record (a plain
 * assignment would set the prototype).
 *
 * @since 0.1.0
 * @category utils
 */
export const setOwn = <A>(record: Record<string, A>, key: string, value: A): void => {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * The port a redirect URI names (Gemini CLI's `http://localhost:7777/oauth/callback`); none for a scheme's own.
 *
 * @since 0.1.0
 * @category utils
 */
export const portOf = (uri: string | undefined): number | undefined => {
  if (uri === undefined) return undefined
  const port = URL.canParse(uri) ? new URL(uri).port : ""
  return port === "" ? undefined : Number(port)
}
