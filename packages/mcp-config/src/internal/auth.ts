/**
 * The authorization of an HTTP entry, under `oauth` (Claude Code, Gemini CLI) or `auth`: one of the core's grants
 * (`AuthorizationCode`, `ClientCredentials`, `EnterpriseManaged`, `WorkloadIdentity`), each checked for the keys it
 * needs and for keys only another grant uses.
 *
 * @internal
 */
import {
  type Auth,
  AuthorizationCode,
  ClientCredentials,
  EnterpriseManaged,
  WorkloadIdentity
} from "@zett/mcp/McpServerConfig"
import * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type * as Entries from "./entries.js"
import { expandSecret, expandText, type Expansion, FieldIssue } from "./expansion.js"
import { portOf } from "./wording.js"

/** The entry's `oauth` (or `auth`) with the values every grant reads, already expanded. */
interface Common {
  readonly oauth: Entries.OAuthEntry
  /** `oauth` or `auth`: the key the file used. */
  readonly key: string
  readonly expansion: Expansion
  readonly clientId: string | undefined
  readonly clientSecret: Redacted.Redacted<string> | undefined
  readonly privateKey: Redacted.Redacted<string> | undefined
  readonly scopes: ReadonlyArray<string> | undefined
}

type Where = Pick<Common, "key" | "expansion">

const at = (where: Where, name: string) => `.${where.key}.${name}`

const text = (where: Where, name: string, value: string | undefined) =>
  value === undefined ? Effect.succeed(undefined) : expandText(where.expansion, "auth", at(where, name), value)

const optional = <K extends string, A>(k: K, value: A | undefined) =>
  value !== undefined ? { [k]: value } as { [P in K]: A } : {}

const enterpriseKeys = ["idToken", "idpIssuer", "idpTokenEndpoint", "idpClientId", "idpClientSecret"] as const
const workloadKeys = ["assertionFile", "assertionEnv", "audience"] as const

const enterpriseManaged = (common: Common) =>
  Effect.gen(function*() {
    const { expansion, oauth } = common
    const missing = (["clientId", "clientSecret", "idToken", "idpIssuer", "idpClientId"] as const).find((name) =>
      oauth[name] === undefined
    )
    if (missing !== undefined) {
      return yield* new FieldIssue({ field: at(common, missing), reason: "missing (enterprise_managed needs it)" })
    }
    if (common.privateKey !== undefined) {
      return yield* new FieldIssue({
        field: at(common, "privateKey"),
        reason: "only used with \"grant\": \"client_credentials\""
      })
    }
    const idToken = yield* expandSecret(expansion, at(common, "idToken"), oauth.idToken!)
    const idpClientSecret = oauth.idpClientSecret === undefined
      ? undefined
      : yield* expandSecret(expansion, at(common, "idpClientSecret"), oauth.idpClientSecret)
    return new EnterpriseManaged({
      clientId: common.clientId!,
      clientSecret: common.clientSecret!,
      idToken,
      idpIssuer: (yield* text(common, "idpIssuer", oauth.idpIssuer))!,
      ...optional("idpTokenEndpoint", yield* text(common, "idpTokenEndpoint", oauth.idpTokenEndpoint)),
      idpClientId: (yield* text(common, "idpClientId", oauth.idpClientId))!,
      ...optional("idpClientSecret", idpClientSecret),
      ...optional("scopes", common.scopes),
      ...optional("dpop", oauth.dpop)
    })
  })

const workloadIdentity = (common: Common) =>
  Effect.gen(function*() {
    const { clientId, oauth } = common
    if (clientId === undefined) {
      return yield* new FieldIssue({
        field: at(common, "clientId"),
        reason: "missing (workload_identity needs a client)"
      })
    }
    const other = (["clientSecret", "privateKey"] as const).find((name) => oauth[name] !== undefined)
    if (other !== undefined) {
      return yield* new FieldIssue({
        field: at(common, other),
        reason: "not used with \"grant\": \"workload_identity\" (the workload's token authenticates)"
      })
    }
    if ((oauth.assertionFile === undefined) === (oauth.assertionEnv === undefined)) {
      return yield* new FieldIssue({
        field: `.${common.key}`,
        reason: "workload_identity needs either assertionFile or assertionEnv"
      })
    }
    const file = yield* text(common, "assertionFile", oauth.assertionFile)
    const env = yield* text(common, "assertionEnv", oauth.assertionEnv)
    return new WorkloadIdentity({
      clientId,
      assertion: file !== undefined ? { file } : { env: env! },
      ...optional("audience", yield* text(common, "audience", oauth.audience)),
      ...optional("scopes", common.scopes),
      ...optional("dpop", oauth.dpop)
    })
  })

