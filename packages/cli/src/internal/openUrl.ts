/**
 * Opening a URL that came from elsewhere (a server's URL elicitation, an authorization server's endpoint):
 * it is shown whole with its domain first, opened only after the user says yes on a terminal, and only when it
 * is `https:` (or `http:` to this machine's loopback, where our own redirect listener is). Any other scheme
 * (`file:`, `javascript:`, `data:` ...) is refused, whoever asks.
 *
 * @internal
 */
import * as Prompt from "@effect/cli/Prompt"
import * as Terminal from "@effect/platform/Terminal"
import * as McpAuthorization from "@zett/mcp-auth/McpAuthorization"
import * as Effect from "effect/Effect"
import * as ChildProcess from "node:child_process"
import { inert } from "./inert.js"

/** What `check` says of a URL: allowed (parsed), or refused with the reason, which names the scheme. */
export type Checked =
  | { readonly _tag: "Allowed"; readonly url: URL }
  | { readonly _tag: "Refused"; readonly reason: string }

/** Whether `text` is a URL zett may open: `https:`, or `http:` to localhost, 127.0.0.0/8 or [::1]. */
export const check = (text: string): Checked => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return { _tag: "Refused", reason: "it is not a valid URL" }
  }
  if (url.protocol === "https:" && url.hostname !== "") return { _tag: "Allowed", url }
  if (url.protocol === "http:") {
    // the WHATWG parser has already normalized the host: `127.1` and `0x7f000001` are `127.0.0.1`
    return McpAuthorization.isLoopbackHost(url.hostname)
      ? { _tag: "Allowed", url }
      : {
        _tag: "Refused",
        reason: `http: URLs are opened only on this machine (localhost, 127.0.0.0/8, [::1]), not ${url.host}`
      }
  }
  return {
    _tag: "Refused",
    reason: `${inert(url.protocol)} URLs are not opened (only https:, and http: on this machine)`
  }
}

/** The domain shown on its own line, so that a look-alike path or user info cannot pass for it. */
export const domainLine = (url: URL): string => `(domain: ${url.host})`

/** The desktop's opener, when there is a desktop: the URL is one argument, no shell reads it. */
const opener = (): string | undefined =>
  process.platform === "darwin"
    ? "open"
    : process.platform === "win32"
    ? "explorer"
    : process.env.DISPLAY !== undefined || process.env.WAYLAND_DISPLAY !== undefined
    ? "xdg-open"
    : undefined

const spawn = (command: string, url: URL) =>
  Effect.sync(() => {
    try {
      const child = ChildProcess.spawn(command, [url.href], { stdio: "ignore", detached: true })
      child.on("error", () => {})
      child.unref()
      return true
    } catch {
      return false
    }
  })

/**
 * What `offer` did: opened the URL, the user said no, or nothing could be asked (no browser on this machine, or
 * not a terminal to ask on).
 */
export type Offered = "opened" | "declined" | "no-browser" | "no-terminal"

/**
 * Asks on the terminal whether to open `url` (checked already) in the browser, and opens it only on yes (the
 * default is no). Without a browser, or without a terminal to ask on, nothing is opened.
 */
export const offer = (url: URL): Effect.Effect<Offered, Terminal.QuitException, Prompt.Prompt.Environment> =>
  Effect.gen(function*() {
    const command = opener()
    if (command === undefined) return "no-browser"
    if (!(yield* Effect.flatMap(Terminal.Terminal, (terminal) => terminal.isTTY))) return "no-terminal"
    const yes = yield* Prompt.run(Prompt.confirm({ message: `Open ${url.host} in your browser?`, initial: false }))
    if (!yes) return "declined"
    return (yield* spawn(command, url)) ? "opened" : "no-browser"
  })
