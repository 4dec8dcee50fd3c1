/**
 * Elicitation (`elicitation/create`, form and URL modes of the 2025-11-25 revision): a server asks the user for
 * information during a tool call. The `McpElicitation` service answers; a client factory that finds one in its
 * context declares the `elicitation` capability (form and URL) in `initialize`, and one that finds none declares
 * nothing, so servers do not ask.
 *
 * Whatever the handler accepts is completed with the requested schema's defaults and checked against that
 * schema by the driver before it is sent (`@zett/mcp-node` uses the SDK's JSON Schema validator, Ajv): content that
 * does not match is refused, and the server gets an error instead.
 *
 * @since 1.0.0
 */
import type { ElicitRequestFormParams } from "@modelcontextprotocol/client"
import * as Common from "@zett/common/McpElicitation"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"

/**
 * A value of a form field: what the 2025-11-25 revision allows in accepted content.
 *
 * @since 1.0.0
 * @category models
 */
export type Value = string | number | boolean | ReadonlyArray<string>

/**
 * The requested schema of a form: a flat object of primitive fields (with `title`, `description`, `default`,
 * `enum` / `oneOf`, `minimum`, `format` ...), as the server sent it.
 *
 * @since 1.0.0
 * @category models
 */
export type RequestedSchema = ElicitRequestFormParams["requestedSchema"]

/**
 * Form mode: the user fills in fields described by `requestedSchema`.
 *
 * @since 1.0.0
 * @category models
 */
export interface FormRequest {
  readonly _tag: "Form"
  /** The server's name in the configuration. */
  readonly server: string
  readonly message: string
  readonly requestedSchema: RequestedSchema
}

/**
 * URL mode: the user opens `url` (a browser flow the client never sees the data of).
 *
 * @since 1.0.0
 * @category models
 */
export interface UrlRequest {
  readonly _tag: "Url"
  readonly server: string
  readonly message: string
  readonly url: string
  readonly elicitationId: string
}

/**
 * @since 1.0.0
 * @category models
 */
export type Request = FormRequest | UrlRequest

/**
 * The user's answer: `accept` (with the form's content; none in URL mode), `decline` (said no) or `cancel`
 * (dismissed without choosing).
 *
 * @since 1.0.0
 * @category models
 */
export type Response =
  | { readonly action: "accept"; readonly content?: Readonly<Record<string, Value>> | undefined }
  | { readonly action: "decline" }
  | { readonly action: "cancel" }

/**
 * @since 1.0.0
 * @category models
 */
export interface Service {
  /**
   * Whether servers are told that the client answers these requests (the capability is declared): false for the
   * default `none`, true for a service made here; a service of your own says which it is.
   */
  readonly offered: boolean
  readonly handle: (request: Request) => Effect.Effect<Response>
}

/**
 * Answers elicitation requests. Provided (to the client factory's layer, or with the extension's `elicitation`
 * option), it makes the factory declare the capability when it is `offered`; by default it is `none`, which is
 * not, and nothing is declared.
 *
 * @since 1.0.0
 * @category tags
 */
export const McpElicitation: Context.Reference<Service> = Context.Reference<Service>("@zett/mcp/McpElicitation", {
  defaultValue: (): Service => none
})

/**
 * The default: elicitation is not offered (the capability is not declared, so servers do not ask).
 *
 * @since 1.0.0
 * @category constructors
 */
export const none: Service = { offered: false, handle: () => Effect.succeed({ action: "decline" }) }

/**
 * A handler: the effect runs as part of the tool call that caused the request (its interruption and
 * `callTimeout` interrupt it).
 *
 * @since 1.0.0
 * @category models
 */
export type Handler<R = never> = (request: Request) => Effect.Effect<Response, never, R>

/**
 * @since 1.0.0
 * @category constructors
 */
export const make = <R>(handler: Handler<R>): Effect.Effect<Service, never, R> =>
  Effect.map(
    Effect.context<R>(),
    (context) => ({ offered: true, handle: (request) => Effect.provideContext(handler(request), context) })
  )

/**
 * @since 1.0.0
 * @category layers
 */
export const layer = <R>(handler: Handler<R>): Layer.Layer<never, never, Exclude<R, Scope.Scope>> =>
  Layer.effect(McpElicitation)(make(handler))

/**
 * The library's default handler: declines every request, and logs (at warning) that it did, with the server and
 * its message.
 *
 * @since 1.0.0
 * @category constructors
 */
export const decline: Handler = (request) =>
  Effect.as(
    Effect.logWarning(
      `MCP server ${request.server} asked the user (${request._tag === "Form" ? "form" : `URL ${request.url}`}): ` +
        `${JSON.stringify(request.message)}; declined (no elicitation handler answers it)`
    ).pipe(Effect.annotateLogs({ "mcp.server": request.server, "mcp.stream": "requests" })),
    { action: "decline" } as const
  )

/**
 * `layer(decline)`: declares the capability and declines every request, saying so in the logs.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerDecline: Layer.Layer<never> = layer(decline)

/**
 * A form field as a prompt shows it.
 *
 * @since 1.0.0
 * @category models
 */
export interface Field extends Common.Field {}

/**
 * The fields of a requested schema, in the order the server wrote them (`@zett/common`'s `McpElicitation`).
 *
 * @since 1.0.0
 * @category utils
 */
export const fields: (schema: RequestedSchema) => ReadonlyArray<Field> = Common.fields

/**
 * The content with every field it leaves out that has a `default` in the schema filled in (the 2025-11-25
 * `applyDefaults`).
 *
 * @since 1.0.0
 * @category utils
 */
export const applyDefaults: (
  schema: RequestedSchema,
  content: Readonly<Record<string, unknown>>
) => Record<string, unknown> = Common.applyDefaults
