/**
 * Keeps secrets out of text. A `Scrubber` is made once from the secret values of a server or a provider
 * (header values, environment values, API keys) and then replaces, in any text that may reach a log, an
 * error, a span, the model or a command's output, every form in which a secret can be quoted:
 *
 * - the whole value (`Bearer abc123...`);
 * - the credential after an authorization scheme (`abc123...` of `Bearer abc123...`, `Token ...`, `Basic ...`);
 * - each half of a `user:pass` pair: the decoded `Basic` credential, the user info of a URL, or a bare
 *   `user:pass` value;
 * - each of the above URL-encoded (`%2F`, lower-case `%2f`, `+` for a space), JSON-escaped, and in base64 and
 *   base64url at any alignment (the part of the encoding that depends on the secret's bytes alone, so a
 *   secret inside a larger base64 text is found too).
 *
 * Values shorter than `minLength` are not treated as secrets: replacing them would garble every text.
 *
 * This module takes secrets as plain strings and needs no Effect; each Effect line's `@zett/agent` `Scrubber`
 * takes `Redacted` values too and keeps the process's held secrets in a `Context.Reference`.
 *
 * @since 0.1.0
 */
import * as Base64 from "./internal/base64.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Scrubber {
  /** The text with every form of every secret replaced by `<redacted>`. */
  readonly scrub: (text: string) => string
  /**
   * As `scrub`, for a text cut short at its end (a long line truncated): a tail that could be the beginning
   * of a secret is removed too, so that no part of a secret survives the cut.
   */
  readonly scrubTruncated: (text: string) => string
  /** The same value, with `scrub` applied to every string in it (keys included); unchanged values are shared. */
  readonly scrubDeep: <A>(value: A) => A
  /** Whether there is any secret to look for. */
  readonly isEmpty: boolean
}

// the values a scrubber was made from, so that `Secrets.extend` can make one pattern of them and the held ones
const valuesKey: unique symbol = Symbol.for("@zett/common/Scrubber/values")
type WithValues = Scrubber & { readonly [valuesKey]?: ReadonlyArray<string> }

/**
 * The shortest value treated as a secret.
 *
 * @since 0.1.0
 * @category constants
 */
export const minLength = 4

/**
 * What a secret is replaced with.
 *
 * @since 0.1.0
 * @category constants
 */
export const replacement = "<redacted>"

const schemePattern = /^\s*([A-Za-z][A-Za-z0-9._~+-]*)\s+(\S(?:.*\S)?)\s*$/s

const decoder = new TextDecoder()

const decodeBase64 = (text: string): string | undefined => {
  const bytes = /[-_]/.test(text) ? Base64.decodeUrl(text) : Base64.decode(text)
  const decoded = bytes === undefined ? undefined : decoder.decode(bytes)
  // not text: a token that merely looks like base64
  return decoded === undefined || decoded.includes("\uFFFD") || /[\u0000-\u001F]/.test(decoded) ? undefined : decoded
}

const halves = (pair: string): ReadonlyArray<string> => {
  const colon = pair.indexOf(":")
  return colon <= 0 || colon === pair.length - 1 ? [] : [pair, pair.slice(0, colon), pair.slice(colon + 1)]
}

const decodeComponent = (part: string) => {
  try {
    return decodeURIComponent(part)
  } catch {
    return part
  }
}

const userInfo = (value: string): ReadonlyArray<string> => {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*@/.test(value)) return []
  try {
    const url = new URL(value)
    return [decodeComponent(url.username), decodeComponent(url.password), url.username, url.password]
  } catch {
    return []
  }
}

/** The secret-bearing parts of one value, before encodings. */
const parts = (value: string): Set<string> => {
  const out = new Set<string>([value, value.trim()])
  const scheme = schemePattern.exec(value)
  if (scheme !== null) {
    const credential = scheme[2]!
    out.add(credential)
    const decoded = decodeBase64(credential)
    if (decoded !== undefined && scheme[1]!.toLowerCase() === "basic") {
      for (const part of halves(decoded)) out.add(part)
    }
  }
  const urlParts = userInfo(value)
  for (const part of urlParts) out.add(part)
  if (urlParts.length === 0 && !/\s/.test(value)) { for (const part of halves(value)) out.add(part) }
  return out
}

const percentLower = (text: string) => text.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())

/** The base64 characters that depend only on `bytes`, for each of the three alignments it can start at. */
const base64Forms = (bytes: Uint8Array): Array<string> => {
  // the whole value encoded on its own, with its padding
  const out: Array<string> = [Base64.encode(bytes), Base64.encodeUrl(bytes)]
  for (let offset = 0; offset < 3; offset++) {
    const padded = new Uint8Array(offset + bytes.length)
    padded.set(bytes, offset)
    const first = Math.ceil((8 * offset) / 6)
    const last = Math.floor((8 * (offset + bytes.length)) / 6)
    out.push(Base64.encode(padded).slice(first, last), Base64.encodeUrl(padded).slice(first, last))
  }
  return out
}

const encoder = new TextEncoder()

const forms = (part: string): Set<string> => {
  const out = new Set<string>([part])
  // a lone surrogate is encoded as URLs and forms encode it (U+FFFD), never thrown over
  const uri = encodeURIComponent(part.toWellFormed())
  out.add(uri)
  out.add(percentLower(uri))
  out.add(uri.replace(/%20/g, "+"))
  out.add(JSON.stringify(part).slice(1, -1))
  for (const encoded of base64Forms(encoder.encode(part))) out.add(encoded)
  return out
}

// A shorter tail than this is too common to mean anything, and cutting it would garble every truncated line.
const minTail = 3

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const empty: Scrubber = {
  scrub: (text) => text,
  scrubTruncated: (text) => text,
  scrubDeep: (value) => value,
  isEmpty: true
}

