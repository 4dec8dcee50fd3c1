import { McpServerDefinition } from "@zett/common"
import { assert, describe, it } from "vitest"

// secrets as boxes, as each Effect line's Redacted is: the functions read them only through `reveal`
interface Box {
  readonly value: string
}
const box = (value: string): Box => ({ value })
const reveal = (secret: Box) => secret.value

const http: McpServerDefinition.Http<Box> = {
  _tag: "McpHttpServer",
  name: "docs",
  url: "https://docs.example.com/mcp",
  headers: { Authorization: box("Bearer hdr-secret-7f3a9c") },
  transport: "streamable-http"
}

const stdio: McpServerDefinition.Stdio<Box> = {
  _tag: "McpStdioServer",
  name: "files",
  command: "/opt/My Tools/server bin",
  args: ["--root", "/tmp/a b", "; rm -rf /"],
  env: { API_TOKEN: box("env-secret-2b8d41") },
  cwd: "/tmp"
}

describe("McpServerDefinition", () => {
  it("the cache key is the one both Effect lines pin, and holds no secret", () => {
    // the values McpServerConfig.test.ts of either line pins: a shared cache of tool lists serves both lines
    assert.strictEqual(McpServerDefinition.cacheKey(http, reveal), "docs:e8bc4299f9f77b85311acf4fdd690326")
    assert.strictEqual(McpServerDefinition.cacheKey(stdio, reveal), "files:e4c2b6f2501b2429347bcb0e055a944b")
    assert.notInclude(McpServerDefinition.cacheKey(http, reveal), "hdr-secret")
  })

  it("a change of transport, auth, prefix or pinned protocol gives another key; auto does not", () => {
    const key = McpServerDefinition.cacheKey(http, reveal)
    const variants: ReadonlyArray<McpServerDefinition.Http<Box>> = [
      { ...http, transport: "sse" },
      { ...http, auth: { _tag: "CustomProvider" } },
      { ...http, auth: { _tag: "ClientCredentials", clientId: "c", clientSecret: box("s1") } },
      { ...http, auth: { _tag: "ClientCredentials", clientId: "c", clientSecret: box("s2") } },
      { ...http, toolPrefix: "d" },
      { ...http, protocol: "2025-11-25" }
    ]
    const keys = new Set([key, ...variants.map((server) => McpServerDefinition.cacheKey(server, reveal))])
    assert.strictEqual(keys.size, variants.length + 1)
    assert.strictEqual(McpServerDefinition.cacheKey({ ...http, protocol: "auto" }, reveal), key)
  })

  it("authorizedByDefinition: stdio, granted credentials, or an Authorization header without auth", () => {
    assert.isTrue(McpServerDefinition.authorizedByDefinition(stdio))
    assert.isTrue(McpServerDefinition.authorizedByDefinition(http))
    assert.isFalse(McpServerDefinition.authorizedByDefinition({ ...http, headers: {} }))
    assert.isFalse(McpServerDefinition.authorizedByDefinition({ ...http, auth: { _tag: "AuthorizationCode" } }))
    assert.isTrue(
      McpServerDefinition.authorizedByDefinition({
        ...http,
        headers: {},
        auth: { _tag: "WorkloadIdentity", clientId: "c", assertion: { env: "TOKEN" } }
      })
    )
  })

  it("authSecrets: client secrets, ID tokens and a PEM key line by line; none for a workload", () => {
    const pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nshort\n-----END PRIVATE KEY-----"
    const secrets = McpServerDefinition.authSecrets(
      { ...http, auth: { _tag: "ClientCredentials", clientId: "c", privateKey: box(pem) } },
      reveal,
      box
    ).map(reveal)
    assert.deepStrictEqual(secrets, [pem, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"])
    const enterprise = McpServerDefinition.authSecrets(
      {
        ...http,
        auth: {
          _tag: "EnterpriseManaged",
          clientId: "c",
          clientSecret: box("cs"),
          idToken: box("id"),
          idpIssuer: "https://idp",
          idpClientId: "i",
          idpClientSecret: box("is")
        }
      },
      reveal,
      box
    ).map(reveal)
    assert.deepStrictEqual(enterprise, ["cs", "id", "is"])
    assert.deepStrictEqual(
      McpServerDefinition.authSecrets(
        { ...http, auth: { _tag: "WorkloadIdentity", clientId: "c", assertion: { file: "/t" } } },
        reveal,
        box
      ),
      []
    )
  })

  it("tool filters: excludeTools wins over includeTools; alwaysLoad all or by name", () => {
    const server = { name: "s", includeTools: ["a", "b"], excludeTools: ["b"], alwaysLoad: ["a"] }
    assert.isTrue(McpServerDefinition.allowsTool(server, "a"))
    assert.isFalse(McpServerDefinition.allowsTool(server, "b"))
    assert.isFalse(McpServerDefinition.allowsTool(server, "c"))
    assert.isTrue(McpServerDefinition.alwaysLoads(server, "a"))
    assert.isFalse(McpServerDefinition.alwaysLoads(server, "b"))
    assert.isTrue(McpServerDefinition.alwaysLoads({ name: "s", alwaysLoad: true }, "z"))
    assert.strictEqual(McpServerDefinition.toolPrefix({ name: "my_server-2" }), "my_server-2")
    assert.match(McpServerDefinition.toolPrefix({ name: "github.com" }), /^github_com_[0-9a-f]{8}$/)
  })

  it("prefixClashes: a later server whose prefix is taken gets its name with #2, #3 ..., the first keeps its own", () => {
    const clashes = McpServerDefinition.prefixClashes([
      { name: "a.b" },
      { name: "c" },
      { name: "a:b", toolPrefix: McpServerDefinition.toolPrefix({ name: "a.b" }) },
      { name: "c", toolPrefix: "c" }
    ])
    assert.deepStrictEqual(clashes.map((clash) => [clash.index, clash.owner, clash.other]), [
      [2, "a.b", McpServerDefinition.toolPrefix({ name: "a:b#2" })],
      [3, "c", McpServerDefinition.toolPrefix({ name: "c#2" })]
    ])
    assert.deepStrictEqual(McpServerDefinition.prefixClashes([{ name: "x" }, { name: "y" }]), [])
  })
})
