/**
 * Zett's SDK `OAuthClientProvider`s, backed by `McpTokenStore`: the SDK's `auth()` does discovery, registration,
 * PKCE, the `resource` parameter, scope selection, client authentication and refresh; these classes only keep
 * what it hands them, add `expires_at`, ask for `offline_access` when the authorization server offers it,
 * refuse an authorization server that fails the checks of `oauthChecks.ts` (as discovered, as restored from the
 * store, and its authorization URL), and stop a flow that would need a browser when no one is there to use it
 * (`NeedsLogin`).
 *
 * @internal
 */
import {
  type AddClientAuthentication,
  createPrivateKeyJwtAuth,
  discoverAuthorizationServerMetadata,
  type DpopSession,
  extractWWWAuthenticateParams,
  type OAuthClientInformationContext,
  type OAuthClientInformationFull,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
  requestJwtAuthorizationGrant,
  UnauthorizedError
} from "@modelcontextprotocol/client"
import type { Scrubber } from "@zett/agent"
import type * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as Config from "effect/Config"
import type * as Services from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs/promises"
import * as McpTokenStore from "../McpTokenStore.js"
import * as Dpop from "./dpop.js"
import * as OAuthChecks from "./oauthChecks.js"

/**
 * Thrown from inside the SDK's `auth()` when the flow would need a user (a registration, a redirect) and the
 * connection is not interactive. It is an `UnauthorizedError`, so whatever does not know it still sees an
 * authorization failure.
 *
 * @internal
 */
export class NeedsLogin extends UnauthorizedError {
  readonly _tag = "NeedsLogin"
  constructor(readonly scope?: string | undefined) {
    super("needs authorization")
  }
}

/** @internal */
export const isNeedsLogin = (u: unknown): u is NeedsLogin => u instanceof NeedsLogin

const scopesOf = (scope: string | undefined): ReadonlyArray<string> =>
  scope?.split(/\s+/).filter((s) => s.length > 0) ?? []

/** The credentials of a stored entry: tokens, the registered client's secret, a login's PKCE verifier. */
const secretsOfEntry = (entry: McpTokenStore.Entry): Array<string> => {
  const out: Array<string> = []
  const add = (value: unknown) => {
    if (typeof value === "string") out.push(value)
  }
  for (const { clientInformation, tokens } of Object.values(entry.credentials ?? {})) {
    add(tokens?.access_token)
    add(tokens?.refresh_token)
    add(tokens?.id_token)
    add(clientInformation?.client_secret)
  }
  add(entry.codeVerifier)
  for (const secret of Dpop.secretsOf(entry.dpopKey)) add(secret)
  return out
}

/** Whether `granted` holds every scope of `wanted`. */
const covers = (granted: string | undefined, wanted: string) => {
  const have = new Set(scopesOf(granted))
  return scopesOf(wanted).every((scope) => have.has(scope))
}

/** @internal */
export interface Context {
  readonly key: string
  readonly store: McpTokenStore.Service
  /** Where every credential read from or written to the store is held, so that scrubbers find it. */
  readonly held: Scrubber.Secrets
  /** The services of the connect, which the SDK's callbacks run their effects with. */
  readonly services: Services.Context<never>
  /** The clock of the runtime, so that `TestClock` drives expiry. */
  readonly now: () => number
  /**
   * DPoP for the connection, shared by its providers: the `dpop` option, the server's challenge, the session of
   * the credentials' key (default: the option omitted, for this provider alone).
   */
  readonly dpop?: Dpop.State | undefined
}

/**
 * What both providers share: tokens, discovery state and the server's last challenge, kept in the store.
 *
 * @internal
 */
export abstract class StoreProvider implements Partial<OAuthClientProvider> {
  /** The `scope` of a 403 `insufficient_scope` that no token request has answered yet. */
  stepUpScope: string | undefined
  /** The `scope` of the last `WWW-Authenticate` challenge. */
  challengedScope: string | undefined

  protected readonly dpopState: Dpop.State

  constructor(readonly context: Context) {
    this.dpopState = context.dpop ?? new Dpop.State(undefined)
  }

  protected run<A, E>(effect: Effect.Effect<A, E>): Promise<A> {
    return Effect.runPromiseWith(this.context.services)(effect)
  }

  protected async entry(): Promise<McpTokenStore.Entry> {
    const entry = Option.getOrElse(await this.run(this.context.store.get(this.context.key)), () => ({}))
    this.context.held.add(secretsOfEntry(entry))
    return entry
  }

