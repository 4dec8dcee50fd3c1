/**
 * Token store entries for the stores' tests (`McpTokenStore` of `@zett/mcp-node`, `RedisTokenStore` of
 * `@zett/mcp-redis`): one entry with the credentials of one issuer, its key, and what a store may find that the
 * SDK must not get.
 */
import * as McpTokenStore from "@zett/mcp-auth/McpTokenStore"

export const issuer = "http://127.0.0.1:2"
export const credentials: McpTokenStore.Credentials = {
  tokens: { access_token: "at-1", token_type: "Bearer", refresh_token: "rt-1", expires_at: 1_000 },
  clientInformation: { client_id: "client-1", redirect_uris: ["http://127.0.0.1:1/callback"] }
}
export const entry: McpTokenStore.Entry = {
  issuer,
  credentials: { [issuer]: credentials },
  codeVerifier: "verifier",
  discoveryState: { authorizationServerUrl: `${issuer}/`, authorizationServerMetadata: { issuer } }
}

export const key = McpTokenStore.normalizeKey("http://127.0.0.1:9/mcp/")

const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`
/** Entries a store may find that the SDK must not get: wrong types where it reads, and an unknown field 10,000 levels deep. */
export const garbage = [
  `{"tokens":{"access_token":"at-1","token_type":"Bearer","refresh_token":42}}`,
  `{"tokens":{"access_token":"at-1","token_type":"Bearer","scope":{"a":1}}}`,
  `{"tokens":{"access_token":"at-1","token_type":"Bearer","expires_at":"soon"}}`,
  `{"clientInformation":{"client_id":"c","redirect_uris":"http://127.0.0.1/callback"}}`,
  `{"clientInformation":{"client_id":"c","client_secret":["s"]}}`,
  `{"discoveryState":"http://127.0.0.1/"}`,
  `{"codeVerifier":"v","x_nested":${deep}}`
]
