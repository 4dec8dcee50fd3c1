/**
 * The checks a DPoP server makes of a proof (RFC 9449 §4.3), with `node:crypto` only: the header (`typ`
 * `dpop+jwt`, an asymmetric `alg`, a public `jwk`), the signature, `htm`, `htu`, a recent `iat`, a `jti` seen
 * once, `ath` when a token goes with it, the nonce when one is asked for. For `@zett/testing/OAuthServer`.
 */
import * as Crypto from "node:crypto"

/** What a server expects of a proof. */
export interface Expected {
  readonly htm: string
  readonly htu: string
  /** The access token the proof goes with (its hash is `ath`). */
  readonly accessToken?: string | undefined
  /** The nonce the server asks for, if any. */
  readonly nonce?: string | undefined
  /** The algorithms taken. */
  readonly algs: ReadonlyArray<string>
  /** The `jti`s seen so far (a proof is used once); the proof's is added when it passes. */
  readonly seen: Set<string>
}

/** A proof read: its claims and the thumbprint of its key, and why it is refused, if it is. */
export interface Checked {
  readonly jkt: string | undefined
  readonly jti: string | undefined
  readonly htm: string | undefined
  readonly htu: string | undefined
  readonly ath: string | undefined
  readonly nonce: string | undefined
  readonly iat: number | undefined
  /** `undefined` for a valid proof; `"nonce"` when only the nonce is missing or stale. */
  readonly refused: string | undefined
}

const b64json = (part: string | undefined): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(part ?? "", "base64url").toString())
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? value as Record<string, unknown>
      : undefined
  } catch {
    return undefined
  }
}

const str = (u: unknown) => (typeof u === "string" ? u : undefined)

/** RFC 7638: the SHA-256 of the required members of the public key, in lexicographic order. */
export const thumbprint = (jwk: Readonly<Record<string, unknown>>): string => {
  const names = jwk.kty === "RSA"
    ? ["e", "kty", "n"]
    : jwk.kty === "OKP"
    ? ["crv", "kty", "x"]
    : ["crv", "kty", "x", "y"]
  const members = Object.fromEntries(names.map((name) => [name, jwk[name]]))
  return Crypto.createHash("sha256").update(JSON.stringify(members)).digest("base64url")
}

/** The `ath` of an access token (RFC 9449 §4.2). */
export const accessTokenHash = (token: string): string => Crypto.createHash("sha256").update(token).digest("base64url")

const signatureOk = (alg: string, jwk: Record<string, unknown>, input: string, signature: string): boolean => {
  try {
    const key = Crypto.createPublicKey({ key: jwk as Crypto.JsonWebKey, format: "jwk" })
    const data = Buffer.from(input)
    const sig = Buffer.from(signature, "base64url")
    if (alg === "EdDSA") return Crypto.verify(null, data, key, sig)
    const hash = `sha${alg.slice(2)}`
    if (alg.startsWith("ES")) return Crypto.verify(hash, data, { key, dsaEncoding: "ieee-p1363" }, sig)
    if (alg.startsWith("PS")) {
      return Crypto.verify(hash, data, { key, padding: Crypto.constants.RSA_PKCS1_PSS_PADDING }, sig)
    }
    return Crypto.verify(hash, data, key, sig)
  } catch {
    return false
  }
}

/** Checks `proof` against what the server expects. */
export const check = (proof: string | undefined, expected: Expected): Checked => {
  const [headerPart, payloadPart, signature] = (proof ?? "").split(".")
  const header = b64json(headerPart)
  const claims = b64json(payloadPart) ?? {}
  const jwk = header?.jwk as Record<string, unknown> | undefined
  const jkt = jwk !== undefined && typeof jwk === "object" ? thumbprint(jwk) : undefined
  const read = {
    jkt,
    jti: str(claims.jti),
    htm: str(claims.htm),
    htu: str(claims.htu),
    ath: str(claims.ath),
    nonce: str(claims.nonce),
    iat: typeof claims.iat === "number" ? claims.iat : undefined
  }
  const refuse = (refused: string | undefined): Checked => ({ ...read, refused })
  if (proof === undefined) return refuse("no proof")
  if (header === undefined || signature === undefined) return refuse("not a JWT")
  if (header.typ !== "dpop+jwt") return refuse("typ is not dpop+jwt")
  const alg = str(header.alg) ?? ""
  if (!expected.algs.includes(alg)) return refuse(`alg ${alg} not taken`)
  if (jwk === undefined || jkt === undefined) return refuse("no jwk")
  if (["d", "p", "q", "dp", "dq", "qi", "k"].some((name) => name in jwk)) return refuse("the jwk holds a private key")
  if (!signatureOk(alg, jwk, `${headerPart}.${payloadPart}`, signature)) return refuse("bad signature")
  if (read.htm !== expected.htm) return refuse(`htm ${read.htm} is not ${expected.htm}`)
  if (read.htu !== expected.htu) return refuse(`htu ${read.htu} is not ${expected.htu}`)
  if (read.iat === undefined || Math.abs(read.iat - Date.now() / 1000) > 60) return refuse("iat is not recent")
  if (read.jti === undefined || read.jti.length < 8) return refuse("no jti")
  if (expected.seen.has(read.jti)) return refuse("jti seen before")
  if (expected.accessToken !== undefined && read.ath !== accessTokenHash(expected.accessToken)) {
    return refuse("ath does not match")
  }
  if (expected.nonce !== undefined && read.nonce !== expected.nonce) return refuse("nonce")
  expected.seen.add(read.jti)
  return refuse(undefined)
}