  protected async update(f: (entry: McpTokenStore.Entry) => McpTokenStore.Entry): Promise<void> {
    // held before the store has them: a response quoting a token is scrubbed from the moment it exists
    await this.run(McpTokenStore.modify(this.context.store, this.context.key, (entry) => {
      const next = f(entry)
      this.context.held.add(secretsOfEntry(next))
      return next
    }))
  }

  /**
   * The credentials of the authorization server the SDK names (`ctx.issuer`), else of the one in use (the
   * transport's read of the bearer token has no `ctx`).
   */
  protected async credentials(ctx: OAuthClientInformationContext | undefined): Promise<McpTokenStore.Credentials> {
    const entry = await this.entry()
    return McpTokenStore.current(entry, ctx?.issuer ?? entry.issuer)
  }

  /** `entry` with the credentials of the issuer the SDK names (else the one it stamped on them, else the one in use) changed. */
  private static withCredentials(
    entry: McpTokenStore.Entry,
    ctx: OAuthClientInformationContext | undefined,
    stamped: string | undefined,
    f: (credentials: McpTokenStore.Credentials) => McpTokenStore.Credentials
  ): McpTokenStore.Entry {
    return McpTokenStore.updateCredentials(entry, ctx?.issuer ?? stamped ?? entry.issuer ?? "", f)
  }

  protected updateCredentials(
    ctx: OAuthClientInformationContext | undefined,
    stamped: string | undefined,
    f: (credentials: McpTokenStore.Credentials) => McpTokenStore.Credentials
  ): Promise<void> {
    return this.update((entry) => StoreProvider.withCredentials(entry, ctx, stamped, f))
  }

  /** What the SDK's `dpop()` support needs of the store. */
  private get dpopStore(): Dpop.Store {
    return {
      state: this.dpopState,
      read: () => this.entry(),
      update: (f) => this.update(f),
      log: (message) => this.run(Effect.logWarning(`token store: ${this.context.key}: ${message}`))
    }
  }

  /** The DPoP session the SDK signs token requests and requests to the server with, when tokens are to be DPoP-bound. */
  async dpop(): Promise<DpopSession | undefined> {
    if (this.dpopState.mode === false) return undefined
    return Dpop.session(this.dpopStore, await this.entry())
  }

  async tokens(ctx?: OAuthClientInformationContext): Promise<OAuthTokens | undefined> {
    const entry = await this.entry()
    const tokens = McpTokenStore.current(entry, ctx?.issuer ?? entry.issuer).tokens
    if (tokens === undefined) return undefined
    // a DPoP-bound token goes out only with the key it is bound to: without it, it is as good as none
    if (Dpop.isBound(tokens) && !(await Dpop.presentable(this.dpopStore, entry, tokens))) return undefined
    // a refresh keeps the scope it had: for a step-up, the SDK must authorize anew
    if (
      this.stepUpScope !== undefined && tokens.refresh_token !== undefined && !covers(tokens.scope, this.stepUpScope)
    ) {
      const { refresh_token: _, ...rest } = tokens
      return rest
    }
    return tokens
  }

