/**
 * What Zett checks of an authorization server before the SDK's `auth()` uses it: `@zett/common`'s `OAuthChecks`,
 * which `@zett/mcp-auth` of both Effect lines shares, and the reading of a stored discovery state with the SDK's
 * schemas.
 *
 * @internal
 */
import type { OAuthDiscoveryState } from "@modelcontextprotocol/client"
import { OAuthMetadataSchema, OAuthProtectedResourceMetadataSchema } from "@modelcontextprotocol/core"
import { discoveryRefusal } from "@zett/common/OAuthChecks"

export {
  boundedResponse,
  discoveryRefusal,
  endpointRefusal,
  isLoopback,
  isRefused,
  issuerMismatch,
  limits,
  Refused,
  requestRefusal
} from "@zett/common/OAuthChecks"

/**
 * A discovery state read back from the store (another writer's, or an older version's), in the shape the SDK
 * expects and passing the checks of `discoveryRefusal`; `undefined` for anything else, so that the SDK
 * discovers again.
 *
 * @internal
 */
export const restoredDiscovery = (stored: unknown): OAuthDiscoveryState | undefined => {
  if (typeof stored !== "object" || stored === null) return undefined
  const { authorizationServerMetadata, authorizationServerUrl, resourceMetadata, resourceMetadataUrl } =
    stored as Record<string, unknown>
  if (typeof authorizationServerUrl !== "string") return undefined
  if (resourceMetadataUrl !== undefined && typeof resourceMetadataUrl !== "string") return undefined
  const metadata = authorizationServerMetadata === undefined
    ? undefined
    : OAuthMetadataSchema.safeParse(authorizationServerMetadata)
  const resource = resourceMetadata === undefined
    ? undefined
    : OAuthProtectedResourceMetadataSchema.safeParse(resourceMetadata)
  if (metadata?.success === false || resource?.success === false) return undefined
  const state: OAuthDiscoveryState = {
    authorizationServerUrl,
    ...(resourceMetadataUrl !== undefined ? { resourceMetadataUrl } : {}),
    ...(metadata !== undefined ? { authorizationServerMetadata: metadata.data } : {}),
    ...(resource !== undefined ? { resourceMetadata: resource.data } : {})
  }
  return discoveryRefusal(state) === undefined ? state : undefined
}
