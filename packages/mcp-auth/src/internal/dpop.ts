/**
 * DPoP (RFC 9449) for Zett's providers: whether a connection asks for DPoP-bound tokens (the `dpop` option, else
 * what the MCP server says), the key of a server's credentials (made once, kept in the token store with the
 * tokens, imported again as a key that cannot be exported), and the binding of tokens to it: a token is
 * presented only with the key it was issued for. The wire work (a proof at the token endpoint and on every
 * request to the MCP server, the `DPoP` scheme, nonces) is the SDK's once a provider's `dpop()` returns a session.
 * What needs neither Effect nor the SDK is `@zett/common`'s `OAuthDpop`, which both Effect lines share.
 *
 * @internal
 */
import {
  DPOP_SUPPORTED_ALGS,
  DpopSession,
  generateDpopKeyPair,
  isDpopNonceChallenge
} from "@modelcontextprotocol/client"
import type { DpopAlg, DpopKeyPair } from "@modelcontextprotocol/client"
import * as OAuthDpop from "@zett/common/OAuthDpop"
import * as Crypto from "node:crypto"
import * as McpTokenStore from "../McpTokenStore.js"
import * as OAuthChecks from "./oauthChecks.js"

/**
 * The `dpop` option: `true` always asks for DPoP-bound tokens, `false` never, `undefined` when the server asks.
 *
 * @internal
 */
export type Mode = boolean | undefined

/**
 * What one connection knows of DPoP, shared by its providers (the transport's and a login's): whether the
 * server challenged with the `DPoP` scheme, and the one session (the key, the nonces of each origin) the SDK
 * signs with for the life of the connection.
 *
 * @internal
 */
export class State {
  challenged = false
  session: Promise<DpopSession> | undefined
  constructor(readonly mode: Mode) {}
}

/**
 * DPoP is needed and the authorization server does not take proofs this client can sign (its metadata lists no
 * `dpop_signing_alg_values_supported`, or not the key's algorithm).
 *
 * @internal
 */
export class Unsupported extends OAuthChecks.Refused {}

/** @internal */
export const isUnsupported = (u: unknown): u is Unsupported => u instanceof Unsupported

/**
 * Whether a `WWW-Authenticate` value holds a challenge of the `DPoP` scheme (RFC 9449 §7.1), among any others.
 *
 * @internal
 */
export const isChallenge: (header: string | null) => boolean = OAuthDpop.isChallenge

/**
 * A 401 that asks for a nonce in the proof (RFC 9449 §9): the SDK sends the request again with it, so it is no
 * refusal of the token.
 *
 * @internal
 */
export const isNonceChallenge: (response: Response) => boolean = isDpopNonceChallenge

/**
 * Whether tokens are DPoP-bound (`token_type: "DPoP"`, RFC 9449 §5).
 *
 * @internal
 */
export const isBound: (tokens: { readonly token_type?: string } | undefined) => boolean = OAuthDpop.isBound

const isAlg = (alg: string): alg is DpopAlg => (DPOP_SUPPORTED_ALGS as ReadonlyArray<string>).includes(alg)

const unsupported = (alg: string, algs: ReadonlyArray<string>) =>
  new Unsupported(OAuthDpop.unsupportedReason(alg, algs))

/**
 * The private parts of a stored key, for the scrubbers that keep credentials out of logs and errors.
 *
 * @internal
 */
export const secretsOf: (key: McpTokenStore.DpopKey | undefined) => ReadonlyArray<string> = OAuthDpop.secretsOf

/** A new key, exported once to be stored. */
const generate = async (alg: DpopAlg): Promise<McpTokenStore.DpopKey> => {
  const pair = await generateDpopKeyPair({ alg, extractable: true })
  const { ext: _, key_ops: __, ...jwk } = await globalThis.crypto.subtle.exportKey("jwk", pair.privateKey)
  return { alg, jwk }
}

