/**
 * Which client wrote a configuration file, as far as its path and root key tell, and what follows from it:
 * the variable forms expanded in its values and what a bare `url` means.
 *
 * @internal
 */
import type * as Variables from "./variables.js"

/** @internal */
export type Dialect =
  | "claude-desktop"
  | "claude-code"
  | "vscode"
  | "cursor"
  | "windsurf"
  | "cline"
  | "gemini"
  | "zed"
  | "unknown"

const set = <A>(...items: ReadonlyArray<A>): ReadonlySet<A> => new Set(items)

const none: Variables.Forms = { forms: set(), predefined: set() }

/** @internal */
export const forms: Readonly<Record<Dialect, Variables.Forms>> = {
  "claude-desktop": none,
  "cline": none,
  "zed": none,
  "claude-code": { forms: set("braced", "default"), predefined: set() },
  "vscode": {
    forms: set("env", "predefined", "input"),
    predefined: set("workspaceFolder", "userHome", "pathSeparator", "/")
  },
  "cursor": {
    forms: set("env", "predefined"),
    predefined: set("workspaceFolder", "workspaceFolderBasename", "userHome", "pathSeparator")
  },
  "windsurf": { forms: set("env"), predefined: set() },
  "gemini": { forms: set("dollar", "braced"), predefined: set() },
  // a file that does not say who wrote it: the union of every form
  "unknown": {
    forms: set("env", "braced", "default", "dollar", "predefined", "input"),
    predefined: set("workspaceFolder", "workspaceFolderBasename", "userHome", "pathSeparator", "/")
  }
}

/** The fields whose values are expanded; Gemini CLI expands neither `command` nor `cwd`. */
export type Field = "command" | "args" | "env" | "url" | "headers" | "cwd" | "envFile" | "auth"

const allFields = set<Field>("command", "args", "env", "url", "headers", "cwd", "envFile", "auth")

/** @internal */
export const expandedFields = (dialect: Dialect): ReadonlySet<Field> =>
  dialect === "gemini" ? set<Field>("args", "env", "url", "headers", "auth") : allFields

const segments = (path: string) => path.split(/[\\/]/)

/**
 * The dialect of a file from its path (`.vscode/mcp.json`, `.cursor/mcp.json`, `.mcp.json`, ...) and, failing
 * that, from its root key (`servers` is VS Code's, `context_servers` Zed's).
 *
 * @internal
 */
export const detect = (path: string, rootKey: string): Dialect => {
  const parts = segments(path)
  const file = parts[parts.length - 1] ?? ""
  const folder = parts[parts.length - 2] ?? ""
  if (rootKey === "context_servers") return "zed"
  if (folder === ".vscode" && file === "mcp.json") return "vscode"
  if (folder === ".cursor" && file === "mcp.json") return "cursor"
  if (folder === ".gemini" && file === "settings.json") return "gemini"
  if (folder === "windsurf" && file === "mcp_config.json") return "windsurf"
  if (file === ".mcp.json") return "claude-code"
  if (file === "claude_desktop_config.json") return "claude-desktop"
  if (file === "cline_mcp_settings.json") return "cline"
  if (rootKey === "servers") return "vscode"
  return "unknown"
}

/**
 * `${workspaceFolder}`: the folder above `.vscode/` or `.cursor/` for a file in one of them, otherwise the
 * file's own folder (`.mcp.json` sits at the project's root).
 *
 * @internal
 */
export const workspaceFolder = (path: string, dirname: (path: string) => string): string => {
  const folder = dirname(path)
  const parts = segments(folder)
  const last = parts[parts.length - 1]
  return last === ".vscode" || last === ".cursor" ? dirname(folder) : folder
}
