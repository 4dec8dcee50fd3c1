/**
 * What Zett checks of an authorization server before the SDK's `auth()` uses it, read without a connection: the
 * endpoints it accepts (`https:`, plain `http:` only on loopback), why an answer's depth is measured before the
 * SDK's schemas read it, and the provider's last check of an authorization URL before the host may open it. The
 * same checks through the driver, against `@zett/testing/OAuthServer`: packages/mcp-node/test/AuthChecks.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { OAuthMetadataSchema } from "@modelcontextprotocol/core"
import { Scrubber } from "@zett/agent"
import { McpServerConfig } from "@zett/mcp"
import { McpTokenStore } from "@zett/mcp-auth"
import * as Effect from "effect/Effect"
import * as OAuthChecks from "../src/internal/oauthChecks.js"
import * as OAuthProvider from "../src/internal/oauthProvider.js"

describe("authorization server endpoints", () => {
  it("https anywhere, plain http only to loopback hosts", () => {
    for (
      const url of [
        "https://as.example/authorize",
        "http://127.0.0.1:8/a",
        "http://127.9.8.7/a",
        "http://127.1/a",
        "http://localhost:3000/a",
        "http://LOCALHOST/a",
        "http://[::1]:9/a",
        "http://[0:0::1]/a"
      ]
    ) {
      assert.isUndefined(OAuthChecks.endpointRefusal("token endpoint", url), url)
    }
    for (
      const url of [
        "http://as.example/a",
        "http://128.0.0.1/a",
        "http://10.0.0.1/a",
        "http://localhost.example/a",
        "http://127.0.0.1.example/a",
        "http://[::2]/a",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "data:text/html,x",
        "not a url"
      ]
    ) {
      assert.isString(OAuthChecks.endpointRefusal("token endpoint", url), url)
    }
  })
})

describe("answers nested too deep", () => {
  it("the SDK's schemas keep a 10,000-level unknown field of metadata, which JSON.stringify then cannot write: the depth is measured first", () => {
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`
    const metadata = OAuthMetadataSchema.parse(JSON.parse(
      `{"issuer":"https://as.example","authorization_endpoint":"https://as.example/a","token_endpoint":"https://as.example/t","response_types_supported":["code"],"x_nested":${deep}}`
    ))
    assert.isArray(metadata.x_nested)
    assert.throws(() => JSON.stringify(metadata), RangeError)
  })
})

describe("the last gate before the host", () => {
  it.effect("the provider never keeps an authorization URL that is not https (or loopback http) for the host to open", () =>
    Effect.gen(function*() {
      const store = yield* McpTokenStore.makeMemory
      const context: OAuthProvider.Context = {
        key: "https://docs.example/mcp",
        store,
        held: Scrubber.makeSecrets(),
        services: yield* Effect.context<never>(),
        now: () => 0
      }
      const provider = new OAuthProvider.AuthorizationCodeProvider(context, new McpServerConfig.AuthorizationCode({}), {
        interactive: true,
        redirectUrl: "http://127.0.0.1:47813/callback"
      })
      for (
        const url of [
          "file:///etc/passwd",
          "javascript:alert(document.domain)",
          "http://login.example/authorize?client_id=zett"
        ]
      ) {
        // what the redirect was refused with, or undefined when it went ahead
        const error = yield* Effect.promise(() =>
          provider.redirectToAuthorization(new URL(url)).then(() => undefined, (refusal: unknown) => refusal)
        )
        assert.isTrue(OAuthChecks.isRefused(error), url)
        assert.isUndefined(provider.authorizationUrl)
      }
      yield* Effect.promise(() =>
        provider.redirectToAuthorization(new URL("https://login.example/authorize?client_id=zett"))
      )
      assert.strictEqual(provider.authorizationUrl?.href, "https://login.example/authorize?client_id=zett")
    }))
})
