/**
 * Key patterns of the stores on the shared connection: each store owns the keys under its prefix, and
 * `SCAN MATCH` finds them without reading the prefix as a pattern.
 */

/** `*`, `?`, `[`, `]` and a backslash of a prefix taken literally by `SCAN MATCH`. */
export const escapeGlob = (text: string): string => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`)

/** The `SCAN MATCH` pattern of every key under `prefix`, and of no other. */
export const underPrefix = (prefix: string): string => `${escapeGlob(prefix)}*`
