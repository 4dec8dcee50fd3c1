/**
 * What DPoP (RFC 9449) asks of a client's tokens and keys, without the MCP SDK that signs the proofs: whether a
 * server challenges with the `DPoP` scheme or requires bound tokens, which algorithm to sign with, the Web Crypto
 * parameters and public members of a stored key (RFC 7638's order), the private parts a scrubber must hold, and
 * which stored tokens are bound to another key. `@zett/mcp-auth` of either Effect line uses this one module.
 *
 * @since 0.1.0
 */

/**
 * A stored key: its JWS algorithm and its JWK (private members included).
 *
 * @since 0.1.0
 */
export interface StoredKey {
  readonly alg: string
  readonly jwk: Readonly<Record<string, unknown>>
}

/**
 * What the binding reads of a token store's entry: the tokens of each authorization server.
 *
 * @since 0.1.0
 */
export interface BoundEntry {
  readonly credentials?: Readonly<
    Record<string, { readonly tokens?: { readonly token_type?: string; readonly dpop_jkt?: string } | undefined }>
  >
}

/**
 * Whether a `WWW-Authenticate` value holds a challenge of the `DPoP` scheme (RFC 9449 §7.1), among any others.
 *
 * @since 0.1.0
 */
export const isChallenge = (header: string | null): boolean =>
  header !== null && /(?:^|,)\s*dpop(?:\s|,|$)/i.test(header)

/**
 * Whether tokens are DPoP-bound (`token_type: "DPoP"`, RFC 9449 §5).
 *
 * @since 0.1.0
 */
export const isBound = (tokens: { readonly token_type?: string } | undefined): boolean =>
  tokens?.token_type?.toLowerCase() === "dpop"

const record = (u: unknown): Readonly<Record<string, unknown>> | undefined =>
  typeof u === "object" && u !== null && !Array.isArray(u) ? u as Record<string, unknown> : undefined

/**
 * The protected-resource metadata of a discovery state says tokens must be DPoP-bound (RFC 9449 §5.2, RFC 9728).
 *
 * @since 0.1.0
 */
export const requiredByResource = (discoveryState: unknown): boolean =>
  record(record(discoveryState)?.resourceMetadata)?.dpop_bound_access_tokens_required === true

/**
 * The algorithms the authorization server's metadata lists for proofs; `undefined` before its metadata is known.
 *
 * @since 0.1.0
 */
export const signingAlgs = (discoveryState: unknown): ReadonlyArray<string> | undefined => {
  const metadata = record(record(discoveryState)?.authorizationServerMetadata)
  if (metadata === undefined) return undefined
  const algs = metadata.dpop_signing_alg_values_supported
  return Array.isArray(algs) ? algs.filter((alg): alg is string => typeof alg === "string") : []
}

/**
 * ES256 (what every DPoP server takes), else the first algorithm of the server's list this client can sign with
 * (`supported`).
 *
 * @since 0.1.0
 */
export const chooseAlg = <A extends string>(
  algs: ReadonlyArray<string> | undefined,
  supported: ReadonlyArray<A>
): A | "ES256" =>
  algs === undefined || algs.includes("ES256")
    ? "ES256"
    : algs.find((alg): alg is A => (supported as ReadonlyArray<string>).includes(alg)) ?? "ES256"

/**
 * Why DPoP-bound tokens cannot be had from an authorization server that takes proofs signed with `algs` only.
 *
 * @since 0.1.0
 */
export const unsupportedReason = (alg: string, algs: ReadonlyArray<string>): string =>
  algs.length === 0
    ? "DPoP-bound tokens are needed, and the authorization server does not support DPoP (its metadata lists no dpop_signing_alg_values_supported)"
    : `DPoP-bound tokens are needed, and the authorization server does not take proofs signed with ${alg} (its dpop_signing_alg_values_supported: ${
      algs.slice(0, 10).map((a) => a.slice(0, 20)).join(", ")
    })`

/**
 * The Web Crypto parameters of a key's import (`subtle.importKey`), written out so that an app compiled without
 * the DOM's types reads them too.
 *
 * @since 0.1.0
 */
export interface ImportParams {
  readonly name: string
  readonly namedCurve?: string
  readonly hash?: string
}

/**
 * The Web Crypto parameters of each algorithm's keys.
 *
 * @since 0.1.0
 */
export const importParams = (
  alg: "ES256" | "ES384" | "ES512" | "RS256" | "RS384" | "RS512" | "PS256" | "PS384" | "PS512" | "EdDSA"
): ImportParams => {
  switch (alg) {
    case "ES256":
      return { name: "ECDSA", namedCurve: "P-256" }
    case "ES384":
      return { name: "ECDSA", namedCurve: "P-384" }
    case "ES512":
      return { name: "ECDSA", namedCurve: "P-521" }
    case "RS256":
    case "RS384":
    case "RS512":
      return { name: "RSASSA-PKCS1-v1_5", hash: `SHA-${alg.slice(2)}` }
    case "PS256":
    case "PS384":
    case "PS512":
      return { name: "RSA-PSS", hash: `SHA-${alg.slice(2)}` }
    case "EdDSA":
      return { name: "Ed25519" }
  }
}

/**
 * The members of a public key, in the order RFC 7638 hashes them; a key without one of them is refused.
 *
 * @since 0.1.0
 */
export const publicMembers = (jwk: Readonly<Record<string, unknown>>): Record<string, string> => {
  const names = jwk.kty === "RSA"
    ? ["e", "kty", "n"]
    : jwk.kty === "OKP"
    ? ["crv", "kty", "x"]
    : ["crv", "kty", "x", "y"]
  const out: Record<string, string> = {}
  for (const name of names) {
    const value = jwk[name]
    if (typeof value !== "string") throw new Error(`a DPoP key without ${name}`)
    out[name] = value
  }
  return out
}

const privateNames = ["d", "p", "q", "dp", "dq", "qi"]

/**
 * The private parts of a stored key, for the scrubbers that keep credentials out of logs and errors.
 *
 * @since 0.1.0
 */
export const secretsOf = (key: StoredKey | undefined): ReadonlyArray<string> =>
  key === undefined ? [] : privateNames.flatMap((name) => {
    const value = key.jwk[name]
    return typeof value === "string" && value.length > 0 ? [value] : []
  })

/**
 * `entry` with the tokens that are DPoP-bound to another key than `thumbprint` (or to none it knows) dropped: they
 * are never presented with this one.
 *
 * @since 0.1.0
 */
export const withoutForeign = <E extends BoundEntry>(entry: E, thumbprint: string): E => {
  const credentials = entry.credentials
  if (credentials === undefined) return entry
  return {
    ...entry,
    credentials: Object.fromEntries(
      Object.entries(credentials).map(([issuer, { tokens, ...kept }]) => [
        issuer,
        tokens === undefined || !isBound(tokens) || tokens.dpop_jkt === thumbprint
          ? { ...kept, ...(tokens !== undefined ? { tokens } : {}) }
          : kept
      ])
    )
  }
}

/**
 * Whether `entry` holds tokens DPoP-bound to another key than `thumbprint`.
 *
 * @since 0.1.0
 */
export const hasForeign = (entry: BoundEntry, thumbprint: string): boolean =>
  Object.values(entry.credentials ?? {}).some(({ tokens }) => isBound(tokens) && tokens?.dpop_jkt !== thumbprint)

/**
 * Whether two stored keys are the same key.
 *
 * @since 0.1.0
 */
export const sameKey = (a: StoredKey, b: StoredKey | undefined): boolean =>
  b !== undefined && a.alg === b.alg && a.jwk.d === b.jwk.d