  async saveTokens(
    tokens: OAuthTokens & { readonly issuer?: string },
    ctx?: OAuthClientInformationContext
  ): Promise<void> {
    const expiresAt = tokens.expires_in !== undefined ? this.context.now() + tokens.expires_in * 1000 : undefined
    if (this.stepUpScope !== undefined && covers(tokens.scope, this.stepUpScope)) this.stepUpScope = undefined
    // the key the proof of the token request was signed with: the one the token is bound to
    const session = Dpop.isBound(tokens) ? await this.dpopState.session : undefined
    await this.update((entry) => {
      const { codeVerifier: _, ...rest } = entry
      return StoreProvider.withCredentials(rest, ctx, tokens.issuer, (credentials) => ({
        ...credentials,
        tokens: {
          ...tokens,
          ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
          ...(session !== undefined ? { dpop_jkt: session.thumbprint } : {})
        }
      }))
    })
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "all") return this.run(this.context.store.remove(this.context.key))
    await this.update((entry) => {
      const { codeVerifier, discoveryState, ...rest } = entry
      const kept = {
        ...rest,
        ...(scope !== "verifier" && codeVerifier !== undefined ? { codeVerifier } : {}),
        ...(scope !== "discovery" && discoveryState !== undefined ? { discoveryState } : {})
      }
      if ((scope !== "client" && scope !== "tokens") || entry.issuer === undefined) return kept
      // those of the authorization server in use; another's are not this one's to judge
      return McpTokenStore.updateCredentials(kept, entry.issuer, ({ clientInformation, tokens }) => ({
        ...(scope !== "client" && clientInformation !== undefined ? { clientInformation } : {}),
        ...(scope !== "tokens" && tokens !== undefined ? { tokens } : {})
      }))
    })
  }

  /** The SDK calls this as soon as discovery is done: before registering, asking for tokens or redirecting. */
  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    const refused = OAuthChecks.discoveryRefusal(state)
    if (refused !== undefined) throw new OAuthChecks.Refused(refused)
    // a round trip through JSON drops the `undefined` fields the SDK leaves in
    await this.update((entry) => ({ ...entry, discoveryState: JSON.parse(JSON.stringify(state)) }))
    this.tokenRefused = false
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    // a refused token may be one of an authorization server the resource no longer names: ask it again
    if (this.tokenRefused) return undefined
    const stored = (await this.entry()).discoveryState
    if (stored === undefined) return undefined
    const state = OAuthChecks.restoredDiscovery(stored)
    // the SDK then discovers again, and the answer is checked as it is saved
    if (state === undefined) {
      await this.run(
        Effect.logWarning(`token store: ignoring the stored discovery state of ${this.context.key}: not valid`)
      )
    }
    return state
  }

  /** Reads a 401 or 403 response of the MCP server: the scope it asks for, and a step-up. */
  observe(response: Response, withToken: boolean): void {
    if (response.status !== 401 && response.status !== 403) return
    if (response.status === 401 && Dpop.isChallenge(response.headers.get("www-authenticate"))) {
      this.dpopState.challenged = true
    }
    // a proof without the server's nonce: the SDK sends the request again with it, the token was not refused
    if (Dpop.isNonceChallenge(response)) return
    const { error, resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response)
    if (scope !== undefined) this.challengedScope = scope
    if (resourceMetadataUrl !== undefined) this.resourceMetadataUrl = resourceMetadataUrl
    if (response.status === 403 && error === "insufficient_scope") this.stepUpScope = scope ?? this.challengedScope
    // a token refused outright may be one of an authorization server the server no longer trusts
    if (response.status === 401 && withToken) this.tokenRefused = true
  }

  /** The `resource_metadata` of the last challenge. */
  resourceMetadataUrl: URL | undefined
  /** Whether the server answered a request that carried a token with 401 since the last login. */
  tokenRefused = false

  /** The configured client secret, when there is one: it stays out of the store. */
  protected abstract readonly configuredSecret: Redacted.Redacted<string> | undefined

  /**
   * A configured client (its ID, its secret), as the authorization server `ctx` names knows it: the client is
   * the user's for this server, whichever authorization server it names.
   */
  protected async storedClient(
    clientId: string,
    ctx: OAuthClientInformationContext | undefined
  ): Promise<OAuthClientInformationMixed> {
    const stored = (await this.credentials(ctx)).clientInformation
    const secret = this.configuredSecret === undefined ? {} : { client_secret: Redacted.value(this.configuredSecret) }
    const issuer = ctx !== undefined ? { issuer: ctx.issuer } : {}
    return stored !== undefined && stored.client_id === clientId
      ? { ...stored, ...secret, ...issuer }
      : { client_id: clientId, ...secret, ...issuer }
  }

  protected async storeClient(
    info: OAuthClientInformationMixed,
    ctx: OAuthClientInformationContext | undefined
  ): Promise<void> {
    const { client_secret, ...rest } = info
    const keep = this.configuredSecret !== undefined && client_secret === Redacted.value(this.configuredSecret)
      ? rest
      : info
    await this.updateCredentials(ctx, info.issuer, (credentials) => ({
      ...credentials,
      clientInformation: { redirect_uris: [], ...keep } as OAuthClientInformationFull
    }))
  }
}

/**
 * The authorization-code provider. Interactive: `redirectUrl` is the host's listener, a registration or a
 * redirect proceeds and the authorization URL is kept for the host. Not interactive: both throw `NeedsLogin`.
 *
 * @internal
 */
