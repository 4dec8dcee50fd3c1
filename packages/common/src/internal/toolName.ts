/**
 * @since 0.1.0
 * @internal
 */
import { sha256Hex } from "./sha256.js"

/** @internal */
export const maxNameLength = 64

const hashLength = 8

const validName = /^[A-Za-z0-9_-]{1,64}$/

// The `u` flag walks code points, so an astral character (an emoji) becomes one `_`, not two.
const invalidChar = /[^A-Za-z0-9_-]/gu

/** @internal */
export const isValid = (name: string): boolean => validName.test(name)

/** @internal */
export const sanitize = (name: string): string => {
  if (validName.test(name)) return name
  // The hash is of the original name, so names that sanitise or truncate alike stay apart.
  const hash = sha256Hex(name).slice(0, hashLength)
  const prefix = name.replace(invalidChar, "_").slice(0, maxNameLength - hashLength - 1)
  return `${prefix}_${hash}`
}
