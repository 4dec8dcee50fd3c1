/**
 * What Zett checks of an authorization server before the MCP SDK's `auth()` uses it, which checks none of it:
 * its endpoints are `https:` (plain `http:` only to a loopback host, as a local server is), its metadata names
 * the issuer it was fetched for (RFC 8414 section 3.3; OpenID Connect Discovery says the same), and its answers
 * are small and shallow enough to be parsed, stored and walked. `@zett/mcp-auth` of either Effect line uses this
 * one module; reading a stored discovery state back with the SDK's schemas stays with each line.
 *
 * @since 0.1.0
 */
import * as JsonDepth from "./JsonDepth.js"

/**
 * What the checks read of the SDK's `OAuthDiscoveryState`: the authorization server's URL and its metadata.
 *
 * @since 0.1.0
 */
export interface DiscoveryState {
  readonly authorizationServerUrl: string
  readonly authorizationServerMetadata?: {
    readonly issuer?: unknown
    readonly authorization_endpoint?: unknown
    readonly token_endpoint?: unknown
    readonly registration_endpoint?: unknown
  } | undefined
}

/**
 * Thrown from inside the SDK's `auth()` (by the provider or the fetch it is given) for an authorization server
 * Zett does not use. The message is Zett's own, and names what was refused.
 *
 * @since 0.1.0
 */
export class Refused extends Error {
  /**
   * @since 0.1.0
   */
  readonly _tag = "RefusedAuthorizationServer"
  /**
   * @since 0.1.0
   */
  constructor(reason: string) {
    super(`authorization failed: ${reason}`)
  }
}

/**
 * @since 0.1.0
 */
export const isRefused = (u: unknown): u is Refused => u instanceof Refused

/**
 * The loopback hosts as the URL parser writes them (`127.1` reads `127.0.0.1`, `[0::1]` reads `[::1]`).
 *
 * @since 0.1.0
 */
export const isLoopback = (hostname: string): boolean =>
  hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)

/**
 * Why `value`, the authorization server's `kind` ("authorization endpoint", ...), is not used, if it is not;
 * `owner` names whose endpoint it is in the reason.
 *
 * @since 0.1.0
 */
export const endpointRefusal = (
  kind: string,
  value: unknown,
  owner = "the authorization server's"
): string | undefined => {
  let url: URL
  try {
    url = new URL(String(value))
  } catch {
    return `${owner} ${kind} is not a URL`
  }
  if (url.protocol === "https:" || url.protocol === "http:" && isLoopback(url.hostname)) return undefined
  return url.protocol === "http:"
    ? `${owner} ${kind} is refused: plain http: to ${url.hostname}, which is not a loopback host (https: is required)`
    : `${owner} ${kind} is refused: its scheme ${url.protocol} is not https:`
}

const quote = (text: string) => JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text)

/**
 * What an issuer check of the SDK found (RFC 8414's echo in the metadata, RFC 9207's `iss` in the authorization
 * response), in Zett's words; both issuers are clipped, as either may be a hostile server's text.
 *
 * @since 0.1.0
 */
export const issuerMismatch = (
  kind: "metadata" | "authorization_response",
  received: string | undefined,
  expected: string | undefined
): string =>
  kind === "metadata"
    ? received === undefined
      ? "the authorization server's metadata names no issuer"
      : `the authorization server's metadata names the issuer ${quote(received)}, not ${
        quote(expected ?? "")
      } it was fetched for`
    : received === undefined
    ? `the authorization response names no issuer, and ${quote(expected ?? "")} says it always does`
    : `the authorization response names the issuer ${quote(received)}, not ${quote(expected ?? "")}`

/**
 * The issuer identifier the metadata was fetched for against the `issuer` it names. Compared as strings, as
 * RFC 8414 says, except for one terminating `/`: the well-known URL is built without it (the SDK strips it, and
 * writes the origin of a server without metadata as `https://host/`), so the URL fetched cannot tell the two
 * apart.
 */
const issuerRefusal = (fetchedFor: string, issuer: unknown): string | undefined => {
  if (typeof issuer !== "string") return "the authorization server's metadata names no issuer"
  const bare = (text: string) => (text.endsWith("/") ? text.slice(0, -1) : text)
  return issuer === fetchedFor || bare(issuer) === bare(fetchedFor)
    ? undefined
    : `the authorization server's metadata names the issuer ${quote(issuer)}, not ${
      quote(fetchedFor)
    } it was fetched for`
}

/**
 * Why the discovery state the SDK found (or restored) is not used, if it is not: the authorization server's
 * URL, its metadata's issuer, and the authorization, token and registration endpoints.
 *
 * @since 0.1.0
 */
export const discoveryRefusal = (state: DiscoveryState): string | undefined => {
  const server = state.authorizationServerUrl
  const metadata = state.authorizationServerMetadata
  return endpointRefusal("URL", server) ?? (metadata === undefined ? undefined : (
    issuerRefusal(String(server), metadata.issuer) ??
      endpointRefusal("authorization endpoint", metadata.authorization_endpoint) ??
      endpointRefusal("token endpoint", metadata.token_endpoint) ??
      (metadata.registration_endpoint !== undefined
        ? endpointRefusal("registration endpoint", metadata.registration_endpoint)
        : undefined)
  ))
}

/**
 * The limits of an authorization server's answer (metadata, registration, tokens): far above any real one.
 *
 * @since 0.1.0
 */
export const limits = { bytes: 1_000_000, depth: 32 } as const

const metadataPaths = ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]

/**
 * Why a request the SDK is about to make is not made, if it is not: authorization server metadata from a URL
 * that is not `https:` (or loopback `http:`).
 *
 * @since 0.1.0
 */
export const requestRefusal = (url: string | URL): string | undefined => {
  const target = new URL(url)
  return metadataPaths.some((path) => target.pathname.includes(path)) ? endpointRefusal("metadata", target) : undefined
}

/**
 * An answer of an authorization server or of the protected-resource metadata, read whole (at most
 * `limits.bytes`), refused when it nests deeper than `limits.depth`, and handed on as this runtime's
 * `Response` (the SDK tells an OAuth error response by `instanceof Response`).
 *
 * @since 0.1.0
 */
export const boundedResponse = async (url: string | URL, response: Response): Promise<Response> => {
  const init = { status: response.status, statusText: response.statusText, headers: response.headers }
  const bodyless = response.status === 204 || response.status === 304 || response.status < 200
  if (bodyless || response.body === null) {
    await response.body?.cancel()
    return new Response(null, init)
  }
  const target = new URL(url)
  const what = `the answer of ${target.origin}${target.pathname}`
  const reader = response.body.getReader()
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limits.bytes) {
      await reader.cancel()
      throw new Refused(`${what} is larger than ${limits.bytes.toLocaleString("en-US")} bytes`)
    }
    chunks.push(value)
  }
  const whole = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    whole.set(chunk, offset)
    offset += chunk.byteLength
  }
  const text = new TextDecoder().decode(whole)
  if (JsonDepth.deeperThan(text, limits.depth)) throw new Refused(`${what} nests deeper than ${limits.depth} levels`)
  return new Response(text, init)
}
