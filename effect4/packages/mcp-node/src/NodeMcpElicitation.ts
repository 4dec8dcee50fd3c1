/**
 * The checks of an answer against a form's requested schema, on the SDK's JSON Schema validator (Ajv, formats
 * included): what the driver runs before it sends an answer, and what a host's prompt runs on each field.
 *
 * @since 1.0.0
 */
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv"
import type { Field, RequestedSchema } from "@zett/mcp/McpElicitation"

// made on first use: most connections are never asked anything
let validator: AjvJsonSchemaValidator | undefined

/**
 * Checks one field's value against its own schema (`check` on a form of that field alone): `undefined` when it
 * matches, otherwise why not.
 *
 * @since 1.0.0
 * @category utils
 */
export const checkField = (field: Field, value: unknown): string | undefined =>
  check({ type: "object", properties: { [field.name]: field.schema } } as RequestedSchema, { [field.name]: value })

/**
 * Checks content against the requested schema with the SDK's Ajv validator (formats included): `undefined`
 * when it matches, otherwise why not (the validator's message, which names fields, never values).
 *
 * @since 1.0.0
 * @category utils
 */
export const check = (schema: RequestedSchema, content: unknown): string | undefined => {
  validator ??= new AjvJsonSchemaValidator()
  const result = validator.getValidator(schema as never)(content)
  return result.valid ? undefined : result.errorMessage
}