/**
 * Builds a scrubber for `secrets`. The work of finding every form is done here, once; scrubbing a text is then
 * one pass of one regular expression.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (input: Iterable<string>): Scrubber => {
  const secrets = Array.from(input)
  const variants = new Set<string>()
  for (const value of secrets) {
    if (value.length < minLength) continue
    for (const part of parts(value)) {
      if (part.length < minLength) continue
      for (const form of forms(part)) if (form.length >= minLength) variants.add(form)
    }
  }
  if (variants.size === 0) return empty
  // longest first: at any position the longest form wins, so no tail of it is left behind
  const sorted = [...variants].sort((a, b) => b.length - a.length)
  const pattern = new RegExp(sorted.map(escapeRegExp).join("|"), "g")
  const scrub = (text: string): string => {
    pattern.lastIndex = 0
    return pattern.test(text) ? text.replace(pattern, replacement) : text
  }
  const scrubTruncated = (text: string): string => {
    const scrubbed = scrub(text)
    // the longest tail of the text that begins some form of a secret
    let cut = scrubbed.length
    for (const variant of sorted) {
      for (let length = Math.min(variant.length - 1, scrubbed.length); length >= minTail; length--) {
        if (scrubbed.length - length < cut && scrubbed.endsWith(variant.slice(0, length))) {
          cut = scrubbed.length - length
          break
        }
      }
    }
    return cut === scrubbed.length ? scrubbed : `${scrubbed.slice(0, cut)}${replacement}`
  }
  const scrubDeep = <A>(value: A): A => deep(value, scrub) as A
  const scrubber: WithValues = { scrub, scrubTruncated, scrubDeep, isEmpty: false }
  Object.defineProperty(scrubber, valuesKey, { value: secrets })
  return scrubber
}

// Deeper than this, a value is replaced rather than walked: only a hostile server nests that deep, and a
// recursive walk must not overflow the stack.
const maxDepth = 256
const tooDeep = "[nested too deeply]"

const deep = (value: unknown, scrub: (text: string) => string, depth = 0): unknown => {
  if (typeof value === "string") return scrub(value)
  if (typeof value !== "object" || value === null) return value
  if (depth >= maxDepth) return tooDeep
  if (Array.isArray(value)) {
    let out: Array<unknown> | undefined
    for (let i = 0; i < value.length; i++) {
      const item = deep(value[i], scrub, depth + 1)
      if (item !== value[i]) {
        out ??= value.slice()
        out[i] = item
      }
    }
    return out ?? value
  }
  const proto = Object.getPrototypeOf(value)
  if (proto === Object.prototype || proto === null) {
    let out: Record<string, unknown> | undefined
    const record = value as Record<string, unknown>
    for (const key of Object.keys(record)) {
      const item = deep(record[key], scrub, depth + 1)
      const cleanKey = scrub(key)
      if (item !== record[key] || cleanKey !== key) {
        out ??= { ...record }
        if (cleanKey !== key) delete out[key]
        Object.defineProperty(out, cleanKey, { value: item, enumerable: true, writable: true, configurable: true })
      }
    }
    return out ?? value
  }
  return value
}

/**
 * A scrubber with nothing to look for.
 *
 * @since 0.1.0
 * @category constructors
 */
export const none: Scrubber = empty

/**
 * The secrets of a URL: each part of its user info, and the values of query parameters whose names say they
 * are credentials (`api_key`, `token`, `secret`, `password`, `sig`, ...). The URL itself is not a secret.
 *
 * @since 0.1.0
 * @category utils
 */
export const urlSecrets = (text: string): ReadonlyArray<string> => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return []
  }
  const out: Array<string> = []
  if (url.username !== "") out.push(url.username, decodeComponent(url.username))
  if (url.password !== "") out.push(url.password, decodeComponent(url.password))
  for (const [name, value] of url.searchParams) {
    if (secretParameter.test(name) && value !== "") out.push(value)
  }
  return out
}

const secretParameter = /key|token|secret|pass(word|wd)?|pwd|auth|sig(nature)?|credential|session|jwt|bearer/i

/**
 * Secrets that a process comes to hold while it runs: the tokens of a login and their refreshed successors,
 * registered client secrets, passwords read from a URL. The set only grows; a scrubber made with `extend`
 * looks for every secret held when it scrubs, so a secret obtained after the scrubber was made is found too.
 *
 * @since 0.1.0
 * @category models
 */
export interface Secrets {
  /** Holds more secrets; values shorter than `minLength` are ignored, as by `make`. */
  readonly add: (secrets: Iterable<string>) => void
  /** `base` and every secret held, now and later. */
  readonly extend: (base: Scrubber) => Scrubber
  /** A scrubber for every secret held, now and later. */
  readonly scrubber: Scrubber
}

/**
 * A new, empty set of held secrets.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeSecrets = (): Secrets => {
  const held = new Set<string>()
  let version = 0
  const add = (secrets: Iterable<string>) => {
    for (const value of secrets) {
      if (value.length < minLength || held.has(value)) continue
      held.add(value)
      version++
    }
  }
  const extend = (base: Scrubber): Scrubber => {
    const values = (base as WithValues)[valuesKey] ?? []
    let built = base
    let builtVersion = 0
    const current = (): Scrubber => {
      if (builtVersion !== version) {
        built = make([...values, ...held])
        builtVersion = version
      }
      return built
    }
    return {
      scrub: (text) => current().scrub(text),
      scrubTruncated: (text) => current().scrubTruncated(text),
      scrubDeep: (value) => current().scrubDeep(value),
      get isEmpty() {
        return current().isEmpty
      }
    }
  }
  return { add, extend, scrubber: extend(empty) }
}
