/**
 * One server entry of a configuration file: its kind, the keys each kind has, the words for a key that does not
 * belong, the grant its authorization asks for, and the checks of its URL and headers.
 */
import { McpConfigEntry } from "@zett/common"
import { assert, describe, it } from "vitest"

const { classify, invalid } = McpConfigEntry

describe("McpConfigEntry.classify", () => {
  it("a command is a process, a URL key (url, serverUrl, httpUrl) a remote server, whatever the type says", () => {
    assert.deepStrictEqual(classify({ command: "npx" }), { _tag: "Stdio", value: { command: "npx" } })
    for (const key of McpConfigEntry.urlKeys) {
      assert.deepStrictEqual(classify({ [key]: "https://x.example/mcp" }), {
        _tag: "Remote",
        value: { [key]: "https://x.example/mcp" },
        hasUrl: true
      })
    }
    // a type alone decides; the URL's absence is told once the fields are decoded
    assert.deepStrictEqual(classify({ type: "http" }), { _tag: "Remote", value: { type: "http" }, hasUrl: false })
    assert.deepStrictEqual(classify({ type: "stdio" }), { _tag: "Stdio", value: { type: "stdio" } })
  })

  it("Zed's nested command is flattened: path, args and env move to the entry", () => {
    const zed = { command: { path: "node", args: ["s.js"], env: { A: "1" } }, settings: {} }
    assert.deepStrictEqual(classify(zed), {
      _tag: "Stdio",
      value: { settings: {}, command: "node", args: ["s.js"], env: { A: "1" } }
    })
  })

  it("disabled: true, enabled: false (Zed) and a Zed extension's server are left out on purpose", () => {
    for (const entry of [{ command: "x", disabled: true }, { command: "x", enabled: false }, { source: "extension" }]) {
      assert.deepStrictEqual(classify(entry), { _tag: "Disabled" })
    }
    assert.strictEqual(classify({ command: "x", disabled: false })._tag, "Stdio")
    // disabled says nothing unless it is true: a string is decoded (and refused) with the fields
    assert.strictEqual(classify({ command: "x", disabled: "yes" })._tag, "Stdio")
  })

  it("refuses what is no entry, naming the field and never quoting a value but the unsupported type", () => {
    assert.deepStrictEqual(classify("npx server"), invalid(undefined, "expected an object, got a string"))
    assert.deepStrictEqual(classify({ type: 1, command: "x" }), invalid(".type", "expected a string, got 1"))
    assert.deepStrictEqual(
      classify({ type: "websocket", url: "wss://x" }),
      invalid(".type", "unsupported type \"websocket\"; expected \"stdio\", \"http\", \"streamable-http\" or \"sse\"")
    )
    assert.deepStrictEqual(
      classify({ command: "x", serverUrl: "https://x" }),
      invalid(undefined, "has both command and serverUrl; an entry is either stdio or HTTP")
    )
    assert.deepStrictEqual(
      classify({ url: "https://x", httpUrl: "https://y" }),
      invalid(undefined, "has both url and httpUrl; give one")
    )
  })

  it("an entry with neither a command nor a URL names a misspelt key, if it has one", () => {
    assert.deepStrictEqual(
      classify({ comand: "npx", args: [] }),
      invalid(undefined, "expected a command (stdio) or a url (HTTP); it has \"comand\" (did you mean \"command\"?)")
    )
    assert.deepStrictEqual(classify({ args: [] }), invalid(undefined, "expected a command (stdio) or a url (HTTP)"))
  })
})

