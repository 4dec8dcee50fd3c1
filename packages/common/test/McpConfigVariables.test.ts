/**
 * Variables in configuration values, in each client's forms: what is a variable and what stays text, and what a
 * variable stands for (its value, its default, or unset).
 */
import { McpConfigDialect, McpConfigVariables } from "@zett/common"
import { assert, describe, it } from "vitest"

const { parse } = McpConfigVariables
const text = (text: string) => ({ _tag: "Text", text }) as const
const variable = (name: string, fallback?: string) => ({ _tag: "Variable", name, fallback }) as const

describe("McpConfigVariables.parse", () => {
  it("reads ${env:VAR} (VS Code, Cursor, Windsurf) and leaves ${VAR} as text where only env is a form", () => {
    const forms = McpConfigDialect.forms.windsurf
    assert.deepStrictEqual(parse("Bearer ${env:TOKEN}!", forms), [text("Bearer "), variable("TOKEN"), text("!")])
    assert.deepStrictEqual(parse("${TOKEN}", forms), [text("${TOKEN}")])
    // not a variable name after env:
    assert.deepStrictEqual(parse("${env:1X}", forms), [text("${env:1X}")])
  })

  it("reads ${VAR} and ${VAR:-default} (Claude Code); the default may be empty or hold ':-'", () => {
    const forms = McpConfigDialect.forms["claude-code"]
    assert.deepStrictEqual(parse("${A}/${B:-x}/${C:-}/${D:-a:-b}", forms), [
      variable("A"),
      text("/"),
      variable("B", "x"),
      text("/"),
      variable("C", ""),
      text("/"),
      variable("D", "a:-b")
    ])
    assert.deepStrictEqual(parse("${:-x}", forms), [text("${:-x}")])
  })

  it("reads $VAR (Gemini CLI) up to the first character that cannot be in a name", () => {
    const forms = McpConfigDialect.forms.gemini
    assert.deepStrictEqual(parse("$HOME/bin:$PATH_2.x", forms), [
      variable("HOME"),
      text("/bin:"),
      variable("PATH_2"),
      text(".x")
    ])
    assert.deepStrictEqual(parse("costs $5 or $", forms), [text("costs $5 or $")])
  })

  it("reads a predefined variable only where the dialect knows it, and ${input:ID} only where inputs are a form", () => {
    const vscode = McpConfigDialect.forms.vscode
    assert.deepStrictEqual(parse("${workspaceFolder}${/}x", vscode), [
      { _tag: "Predefined", name: "workspaceFolder" },
      { _tag: "Predefined", name: "/" },
      text("x")
    ])
    // VS Code has no ${workspaceFolderBasename}; Cursor has, and no inputs
    assert.deepStrictEqual(parse("${workspaceFolderBasename}", vscode), [text("${workspaceFolderBasename}")])
    const cursor = McpConfigDialect.forms.cursor
    assert.deepStrictEqual(parse("${workspaceFolderBasename}", cursor), [
      { _tag: "Predefined", name: "workspaceFolderBasename" }
    ])
    assert.deepStrictEqual(parse("${input:api-key}", vscode), [{ _tag: "Input", id: "api-key" }])
    assert.deepStrictEqual(parse("${input:api-key}", cursor), [text("${input:api-key}")])
    assert.deepStrictEqual(parse("${input:}", vscode), [text("${input:}")])
  })

  it("a dialect without variables, an unclosed brace and a lone $ leave the text as it is", () => {
    assert.deepStrictEqual(parse("${env:A} $B ${C}", McpConfigDialect.forms.zed), [text("${env:A} $B ${C}")])
    const all = McpConfigDialect.forms.unknown
    assert.deepStrictEqual(parse("a ${B", all), [text("a ${B")])
    assert.deepStrictEqual(parse("$", all), [text("$")])
    assert.deepStrictEqual(parse("", all), [])
    assert.isFalse(McpConfigVariables.hasVariables(parse("plain ${ text", all)))
    assert.isTrue(McpConfigVariables.hasVariables(parse("${userHome}", all)))
  })
})

describe("McpConfigVariables.variableValue", () => {
  it("a set variable is its value, and a secret; a default is used when unset or empty, and is no secret", () => {
    const withDefault = variable("PORT", "8080")
    assert.deepStrictEqual(McpConfigVariables.variableValue(withDefault, "9000"), { value: "9000", secret: true })
    assert.deepStrictEqual(McpConfigVariables.variableValue(withDefault, undefined), { value: "8080", secret: false })
    assert.deepStrictEqual(McpConfigVariables.variableValue(withDefault, ""), { value: "8080", secret: false })
  })

  it("an empty value without a default stays empty; an unset one without a default is Unset, named", () => {
    const bare = variable("TOKEN")
    assert.deepStrictEqual(McpConfigVariables.variableValue(bare, ""), { value: "", secret: true })
    assert.deepStrictEqual(McpConfigVariables.variableValue(bare, undefined), { _tag: "Unset", name: "TOKEN" })
  })
})
