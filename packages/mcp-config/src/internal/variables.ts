/**
 * Variables in configuration values, in the forms of the clients that write MCP files: `${env:VAR}` (VS
 * Code, Cursor, Windsurf), `${VAR}` and `${VAR:-default}` (Claude Code), `$VAR` (Gemini CLI), the predefined
 * `${workspaceFolder}`, `${userHome}`, ... (VS Code, Cursor) and `${input:ID}` (VS Code). A `$` that begins
 * none of the forms in use stays literal. Written by hand: no kept library knows these dialects together. Plain
 * functions, no Effect: both Effect lines share them (resolving a variable or an input is the caller's, in
 * `expansion.ts`).
 *
 * @internal
 */

/** @internal */
export type Form = "env" | "braced" | "default" | "dollar" | "predefined" | "input"

/** @internal */
export type Predefined = "workspaceFolder" | "workspaceFolderBasename" | "userHome" | "pathSeparator" | "/"

/** @internal */
export interface Forms {
  readonly forms: ReadonlySet<Form>
  readonly predefined: ReadonlySet<Predefined>
}

/** @internal */
export type Token =
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Variable"; readonly name: string; readonly fallback: string | undefined }
  | { readonly _tag: "Predefined"; readonly name: Predefined }
  | { readonly _tag: "Input"; readonly id: string }

const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/
const leadingName = /^[A-Za-z_][A-Za-z0-9_]*/
const predefinedNames: ReadonlySet<string> = new Set<Predefined>([
  "workspaceFolder",
  "workspaceFolderBasename",
  "userHome",
  "pathSeparator",
  "/"
])

const braced = (inner: string, { forms, predefined }: Forms): Token | undefined => {
  if (forms.has("env") && inner.startsWith("env:") && variableName.test(inner.slice(4))) {
    return { _tag: "Variable", name: inner.slice(4), fallback: undefined }
  }
  if (forms.has("input") && inner.startsWith("input:") && inner.length > 6) return { _tag: "Input", id: inner.slice(6) }
  if (forms.has("predefined") && predefinedNames.has(inner) && predefined.has(inner as Predefined)) {
    return { _tag: "Predefined", name: inner as Predefined }
  }
  if (forms.has("braced") && variableName.test(inner)) return { _tag: "Variable", name: inner, fallback: undefined }
  const split = inner.indexOf(":-")
  if (forms.has("default") && split > 0 && variableName.test(inner.slice(0, split))) {
    return { _tag: "Variable", name: inner.slice(0, split), fallback: inner.slice(split + 2) }
  }
  return undefined
}

/**
 * Splits a value into literal text and variables. Never fails: what is not a variable of `forms` is text.
 *
 * @internal
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
    } else if (forms.forms.has("dollar")) {
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

/** @internal */
export const hasVariables = (tokens: ReadonlyArray<Token>): boolean => tokens.some((token) => token._tag !== "Text")

/** A variable that is not set and has no default: named, never valued. */
export interface Unset {
  readonly _tag: "Unset"
  readonly name: string
}

/**
 * What a variable stands for, given its value in the environment (undefined when unset): its value, or its
 * default, or `Unset`. `secret` is true for a value that came from the environment (whoever shows the expanded
 * text scrubs it); a default written in the file is no secret.
 *
 * @internal
 */
export const variableValue = (
  token: Extract<Token, { readonly _tag: "Variable" }>,
  value: string | undefined
): { readonly value: string; readonly secret: boolean } | Unset => {
  // `${VAR:-default}` as the shell reads it: the default also stands in for an empty value
  if (value !== undefined && (value !== "" || token.fallback === undefined)) return { value, secret: true }
  if (token.fallback !== undefined) return { value: token.fallback, secret: false }
  return { _tag: "Unset", name: token.name }
}
