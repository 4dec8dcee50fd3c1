/**
 * Text measured as a terminal shows it: a CJK character or an emoji takes two columns, a combining mark or an
 * escape code none (`string-width`).
 *
 * @internal
 */
import stringWidth from "string-width"

export { stringWidth as width }

const graphemes = new Intl.Segmenter()

/** `text` cut to `width` columns, with `…` where it was cut; a cut never splits a character. */
export const clip = (text: string, width: number): string => {
  if (width <= 1) return ""
  if (stringWidth(text) <= width) return text
  let kept = ""
  let used = 0
  for (const { segment } of graphemes.segment(text)) {
    const cells = stringWidth(segment)
    if (used + cells > width - 1) break
    kept += segment
    used += cells
  }
  return `${kept}…`
}

/** `text` filled with spaces to `width` columns, on the right (`left`) or on the left (`right`). */
export const pad = (text: string, width: number, align: "left" | "right"): string => {
  const fill = " ".repeat(Math.max(0, width - stringWidth(text)))
  return align === "left" ? text + fill : fill + text
}
