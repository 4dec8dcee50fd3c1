/**
 * An elicitation form (`elicitation/create`, form mode) as data, without any Effect: its fields as a prompt shows
 * them, and the accepted content with the defaults the schema gives. Both Effect lines' `McpElicitation` export
 * these and add the service that answers.
 *
 * @since 0.1.0
 */

/**
 * A value of a form field: what the 2025-11-25 revision allows in accepted content.
 *
 * @since 0.1.0
 * @category models
 */
export type Value = string | number | boolean | ReadonlyArray<string>

/**
 * The schema of a form's content as a server sends it (the SDK's `ElicitRequestFormParams["requestedSchema"]` is one):
 * an object of primitive properties.
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestedSchema {
  readonly properties: { readonly [name: string]: unknown }
  readonly required?: ReadonlyArray<string> | undefined
}

/**
 * A form field as a prompt shows it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Field {
  readonly name: string
  readonly title: string
  readonly description: string | undefined
  readonly type: "string" | "number" | "integer" | "boolean" | "array"
  readonly required: boolean
  readonly default: Value | undefined
  /** For a single or multiple choice: each value and its label. */
  readonly choices: ReadonlyArray<{ readonly value: string; readonly title: string }> | undefined
  readonly format: string | undefined
  readonly minimum: number | undefined
  readonly maximum: number | undefined
  /** The field's own schema, as the server sent it (for checking one answer with `check`). */
  readonly schema: { readonly [key: string]: unknown }
}

type Property = { readonly [key: string]: unknown }

const choicesOf = (property: Property): Field["choices"] => {
  const items = property.type === "array" ? (property.items as Property | undefined) ?? {} : property
  if (Array.isArray(items.enum)) {
    const names = Array.isArray(items.enumNames) ? items.enumNames : []
    return items.enum.map((value, i) => ({
      value: String(value),
      title: typeof names[i] === "string" ? names[i] : String(value)
    }))
  }
  const options = Array.isArray(items.oneOf) ? items.oneOf : Array.isArray(items.anyOf) ? items.anyOf : undefined
  return options?.map((option: Property) => ({
    value: String(option.const),
    title: typeof option.title === "string" ? option.title : String(option.const)
  }))
}

/**
 * The fields of a requested schema, in the order the server wrote them.
 *
 * @since 0.1.0
 * @category utils
 */
export const fields = (schema: RequestedSchema): ReadonlyArray<Field> => {
  const required = new Set(schema.required ?? [])
  return Object.entries(schema.properties as Readonly<Record<string, Property>>).map(([name, property]) => ({
    name,
    title: typeof property.title === "string" ? property.title : name,
    description: typeof property.description === "string" ? property.description : undefined,
    type: property.type as Field["type"],
    required: required.has(name),
    default: property.default as Value | undefined,
    choices: choicesOf(property),
    format: typeof property.format === "string" ? property.format : undefined,
    minimum: typeof property.minimum === "number" ? property.minimum : undefined,
    maximum: typeof property.maximum === "number" ? property.maximum : undefined,
    schema: property
  }))
}

/**
 * The content with every field it leaves out that has a `default` in the schema filled in (the 2025-11-25
 * `applyDefaults`).
 *
 * @since 0.1.0
 * @category utils
 */
export const applyDefaults = (
  schema: RequestedSchema,
  content: Readonly<Record<string, unknown>>
): Record<string, unknown> => {
  const out: Record<string, unknown> = { ...content }
  for (const [name, property] of Object.entries(schema.properties as Readonly<Record<string, Property>>)) {
    if (out[name] === undefined && property.default !== undefined) out[name] = property.default
  }
  return out
}
