/**
 * The authorization of an HTTP entry, under `oauth` (Claude Code, Gemini CLI) or `auth`: one of the core's grants
 * (`AuthorizationCode`, `ClientCredentials`, `EnterpriseManaged`, `WorkloadIdentity`). Which grant, and whether its
 * keys are there (those it needs, none only another grant uses), is `@zett/common`'s `McpConfigEntry.grantOf`,
 * shared with the Effect 4 line; here the values are expanded and the grant built.
 *
 * @internal
 */
import * as McpConfigEntry from "@zett/common/McpConfigEntry"
import { portOf } from "@zett/common/McpConfigWording"
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

const secret = (where: Where, name: string, value: Redacted.Redacted<string> | undefined) =>
  value === undefined ? Effect.succeed(undefined) : expandSecret(where.expansion, at(where, name), value)

const optional = <K extends string, A>(k: K, value: A | undefined) =>
  value !== undefined ? { [k]: value } as { [P in K]: A } : {}

// Each grant's keys were checked by `McpConfigEntry.grantOf`: those it needs are there.
const enterpriseManaged = (common: Common) =>
  Effect.gen(function*() {
    const { oauth } = common
    const idToken = (yield* secret(common, "idToken", oauth.idToken))!
    const idpClientSecret = yield* secret(common, "idpClientSecret", oauth.idpClientSecret)
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
    const { oauth } = common
    const file = yield* text(common, "assertionFile", oauth.assertionFile)
    const env = yield* text(common, "assertionEnv", oauth.assertionEnv)
    return new WorkloadIdentity({
      clientId: common.clientId!,
      assertion: file !== undefined ? { file } : { env: env! },
      ...optional("audience", yield* text(common, "audience", oauth.audience)),
      ...optional("scopes", common.scopes),
      ...optional("dpop", oauth.dpop)
    })
  })

const clientCredentials = (common: Common) =>
  Effect.succeed(
    new ClientCredentials({
      clientId: common.clientId!,
      ...optional("clientSecret", common.clientSecret),
      ...optional("privateKey", common.privateKey),
      ...optional("algorithm", common.oauth.algorithm),
      ...optional("scopes", common.scopes),
      ...optional("dpop", common.oauth.dpop)
    })
  )

const authorizationCode = (common: Common) =>
  Effect.gen(function*() {
    const { oauth } = common
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
    const clientId = yield* text(where, "clientId", oauth.clientId)
    const clientSecret = yield* secret(where, "clientSecret", oauth.clientSecret)
    const privateKey = yield* secret(where, "privateKey", oauth.privateKey)
    const scopes = oauth.scopes === undefined
      ? undefined
      : yield* Effect.forEach(oauth.scopes, (scope, i) =>
        expandText(expansion, "auth", `${at(where, "scopes")}[${i}]`, scope))
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
    const part = McpConfigEntry.authPart(entry)
    if (part._tag === "None") return undefined
    if (part._tag === "Invalid") return yield* new FieldIssue({ field: part.field!, reason: part.reason })
    const values = yield* common(part.oauth, part.key, expansion)
    const checked = McpConfigEntry.grantOf(part.oauth, part.key)
    if (checked._tag === "Invalid") return yield* new FieldIssue({ field: checked.field!, reason: checked.reason })
    switch (checked.grant) {
      case "enterprise_managed":
        return yield* enterpriseManaged(values)
      case "workload_identity":
        return yield* workloadIdentity(values)
      case "client_credentials":
        return yield* clientCredentials(values)
      case "authorization_code":
        return yield* authorizationCode(values)
    }
  })
