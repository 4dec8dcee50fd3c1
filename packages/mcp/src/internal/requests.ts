/**
 * Requests beyond `tools/*`, for `McpResources` and `McpPrompts`: sent through `McpClient.request`, decoded with
 * the driver, paginated with the cursor guard of `McpClient.listAll`.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { McpClient } from "../McpClient.js"
import { McpRequestError } from "../McpError.js"

/** The request (an `Unsupported` failure for a client whose driver does not implement `request`). */
export const send = (
  client: McpClient,
  method: string,
  params?: Record<string, unknown> | undefined
): Effect.Effect<unknown, McpRequestError> => client.request(method, params)

/**
 * The request, its result as the driver decoded it: a driver checks the result of every request it knows
 * against the protocol's schema and fails one that does not match.
 */
export const sendAs = <A>(
  client: McpClient,
  method: string,
  params?: Record<string, unknown> | undefined
): Effect.Effect<A, McpRequestError> => send(client, method, params) as Effect.Effect<A, McpRequestError>

/** The most pages one listing may take (`McpClient.maxPages`). */
export const maxPages = 100

/**
 * Every page of a listing request (`resources/list`, `prompts/list` ...). A server that repeats a pagination cursor, or
 * needs more than `maxPages` pages, fails with an `McpRequestError` rather than looping. A loop of Effects rather than
 * a `Stream`: every server's discovery lists, and a stream's channel executor costs hundreds of fiber steps and a fiber per
 * listing of one page.
 */
export const listAll = <Page extends { readonly nextCursor?: string | undefined }, A>(
  client: McpClient,
  options: {
    readonly method: string
    readonly noun: string
    readonly items: (page: Page) => ReadonlyArray<A>
    /** One page; by default `method` sent through `request` with the cursor. */
    readonly page?: ((cursor: string | undefined) => Effect.Effect<Page, McpRequestError>) | undefined
  }
): Effect.Effect<ReadonlyArray<A>, McpRequestError> =>
  Effect.suspend(() => {
    const seen = new Set<string>()
    const collected: Array<A> = []
    const fail = (description: string) =>
      new McpRequestError({ server: client.server, method: options.method, reason: "InvalidResponse", description })
    const from = (cursor: string | undefined, page: number): Effect.Effect<ReadonlyArray<A>, McpRequestError> =>
      page > maxPages
        ? Effect.fail(fail(`more than ${maxPages} pages of ${options.noun}`))
        : Effect.flatMap(
          options.page !== undefined
            ? options.page(cursor)
            : sendAs<Page>(client, options.method, cursor === undefined ? undefined : { cursor }),
          (result) => {
            for (const item of options.items(result)) collected.push(item)
            const next = result.nextCursor
            if (next === undefined) return Effect.succeed(collected)
            if (seen.has(next)) return Effect.fail(fail("the server repeated a pagination cursor"))
            seen.add(next)
            return from(next, page + 1)
          }
        )
    return from(undefined, 1)
  })

/** `listAll` of one listing request, as `McpResources` and `McpPrompts` export it: in a span named `span`. */
export const listing = <Page extends { readonly nextCursor?: string | undefined }, A>(
  span: string,
  method: string,
  noun: string,
  items: (page: Page) => ReadonlyArray<A>
) =>
(client: McpClient): Effect.Effect<ReadonlyArray<A>, McpRequestError> =>
  listAll<Page, A>(client, { method, noun, items }).pipe(
    Effect.withSpan(span, { attributes: { "mcp.server": client.server } })
  )
