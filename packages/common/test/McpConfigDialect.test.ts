/**
 * Which client wrote a configuration file, and what follows: its variable forms, the fields they are expanded in,
 * `${workspaceFolder}`, the unit of `timeout`.
 */
import { McpConfigDialect } from "@zett/common"
import * as Path from "node:path"
import { assert, describe, it } from "vitest"

describe("McpConfigDialect", () => {
  it("tells the client from the file's path, whatever the root key", () => {
    const cases: ReadonlyArray<readonly [string, McpConfigDialect.Dialect]> = [
      ["/p/.vscode/mcp.json", "vscode"],
      ["/p/.cursor/mcp.json", "cursor"],
      ["/home/a/.gemini/settings.json", "gemini"],
      ["/home/a/.codeium/windsurf/mcp_config.json", "windsurf"],
      ["/p/.mcp.json", "claude-code"],
      ["/home/a/Library/Application Support/Claude/claude_desktop_config.json", "claude-desktop"],
      ["C:\\Users\\a\\cline\\cline_mcp_settings.json", "cline"],
      ["C:\\p\\.vscode\\mcp.json", "vscode"]
    ]
    for (const [path, dialect] of cases) assert.strictEqual(McpConfigDialect.detect(path, "mcpServers"), dialect, path)
  })

  it("failing the path, tells it from the root key: context_servers is Zed's (first), servers VS Code's", () => {
    assert.strictEqual(McpConfigDialect.detect("/p/.vscode/mcp.json", "context_servers"), "zed")
    assert.strictEqual(McpConfigDialect.detect("/p/tools.json", "servers"), "vscode")
    assert.strictEqual(McpConfigDialect.detect("/p/tools.json", "mcpServers"), "unknown")
    assert.strictEqual(McpConfigDialect.detect("mcp.json", "mcpServers"), "unknown")
  })

  it("a file that does not say who wrote it reads every form and every predefined variable", () => {
    const all = McpConfigDialect.forms.unknown
    for (const dialect of Object.keys(McpConfigDialect.forms) as Array<McpConfigDialect.Dialect>) {
      const { forms, predefined } = McpConfigDialect.forms[dialect]
      assert.deepStrictEqual(forms.filter((form) => !all.forms.includes(form)), [], dialect)
      assert.deepStrictEqual(predefined.filter((name) => !all.predefined.includes(name)), [], dialect)
    }
  })

  it("Gemini CLI expands neither command nor cwd; every other dialect expands every field", () => {
    assert.deepStrictEqual(McpConfigDialect.expandedFields("gemini"), ["args", "env", "url", "headers", "auth"])
    assert.deepStrictEqual(McpConfigDialect.expandedFields("vscode"), [
      "command",
      "args",
      "env",
      "url",
      "headers",
      "cwd",
      "envFile",
      "auth"
    ])
  })

  it("${workspaceFolder} is the folder above .vscode/ or .cursor/, otherwise the file's own folder", () => {
    assert.strictEqual(McpConfigDialect.workspaceFolder("/p/.vscode/mcp.json", Path.posix.dirname), "/p")
    assert.strictEqual(McpConfigDialect.workspaceFolder("/p/.cursor/mcp.json", Path.posix.dirname), "/p")
    assert.strictEqual(McpConfigDialect.workspaceFolder("/p/.mcp.json", Path.posix.dirname), "/p")
    assert.strictEqual(McpConfigDialect.workspaceFolder("/p/conf/mcp.json", Path.posix.dirname), "/p/conf")
    assert.strictEqual(McpConfigDialect.workspaceFolder("C:\\p\\.vscode\\mcp.json", Path.win32.dirname), "C:\\p")
  })

  it("a timeout is seconds in Cline's files and milliseconds in any other", () => {
    assert.strictEqual(McpConfigDialect.timeoutMillis("cline", 60), 60_000)
    assert.strictEqual(McpConfigDialect.timeoutMillis("cline", 1.5), 1_500)
    assert.strictEqual(McpConfigDialect.timeoutMillis("gemini", 60), 60)
    assert.strictEqual(McpConfigDialect.timeoutMillis("unknown", 2500), 2500)
  })
})