describe("McpConfigEntry keys", () => {
  it("each kind lists a key once; both share the common keys; only HTTP has headers and auth", () => {
    for (const keys of [McpConfigEntry.stdioKeys, McpConfigEntry.remoteKeys, McpConfigEntry.oauthKeys]) {
      assert.strictEqual(new Set(keys).size, keys.length)
    }
    for (const key of McpConfigEntry.commonKeys) {
      assert.include(McpConfigEntry.stdioKeys, key)
      assert.include(McpConfigEntry.remoteKeys, key)
    }
    assert.notInclude(McpConfigEntry.stdioKeys as ReadonlyArray<string>, "headers")
    assert.notInclude(McpConfigEntry.remoteKeys as ReadonlyArray<string>, "command")
  })

  it("an unknown key is named with the known key nearest to it, ignoring case, when one is near enough", () => {
    assert.deepStrictEqual(
      McpConfigEntry.unexpectedKey(["headres"], "remote"),
      invalid(".headres", "unknown key (did you mean \"headers\"?)")
    )
    assert.strictEqual(McpConfigEntry.nearestKey("ENV"), "env")
    assert.strictEqual(McpConfigEntry.nearestKey("includetools"), "includeTools")
    assert.strictEqual(McpConfigEntry.nearestKey("somethingElse"), undefined)
    assert.deepStrictEqual(McpConfigEntry.unexpectedKey(["xyzzy"], "stdio"), invalid(".xyzzy", "unknown key"))
  })

  it("a key of the other kind is not allowed; a nested unknown key or a refused env or header name is named", () => {
    assert.deepStrictEqual(
      McpConfigEntry.unexpectedKey(["headers"], "stdio"),
      invalid(".headers", "not allowed in a stdio entry")
    )
    assert.deepStrictEqual(
      McpConfigEntry.unexpectedKey(["cwd"], "remote"),
      invalid(".cwd", "not allowed in an HTTP entry")
    )
    assert.deepStrictEqual(
      McpConfigEntry.unexpectedKey(["headers", "Bad Name"], "remote"),
      invalid(".headers[\"Bad Name\"]", "not a valid HTTP header name")
    )
    assert.deepStrictEqual(
      McpConfigEntry.unexpectedKey(["env", "A=B"], "stdio"),
      invalid(".env[\"A=B\"]", "not a valid environment variable name")
    )
    assert.deepStrictEqual(
      McpConfigEntry.unexpectedKey(["oauth", "clientIdd"], "remote"),
      invalid(".oauth.clientIdd", "unknown key")
    )
  })
})

