/**
 * How the configuration reader words what it found without echoing it: a value in a configuration file may be a
 * secret, and a huge one would make a line unreadable. Plain functions, no Effect: both Effect lines share them.
 *
 * @internal
 */

/** @internal */
export const isObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** @internal */
export const has = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key)

const truncate = (s: string, max = 40) => (s.length > max ? `${s.slice(0, max)}...` : s)

/** @internal */
export const quote = (s: string): string => JSON.stringify(truncate(s))

/**
 * What a value is, for a reason. Only numbers, booleans and null are shown as they are: a string (or anything
 * holding one) may be a secret, and a huge value would make the line unreadable.
 *
 * @internal
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
 * A readable path segment: `.docs` for plain names, `["my server"]` for the rest (shortened when huge).
 *
 * @internal
 */
export const segment = (key: string | number | symbol): string =>
  typeof key === "number"
    ? `[${key}]`
    : /^[A-Za-z0-9_$-]{1,64}$/.test(String(key))
    ? `.${String(key)}`
    : `[${quote(String(key))}]`

/**
 * Sets an own, enumerable key: a key such as `__proto__` written in a file stays a key of the record.
 *
 * @internal
 */
export const setOwn = <A>(record: Record<string, A>, key: string, value: A): void => {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * Whether a text is an http(s) URL: `undefined` when it is, the scheme it has otherwise, `null` when it is no URL.
 *
 * @internal
 */
export const httpUrlIssue = (text: string): string | null | undefined => {
  try {
    const url = new URL(text)
    return url.protocol === "http:" || url.protocol === "https:" ? undefined : url.protocol.slice(0, -1)
  } catch {
    return null
  }
}

/**
 * The port a redirect URI names (Gemini CLI's `http://localhost:7777/oauth/callback`); none for a scheme's own.
 *
 * @internal
 */
export const portOf = (uri: string | undefined): number | undefined => {
  if (uri === undefined) return undefined
  const port = URL.canParse(uri) ? new URL(uri).port : ""
  return port === "" ? undefined : Number(port)
}
