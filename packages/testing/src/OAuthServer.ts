/**
 * A local OAuth 2.1 authorization server and an MCP server protected by it, both on 127.0.0.1 on free ports,
 * for the length of a scope. Written by hand rather than with the SDK's `mcpAuthRouter`: the tests
 * need variants the router does not have (OpenID discovery only, no protected-resource metadata, metadata at
 * the root only, the client credentials grant, `private_key_jwt`, a server that keeps answering 401, a step-up)
 * and a record of every request. The MCP side is a real SDK `McpServer` behind a bearer check.
 *
 * `headless` is an `McpAuthorization` hook that follows the authorization URL with `redirect: "manual"` and
 * hands back the code of the `Location` it is sent to: the same hook a host would provide.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js"
import * as McpAuthorization from "@zett/mcp-auth/McpAuthorization"
import type * as McpClientFactory from "@zett/mcp/McpClientFactory"
import type { McpConnectError, McpRequestError } from "@zett/mcp/McpError"
import type * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as DpopProofs from "./DpopProofs.js"

export interface Client {
  readonly client_id: string
  /** The authorization server it is registered with (a migration has two). */
  readonly issuer?: string | undefined
  readonly client_secret?: string | undefined
  readonly redirect_uris?: ReadonlyArray<string> | undefined
  /** For `private_key_jwt`: the PEM public key its assertions are verified with. */
  readonly publicKey?: string | undefined
}

export interface Options {
  /** Where the protected-resource metadata is: at the path-based well-known URL, at the root one, or nowhere. */
  readonly protectedResource?: "path" | "root" | "none" | undefined
  /** Whether a 401 names the metadata in `WWW-Authenticate` (`resource_metadata`); default true. */
  readonly resourceMetadataInHeader?: boolean | undefined
  /** The authorization server's discovery document: RFC 8414 (default) or OpenID Connect only. */
  readonly metadata?: "oauth" | "oidc" | undefined
  /** 2025-03-26: no protected-resource metadata, the authorization server at the MCP server's own origin. */
  readonly legacy?: boolean | undefined
  /** Dynamic client registration (default true). */
  readonly registration?: boolean | undefined
  readonly clientIdMetadataDocuments?: boolean | undefined
  readonly clients?: ReadonlyArray<Client> | undefined
  /** Default `client_secret_basic`, `client_secret_post`, `none` and `private_key_jwt`. */
  readonly tokenEndpointAuthMethods?: ReadonlyArray<string> | undefined
  /** The authorization server's `scopes_supported`. */
  readonly scopesSupported?: ReadonlyArray<string> | undefined
  /** The protected resource's `scopes_supported`. */
  readonly resourceScopes?: ReadonlyArray<string> | undefined
  /** The `scope` of a 401's `WWW-Authenticate`. */
  readonly challengeScope?: string | undefined
  /** Scopes a token must hold, else 403 `insufficient_scope` with this scope. */
  readonly requiredScope?: string | undefined
  /** Scopes a token must hold for `tools/call` (other requests need only a valid token), else 403 `insufficient_scope`. */
  readonly callScope?: string | undefined
  /**
   * RFC 9207: whether the metadata says `authorization_response_iss_parameter_supported` (default true), and
   * the `iss` of its redirects: its issuer (default), another one, none, or its issuer with a terminating `/`.
   */
  readonly iss?: {
    readonly advertised?: boolean | undefined
    readonly sent?: "issuer" | "wrong" | "none" | "slash" | undefined
  } | undefined
  /** The only scopes it grants (default: whatever is asked). */
  readonly grantableScopes?: ReadonlyArray<string> | undefined
  /** Lifetime of access tokens, in seconds (default 3600). */
  readonly accessTokenTtl?: number | undefined
  /** Whether refresh tokens are issued (default true). */
  readonly refreshTokens?: boolean | undefined
  /** The protected resource the metadata names: the `/mcp` endpoint (default) or the whole origin. */
  readonly resource?: "endpoint" | "origin" | undefined
  /** Answers every MCP request 401, whatever the token. */
  readonly always401?: boolean | undefined
  /**
   * Enterprise-managed authorization: an identity provider of its own (`idpIssuer`) that exchanges this ID token,
   * from the client `idpClientId`, for an ID-JAG (RFC 8693), which the authorization server redeems with the JWT
   * bearer grant (the client must be one of `clients`, authenticated with `client_secret_basic`).
   */
  readonly enterprise?: { readonly idToken: string; readonly idpClientId: string } | undefined
  /**
   * Workload identity: the JWT bearer grant with a workload's token as the assertion, verified with this PEM
   * public key (ES256 or RS256), its `aud` this authorization server's issuer, not expired.
   */
  readonly workload?: { readonly publicKey: string } | undefined
  /** JSON-RPC methods let through without a token (a server that lets `initialize` through and asks later). */
  readonly openMethods?: ReadonlyArray<string> | undefined
  /**
   * A hostile authorization server: these values in its metadata instead of its own (an `issuer` it was not
   * fetched for, an endpoint such as `file:///etc/passwd`), or a function of its own issuer that gives them. The
   * server still serves its own paths.
   */
  readonly metadataOverrides?: MetadataOverrides | ((issuer: string) => MetadataOverrides) | undefined
  /** The protected resource metadata's `authorization_servers` instead of this authorization server. */
  readonly authorizationServers?: ReadonlyArray<string> | undefined
  /** An unknown field `x_nested` holding `depth` nested arrays (and `x_padding`, a string of `padding` characters), in one of the answers. */
  readonly nested?: {
    readonly in: "metadata" | "resource" | "registration" | "token"
    readonly depth: number
    readonly padding?: number | undefined
  } | undefined
  /**
   * A careless server that quotes the credentials of its caller: in `whoami`'s result (`"result"`), or in the
   * JSON-RPC error of `tools/list` (`"list"`): the access token and the refresh token issued with it.
   */
  readonly quoteTokens?: "result" | "list" | undefined
  /** DPoP (RFC 9449) at both servers; see `DpopOptions`. */
  readonly dpop?: DpopOptions | undefined
}

