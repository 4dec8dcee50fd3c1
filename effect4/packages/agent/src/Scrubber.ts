/**
 * Keeps secrets out of text. A `Scrubber` is made once from the secret values of a server or a provider
 * (header values, environment values, API keys) and then replaces, in any text that may reach a log, an
 * error, a span, the model or a command's output, every form in which a secret can be quoted: the whole
 * value, the credential after an authorization scheme, each half of a `user:pass` pair (a `Basic`
 * credential, a URL's user info, a bare pair), and each of these URL-encoded, JSON-escaped, and in base64
 * and base64url at any alignment. Values shorter than `minLength` are not treated as secrets.
 *
 * The patterns are `@zett/common`'s `Scrubber`, the same module the Effect 3 line uses; this module adds what
 * is Effect's: secrets given as `Redacted` values, and `HeldSecrets`, the process's set as a reference.
 *
 * @since 1.0.0
 */
import * as Common from "@zett/common/Scrubber"
import * as Context from "effect/Context"
import * as Redacted from "effect/Redacted"

/**
 * @since 1.0.0
 * @category models
 */
export type Scrubber = Common.Scrubber

/**
 * The shortest value treated as a secret.
 *
 * @since 1.0.0
 * @category constants
 */
export const minLength: number = Common.minLength

/**
 * What a secret is replaced with.
 *
 * @since 1.0.0
 * @category constants
 */
export const replacement: string = Common.replacement

const valuesOf = (secrets: Iterable<string | Redacted.Redacted<string>>): Array<string> =>
  Array.from(secrets, (secret) => typeof secret === "string" ? secret : Redacted.value(secret))

/**
 * Builds a scrubber for `secrets` (plain strings or `Redacted` values). The work of finding every form is
 * done here, once; scrubbing a text is then one pass of one regular expression.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (input: Iterable<string | Redacted.Redacted<string>>): Scrubber => Common.make(valuesOf(input))

/**
 * A scrubber with nothing to look for.
 *
 * @since 1.0.0
 * @category constructors
 */
export const none: Scrubber = Common.none

/**
 * The secrets of a URL: each part of its user info, and the values of query parameters whose names say they
 * are credentials (`api_key`, `token`, `secret`, `password`, `sig`, ...). The URL itself is not a secret.
 *
 * @since 1.0.0
 * @category utils
 */
export const urlSecrets: (text: string) => ReadonlyArray<string> = Common.urlSecrets

/**
 * Secrets that a process comes to hold while it runs: the tokens of a login and their refreshed successors,
 * registered client secrets, passwords read from a URL. The set only grows; a scrubber made with `extend`
 * looks for every secret held when it scrubs, so a secret obtained after the scrubber was made is found too.
 *
 * @since 1.0.0
 * @category models
 */
export interface Secrets {
  /** Holds more secrets; values shorter than `minLength` are ignored, as by `make`. */
  readonly add: (secrets: Iterable<string | Redacted.Redacted<string>>) => void
  /** `base` and every secret held, now and later. */
  readonly extend: (base: Scrubber) => Scrubber
  /** A scrubber for every secret held, now and later. */
  readonly scrubber: Scrubber
}

/**
 * A new, empty set of held secrets.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeSecrets = (): Secrets => {
  const held = Common.makeSecrets()
  return { add: (secrets) => held.add(valuesOf(secrets)), extend: held.extend, scrubber: held.scrubber }
}

/**
 * The secrets held by the running program. Every Zett service that obtains a credential adds it here, and
 * every scrubber of a server or provider extends this set; a test or a host that wants its own provides one.
 *
 * @since 1.0.0
 * @category references
 */
export const HeldSecrets: Context.Reference<Secrets> = Context.Reference<Secrets>("@zett/agent/Scrubber/HeldSecrets", {
  defaultValue: makeSecrets
})
