/**
 * An extension that shows a run as it happens: the model's text as it streams in (`onModelRequest`), each
 * tool call before it runs (`beforeTool`) and its outcome (`afterTool`).
 *
 * @since 0.1.0
 */
import type { Extension, Message } from "@zett/agent"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { inert } from "./internal/inert.js"
import { Output } from "./Output.js"

/**
 * @since 0.1.0
 * @category constants
 */
export const defaultName = "transcript"

/** Tool arguments and results are shown on one line, cut at this many characters. */
const maxShown = 400

/**
 * JSON on one line, cut at `max` characters.
 *
 * @since 0.1.0
 * @category utils
 */
export const preview = (value: unknown, max: number = maxShown): string => {
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

const failureText = (result: Message.ToolMessage): string => {
  const content = result.content as { readonly error?: { readonly type?: unknown; readonly message?: unknown } }
  const error = content?.error
  if (error !== undefined && typeof error.message === "string") {
    return typeof error.type === "string" ? `${error.type}: ${error.message}` : error.message
  }
  return preview(result.content)
}

/**
 * One line for a tool call's outcome.
 *
 * @since 0.1.0
 * @category utils
 */
export const outcomeLine = (result: Message.ToolMessage): string => {
  switch (result.status) {
    case "ok":
      return `← ${result.name}: ${preview(result.content)}`
    case "TOOL_FAILED":
      return `← ${result.name} failed: ${failureText(result)}`
    case "skipped":
      return `← ${result.name} skipped`
  }
}

/**
 * Builds the extension; it writes to the `Output` in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options?: { readonly name?: string | undefined }
): Effect.Effect<Extension.Extension, never, Output> =>
  Effect.map(Output, (output) => {
    // whether the model's text left the cursor in the middle of a line
    let midLine = false
    const endLine = Effect.suspend(() => {
      if (!midLine) return Effect.void
      midLine = false
      return output.stdout("\n")
    })
    const extension: Extension.Extension = {
      name: options?.name ?? defaultName,
      onModelRequest: (_context, request, next) =>
        next(request).pipe(
          Stream.tap((event) => {
            if (event._tag !== "TextDelta" || event.text === "") return Effect.void
            midLine = !event.text.endsWith("\n")
            // the model may repeat what a server said: no escape sequence reaches the terminal
            return output.stdout(inert(event.text))
          }),
          Stream.ensuring(endLine)
        ),
      beforeTool: (_context, call) =>
        Effect.zipRight(endLine, output.stdout(`${inert(`→ ${call.name} ${preview(call.arguments ?? {})}`)}\n`)),
      afterTool: (_context, _call, result) => Effect.zipRight(endLine, output.stdout(`${inert(outcomeLine(result))}\n`))
    }
    return extension
  })
