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
 * needs more than `maxPages` pages, fails with an `McpRequestError` rather than looping.
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
  Effect.gen(function*() {
    const fail = (description: string) =>
      new McpRequestError({ server: client.server, method: options.method, reason: "InvalidResponse", description })
    const page = options.page ??
      ((cursor: string | undefined) =>
        sendAs<Page>(client, options.method, cursor === undefined ? undefined : { cursor }))
    const seen = new Set<string>()
    const out: Array<A> = []
    let cursor: string | undefined
    for (let count = 1;; count++) {
      if (count > maxPages) return yield* Effect.fail(fail(`more than ${maxPages} pages of ${options.noun}`))
      const result = yield* page(cursor)
      for (const item of options.items(result)) out.push(item)
      const next = result.nextCursor
      if (next === undefined) return out
      if (seen.has(next)) return yield* Effect.fail(fail("the server repeated a pagination cursor"))
      seen.add(next)
      cursor = next
    }
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
