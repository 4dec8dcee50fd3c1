/**
 * Base64 and base64url as Effect's `Encoding` writes and reads them (the same alphabet, padding and
 * refusals), without Effect: the scrubber must find a secret in the form a client or server encoded it.
 *
 * @internal
 */

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
const codes = new Uint8Array(128).fill(255)
for (let i = 0; i < alphabet.length; i++) codes[alphabet.charCodeAt(i)] = i

/** @internal */
export const encode = (bytes: Uint8Array): string => {
  let out = ""
  let i = 0
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!
    out += alphabet[n >> 18]! + alphabet[(n >> 12) & 63]! + alphabet[(n >> 6) & 63]! + alphabet[n & 63]!
  }
  if (i + 1 === bytes.length) {
    const n = bytes[i]! << 16
    out += `${alphabet[n >> 18]!}${alphabet[(n >> 12) & 63]!}==`
  } else if (i + 2 === bytes.length) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8)
    out += `${alphabet[n >> 18]!}${alphabet[(n >> 12) & 63]!}${alphabet[(n >> 6) & 63]!}=`
  }
  return out
}

/** @internal */
export const encodeUrl = (bytes: Uint8Array): string =>
  encode(bytes).replace(/=/g, "").replace(/\+/g, "-").replace(/\//g, "_")

/** The bytes of a padded base64 text; `undefined` when it is not one. */
export const decode = (text: string): Uint8Array | undefined => {
  const stripped = text.replace(/[\n\r]/g, "")
  const length = stripped.length
  if (length % 4 !== 0) return undefined
  const pad = stripped.indexOf("=")
  if (pad !== -1 && (pad < length - 2 || (pad === length - 2 && stripped[length - 1] !== "="))) return undefined
  const missing = stripped.endsWith("==") ? 2 : stripped.endsWith("=") ? 1 : 0
  const out = new Uint8Array(3 * (length / 4) - missing)
  const code = (i: number) => {
    const c = stripped.charCodeAt(i)
    // "=" counts as zero bits at the end only, where the checks above allow it
    return c === 61 ? 0 : c < 128 ? codes[c]! : 255
  }
  for (let i = 0, j = 0; i < length; i += 4, j += 3) {
    const parts = [code(i), code(i + 1), code(i + 2), code(i + 3)]
    if (parts.some((part) => part === 255)) return undefined
    const n = (parts[0]! << 18) | (parts[1]! << 12) | (parts[2]! << 6) | parts[3]!
    out[j] = n >> 16
    if (j + 1 < out.length) out[j + 1] = (n >> 8) & 255
    if (j + 2 < out.length) out[j + 2] = n & 255
  }
  return out
}

/** The bytes of a base64url text, padded or not; `undefined` when it is not one. */
export const decodeUrl = (text: string): Uint8Array | undefined => {
  const stripped = text.replace(/[\n\r]/g, "")
  if (stripped.length % 4 === 1 || !/^[-_A-Z0-9]*?={0,2}$/i.test(stripped)) return undefined
  const padded = stripped.length % 4 === 2 ? `${stripped}==` : stripped.length % 4 === 3 ? `${stripped}=` : stripped
  return decode(padded.replace(/-/g, "+").replace(/_/g, "/"))
}