/**
 * A DPoP server. The authorization server lists `algs` (default `["ES256"]`) in its metadata, checks the proof of
 * a token request that has one and binds the tokens it issues to the proof's key (`token_type: "DPoP"`, a refresh
 * token only with a proof of that key). The MCP server checks every proof that comes with a `DPoP` token (`ath`,
 * the key the token is bound to) and, when `required` (the default), refuses a request without one, saying so in
 * its 401 with the `DPoP` scheme (`advertise: "challenge"`, the default) or only in its protected-resource
 * metadata (`"metadata"`: `dpop_bound_access_tokens_required`, the challenge stays `Bearer`).
 */
export interface DpopOptions {
  readonly algs?: ReadonlyArray<string> | undefined
  readonly required?: boolean | undefined
  readonly advertise?: "challenge" | "metadata" | undefined
  /** The token endpoint asks for a nonce (400 `use_dpop_nonce` with `DPoP-Nonce`). */
  readonly asNonce?: boolean | undefined
  /**
   * The MCP server asks for a nonce (401 `DPoP error="use_dpop_nonce"` with `DPoP-Nonce`); `"rotate"`: every answer
   * carries a new one, and only the newest two are taken.
   */
  readonly rsNonce?: boolean | "rotate" | undefined
}

/** A proof a server received, and what it made of it. */
export interface Proof extends DpopProofs.Checked {
  readonly on: "as" | "rs"
  readonly path: string
  /** The scheme of the request's `Authorization` header (`DPoP`, `Bearer`), if any. */
  readonly scheme: string | undefined
}

export interface MetadataOverrides {
  readonly issuer?: string | undefined
  readonly authorization_endpoint?: string | undefined
  readonly token_endpoint?: string | undefined
  readonly registration_endpoint?: string | undefined
}

export interface Recorded {
  readonly on: "as" | "rs"
  /** The origin the request reached (the authorization server a migration moves to has its own). */
  readonly origin: string
  readonly method: string
  readonly path: string
  readonly query: Readonly<Record<string, string>>
  readonly form: Readonly<Record<string, string>>
  readonly authorization: string | undefined
  /** The `DPoP` proof header. */
  readonly dpop: string | undefined
}

export interface Issued {
  readonly issuer: string
  readonly accessToken: string
  readonly refreshToken: string | undefined
  readonly clientId: string
  readonly scope: string | undefined
  readonly grant: string
  readonly resource: string | undefined
  /** The thumbprint of the key a DPoP-bound token is bound to (its `cnf.jkt`). */
  readonly jkt: string | undefined
}

export interface OAuthServer {
  /** The MCP endpoint. */
  readonly url: string
  readonly issuer: string
  readonly resourceOrigin: string
  readonly requests: ReadonlyArray<Recorded>
  readonly issued: ReadonlyArray<Issued>
  readonly registered: ReadonlyArray<Client>
  /** Every refresh token stops working (revoked). */
  readonly revokeRefreshTokens: () => void
  /** Every access token issued so far is refused from now on (expired on the server's side). */
  readonly expireAccessTokens: () => void
  /** How many requests reached `path`. */
  readonly count: (path: string) => number
  /** The identity provider of `enterprise` (its requests are recorded with its origin). */
  readonly idpIssuer: string
  /** The ID-JAGs it issued. */
  readonly grants: ReadonlyArray<{ readonly grant: string; readonly audience: string; readonly resource: string }>
  /**
   * The server moves to a second authorization server (another origin, its own clients): its protected-resource
   * metadata names that one from now on, and tokens of the first are refused. Returns the new issuer.
   */
  readonly migrate: () => string
  /** Every DPoP proof received (a token request's, an MCP request's), in order. */
  readonly proofs: ReadonlyArray<Proof>
  /** The DPoP nonces the servers asked for with a `use_dpop_nonce` error. */
  readonly nonceChallenges: ReadonlyArray<"as" | "rs">
}

const base64url = (buffer: Buffer) => buffer.toString("base64url")

const readBody = (req: Http.IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = ""
    req.setEncoding("utf8")
    req.on("data", (chunk: string) => (text += chunk))
    req.on("end", () => resolve(text))
  })

const json = (res: Http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers })
  res.end(JSON.stringify(body))
}

/** `body` as JSON with the field `x_nested` nested `depth` levels deep: spliced in, `JSON.stringify` would overflow. */
const nestedJson = (body: Record<string, unknown>, depth: number) => {
  const text = JSON.stringify(body)
  return `${text.slice(0, -1)}${text === "{}" ? "" : ","}"x_nested":${"[".repeat(depth)}${"]".repeat(depth)}}`
}

const oauthError = (res: Http.ServerResponse, status: number, error: string, extra: Record<string, string> = {}) =>
  json(res, status, { error, error_description: error }, extra)

