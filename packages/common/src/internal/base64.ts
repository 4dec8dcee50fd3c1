/**
 * Base64 and base64url as Effect's `Encoding` writes and reads them (the same alphabet, padding and refusals),
 * without Effect: the scrubber must find a secret in the form a client or server encoded it. The conversion is the
 * runtime's own `btoa` and `atob` (globals in Node, browsers, Deno, Bun and workers alike); what `atob` would forgive
 * and `Encoding` refuses (spaces, missing padding, `=` inside) is refused by one pattern first.
 *
 * @internal
 */

const binary = (bytes: Uint8Array): string => {
  let out = ""
  for (const byte of bytes) out += String.fromCharCode(byte)
  return out
}

/** @internal */
export const encode = (bytes: Uint8Array): string => btoa(binary(bytes))

/** @internal */
export const encodeUrl = (bytes: Uint8Array): string =>
  encode(bytes).replace(/=/g, "").replace(/\+/g, "-").replace(/\//g, "_")

const padded = /^[A-Za-z0-9+/]*={0,2}$/

/** The bytes of a padded base64 text (line breaks ignored); `undefined` when it is not one. */
export const decode = (text: string): Uint8Array | undefined => {
  const stripped = text.replace(/[\n\r]/g, "")
  if (stripped.length % 4 !== 0 || !padded.test(stripped)) return undefined
  return Uint8Array.from(atob(stripped), (char) => char.charCodeAt(0))
}

/** The bytes of a base64url text, padded or not; `undefined` when it is not one. */
export const decodeUrl = (text: string): Uint8Array | undefined => {
  const stripped = text.replace(/[\n\r]/g, "")
  if (stripped.length % 4 === 1 || !/^[-_A-Z0-9]*?={0,2}$/i.test(stripped)) return undefined
  const withPadding = stripped.length % 4 === 2
    ? `${stripped}==`
    : stripped.length % 4 === 3
    ? `${stripped}=`
    : stripped
  return decode(withPadding.replace(/-/g, "+").replace(/_/g, "/"))
}
