/**
 * What a driver reads of an exception thrown inside the SDK's `auth()` (`McpAuthSession.failureOf`): the kind, and
 * a description that holds no secret and none of the authorization server's text but its error code. The same
 * failures through the driver, against `@zett/testing/OAuthServer`: packages/mcp-node/test/AuthProvider.test.ts,
 * AuthChecks.test.ts and AuthIssuer.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { IssuerMismatchError, OAuthError, UnauthorizedError } from "@modelcontextprotocol/client"
import { Scrubber } from "@zett/agent"
import { McpAuthSession } from "@zett/mcp-auth"
import * as OAuthChecks from "../src/internal/oauthChecks.js"
import * as OAuthProvider from "../src/internal/oauthProvider.js"

describe("McpAuthSession.failureOf", () => {
  it("a flow that would need a user is NeedsAuthorization", () => {
    assert.deepStrictEqual(McpAuthSession.failureOf(new OAuthProvider.NeedsLogin("mcp:read")), {
      reason: "NeedsAuthorization",
      description: "needs authorization"
    })
  })

  it("Zett's refusal of an authorization server is Unauthorized with its own text, passed through the scrubber", () => {
    const refused = new OAuthChecks.Refused(
      "the authorization server's token endpoint is refused: plain http: to as.example"
    )
    assert.deepStrictEqual(McpAuthSession.failureOf(refused), {
      reason: "Unauthorized",
      description:
        "authorization failed: the authorization server's token endpoint is refused: plain http: to as.example"
    })
    const quoting = new OAuthChecks.Refused(
      "the identity provider's token endpoint is refused: plain http: to s3cret-host"
    )
    assert.strictEqual(
      McpAuthSession.failureOf(quoting, Scrubber.make(["s3cret-host"]))?.description,
      `authorization failed: the identity provider's token endpoint is refused: plain http: to ${Scrubber.replacement}`
    )
  })

  it("the SDK's UnauthorizedError is Unauthorized, and its message is not kept", () => {
    assert.deepStrictEqual(McpAuthSession.failureOf(new UnauthorizedError("token s3cret refused")), {
      reason: "Unauthorized",
      description: "unauthorized"
    })
  })

  it("an issuer mismatch names both issuers in Zett's words, clipped", () => {
    const long = `https://evil.example/${"a".repeat(200)}`
    const failure = McpAuthSession.failureOf(new IssuerMismatchError("metadata", "https://as.example", long))
    assert.strictEqual(failure?.reason, "Unauthorized")
    assert.strictEqual(
      failure?.description,
      `authorization failed: the authorization server's metadata names the issuer "${
        long.slice(0, 100)
      }…", not "https://as.example" it was fetched for`
    )
    assert.strictEqual(
      McpAuthSession.failureOf(new IssuerMismatchError("authorization_response", "https://as.example", undefined))
        ?.description,
      "authorization failed: the authorization response names no issuer, and \"https://as.example\" says it always does"
    )
  })

  it("an OAuth error answer keeps its code only: the authorization server's description is remote text", () => {
    assert.deepStrictEqual(
      McpAuthSession.failureOf(new OAuthError("invalid_client", "client s3cret-client is unknown")),
      {
        reason: "Unauthorized",
        description: "authorization failed (invalid_client)"
      }
    )
  })

  it("any other exception is the driver's to read", () => {
    assert.isUndefined(McpAuthSession.failureOf(new Error("fetch failed")))
    assert.isUndefined(McpAuthSession.failureOf(new SyntaxError("Unexpected token")))
    assert.isUndefined(McpAuthSession.failureOf("a string"))
    assert.isUndefined(McpAuthSession.failureOf(undefined))
  })
})