export class AuthorizationCodeProvider extends StoreProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined
  clientMetadataUrl?: string
  protected readonly configuredSecret: Redacted.Redacted<string> | undefined

  constructor(
    context: Context,
    readonly config: McpServerConfig.AuthorizationCode,
    readonly mode: { readonly interactive: boolean; readonly redirectUrl: string }
  ) {
    super(context)
    this.configuredSecret = config.clientSecret
    if (config.clientMetadataUrl !== undefined) this.clientMetadataUrl = config.clientMetadataUrl
  }

  get redirectUrl(): string {
    return this.mode.redirectUrl
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Zett",
      redirect_uris: [this.mode.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: this.config.clientSecret !== undefined ? "client_secret_basic" : "none",
      ...(this.config.scopes !== undefined && this.config.scopes.length > 0
        ? { scope: this.config.scopes.join(" ") }
        : {})
    }
  }

  state(): string {
    return Crypto.randomBytes(16).toString("base64url")
  }

  async clientInformation(ctx?: OAuthClientInformationContext): Promise<OAuthClientInformationMixed | undefined> {
    if (this.config.clientId !== undefined) return this.storedClient(this.config.clientId, ctx)
    // the registration with this authorization server: another's is never shown to it
    const stored = (await this.credentials(ctx)).clientInformation
    // registering is the start of a login: not without a user
    if (stored === undefined && !this.mode.interactive) throw new NeedsLogin(this.challengedScope)
    if (stored === undefined) {
      // no way to get a client without the user's help: say what to configure
      const metadata = (await this.discoveryState())?.authorizationServerMetadata
      const documents = metadata?.client_id_metadata_document_supported === true && this.clientMetadataUrl !== undefined
      if (metadata !== undefined && metadata.registration_endpoint === undefined && !documents) {
        throw new OAuthChecks.Refused(
          "the authorization server registers no clients and takes no client ID metadata document here: give the server the client it gave you (auth.clientId, and auth.clientSecret for a confidential client)"
        )
      }
      return undefined
    }
    // a registration for another loopback port cannot be used for a login on this one: register again
    const registered = stored.redirect_uris ?? []
    if (
      this.mode.interactive && stored.client_id !== this.config.clientMetadataUrl &&
      !registered.includes(this.mode.redirectUrl)
    ) {
      return undefined
    }
    return stored
  }

  async saveClientInformation(info: OAuthClientInformationMixed, ctx?: OAuthClientInformationContext): Promise<void> {
    const known = this.config.clientId !== undefined && info.client_id === this.config.clientId ||
      (await this.credentials(ctx)).clientInformation?.client_id === info.client_id
    // a new registration is the start of a login
    if (!known && !this.mode.interactive) throw new NeedsLogin(this.challengedScope)
    await this.storeClient(info, ctx)
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    if (!this.mode.interactive) throw new NeedsLogin(this.challengedScope)
    await this.update((entry) => ({ ...entry, codeVerifier }))
  }

  async codeVerifier(): Promise<string> {
    const verifier = (await this.entry()).codeVerifier
    if (verifier === undefined) throw new Error("no PKCE code verifier was saved for this login")
    return verifier
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (!this.mode.interactive) throw new NeedsLogin(authorizationUrl.searchParams.get("scope") ?? undefined)
    // the very URL the host would show and open (the metadata's endpoint was checked when it was discovered)
    const refused = OAuthChecks.endpointRefusal("authorization endpoint", authorizationUrl)
    if (refused !== undefined) throw new OAuthChecks.Refused(refused)
    // offline_access (a refresh token) only from a server that says it has it, and only with other scopes
    const state = await this.discoveryState()
    const supported = state?.authorizationServerMetadata?.scopes_supported ?? []
    const scope = authorizationUrl.searchParams.get("scope")
    if (scope !== null && supported.includes("offline_access") && !scopesOf(scope).includes("offline_access")) {
      authorizationUrl.searchParams.set("scope", `${scope} offline_access`)
      authorizationUrl.searchParams.set("prompt", "consent")
    }
    this.authorizationUrl = authorizationUrl
  }
}

/**
 * What the machine flows share: no redirect and no user (a flow that would need one stops with `NeedsLogin`),
 * the configured client as the authorization server in use knows it, tokens in the store so connections share
 * them, and the scopes configured and those the server asked for in its challenge.
 *
 * @internal
 */
abstract class MachineProvider extends StoreProvider implements OAuthClientProvider {
  protected abstract readonly client: {
    readonly clientId: string
    readonly scopes?: ReadonlyArray<string> | undefined
  }
  protected abstract readonly grantType: string
  protected abstract readonly authMethod: string