/** A stored key as the session's key pair: the private key imported so that it cannot be exported again. */
const importKey = async (stored: McpTokenStore.DpopKey): Promise<DpopKeyPair> => {
  if (!isAlg(stored.alg)) throw new Error("a DPoP key of an unknown algorithm")
  const alg = stored.alg
  const publicJwk = OAuthDpop.publicMembers(stored.jwk)
  const params = OAuthDpop.importParams(alg)
  const privateKey = await globalThis.crypto.subtle.importKey("jwk", stored.jwk as JsonWebKey, params, false, ["sign"])
  const publicKey = await globalThis.crypto.subtle.importKey("jwk", publicJwk, params, true, ["verify"])
  const thumbprint = Crypto.createHash("sha256").update(JSON.stringify(publicJwk)).digest("base64url")
  return { privateKey, publicKey, publicJwk, thumbprint, alg }
}

/**
 * The store of the provider that asks: its entry, read and changed.
 *
 * @internal
 */
export interface Store {
  readonly state: State
  readonly read: () => Promise<McpTokenStore.Entry>
  readonly update: (f: (entry: McpTokenStore.Entry) => McpTokenStore.Entry) => Promise<void>
  readonly log: (message: string) => Promise<void>
}

/**
 * The session the SDK signs with, or `undefined` for bearer tokens: with `dpop: true` always, with the default
 * when the server challenged with the `DPoP` scheme, its metadata requires DPoP-bound tokens, or the tokens in
 * use are bound; never with `dpop: false`. The key waits for the authorization server's metadata (nothing is
 * asked of it before), whose algorithms are checked before a token is asked for.
 *
 * @internal
 */
export const session = async (store: Store, entry: McpTokenStore.Entry): Promise<DpopSession | undefined> => {
  const { state } = store
  if (state.mode === false) return undefined
  const bound = isBound(McpTokenStore.current(entry).tokens)
  const wanted = bound || state.mode === true || state.challenged || OAuthDpop.requiredByResource(entry.discoveryState)
  if (!wanted) return undefined
  if (!bound && entry.discoveryState === undefined) return undefined
  const algs = OAuthDpop.signingAlgs(entry.discoveryState)
  if (state.session === undefined) {
    const opening = open(store, entry, algs)
    state.session = opening
    opening.catch(() => {
      if (state.session === opening) state.session = undefined
    })
  }
  const current = await state.session
  // a token is about to be asked for: with a proof the authorization server takes
  if (!bound && algs !== undefined && !algs.includes(current.alg)) throw unsupported(current.alg, algs)
  return current
}

/** The stored key (one is made when there is none, or it cannot be read), and the tokens bound to another dropped. */
const open = async (
  store: Store,
  entry: McpTokenStore.Entry,
  algs: ReadonlyArray<string> | undefined
): Promise<DpopSession> => {
  const stored = entry.dpopKey
  let keyPair = stored === undefined ? undefined : await importKey(stored).catch(() => undefined)
  if (keyPair === undefined) {
    if (stored !== undefined) {
      await store.log(
        "the stored DPoP key cannot be used: a new one is made, and the tokens bound to the old one are dropped"
      )
    }
    const alg = OAuthDpop.chooseAlg(algs, DPOP_SUPPORTED_ALGS)
    if (algs !== undefined && !algs.includes(alg)) throw unsupported(alg, algs)
    const made = await generate(alg)
    // another process may have stored one meanwhile: its key is the one its tokens are bound to
    await store.update((entry) =>
      entry.dpopKey === undefined || OAuthDpop.sameKey(entry.dpopKey, stored) ? { ...entry, dpopKey: made } : entry
    )
    const kept = (await store.read()).dpopKey ?? made
    keyPair = await importKey(kept)
  }
  const session = await DpopSession.create({ keyPair })
  if (OAuthDpop.hasForeign(await store.read(), session.thumbprint)) {
    await store.log("tokens bound to another DPoP key than the stored one are dropped")
    await store.update((entry) => OAuthDpop.withoutForeign(entry, session.thumbprint))
  }
  return session
}

/**
 * Whether DPoP-bound `tokens` may go out from this connection: only with the key they are bound to.
 *
 * @internal
 */
export const presentable = async (
  store: Store,
  entry: McpTokenStore.Entry,
  tokens: { readonly token_type?: string; readonly dpop_jkt?: string }
): Promise<boolean> => {
  if (!isBound(tokens)) return true
  const current = await session(store, entry)
  return current !== undefined && tokens.dpop_jkt === current.thumbprint
}
