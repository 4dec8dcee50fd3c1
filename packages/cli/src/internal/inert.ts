/**
 * Text from a server, made inert for a terminal: a description, a resource, a log message or an error could
 * otherwise set the window title, clear the screen, move the cursor over what was printed or write the
 * clipboard (OSC 52). What `zett` prints for people goes through `inert`; `--json` output does not (it is exact).
 *
 * Escaped: the C0 controls but tab and newline (`\x1b`, `\x07`, `\x00` ...), DEL (`\x7f`) and the C1 controls
 * U+0080 to U+009F (`\u009b`, the one-character CSI, and the rest). An ESC is escaped wherever it is, so what
 * follows it (`[2J`, `]0;title`) is left as plain text. A carriage return right before a newline (CRLF text)
 * is kept: it cannot hide anything. Every other character, Unicode text included, is kept as it is.
 *
 * @internal
 */

const controls = /\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g

const jsonControls = /[\u007f-\u009f]/g

const hex = (char: string) => char.charCodeAt(0).toString(16).padStart(2, "0")

/** `text` with its control characters (but newline and tab) written out visibly: `\x1b`, `\u009b`. */
export const inert = (text: string): string =>
  text.replace(controls, (char) => char.charCodeAt(0) < 0x80 ? `\\x${hex(char)}` : `\\u00${hex(char)}`)

/**
 * JSON text (from `JSON.stringify`, which escapes C0 controls already) with DEL and the C1 controls escaped
 * as JSON escapes (`\u009b`): the same JSON value, inert on a terminal.
 */
export const inertJson = (json: string): string => json.replace(jsonControls, (char) => `\\u00${hex(char)}`)