  get redirectUrl(): undefined {
    return undefined
  }

  get clientMetadata(): OAuthClientMetadata {
    const scopes = this.client.scopes
    return {
      client_name: "Zett",
      redirect_uris: [],
      grant_types: [this.grantType],
      token_endpoint_auth_method: this.authMethod,
      ...(scopes !== undefined && scopes.length > 0 ? { scope: scopes.join(" ") } : {})
    }
  }

  clientInformation(ctx?: OAuthClientInformationContext): Promise<OAuthClientInformationMixed> {
    return this.storedClient(this.client.clientId, ctx)
  }

  saveClientInformation(info: OAuthClientInformationMixed, ctx?: OAuthClientInformationContext): Promise<void> {
    return this.storeClient(info, ctx)
  }

  protected wantedScope(scope: string | undefined): string {
    return [...new Set([...scopesOf(scope), ...scopesOf(this.challengedScope), ...scopesOf(this.stepUpScope)])].join(
      " "
    )
  }

  redirectToAuthorization(): void {
    throw new NeedsLogin()
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new Error(`the ${this.grantType} grant has no code verifier`)
  }
}

/**
 * The `client_credentials` provider: the client authenticates with its secret (the SDK picks
 * `client_secret_basic` or `client_secret_post` from the server's metadata) or with a JWT signed by its private
 * key (the SDK's `createPrivateKeyJwtAuth`).
 *
 * @internal
 */
export class ClientCredentialsProvider extends MachineProvider {
  addClientAuthentication?: AddClientAuthentication
  protected readonly configuredSecret: Redacted.Redacted<string> | undefined
  protected readonly grantType = "client_credentials"
  protected readonly authMethod: string

  constructor(context: Context, protected readonly client: McpServerConfig.ClientCredentials) {
    super(context)
    this.configuredSecret = client.clientSecret
    this.authMethod = client.privateKey !== undefined ? "private_key_jwt" : "client_secret_basic"
    const privateKey = client.privateKey
    // the key is unwrapped only when a request is signed
    if (privateKey !== undefined) {
      this.addClientAuthentication = (headers, params, url, metadata) =>
        createPrivateKeyJwtAuth({
          issuer: client.clientId,
          subject: client.clientId,
          privateKey: Redacted.value(privateKey),
          alg: client.algorithm ?? "RS256"
        })(headers, params, url, metadata)
    }
  }

  prepareTokenRequest(scope?: string): URLSearchParams {
    const params = new URLSearchParams({ grant_type: "client_credentials" })
    const wanted = this.wantedScope(scope)
    if (wanted !== "") params.set("scope", wanted)
    return params
  }
}

/**
 * Enterprise-managed authorization (SEP-990): the user's ID token is exchanged at the identity provider for an
 * ID-JAG (RFC 8693, the SDK's `requestJwtAuthorizationGrant`), which the MCP server's authorization server
 * redeems with the JWT bearer grant (RFC 7523), the client authenticated with `client_secret_basic`. The
 * audience and resource of the exchange are the ones discovery found (the SDK hands them over before asking for
 * the token request). The grant is a credential: it is held as one from the moment it exists.
 *
 * @internal
 */
export class EnterpriseManagedProvider extends MachineProvider {
  protected readonly configuredSecret: Redacted.Redacted<string>
  protected readonly grantType = JWT_BEARER
  protected readonly authMethod = "client_secret_basic"
  private audience: string | undefined
  private resource: string | undefined

  constructor(
    context: Context,
    protected readonly client: McpServerConfig.EnterpriseManaged,
    private readonly fetchFn: (url: string | URL, init?: RequestInit) => Promise<Response>
  ) {
    super(context)
    this.configuredSecret = client.clientSecret
  }

  saveAuthorizationServerUrl(url: string): void {
    this.audience = url
  }

