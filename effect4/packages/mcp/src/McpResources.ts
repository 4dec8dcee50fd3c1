/**
 * The resources of a connected MCP server: list them and their templates (every page), read one (text or
 * blob), and subscribe to its updates for the life of a `Scope`.
 *
 * Each function takes an `McpClient` (from `McpClientFactory.connect`) and goes through its optional `request`
 * member: a client of your own without it fails with an `McpRequestError` of kind `Unsupported`, never a
 * defect. Results are scrubbed of the server's secrets by the client and decoded with the SDK's schemas.
 *
 * ```ts
 * const client = yield* factory.connect(server)
 * const resources = yield* McpResources.list(client)
 * const [content] = yield* McpResources.read(client, resources[0].uri)
 * const updates = yield* McpResources.subscribe(client, resources[0].uri) // unsubscribed when the scope closes
 * ```
 *
 * @since 1.0.0
 */
import type {
  BlobResourceContents,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
  Resource as SdkResource,
  ResourceTemplateType as SdkResourceTemplate,
  TextResourceContents
} from "@modelcontextprotocol/client"
import * as ResourceText from "@zett/common/McpToolResult"
import * as Effect from "effect/Effect"
import * as Base64 from "effect/encoding/Base64"
import { dual } from "effect/Function"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Requests from "./internal/requests.js"
import type * as McpClient from "./McpClient.js"
import type { McpRequestError } from "./McpError.js"

/**
 * A resource as `resources/list` gives it (`uri`, `name`, `title?`, `description?`, `mimeType?`, `size?` ...).
 *
 * @since 1.0.0
 * @category models
 */
export type Resource = SdkResource

/**
 * A parameterized resource (`uriTemplate`, an RFC 6570 template), as `resources/templates/list` gives it.
 *
 * @since 1.0.0
 * @category models
 */
export type ResourceTemplate = SdkResourceTemplate

/**
 * One content of a read resource: `text`, or `blob` (base64), with its `uri` and `mimeType`.
 *
 * @since 1.0.0
 * @category models
 */
export type Contents = TextResourceContents | BlobResourceContents

/**
 * Every resource of the server, all pages (the cursor guard of `McpClient.listAll`: a repeated cursor or more
 * than `McpClient.maxPages` pages fail).
 *
 * @since 1.0.0
 * @category requests
 */
export const list: (client: McpClient.McpClient) => Effect.Effect<ReadonlyArray<Resource>, McpRequestError> = Requests
  .listing<ListResourcesResult, Resource>("McpResources.list", "resources/list", "resources", (page) => page.resources)

/**
 * Every resource template of the server, all pages.
 *
 * @since 1.0.0
 * @category requests
 */
export const listTemplates: (
  client: McpClient.McpClient
) => Effect.Effect<ReadonlyArray<ResourceTemplate>, McpRequestError> = Requests.listing<
  ListResourceTemplatesResult,
  ResourceTemplate
>("McpResources.listTemplates", "resources/templates/list", "resource templates", (page) => page.resourceTemplates)

/**
 * Reads a resource (a listed URI, or one made from a template): its contents, each text or blob.
 *
 * @since 1.0.0
 * @category requests
 */
export const read: {
  (uri: string): (client: McpClient.McpClient) => Effect.Effect<ReadonlyArray<Contents>, McpRequestError>
  (client: McpClient.McpClient, uri: string): Effect.Effect<ReadonlyArray<Contents>, McpRequestError>
} = dual(
  2,
  (client: McpClient.McpClient, uri: string): Effect.Effect<ReadonlyArray<Contents>, McpRequestError> =>
    Requests.sendAs<ReadResourceResult>(client, "resources/read", { uri }).pipe(
      Effect.map((result) => result.contents as ReadonlyArray<Contents>),
      Effect.withSpan("McpResources.read", { attributes: { "mcp.server": client.server } })
    )
)

/**
 * The text of a content: its `text`, or its blob decoded as UTF-8; `undefined` for a blob that is not UTF-8.
 *
 * @since 1.0.0
 * @category utils
 */
export const textOf: (contents: Contents) => string | undefined = ResourceText.resourceText

/**
 * The bytes of a content: a blob decoded from base64, or the text as UTF-8.
 *
 * @since 1.0.0
 * @category utils
 */
export const bytesOf = (contents: Contents): Uint8Array =>
  "blob" in contents
    ? Result.getOrElse(Base64.decodeLenient(contents.blob), () => new Uint8Array())
    : new TextEncoder().encode(contents.text)

/**
 * A content in the form a model can use: a blob of a text MIME type (`text/*`, JSON, XML, YAML ...) that is valid
 * UTF-8 becomes `text`; any other blob stays base64 `blob`; `_meta` is dropped.
 *
 * @since 1.0.0
 * @category utils
 */
export const forModel: (contents: Contents) => Record<string, unknown> = ResourceText.resourceForModel

/**
 * The server's resource notifications (`ResourceUpdated` for subscribed URIs, `ResourceListChanged`) from now on,
 * until the connection closes; nothing for a client whose driver has no `notifications`. On 2026-07-28 the list
 * changes are asked for (`subscriptions/listen`) while the stream runs; a server that refuses fails the stream.
 *
 * @since 1.0.0
 * @category notifications
 */
export const changes = (
  client: McpClient.McpClient
): Stream.Stream<
  McpClient.Notification & { readonly _tag: "ResourceUpdated" | "ResourceListChanged" },
  McpRequestError
> =>
  Stream.unwrap(
    Effect.map(Effect.tap(client.notifications, client.listen({ resourcesListChanged: true })), (queue) =>
      Stream.fromQueue(queue))
  ).pipe(
    Stream.filter((n): n is McpClient.Notification & { readonly _tag: "ResourceUpdated" | "ResourceListChanged" } =>
      n._tag === "ResourceUpdated" || n._tag === "ResourceListChanged"
    )
  )

/**
 * Subscribes to a resource for the life of the current `Scope` (`McpClient.listen`: a `subscriptions/listen`
 * stream on 2026-07-28, `resources/subscribe` on the 2025 revisions), and gives the stream of its updates
 * (`notifications/resources/updated` for this URI); the stream ends when the connection closes. Closing the scope
 * ends the subscription (`resources/unsubscribe`, at most 2 seconds, its failure ignored: the connection may be
 * gone). Subscribe in the connection's scope, or an inner one, so that goes out before the connection closes.
 *
 * @since 1.0.0
 * @category requests
 */
export const subscribe: {
  (uri: string): (
    client: McpClient.McpClient
  ) => Effect.Effect<
    Stream.Stream<McpClient.Notification & { readonly _tag: "ResourceUpdated" }>,
    McpRequestError,
    Scope.Scope
  >
  (client: McpClient.McpClient, uri: string): Effect.Effect<
    Stream.Stream<McpClient.Notification & { readonly _tag: "ResourceUpdated" }>,
    McpRequestError,
    Scope.Scope
  >
} = dual(2, (client: McpClient.McpClient, uri: string) =>
  Effect.gen(function*() {
    // listening first, so an update sent right after the subscribe is not missed
    const queue = yield* client.notifications
    yield* client.listen({ resourceSubscriptions: [uri] })
    return Stream.fromQueue(queue).pipe(
      Stream.filter((n): n is McpClient.Notification & { readonly _tag: "ResourceUpdated" } =>
        n._tag === "ResourceUpdated" && n.uri === uri
      )
    )
  }).pipe(Effect.withSpan("McpResources.subscribe", { attributes: { "mcp.server": client.server } })))