const clientCredentials = (common: Common) =>
  Effect.gen(function*() {
    const { clientId, clientSecret, oauth, privateKey } = common
    if (clientId === undefined) {
      return yield* new FieldIssue({
        field: at(common, "clientId"),
        reason: "missing (client_credentials needs a client)"
      })
    }
    if ((clientSecret === undefined) === (privateKey === undefined)) {
      return yield* new FieldIssue({
        field: `.${common.key}`,
        reason: "client_credentials needs either clientSecret or privateKey"
      })
    }
    if (privateKey !== undefined && oauth.algorithm === undefined) {
      return yield* new FieldIssue({
        field: at(common, "algorithm"),
        reason: "missing (privateKey needs an algorithm such as RS256)"
      })
    }
    return new ClientCredentials({
      clientId,
      ...optional("clientSecret", clientSecret),
      ...optional("privateKey", privateKey),
      ...optional("algorithm", oauth.algorithm),
      ...optional("scopes", common.scopes),
      ...optional("dpop", oauth.dpop)
    })
  })

const authorizationCode = (common: Common) =>
  Effect.gen(function*() {
    const { oauth } = common
    if (common.privateKey !== undefined) {
      return yield* new FieldIssue({
        field: at(common, "privateKey"),
        reason: "only used with \"grant\": \"client_credentials\""
      })
    }
    const clientMetadataUrl = yield* text(common, "clientMetadataUrl", oauth.clientMetadataUrl)
    const redirectUri = yield* text(common, "redirectUri", oauth.redirectUri)
    const redirectPort = oauth.redirectPort ?? oauth.callbackPort ?? portOf(redirectUri)
    return new AuthorizationCode({
      ...optional("clientId", common.clientId),
      ...optional("clientSecret", common.clientSecret),
      ...optional("scopes", common.scopes),
      ...optional("clientMetadataUrl", clientMetadataUrl),
      ...optional("redirectPort", redirectPort),
      ...optional("dpop", oauth.dpop)
    })
  })

/** The values every grant reads, expanded in the order the file's readers have always met them. */
const common = (oauth: Entries.OAuthEntry, key: string, expansion: Expansion) =>
  Effect.gen(function*() {
    const where: Where = { key, expansion }
    const field = (name: string) => at(where, name)
    const clientId = yield* text(where, "clientId", oauth.clientId)
    const clientSecret = oauth.clientSecret === undefined
      ? undefined
      : yield* expandSecret(expansion, field("clientSecret"), oauth.clientSecret)
    const privateKey = oauth.privateKey === undefined
      ? undefined
      : yield* expandSecret(expansion, field("privateKey"), oauth.privateKey)
    const scopes = oauth.scopes === undefined
      ? undefined
      : yield* Effect.forEach(oauth.scopes, (scope, i) =>
        expandText(expansion, "auth", `${field("scopes")}[${i}]`, scope))
    return { oauth, key, expansion, clientId, clientSecret, privateKey, scopes } satisfies Common
  })

/**
 * The entry's authorization, or undefined when it has none (or `"enabled": false`).
 *
 * @internal
 */
export const build = (
  entry: Entries.RemoteEntry,
  expansion: Expansion
): Effect.Effect<Auth | undefined, FieldIssue> =>
  Effect.gen(function*() {
    if (entry.oauth !== undefined && entry.auth !== undefined) {
      return yield* new FieldIssue({ field: ".auth", reason: "both oauth and auth are given; use one" })
    }
    const key = entry.oauth !== undefined ? "oauth" : "auth"
    const oauth = entry.oauth ?? entry.auth
    if (oauth === undefined || oauth.enabled === false) return undefined
    const values = yield* common(oauth, key, expansion)
    if (oauth.grant === "enterprise_managed") return yield* enterpriseManaged(values)
    const stray = enterpriseKeys.find((name) => oauth[name] !== undefined)
    if (stray !== undefined) {
      return yield* new FieldIssue({
        field: at(values, stray),
        reason: "only used with \"grant\": \"enterprise_managed\""
      })
    }
    if (oauth.grant === "workload_identity") return yield* workloadIdentity(values)
    const strayWorkload = workloadKeys.find((name) => oauth[name] !== undefined)
    if (strayWorkload !== undefined) {
      return yield* new FieldIssue({
        field: at(values, strayWorkload),
        reason: "only used with \"grant\": \"workload_identity\""
      })
    }
    if (oauth.grant === "client_credentials") return yield* clientCredentials(values)
    return yield* authorizationCode(values)
  })