  saveResourceUrl(url: string): void {
    this.resource = url
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams> {
    if (this.audience === undefined || this.resource === undefined) {
      throw new OAuthChecks.Refused(
        "the server names no protected resource metadata, which enterprise-managed authorization needs"
      )
    }
    const idp = this.client
    const tokenEndpoint = idp.idpTokenEndpoint ?? await this.idpTokenEndpoint()
    const refused = OAuthChecks.endpointRefusal("token endpoint", tokenEndpoint, "the identity provider's")
    if (refused !== undefined) throw new OAuthChecks.Refused(refused)
    const wanted = this.wantedScope(scope)
    const grant = await requestJwtAuthorizationGrant({
      tokenEndpoint,
      audience: this.audience,
      resource: this.resource,
      idToken: Redacted.value(idp.idToken),
      clientId: idp.idpClientId,
      ...(idp.idpClientSecret !== undefined ? { clientSecret: Redacted.value(idp.idpClientSecret) } : {}),
      ...(wanted !== "" ? { scope: wanted } : {}),
      fetchFn: this.fetchFn
    })
    this.context.held.add([grant.jwtAuthGrant])
    const params = new URLSearchParams({ grant_type: JWT_BEARER, assertion: grant.jwtAuthGrant })
    if (wanted !== "") params.set("scope", wanted)
    return params
  }

  /** The identity provider's token endpoint, from its metadata (RFC 8414, else OpenID Connect discovery). */
  private async idpTokenEndpoint(): Promise<string> {
    const metadata = await discoverAuthorizationServerMetadata(this.client.idpIssuer, { fetchFn: this.fetchFn })
    if (metadata?.token_endpoint === undefined) {
      throw new OAuthChecks.Refused("the identity provider's metadata names no token endpoint")
    }
    return metadata.token_endpoint
  }
}

/**
 * Workload identity (SEP-1933): the workload's token, read from its file or environment variable at every token
 * request (platforms rotate it), is the assertion of the JWT bearer grant (RFC 7523). The client is public
 * (`none`): the assertion is what authenticates it. The token is a credential: it is held as one once read.
 *
 * @internal
 */
export class WorkloadIdentityProvider extends MachineProvider {
  protected readonly configuredSecret = undefined
  protected readonly grantType = JWT_BEARER
  protected readonly authMethod = "none"

  /** Set when the SDK discards credentials after a refused token request, before it tries once more. */
  private refused = false

  constructor(context: Context, protected readonly client: McpServerConfig.WorkloadIdentity) {
    super(context)
  }

  override async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "client" || scope === "tokens") this.refused = true
    await super.invalidateCredentials(scope)
  }

  override async saveTokens(
    tokens: OAuthTokens & { readonly issuer?: string },
    ctx?: OAuthClientInformationContext
  ): Promise<void> {
    this.refused = false
    await super.saveTokens(tokens, ctx)
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams> {
    // the same token, or another grant, would only be refused again: the platform's token must change first
    if (this.refused) {
      this.refused = false
      throw new OAuthChecks.Refused(
        "the authorization server refused the workload identity token (it is not sent again)"
      )
    }
    const assertion = await this.run(readAssertion(this.client.assertion))
    this.context.held.add([assertion])
    const params = new URLSearchParams({ grant_type: JWT_BEARER, assertion })
    const wanted = this.wantedScope(scope)
    if (wanted !== "") params.set("scope", wanted)
    if (this.client.audience !== undefined) params.set("audience", this.client.audience)
    return params
  }
}

/**
 * The workload's token, without surrounding white space (a projected token file may end with a line break). A
 * source that cannot be read, or reads empty, refuses the token request with the file or variable named.
 */
const readAssertion = (source: McpServerConfig.AssertionSource): Effect.Effect<string, OAuthChecks.Refused> => {
  const where = "file" in source ? `the file ${source.file}` : `the environment variable ${source.env}`
  const read: Effect.Effect<string, string> = "file" in source
    ? Effect.tryPromise({
      try: () => Fs.readFile(source.file, "utf8"),
      catch: (cause) => (cause as NodeJS.ErrnoException)?.code ?? "unreadable"
    })
    : Effect.mapError(Config.String(source.env), () => "not set")
  return read.pipe(
    Effect.map((text) => text.trim()),
    Effect.filterOrFail((text) => text.length > 0, () => "empty"),
    Effect.mapError((why) => new OAuthChecks.Refused(`cannot read the workload identity token from ${where} (${why})`))
  )
}

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"

/**
 * Whether stored tokens are past their expiry (or within `skewMs` of it), and can be renewed without a user: a
 * refresh token, or the client credentials grant.
 *
 * @internal
 */
export const expiry = (
  entry: McpTokenStore.Entry,
  now: number,
  skewMs: number
): "fresh" | "none" | "expired" => {
  const tokens = McpTokenStore.current(entry).tokens
  if (tokens === undefined) return "none"
  return tokens.expires_at !== undefined && tokens.expires_at - skewMs <= now ? "expired" : "fresh"
}
