/**
 * Which client wrote an MCP configuration file, as far as its path and root key tell, and what follows from it:
 * the variable forms expanded in its values, the fields they are expanded in, and what `${workspaceFolder}` is.
 * The configuration reader (`@zett/mcp-config`) of either Effect line uses this one module.
 *
 * @since 0.1.0
 */
import type * as McpConfigVariables from "./McpConfigVariables.js"

/**
 * The clients whose files are read; `unknown` for a file that does not say who wrote it.
 *
 * @since 0.1.0
 * @category models
 */
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

const none: McpConfigVariables.Forms = { forms: [], predefined: [] }

/**
 * The variable forms each client expands in its values (Claude Desktop, Cline and Zed expand none).
 *
 * @since 0.1.0
 * @category constants
 */
export const forms: Readonly<Record<Dialect, McpConfigVariables.Forms>> = {
  "claude-desktop": none,
  "cline": none,
  "zed": none,
  "claude-code": { forms: ["braced", "default"], predefined: [] },
  "vscode": {
    forms: ["env", "predefined", "input"],
    predefined: ["workspaceFolder", "userHome", "pathSeparator", "/"]
  },
  "cursor": {
    forms: ["env", "predefined"],
    predefined: ["workspaceFolder", "workspaceFolderBasename", "userHome", "pathSeparator"]
  },
  "windsurf": { forms: ["env"], predefined: [] },
  "gemini": { forms: ["dollar", "braced"], predefined: [] },
  // a file that does not say who wrote it: the union of every form
  "unknown": {
    forms: ["env", "braced", "default", "dollar", "predefined", "input"],
    predefined: ["workspaceFolder", "workspaceFolderBasename", "userHome", "pathSeparator", "/"]
  }
}

/**
 * The fields whose values are expanded.
 *
 * @since 0.1.0
 * @category models
 */
export type Field = "command" | "args" | "env" | "url" | "headers" | "cwd" | "envFile" | "auth"

const allFields: ReadonlyArray<Field> = ["command", "args", "env", "url", "headers", "cwd", "envFile", "auth"]
const geminiFields: ReadonlyArray<Field> = ["args", "env", "url", "headers", "auth"]

/**
 * The fields a dialect expands variables in: all of them, but Gemini CLI expands neither `command` nor `cwd`.
 *
 * @since 0.1.0
 * @category constants
 */
export const expandedFields = (dialect: Dialect): ReadonlyArray<Field> =>
  dialect === "gemini" ? geminiFields : allFields

const segments = (path: string) => path.split(/[\\/]/)

/**
 * The dialect of a file from its path (`.vscode/mcp.json`, `.cursor/mcp.json`, `.mcp.json`, ...) and, failing
 * that, from its root key (`servers` is VS Code's, `context_servers` Zed's).
 *
 * @example
 * ```ts
 * import { McpConfigDialect } from "@zett/common"
 *
 * console.log(McpConfigDialect.detect("/work/app/.cursor/mcp.json", "mcpServers")) // cursor
 * console.log(McpConfigDialect.detect("/work/app/tools.json", "servers")) // vscode
 * ```
 *
 * @since 0.1.0
 * @category constructors
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
 * `${workspaceFolder}`: the folder above `.vscode/` or `.cursor/` for a file in one of them, otherwise the file's
 * own folder (`.mcp.json` sits at the project's root). `dirname` is the platform's (each line's `Path` service).
 *
 * @since 0.1.0
 * @category constructors
 */
export const workspaceFolder = (path: string, dirname: (path: string) => string): string => {
  const folder = dirname(path)
  const parts = segments(folder)
  const last = parts[parts.length - 1]
  return last === ".vscode" || last === ".cursor" ? dirname(folder) : folder
}

/**
 * The call timeout an entry's `timeout` stands for, in milliseconds: Cline writes seconds (its default is 60);
 * Gemini CLI, and a file that does not say, milliseconds.
 *
 * @since 0.1.0
 * @category constructors
 */
export const timeoutMillis = (dialect: Dialect, timeout: number): number =>
  dialect === "cline" ? timeout * 1000 : timeout
