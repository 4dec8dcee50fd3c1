/**
 * Requests beyond `tools/*`, for `McpResources` and `McpPrompts`: sent through `McpClient.request`, decoded with
 * the SDK's result schemas, paginated with the cursor guard of `McpClient.listAll`.
 *
 * @internal
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { McpClient } from "../McpClient.js"
import { McpRequestError } from "../McpError.js"

/** A zod schema as the SDK exports them: only its `safeParse` is used. */
export interface ResultSchema<A> {
  readonly safeParse: (input: unknown) => { readonly success: true; readonly data: A } | {
    readonly success: false
    readonly error: unknown
  }
}

/** The request, or an `Unsupported` failure when the client does not implement `request`. */
export const send = (
  client: McpClient,
  method: string,
  params?: Record<string, unknown> | undefined
): Effect.Effect<unknown, McpRequestError> =>
  client.request === undefined
    ? Effect.fail(
      new McpRequestError({
        server: client.server,
        method,
        kind: "Unsupported",
        reason: "this MCP client does not implement requests other than tools"
      })
    )
    : client.request(method, params)

/** The request, its result decoded; a result that does not match is a `Protocol`-like failure naming the first issue. */
export const sendDecoded = <A>(
  client: McpClient,
  method: string,
  schema: ResultSchema<A>,
  params?: Record<string, unknown> | undefined
): Effect.Effect<A, McpRequestError> =>
  Effect.flatMap(send(client, method, params), (result) => {
    const parsed = schema.safeParse(result)
    return parsed.success
      ? Effect.succeed(parsed.data)
      // the result was scrubbed by the client: the issue's text holds no secret of the server's
      : Effect.fail(McpRequestError.fromCause({ server: client.server, method, cause: parsed.error }))
  })

/** The most pages one listing may take (as `McpClient.maxPages`). */
export const maxPages = 100

/**
 * Every page of a listing request (`resources/list`, `prompts/list` ...). A server that repeats a pagination cursor, or needs more than `maxPages`
 * pages, fails with an `McpRequestError` rather than looping (D9).
 */
export const listAll = <Page extends { readonly nextCursor?: string | undefined }, A>(
  client: McpClient,
  options: {
    readonly method: string
    readonly noun: string
    readonly schema: ResultSchema<Page>
    readonly items: (page: Page) => ReadonlyArray<A>
  }
): Effect.Effect<ReadonlyArray<A>, McpRequestError> =>
  Stream.suspend(() => {
    const seen = new Set<string>()
    const fail = (reason: string) => new McpRequestError({ server: client.server, method: options.method, reason })
    return Stream.paginateChunkEffect(
      { cursor: undefined as string | undefined, page: 1 },
      ({ cursor, page }) =>
        page > maxPages
          ? Effect.fail(fail(`more than ${maxPages} pages of ${options.noun}`))
          : Effect.flatMap(
            sendDecoded(client, options.method, options.schema, cursor === undefined ? undefined : { cursor }),
            (result) => {
              const items = Chunk.fromIterable(options.items(result))
              const next = result.nextCursor
              if (next === undefined) return Effect.succeed([items, Option.none()] as const)
              if (seen.has(next)) return Effect.fail(fail("the server repeated a pagination cursor"))
              seen.add(next)
              return Effect.succeed([items, Option.some({ cursor: next as string | undefined, page: page + 1 })] as const)
            }
          )
    )
  }).pipe(Stream.runCollect, Effect.map(Chunk.toReadonlyArray))
