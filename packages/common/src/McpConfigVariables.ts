/**
 * Variables in configuration values, in the forms of the clients that write MCP files: `${env:VAR}` (VS Code,
 * Cursor, Windsurf), `${VAR}` and `${VAR:-default}` (Claude Code), `$VAR` (Gemini CLI), the predefined
 * `${workspaceFolder}`, `${userHome}`, ... (VS Code, Cursor) and `${input:ID}` (VS Code). A `$` that begins none of
 * the forms in use stays literal. Written by hand: no kept library knows these dialects together. Resolving a
 * variable or an input is the caller's: each Effect line reads variables from its `ConfigProvider` and inputs from
 * its `McpInputs`, token by token, with `parse` and `variableValue`.
 *
 * @since 0.1.0
 */

/**
 * One syntax of a variable: `env` is `${env:VAR}`, `braced` `${VAR}`, `default` `${VAR:-default}`, `dollar`
 * `$VAR`, `predefined` `${workspaceFolder}` and the like, `input` `${input:ID}`.
 *
 * @since 0.1.0
 * @category models
 */
export type Form = "env" | "braced" | "default" | "dollar" | "predefined" | "input"

/**
 * The predefined variables (VS Code's and Cursor's); `${/}` is VS Code's short form of `${pathSeparator}`.
 *
 * @since 0.1.0
 * @category models
 */
export type Predefined = "workspaceFolder" | "workspaceFolderBasename" | "userHome" | "pathSeparator" | "/"

/**
 * The forms a file's values are read with, and which predefined variables it knows.
 *
 * @since 0.1.0
 * @category models
 */
export interface Forms {
  readonly forms: ReadonlyArray<Form>
  readonly predefined: ReadonlyArray<Predefined>
}

/**
 * A piece of a value: literal text, a variable (with the default written after `:-`, if any), a predefined
 * variable or an input.
 *
 * @since 0.1.0
 * @category models
 */
export type Token =
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Variable"; readonly name: string; readonly fallback: string | undefined }
  | { readonly _tag: "Predefined"; readonly name: Predefined }
  | { readonly _tag: "Input"; readonly id: string }

/**
 * A variable token.
 *
 * @since 0.1.0
 * @category models
 */
export type Variable = Extract<Token, { readonly _tag: "Variable" }>

const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/
const leadingName = /^[A-Za-z_][A-Za-z0-9_]*/
const predefinedNames: ReadonlyArray<string> = [
  "workspaceFolder",
  "workspaceFolderBasename",
  "userHome",
  "pathSeparator",
  "/"
] satisfies ReadonlyArray<Predefined>

const braced = (inner: string, { forms, predefined }: Forms): Token | undefined => {
  if (forms.includes("env") && inner.startsWith("env:") && variableName.test(inner.slice(4))) {
    return { _tag: "Variable", name: inner.slice(4), fallback: undefined }
  }
  if (forms.includes("input") && inner.startsWith("input:") && inner.length > 6) {
    return { _tag: "Input", id: inner.slice(6) }
  }
  if (
    forms.includes("predefined") && predefinedNames.includes(inner) && predefined.includes(inner as Predefined)
  ) {
    return { _tag: "Predefined", name: inner as Predefined }
  }
  if (forms.includes("braced") && variableName.test(inner)) {
    return { _tag: "Variable", name: inner, fallback: undefined }
  }
  const split = inner.indexOf(":-")
  if (forms.includes("default") && split > 0 && variableName.test(inner.slice(0, split))) {
    return { _tag: "Variable", name: inner.slice(0, split), fallback: inner.slice(split + 2) }
  }
  return undefined
}

/**
 * Splits a value into literal text and variables. Never fails: what is not a variable of `forms` is text.
 *
 * @example
 * ```ts
 * import { McpConfigVariables } from "@zett/common"
 *
 * const forms: McpConfigVariables.Forms = { forms: ["braced", "default"], predefined: [] }
 * console.log(McpConfigVariables.parse("Bearer ${TOKEN:-none} costs $5", forms))
 * // [ { _tag: 'Text', text: 'Bearer ' }, { _tag: 'Variable', name: 'TOKEN', fallback: 'none' }, { _tag: 'Text', text: ' costs $5' } ]
 * ```
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (text: string, forms: Forms): ReadonlyArray<Token> => {
  const tokens: Array<Token> = []
  let literal = ""
  let i = 0
  while (i < text.length) {
    const dollar = text.indexOf("$", i)
    if (dollar === -1) break
    literal += text.slice(i, dollar)
    let token: Token | undefined
    let end = dollar + 1
    if (text[dollar + 1] === "{") {
      const close = text.indexOf("}", dollar + 2)
      if (close !== -1) {
        token = braced(text.slice(dollar + 2, close), forms)
        end = close + 1
      }
    } else if (forms.forms.includes("dollar")) {
      const name = leadingName.exec(text.slice(dollar + 1))
      if (name !== null) {
        token = { _tag: "Variable", name: name[0], fallback: undefined }
        end = dollar + 1 + name[0].length
      }
    }
    if (token === undefined) {
      literal += "$"
      i = dollar + 1
      continue
    }
    if (literal !== "") tokens.push({ _tag: "Text", text: literal })
    literal = ""
    tokens.push(token)
    i = end
  }
  literal += text.slice(i)
  if (literal !== "") tokens.push({ _tag: "Text", text: literal })
  return tokens
}

/**
 * Whether a parsed value holds anything but text (a value without variables expands to itself).
 *
 * @since 0.1.0
 * @category parsing
 */
export const hasVariables = (tokens: ReadonlyArray<Token>): boolean => tokens.some((token) => token._tag !== "Text")

/**
 * A variable that is not set and has no default: named, never valued.
 *
 * @since 0.1.0
 * @category models
 */
export interface Unset {
  readonly _tag: "Unset"
  readonly name: string
}

/**
 * What a variable stands for, given its value in the environment (undefined when unset): its value, or its
 * default, or `Unset`. `secret` is true for a value that came from the environment (whoever shows the expanded
 * text scrubs it); a default written in the file is no secret. `${VAR:-default}` reads as the shell reads it: the
 * default also stands in for an empty value.
 *
 * @example
 * ```ts
 * import { McpConfigVariables } from "@zett/common"
 *
 * const token: McpConfigVariables.Variable = { _tag: "Variable", name: "PORT", fallback: "8080" }
 * console.log(McpConfigVariables.variableValue(token, undefined)) // { value: '8080', secret: false }
 * console.log(McpConfigVariables.variableValue(token, "9000")) // { value: '9000', secret: true }
 * ```
 *
 * @since 0.1.0
 * @category expansion
 */
export const variableValue = (
  token: Variable,
  value: string | undefined
): { readonly value: string; readonly secret: boolean } | Unset => {
  if (value !== undefined && (value !== "" || token.fallback === undefined)) return { value, secret: true }
  if (token.fallback !== undefined) return { value: token.fallback, secret: false }
  return { _tag: "Unset", name: token.name }
}