/** Verifies an RS256/ES256 JWT with node:crypto: enough for a test's `private_key_jwt`. */
const verifyJwt = (token: string, publicKey: string): Record<string, unknown> | undefined => {
  const [header, payload, signature] = token.split(".")
  if (header === undefined || payload === undefined || signature === undefined) return undefined
  const alg = (JSON.parse(Buffer.from(header, "base64url").toString()) as { alg?: string }).alg
  const ok = Crypto.verify(
    "sha256",
    Buffer.from(`${header}.${payload}`),
    alg === "ES256" ? { key: publicKey, dsaEncoding: "ieee-p1363" } : publicKey,
    Buffer.from(signature, "base64url")
  )
  return ok ? JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown> : undefined
}

const safeVerify = (token: string, publicKey: string) => {
  try {
    return verifyJwt(token, publicKey)
  } catch {
    return undefined
  }
}

const listen = (handler: Http.RequestListener) =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: Http.Server; readonly origin: string }>((resume) => {
      const server = Http.createServer(handler)
      server.listen(0, "127.0.0.1", () => {
        resume(Effect.succeed({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

const mcpServer = (who: {
  readonly clientId: string
  readonly scope: string | undefined
  readonly quoted?: string | undefined
  readonly quoteInList?: boolean | undefined
}) => {
  const server = new McpServer({ name: "protected", version: "1.0.0" })
  server.registerTool(
    "whoami",
    { description: "Says which client called, with which scopes", inputSchema: {} },
    async () => ({
      content: [{
        type: "text",
        text: `client ${who.clientId} scope ${who.scope ?? ""}${who.quoted !== undefined ? ` ${who.quoted}` : ""}`
      }]
    })
  )
  if (who.quoteInList === true) {
    server.server.setRequestHandler(ListToolsRequestSchema, () => {
      throw new McpError(ErrorCode.InternalError, `cannot list tools for ${who.quoted ?? ""}`)
    })
  }
  return server
}

/**
 * What the servers share, made once by `make` for their life: what they recorded and issued, the clients, codes
 * and tokens they hold, their DPoP state, their origins and the ID-JAGs of the identity provider.
 */
interface State {
  readonly options: Options
  readonly requests: Array<Recorded>
  readonly issued: Array<Issued>
  readonly clients: Map<string, Client>
  // the clients of the authorization server a migration moves to: none are shared
  readonly clientsAfter: Map<string, Client>
  readonly registered: Array<Client>
  readonly codes: Map<
    string,
    {
      issuer: string
      clientId: string
      redirectUri: string
      challenge: string
      scope: string | undefined
      resource: string | undefined
    }
  >
  readonly accessTokens: Map<
    string,
    { issuer: string; clientId: string; scope: string | undefined; expiresAt: number; jkt?: string | undefined }
  >
  readonly refreshTokens: Map<string, { clientId: string; scope: string | undefined; jkt?: string | undefined }>
  // DPoP: the proofs received, the jtis seen, the nonces asked for, the key the token being issued is bound to
  readonly proofs: Array<Proof>
  readonly nonceChallenges: Array<"as" | "rs">
  readonly seenJti: Set<string>
  readonly asNonce: string
  rsNonces: Array<string>
  bindTo: string | undefined
  readonly dpopAlgs: ReadonlyArray<string>
  readonly sse: Map<string, SSEServerTransport>
  readonly methods: ReadonlyArray<string>
  readonly resourceMetadataPath: string
  asOrigin: string
  rsOrigin: string
  afterOrigin: string
  idpOrigin: string
  migrated: boolean
  readonly grants: Array<{ grant: string; audience: string; resource: string; used: boolean }>
}

export const make = (options: Options = {}): Effect.Effect<OAuthServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const state: State = {
      options,
      requests: [],
      issued: [],
      clients: new Map<string, Client>((options.clients ?? []).map((client) => [client.client_id, client])),
      clientsAfter: new Map(),
      registered: [],
      codes: new Map(),
      accessTokens: new Map(),
      refreshTokens: new Map(),
      proofs: [],
      nonceChallenges: [],
      seenJti: new Set(),
      asNonce: `asn-${base64url(Crypto.randomBytes(9))}`,
      rsNonces: [`rsn-${base64url(Crypto.randomBytes(9))}`],
      bindTo: undefined,
      dpopAlgs: options.dpop?.algs ?? ["ES256"],
      sse: new Map(),
      methods: options.tokenEndpointAuthMethods ??
        ["client_secret_basic", "client_secret_post", "none", "private_key_jwt"],
      resourceMetadataPath: options.protectedResource === "root"
        ? "/.well-known/oauth-protected-resource"
        : "/.well-known/oauth-protected-resource/mcp",
      asOrigin: "",
      rsOrigin: "",
      afterOrigin: "",
      idpOrigin: "",
      migrated: false,
      grants: []
    }
    const as = yield* listen(handler(state, "as"))
    const rs = yield* listen(handler(state, "rs"))
    const after = yield* listen(handler(state, "after"))
    const idp = yield* listen(handler(state, "idp"))
    state.idpOrigin = idp.origin
    state.asOrigin = as.origin
    state.rsOrigin = rs.origin
    state.afterOrigin = after.origin
    return {
      url: `${state.rsOrigin}/mcp`,
      get issuer() {
        return issuer(state)
      },
      resourceOrigin: state.rsOrigin,
      requests: state.requests,
      issued: state.issued,
      registered: state.registered,
      revokeRefreshTokens: () => state.refreshTokens.clear(),
      expireAccessTokens: () => {
        for (const token of state.accessTokens.values()) token.expiresAt = 0
      },
      count: (path) => state.requests.filter((request) => request.path === path).length,
      idpIssuer: state.idpOrigin,
      grants: state.grants,
      proofs: state.proofs,
      nonceChallenges: state.nonceChallenges,
      migrate: () => {
        state.migrated = true
        return state.afterOrigin
      }
    }
  })

const issuer = (state: State) => (state.options.legacy === true ? state.rsOrigin : state.asOrigin)

const currentIssuer = (state: State) => (state.migrated ? state.afterOrigin : issuer(state))

const clientsOf = (state: State, at: string) => (at === state.afterOrigin ? state.clientsAfter : state.clients)

const schemeOf = (req: Http.IncomingMessage) => req.headers.authorization?.split(" ")[0]

/** An answer, with `options.nested` when it is for this one. */
const answer = (
  state: State,
  res: Http.ServerResponse,
  status: number,
  what: "metadata" | "resource" | "registration" | "token",
  body: Record<string, unknown>
) => {
  const nested = state.options.nested
  if (nested?.in !== what) return json(res, status, body)
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" })
  const padding = nested.padding
  res.end(nestedJson(padding === undefined ? body : { ...body, x_padding: "x".repeat(padding) }, nested.depth))
}

const record = (
  state: State,
  on: "as" | "after" | "rs" | "idp",
  req: Http.IncomingMessage,
  form: Record<string, string>
) => {
  const url = new URL(req.url ?? "/", "http://x")
  state.requests.push({
    on: on === "rs" ? "rs" : "as",
    origin: on === "after"
      ? state.afterOrigin
      : on === "as"
      ? state.asOrigin
      : on === "idp"
      ? state.idpOrigin
      : state.rsOrigin,
    method: req.method ?? "",
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    form,
    authorization: req.headers.authorization,
    dpop: typeof req.headers.dpop === "string" ? req.headers.dpop : undefined
  })
}

const issue = (
  state: State,
  res: Http.ServerResponse,
  at: string,
  clientId: string,
  asked: string | undefined,
  grant: string,
  resource: string | undefined
) => {
  const options = state.options
  const grantable = options.grantableScopes
  const scope = grantable === undefined || asked === undefined
    ? asked
    : asked.split(" ").filter((s) => grantable.includes(s)).join(" ")
  const accessToken = `at-${base64url(Crypto.randomBytes(18))}`
  const refreshToken = options.refreshTokens === false || grant === "client_credentials"
    ? undefined
    : `rt-${base64url(Crypto.randomBytes(18))}`
  const ttl = options.accessTokenTtl ?? 3600
  const jkt = state.bindTo
  state.accessTokens.set(accessToken, { issuer: at, clientId, scope, expiresAt: Date.now() + ttl * 1000, jkt })
  if (refreshToken !== undefined) state.refreshTokens.set(refreshToken, { clientId, scope, jkt })
  state.issued.push({ issuer: at, accessToken, refreshToken, clientId, scope, grant, resource, jkt })
  answer(state, res, 200, "token", {
    access_token: accessToken,
    token_type: jkt !== undefined ? "DPoP" : "Bearer",
    expires_in: ttl,
    ...(refreshToken !== undefined ? { refresh_token: refreshToken } : {}),
    ...(scope !== undefined ? { scope } : {})
  })
}

/** Client authentication at the token endpoint; the client, or a reason. */
const authenticate = (
  state: State,
  req: Http.IncomingMessage,
  form: Record<string, string>,
  at: string
): Client | string => {
  const clients = clientsOf(state, at)
  const methods = state.methods
  const tokenUrl = `${at}/token`
  const basic = req.headers.authorization?.startsWith("Basic ") === true
    ? req.headers.authorization.slice(6)
    : undefined
  if (basic !== undefined) {
    if (!methods.includes("client_secret_basic")) return "client_secret_basic not allowed"
    const [id, secret] = Buffer.from(basic, "base64").toString().split(":").map(decodeURIComponent)
    const client = clients.get(id ?? "")
    return client !== undefined && client.client_secret !== undefined && client.client_secret === secret
      ? client
      : "bad secret"
  }
  if (form.client_assertion !== undefined) {
    if (!methods.includes("private_key_jwt")) return "private_key_jwt not allowed"
    const claims = JSON.parse(
      Buffer.from(form.client_assertion.split(".")[1] ?? "", "base64url").toString() || "{}"
    ) as Record<string, unknown>
    const client = clients.get(String(claims.sub ?? ""))
    if (client?.publicKey === undefined) return "unknown client"
    const verified = verifyJwt(form.client_assertion, client.publicKey)
    if (verified === undefined) return "bad signature"
    if (verified.aud !== at && verified.aud !== tokenUrl && verified.aud !== `${at}/`) return "bad audience"
    return client
  }
  const client = clients.get(form.client_id ?? "")
  if (client === undefined) return "unknown client"
  if (form.client_secret !== undefined) {
    if (!methods.includes("client_secret_post")) return "client_secret_post not allowed"
    return client.client_secret === form.client_secret ? client : "bad secret"
  }
  if (client.client_secret !== undefined) return "a confidential client must authenticate"
  return methods.includes("none") ? client : "none not allowed"
}

const metadata = (state: State, at: string) => {
  const options = state.options
  return {
    issuer: at,
    authorization_endpoint: `${at}/authorize`,
    token_endpoint: `${at}/token`,
    ...(options.registration !== false ? { registration_endpoint: `${at}/register` } : {}),
    response_types_supported: ["code"],
    grant_types_supported: [
      "authorization_code",
      "refresh_token",
      "client_credentials",
      ...(options.workload !== undefined ? ["urn:ietf:params:oauth:grant-type:jwt-bearer"] : [])
    ],
    code_challenge_methods_supported: ["S256"],
    ...(options.dpop !== undefined && state.dpopAlgs.length > 0
      ? { dpop_signing_alg_values_supported: state.dpopAlgs }
      : {}),
    token_endpoint_auth_methods_supported: state.methods,
    ...(options.scopesSupported !== undefined ? { scopes_supported: options.scopesSupported } : {}),
    ...(options.clientIdMetadataDocuments === true ? { client_id_metadata_document_supported: true } : {}),
    ...(options.iss?.advertised !== false ? { authorization_response_iss_parameter_supported: true } : {}),
    ...(options.metadata === "oidc"
      ? {
        jwks_uri: `${at}/jwks`,
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"]
      }
      : {}),
    ...Object.fromEntries(
      Object.entries(
        typeof options.metadataOverrides === "function"
          ? options.metadataOverrides(at)
          : options.metadataOverrides ?? {}
      ).filter(([, value]) => value !== undefined)
    )
  }
}

/** The authorization server at `at`: whether it answered the request. */
const authorizationServer = async (
  state: State,
  req: Http.IncomingMessage,
  res: Http.ServerResponse,
  path: string,
  form: Record<string, string>,
  body: Record<string, unknown>,
  at: string
) => {
  if (
    req.method === "GET" && path === (state.options.metadata === "oidc"
        ? "/.well-known/openid-configuration"
        : "/.well-known/oauth-authorization-server")
  ) {
    return answer(state, res, 200, "metadata", metadata(state, at)), true
  }
  if (req.method === "POST" && path === "/register" && state.options.registration !== false) {
    return register(state, res, body, at), true
  }
  if (req.method === "GET" && path === "/authorize") return authorize(state, req, res, at), true
  if (req.method === "POST" && path === "/token") return token(state, req, res, path, form, at), true
  return false
}

const register = (state: State, res: Http.ServerResponse, body: Record<string, unknown>, at: string) => {
  const asked = body as { redirect_uris?: Array<string>; token_endpoint_auth_method?: string }
  const client: Client = {
    issuer: at,
    client_id: `dcr-${base64url(Crypto.randomBytes(9))}`,
    ...(asked.token_endpoint_auth_method !== "none"
      ? { client_secret: `cs-${base64url(Crypto.randomBytes(12))}` }
      : {}),
    redirect_uris: asked.redirect_uris ?? []
  }
  clientsOf(state, at).set(client.client_id, client)
  state.registered.push(client)
  answer(state, res, 201, "registration", {
    ...body,
    ...client,
    client_id_issued_at: Math.floor(Date.now() / 1000)
  })
}

const authorize = (state: State, req: Http.IncomingMessage, res: Http.ServerResponse, at: string) => {
  const options = state.options
  const clients = clientsOf(state, at)
  const q = Object.fromEntries(new URL(req.url ?? "/", "http://x").searchParams)
  let client = clients.get(q.client_id ?? "")
  if (
    client === undefined && options.clientIdMetadataDocuments === true &&
    q.client_id?.startsWith("https://") === true
  ) {
    // a client ID metadata document: a real server would fetch it; the test checks what was sent
    client = { client_id: q.client_id, redirect_uris: [q.redirect_uri ?? ""] }
    clients.set(client.client_id, client)
  }
  if (client === undefined) return oauthError(res, 400, "invalid_client")
  if (!(client.redirect_uris ?? []).includes(q.redirect_uri ?? "")) {
    return oauthError(res, 400, "invalid_request")
  }
  if (q.response_type !== "code" || q.code_challenge_method !== "S256" || q.code_challenge === undefined) {
    return oauthError(res, 400, "invalid_request")
  }
  const code = `code-${base64url(Crypto.randomBytes(12))}`
  state.codes.set(code, {
    issuer: at,
    clientId: client.client_id,
    redirectUri: q.redirect_uri!,
    challenge: q.code_challenge,
    scope: q.scope,
    resource: q.resource
  })
  const target = new URL(q.redirect_uri!)
  target.searchParams.set("code", code)
  if (q.state !== undefined) {
    target.searchParams.set("state", q.state)
  }
  const sent = options.iss?.sent ?? "issuer"
  if (sent !== "none") {
    target.searchParams.set(
      "iss",
      sent === "wrong" ? "https://attacker.example" : sent === "slash" ? `${at}/` : at
    )
  }
  res.writeHead(302, { location: target.href }).end()
}

/** The token endpoint: a token request's DPoP proof, when it has one, binds the tokens issued to its key. */
const token = (
  state: State,
  req: Http.IncomingMessage,
  res: Http.ServerResponse,
  path: string,
  form: Record<string, string>,
  at: string
) => {
  const dpop = state.options.dpop
  state.bindTo = undefined
  if (dpop !== undefined && req.headers.dpop !== undefined) {
    const proof = DpopProofs.check(String(req.headers.dpop), {
      htm: "POST",
      htu: `${at}/token`,
      nonce: dpop.asNonce === true ? state.asNonce : undefined,
      algs: state.dpopAlgs,
      seen: state.seenJti
    })
    state.proofs.push({ ...proof, on: "as", path, scheme: schemeOf(req) })
    if (proof.refused === "nonce") {
      state.nonceChallenges.push("as")
      return oauthError(res, 400, "use_dpop_nonce", { "dpop-nonce": state.asNonce })
    }
    if (proof.refused !== undefined) {
      return oauthError(res, 400, "invalid_dpop_proof")
    }
    state.bindTo = proof.jkt
  }
  const client = authenticate(state, req, form, at)
  if (typeof client === "string") return oauthError(res, 401, "invalid_client")
  if (form.grant_type === "authorization_code") return codeGrant(state, res, form, at, client)
  if (form.grant_type === "refresh_token") return refreshGrant(state, res, form, at, client)
  if (form.grant_type === "urn:ietf:params:oauth:grant-type:jwt-bearer") {
    return jwtBearerGrant(state, req, res, form, at, client)
  }
  if (form.grant_type === "client_credentials") {
    if (client.client_secret === undefined && client.publicKey === undefined) {
      return oauthError(res, 400, "unauthorized_client")
    }
    return issue(state, res, at, client.client_id, form.scope, "client_credentials", form.resource)
  }
  return oauthError(res, 400, "unsupported_grant_type")
}

const codeGrant = (
  state: State,
  res: Http.ServerResponse,
  form: Record<string, string>,
  at: string,
  client: Client
) => {
  const code = state.codes.get(form.code ?? "")
  state.codes.delete(form.code ?? "")
  const challenge = base64url(Crypto.createHash("sha256").update(form.code_verifier ?? "").digest())
  if (
    code === undefined || code.issuer !== at || code.clientId !== client.client_id ||
    code.redirectUri !== form.redirect_uri ||
    code.challenge !== challenge
  ) {
    return oauthError(res, 400, "invalid_grant")
  }
  return issue(state, res, at, client.client_id, code.scope, "authorization_code", form.resource)
}

const refreshGrant = (
  state: State,
  res: Http.ServerResponse,
  form: Record<string, string>,
  at: string,
  client: Client
) => {
  const known = state.refreshTokens.get(form.refresh_token ?? "")
  if (known === undefined || known.clientId !== client.client_id) {
    return oauthError(res, 400, "invalid_grant")
  }
  // a refresh token bound to a key is used only with a proof of that key
  if (known.jkt !== undefined && known.jkt !== state.bindTo) return oauthError(res, 400, "invalid_dpop_proof")
  state.refreshTokens.delete(form.refresh_token!)
  return issue(state, res, at, client.client_id, known.scope, "refresh_token", form.resource)
}

/** The JWT bearer grant: a workload's token under `options.workload`, else an ID-JAG of the identity provider. */
const jwtBearerGrant = (
  state: State,
  req: Http.IncomingMessage,
  res: Http.ServerResponse,
  form: Record<string, string>,
  at: string,
  client: Client
) => {
  const workload = state.options.workload
  if (workload !== undefined) {
    const claims = safeVerify(form.assertion ?? "", workload.publicKey)
    const expired = typeof claims?.exp === "number" && claims.exp * 1000 <= Date.now()
    if (claims === undefined || claims.aud !== at || expired) return oauthError(res, 400, "invalid_grant")
    return issue(state, res, at, client.client_id, form.scope, "workload", form.resource)
  }
  const grant = state.grants.find((entry) => entry.grant === form.assertion)
  if (req.headers.authorization?.startsWith("Basic ") !== true) {
    return oauthError(res, 401, "invalid_client")
  }
  if (grant === undefined || grant.audience !== at || grant.used) {
    return oauthError(res, 400, "invalid_grant")
  }
  grant.used = true
  return issue(state, res, at, client.client_id, form.scope, "jwt_bearer", grant.resource)
}

const challenge = (state: State, extra: string) => {
  const options = state.options
  const parts = [
    ...(options.resourceMetadataInHeader !== false && options.protectedResource !== "none" &&
        options.legacy !== true
      ? [`resource_metadata="${state.rsOrigin}${state.resourceMetadataPath}"`]
      : []),
    extra
  ].filter((part) => part.length > 0)
  const dpopScheme = options.dpop !== undefined && options.dpop.required !== false &&
    options.dpop.advertise !== "metadata"
  return dpopScheme
    ? `DPoP ${[...parts, `algs="${state.dpopAlgs.join(" ")}"`].join(", ")}`
    : `Bearer ${parts.join(", ")}`.trim()
}

const who = (
  state: State,
  bearer: string,
  token: { readonly clientId: string; readonly scope: string | undefined }
) => {
  const refresh = state.issued.find((entry) => entry.accessToken === bearer)?.refreshToken
  return {
    clientId: token.clientId,
    scope: token.scope,
    ...(state.options.quoteTokens !== undefined
      ? { quoted: `token ${bearer} refresh ${refresh ?? ""}`, quoteInList: state.options.quoteTokens === "list" }
      : {})
  }
}

/**
 * The MCP server's DPoP checks of a request with a token: answered (401) when it is refused, `false` when it
 * passes. A nonce is asked for (again) with `use_dpop_nonce`; a rotating one is renewed on every answer.
 */
const dpopRefusal = (
  state: State,
  req: Http.IncomingMessage,
  res: Http.ServerResponse,
  token: string,
  scheme: string | undefined
): boolean => {
  const dpop = state.options.dpop!
  const known = state.accessTokens.get(token)
  const refuse = (error: string, headers: Record<string, string> = {}) => {
    res.writeHead(401, {
      "www-authenticate": `DPoP error="${error}", algs="${state.dpopAlgs.join(" ")}"`,
      ...headers
    })
    res.end(JSON.stringify({ error }))
    return true
  }
  if (scheme !== "DPoP") {
    // a bound token as a bearer token is refused; a bearer token where DPoP is required, too
    return known?.jkt !== undefined || dpop.required !== false ? refuse("invalid_token") : false
  }
  const url = new URL(req.url ?? "/", "http://x")
  const proof = DpopProofs.check(typeof req.headers.dpop === "string" ? req.headers.dpop : undefined, {
    htm: req.method ?? "",
    htu: `${state.rsOrigin}${url.pathname}`,
    accessToken: token,
    algs: state.dpopAlgs,
    seen: state.seenJti,
    nonce: undefined
  })
  const nonceOk = dpop.rsNonce === undefined || dpop.rsNonce === false ||
    (proof.nonce !== undefined && state.rsNonces.includes(proof.nonce))
  const refused = proof.refused ??
    (known !== undefined && known.jkt !== proof.jkt ? "not the key the token is bound to" : undefined) ??
    (nonceOk ? undefined : "nonce")
  state.proofs.push({ ...proof, refused, on: "rs", path: url.pathname, scheme })
  if (refused === "nonce") {
    state.nonceChallenges.push("rs")
    return refuse("use_dpop_nonce", { "dpop-nonce": state.rsNonces[0]! })
  }
  if (refused !== undefined) return refuse("invalid_dpop_proof")
  if (dpop.rsNonce === "rotate") {
    state.rsNonces = [`rsn-${base64url(Crypto.randomBytes(9))}`, state.rsNonces[0]!]
    res.setHeader("dpop-nonce", state.rsNonces[0]!)
  }
  return false
}

/** The MCP server and its protected-resource metadata: whether it answered the request. */
const resourceServer = (
  state: State,
  req: Http.IncomingMessage,
  res: Http.ServerResponse,
  path: string,
  body: string
) => {
  const options = state.options
  if (
    req.method === "GET" && path === state.resourceMetadataPath && options.protectedResource !== "none" &&
    options.legacy !== true
  ) {
    return resourceMetadata(state, res), true
  }
  if (path !== "/mcp" && path !== "/sse" && path !== "/messages") return false
  // the token of either scheme; a DPoP one only with a valid proof of the key it is bound to
  const scheme = schemeOf(req)
  const bearer = scheme === "Bearer" || scheme === "DPoP"
    ? req.headers.authorization!.slice(scheme.length + 1)
    : undefined
  if (options.dpop !== undefined && bearer !== undefined && path === "/mcp") {
    const refused = dpopRefusal(state, req, res, bearer, scheme)
    if (refused) return true
  }
  const method = path === "/mcp" && req.method === "POST"
    ? (JSON.parse(body || "{}") as { method?: unknown }).method
    : undefined
  if (typeof method === "string" && options.openMethods?.includes(method) === true && bearer === undefined) {
    return streamable(req, res, body, { clientId: "anonymous", scope: undefined }), true
  }
  const token = bearer === undefined ? undefined : state.accessTokens.get(bearer)
  if (
    options.always401 === true || token === undefined || token.expiresAt < Date.now() ||
    token.issuer !== currentIssuer(state)
  ) {
    return unauthorized(state, res, token === undefined && bearer !== undefined), true
  }
  const required = method === "tools/call" && options.callScope !== undefined
    ? options.callScope
    : options.requiredScope
  if (required !== undefined) {
    const have = new Set((token.scope ?? "").split(" "))
    if (!required.split(" ").every((scope) => have.has(scope))) {
      res.writeHead(403, { "www-authenticate": challenge(state, `error="insufficient_scope", scope="${required}"`) })
      res.end()
      return true
    }
  }
  return serve(state, req, res, path, body, bearer!, token)
}

const resourceMetadata = (state: State, res: Http.ServerResponse) => {
  const options = state.options
  answer(state, res, 200, "resource", {
    resource: options.resource === "origin" ? state.rsOrigin : `${state.rsOrigin}/mcp`,
    authorization_servers: options.authorizationServers ?? [currentIssuer(state)],
    ...(options.dpop?.advertise === "metadata" ? { dpop_bound_access_tokens_required: true } : {}),
    ...(options.resourceScopes !== undefined ? { scopes_supported: options.resourceScopes } : {})
  })
}

/** A 401 with the challenge, saying `invalid_token` of a token the server does not know. */
const unauthorized = (state: State, res: Http.ServerResponse, invalid: boolean) => {
  const scope = state.options.challengeScope !== undefined ? `scope="${state.options.challengeScope}"` : ""
  res.writeHead(401, {
    "www-authenticate": challenge(state, invalid ? `error="invalid_token"${scope ? `, ${scope}` : ""}` : scope)
  })
  res.end(JSON.stringify({ error: "unauthorized" }))
}

/** A request that passed the checks, to the MCP server of its caller over its transport. */
const serve = (
  state: State,
  req: Http.IncomingMessage,
  res: Http.ServerResponse,
  path: string,
  body: string,
  bearer: string,
  token: { readonly clientId: string; readonly scope: string | undefined }
) => {
  if (path === "/sse" && req.method === "GET") {
    // the legacy HTTP+SSE transport (2024-11-05), behind the same bearer check
    const transport = new SSEServerTransport("/messages", res)
    state.sse.set(transport.sessionId, transport)
    res.on("close", () => state.sse.delete(transport.sessionId))
    void mcpServer(who(state, bearer, token)).connect(transport)
    return true
  }
  if (path === "/messages" && req.method === "POST") {
    const transport = state.sse.get(new URL(req.url ?? "/", "http://x").searchParams.get("sessionId") ?? "")
    if (transport === undefined) return res.writeHead(404).end(), true
    void transport.handlePostMessage(req, res, JSON.parse(body))
    return true
  }
  if (path !== "/mcp" || req.method !== "POST") return res.writeHead(405).end(), true
  return streamable(req, res, body, who(state, bearer, token)), true
}

/** A request to an MCP server of its own, over a streamable HTTP transport closed with the response. */
const streamable = (
  req: Http.IncomingMessage,
  res: Http.ServerResponse,
  body: string,
  caller: Parameters<typeof mcpServer>[0]
) => {
  const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true })
  const server = mcpServer(caller)
  res.on("close", () => {
    void transport.close()
    void server.close()
  })
  void server.connect(transport).then(() => transport.handleRequest(req, res, JSON.parse(body)))
}

// the identity provider: RFC 8414 metadata and the token exchange of an ID token for an ID-JAG
const identityProvider = (
  state: State,
  req: Http.IncomingMessage,
  res: Http.ServerResponse,
  path: string,
  form: Record<string, string>
) => {
  const idpOrigin = state.idpOrigin
  if (req.method === "GET" && path === "/.well-known/oauth-authorization-server") {
    return json(res, 200, {
      issuer: idpOrigin,
      authorization_endpoint: `${idpOrigin}/authorize`,
      token_endpoint: `${idpOrigin}/token`,
      response_types_supported: ["code"],
      grant_types_supported: ["urn:ietf:params:oauth:grant-type:token-exchange"]
    })
  }
  if (req.method !== "POST" || path !== "/token") return res.writeHead(404).end()
  const enterprise = state.options.enterprise
  if (
    enterprise === undefined || form.grant_type !== "urn:ietf:params:oauth:grant-type:token-exchange" ||
    form.subject_token_type !== "urn:ietf:params:oauth:token-type:id_token" ||
    form.requested_token_type !== "urn:ietf:params:oauth:token-type:id-jag" ||
    form.client_id !== enterprise.idpClientId
  ) {
    return oauthError(res, 400, "invalid_request")
  }
  if (form.subject_token !== enterprise.idToken) return oauthError(res, 400, "invalid_grant")
  const grant = `jag-${base64url(Crypto.randomBytes(18))}`
  state.grants.push({ grant, audience: form.audience ?? "", resource: form.resource ?? "", used: false })
  json(res, 200, {
    access_token: grant,
    issued_token_type: "urn:ietf:params:oauth:token-type:id-jag",
    token_type: "N_A",
    expires_in: 300
  })
}

const handler = (state: State, on: "as" | "after" | "rs" | "idp"): Http.RequestListener => (req, res) => {
  void readBody(req).then(async (body) => {
    const path = new URL(req.url ?? "/", "http://x").pathname
    const type = req.headers["content-type"] ?? ""
    const form = type.startsWith("application/x-www-form-urlencoded")
      ? Object.fromEntries(new URLSearchParams(body))
      : {}
    const jsonBody = type.startsWith("application/json") && path !== "/mcp"
      ? JSON.parse(body || "{}") as Record<string, unknown>
      : {}
    if (on === "idp") {
      record(state, on, req, form)
      return identityProvider(state, req, res, path, form)
    }
    record(state, on, req, {
      ...form,
      ...Object.fromEntries(Object.entries(jsonBody).map(([k, v]) => [k, JSON.stringify(v)]))
    })
    const at = on === "after" ? state.afterOrigin : issuer(state)
    const servesAs = on !== "rs" || state.options.legacy === true
    if (servesAs && (await authorizationServer(state, req, res, path, form, jsonBody, at))) return
    if (on === "rs" && resourceServer(state, req, res, path, body)) return
    res.writeHead(404).end()
  })
}

/**
 * Connects to the protected server with `factory` and calls its `whoami` tool: the text it answers (which client,
 * which scopes), in a scope of its own.
 */
export const whoami = (
  factory: McpClientFactory.McpClientFactory["Type"],
  server: McpServerConfig.McpServerConfig
): Effect.Effect<string, McpConnectError | McpRequestError> =>
  Effect.scoped(Effect.gen(function*() {
    const client = yield* factory.connect(server)
    const result = yield* client.callTool("whoami", {})
    const block = result.content[0]
    return block?.type === "text" ? block.text : ""
  }))

/**
 * A login hook without a browser: it follows the authorization URL with `redirect: "manual"` and reads the code,
 * state and `iss` off the `Location` it is sent to. `urls` keeps every authorization URL it was given.
 */
export const headless = (options?: { readonly port?: number | undefined }) => {
  const urls: Array<URL> = []
  const logins: Array<string> = []
  const hook = McpAuthorization.McpAuthorization.of({
    login: (server) =>
      Effect.sync(() => {
        logins.push(server.name)
        return {
          redirectUrl: `http://127.0.0.1:${server.redirectPort ?? options?.port ?? 47_813}/callback`,
          authorize: (url: URL) =>
            Effect.tryPromise({
              try: async () => {
                urls.push(new URL(url.href))
                const response = await fetch(url, { redirect: "manual" })
                const location = response.headers.get("location")
                if (response.status !== 302 || location === null) {
                  throw new Error(`authorization answered ${response.status}`)
                }
                return new URL(location).searchParams
              },
              catch: (cause) =>
                new McpAuthorization.McpAuthorizationError({
                  server: server.name,
                  reason: "InvalidCallback",
                  description: cause instanceof Error ? cause.message : String(cause)
                })
            }).pipe(Effect.flatMap((params) => McpAuthorization.callback(server.name, params)))
        }
      })
  })
  return { hook, urls, logins, layer: Layer.succeed(McpAuthorization.McpAuthorization, hook) }
}