describe("McpConfigEntry authorization", () => {
  it("oauth or auth, never both; none when absent or enabled is false", () => {
    assert.deepStrictEqual(McpConfigEntry.authPart({}), { _tag: "None" })
    assert.deepStrictEqual(McpConfigEntry.authPart({ oauth: { enabled: false } }), { _tag: "None" })
    assert.deepStrictEqual(McpConfigEntry.authPart({ auth: { enabled: true } }), {
      _tag: "Auth",
      key: "auth",
      oauth: { enabled: true }
    })
    assert.deepStrictEqual(McpConfigEntry.authPart({ oauth: {} }), { _tag: "Auth", key: "oauth", oauth: {} })
    assert.deepStrictEqual(
      McpConfigEntry.authPart({ oauth: {}, auth: {} }),
      invalid(".auth", "both oauth and auth are given; use one")
    )
  })

  it("no grant is authorization_code, which refuses a private key and the other grants' keys", () => {
    const { grantOf } = McpConfigEntry
    assert.deepStrictEqual(grantOf({}, "oauth"), { _tag: "Grant", grant: "authorization_code" })
    assert.deepStrictEqual(grantOf({ clientId: "a", clientSecret: "s" }, "auth"), {
      _tag: "Grant",
      grant: "authorization_code"
    })
    assert.deepStrictEqual(
      grantOf({ privateKey: "k" }, "oauth"),
      invalid(".oauth.privateKey", "only used with \"grant\": \"client_credentials\"")
    )
    assert.deepStrictEqual(
      grantOf({ idpIssuer: "https://idp" }, "auth"),
      invalid(".auth.idpIssuer", "only used with \"grant\": \"enterprise_managed\"")
    )
    assert.deepStrictEqual(
      grantOf({ grant: "client_credentials", clientId: "a", clientSecret: "s", audience: "x" }, "oauth"),
      invalid(".oauth.audience", "only used with \"grant\": \"workload_identity\"")
    )
  })

  it("client_credentials needs a client, one of clientSecret and privateKey, and an algorithm with a key", () => {
    const { grantOf } = McpConfigEntry
    const grant = "client_credentials"
    assert.deepStrictEqual(
      grantOf({ grant, clientSecret: "s" }, "oauth"),
      invalid(".oauth.clientId", "missing (client_credentials needs a client)")
    )
    for (const both of [{}, { clientSecret: "s", privateKey: "k" }]) {
      assert.deepStrictEqual(
        grantOf({ grant, clientId: "a", ...both }, "oauth"),
        invalid(".oauth", "client_credentials needs either clientSecret or privateKey")
      )
    }
    assert.deepStrictEqual(
      grantOf({ grant, clientId: "a", privateKey: "k" }, "oauth"),
      invalid(".oauth.algorithm", "missing (privateKey needs an algorithm such as RS256)")
    )
    assert.deepStrictEqual(grantOf({ grant, clientId: "a", privateKey: "k", algorithm: "RS256" }, "oauth"), {
      _tag: "Grant",
      grant
    })
  })

  it("enterprise_managed needs its five keys, named in order, and no private key", () => {
    const { grantOf } = McpConfigEntry
    const full = {
      grant: "enterprise_managed",
      clientId: "a",
      clientSecret: "s",
      idToken: "t",
      idpIssuer: "https://idp",
      idpClientId: "c"
    } as const
    assert.deepStrictEqual(grantOf(full, "oauth"), { _tag: "Grant", grant: "enterprise_managed" })
    assert.deepStrictEqual(
      grantOf({ grant: "enterprise_managed", idToken: "t" }, "oauth"),
      invalid(".oauth.clientId", "missing (enterprise_managed needs it)")
    )
    assert.deepStrictEqual(
      grantOf({ ...full, idpIssuer: undefined }, "auth"),
      invalid(".auth.idpIssuer", "missing (enterprise_managed needs it)")
    )
    assert.deepStrictEqual(
      grantOf({ ...full, privateKey: "k" }, "oauth"),
      invalid(".oauth.privateKey", "only used with \"grant\": \"client_credentials\"")
    )
  })

  it("workload_identity needs a client and one of assertionFile and assertionEnv, and no secret or key", () => {
    const { grantOf } = McpConfigEntry
    const grant = "workload_identity"
    assert.deepStrictEqual(grantOf({ grant, clientId: "a", assertionEnv: "TOKEN" }, "oauth"), {
      _tag: "Grant",
      grant
    })
    assert.deepStrictEqual(
      grantOf({ grant, assertionEnv: "TOKEN" }, "oauth"),
      invalid(".oauth.clientId", "missing (workload_identity needs a client)")
    )
    assert.deepStrictEqual(
      grantOf({ grant, clientId: "a", privateKey: "k", assertionEnv: "T" }, "oauth"),
      invalid(
        ".oauth.privateKey",
        "not used with \"grant\": \"workload_identity\" (the workload's token authenticates)"
      )
    )
    for (const both of [{}, { assertionFile: "/t", assertionEnv: "T" }]) {
      assert.deepStrictEqual(
        grantOf({ grant, clientId: "a", ...both }, "auth"),
        invalid(".auth", "workload_identity needs either assertionFile or assertionEnv")
      )
    }
  })
})

describe("McpConfigEntry URL, headers, transport", () => {
  it("a server's address is an http(s) URL; another scheme is named, a text that is no URL is not quoted", () => {
    assert.strictEqual(McpConfigEntry.urlIssue("https://x.example/mcp"), undefined)
    assert.strictEqual(McpConfigEntry.urlIssue("http://localhost:3000"), undefined)
    assert.strictEqual(McpConfigEntry.urlIssue("wss://x.example"), "expected an http(s) URL, got a \"wss\" URL")
    assert.strictEqual(
      McpConfigEntry.urlIssue("sk-secret-not-a-url"),
      "expected an http(s) URL, got a string that is not a URL"
    )
  })

  it("a header value may not hold a line break or NUL", () => {
    assert.strictEqual(McpConfigEntry.headerValueIssue("Bearer tok"), undefined)
    for (const value of ["a\rb", "a\nb", "a\u0000b"]) {
      assert.strictEqual(McpConfigEntry.headerValueIssue(value), "contains a line break or NUL character")
    }
  })

  it("sse for type sse and for Gemini CLI's url without a type; Streamable HTTP otherwise", () => {
    assert.strictEqual(McpConfigEntry.transport("vscode", "url", "sse"), "sse")
    assert.strictEqual(McpConfigEntry.transport("gemini", "url", undefined), "sse")
    assert.strictEqual(McpConfigEntry.transport("gemini", "url", "http"), "streamable-http")
    assert.strictEqual(McpConfigEntry.transport("gemini", "httpUrl", undefined), "streamable-http")
    assert.strictEqual(McpConfigEntry.transport("unknown", "url", undefined), "streamable-http")
  })
})
