/**
 * What both lines' `@zett/mcp-auth` refuse of an authorization server, read without a connection: an answer read
 * whole within its limits (bytes, depth) and handed on as a `Response`, and the discovery state's endpoints and
 * issuer. The same checks through each line's driver, against a local authorization server: the AuthChecks tests
 * of `@zett/mcp-node`.
 */
import { OAuthChecks } from "@zett/common"
import { assert, describe, it } from "vitest"

const url = "https://as.example/token"

describe("OAuthChecks.boundedResponse", () => {
  it("hands on an answer within the limits as a new Response with its status, headers and whole body", async () => {
    const body = JSON.stringify({ access_token: "a".repeat(70_000), token_type: "Bearer" })
    // a body that arrives in many chunks is read whole
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = new TextEncoder().encode(body)
        for (let i = 0; i < bytes.length; i += 1_000) controller.enqueue(bytes.subarray(i, i + 1_000))
        controller.close()
      }
    })
    const answer = await OAuthChecks.boundedResponse(
      url,
      new Response(stream, { status: 400, headers: { "content-type": "application/json" } })
    )
    assert.strictEqual(answer.status, 400)
    assert.strictEqual(answer.headers.get("content-type"), "application/json")
    assert.strictEqual(await answer.text(), body)
  })

  it("refuses an answer larger than 1,000,000 bytes or nested deeper than 32 levels, naming where it came from", async () => {
    const large = new Response(new Uint8Array(OAuthChecks.limits.bytes + 1))
    const error = await OAuthChecks.boundedResponse(url, large).then(() => undefined, (e: unknown) => e)
    assert.isTrue(OAuthChecks.isRefused(error))
    assert.strictEqual(
      (error as Error).message,
      "authorization failed: the answer of https://as.example/token is larger than 1,000,000 bytes"
    )
    const deep = new Response(`${"[".repeat(33)}${"]".repeat(33)}`)
    const nested = await OAuthChecks.boundedResponse(url, deep).then(() => undefined, (e: unknown) => e)
    assert.strictEqual(
      (nested as Error).message,
      "authorization failed: the answer of https://as.example/token nests deeper than 32 levels"
    )
    const shallow = await OAuthChecks.boundedResponse(url, new Response(`${"[".repeat(32)}${"]".repeat(32)}`))
    assert.strictEqual((await shallow.text()).length, 64)
  })
})

describe("OAuthChecks.discoveryRefusal", () => {
  it("refuses another issuer than the one fetched for, and endpoints that are not https (or loopback http)", () => {
    const metadata = {
      issuer: "https://as.example",
      authorization_endpoint: "https://as.example/authorize",
      token_endpoint: "https://as.example/token"
    }
    assert.isUndefined(
      OAuthChecks.discoveryRefusal({
        authorizationServerUrl: "https://as.example/",
        authorizationServerMetadata: metadata
      })
    )
    assert.strictEqual(
      OAuthChecks.discoveryRefusal({
        authorizationServerUrl: "https://as.example",
        authorizationServerMetadata: { ...metadata, issuer: "https://evil.example" }
      }),
      "the authorization server's metadata names the issuer \"https://evil.example\", not \"https://as.example\" it was fetched for"
    )
    assert.strictEqual(
      OAuthChecks.discoveryRefusal({
        authorizationServerUrl: "https://as.example",
        authorizationServerMetadata: { ...metadata, token_endpoint: "http://as.example/token" }
      }),
      "the authorization server's token endpoint is refused: plain http: to as.example, which is not a loopback host (https: is required)"
    )
    assert.isString(OAuthChecks.discoveryRefusal({ authorizationServerUrl: "file:///etc/passwd" }))
  })
})
