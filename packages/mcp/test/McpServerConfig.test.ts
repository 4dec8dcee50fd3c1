import { assert, describe, it } from "@effect/vitest"
import { McpServerConfig } from "@zett/mcp"
import * as Source from "@zett/testing-core/Source"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { execFileSync } from "node:child_process"
import * as Path from "node:path"
import * as Util from "node:util"

const headerSecret = "hdr-secret-7f3a9c"
const envSecret = "env-secret-2b8d41"

const httpServer = () =>
  McpServerConfig.http({
    name: "docs",
    url: "https://docs.example.com/mcp",
    headers: { Authorization: `Bearer ${headerSecret}` }
  })

const stdioServer = () =>
  McpServerConfig.stdio({
    name: "files",
    command: "/opt/My Tools/server bin",
    args: ["--root", "/tmp/a b", "; rm -rf /"],
    env: { API_TOKEN: envSecret },
    cwd: "/tmp"
  })

describe("McpServerConfig", () => {
  it("http and stdio definitions keep their fields (B1)", () => {
    const http = httpServer()
    assert.strictEqual(http._tag, "McpHttpServer")
    assert.strictEqual(http.name, "docs")
    assert.strictEqual(http.url, "https://docs.example.com/mcp")
    assert.strictEqual(Redacted.value(http.headers.Authorization!), `Bearer ${headerSecret}`)

    const stdio = stdioServer()
    assert.strictEqual(stdio._tag, "McpStdioServer")
    assert.strictEqual(stdio.cwd, "/tmp")
    assert.strictEqual(Redacted.value(stdio.env.API_TOKEN!), envSecret)

    const minimal = McpServerConfig.stdio({ name: "min", command: "node" })
    assert.deepStrictEqual(minimal.args, [])
    assert.deepStrictEqual(minimal.env, {})
    assert.strictEqual(minimal.cwd, undefined)
    assert.deepStrictEqual(McpServerConfig.http({ name: "h", url: "http://127.0.0.1:1/mcp" }).headers, {})
  })

  it("rejects a URL that is not http(s) without echoing it (B1)", () => {
    const attempt = (url: string) => {
      try {
        McpServerConfig.http({ name: "x", url })
        return "accepted"
      } catch (error) {
        return String(error)
      }
    }
    const ftp = attempt("ftp://user:tok3n-in-url@example.com/")
    assert.include(ftp, "expected an http(s) URL")
    assert.notInclude(ftp, "tok3n-in-url")
    assert.include(attempt("not a url tok3n"), "expected an http(s) URL")
    assert.notInclude(attempt("not a url tok3n"), "tok3n")
  })

  it("header and env values never appear in String, inspect, JSON or describe (B2)", () => {
    for (const server of [httpServer(), stdioServer()]) {
      const renderings = [
        String(server),
        Util.inspect(server, { depth: 10 }),
        JSON.stringify(server),
        McpServerConfig.describe(server),
        McpServerConfig.cacheKey(server),
        Util.format("%o", server)
      ]
      for (const text of renderings) {
        assert.notInclude(text, headerSecret)
        assert.notInclude(text, envSecret)
      }
      // The structure is still visible, just not the secret.
      assert.include(JSON.stringify(server), "<redacted>")
    }
  })

  it.effect("encoding with the schema is the only way back to the clear value (B2)", () =>
    Effect.gen(function*() {
      const encoded = yield* Schema.encode(McpServerConfig.McpServerConfig)(httpServer())
      assert.deepStrictEqual(encoded, {
        _tag: "McpHttpServer",
        name: "docs",
        url: "https://docs.example.com/mcp",
        headers: { Authorization: `Bearer ${headerSecret}` },
        transport: "streamable-http",
        secrets: []
      })
      const decoded = yield* Schema.decodeUnknown(McpServerConfig.McpServerConfig)(encoded)
      assert.strictEqual(McpServerConfig.cacheKey(decoded), McpServerConfig.cacheKey(httpServer()))
    }))

  it("a command with spaces is kept verbatim and its arguments stay a separate array (B3)", () => {
    const server = stdioServer()
    assert.strictEqual(server.command, "/opt/My Tools/server bin")
    assert.deepStrictEqual(server.args, ["--root", "/tmp/a b", "; rm -rf /"])
    assert.isTrue(Array.isArray(server.args))
  })

  it("any non-empty name is a server name; its tool prefix follows the E2 rules (B4)", () => {
    const reason = (name: string) => {
      try {
        McpServerConfig.stdio({ name, command: "node" })
        return "accepted"
      } catch (error) {
        return String(error)
      }
    }
    assert.include(reason(""), "a server name must not be empty")
    for (const name of ["docs", "my server", "github.com", "日本", "x".repeat(65), "a:b"]) {
      assert.strictEqual(reason(name), "accepted", JSON.stringify(name))
    }
    const prefix = (name: string) => McpServerConfig.toolPrefix(McpServerConfig.stdio({ name, command: "node" }))
    assert.strictEqual(prefix("my_server-2"), "my_server-2")
    assert.match(prefix("github.com"), /^github_com_[0-9a-f]{8}$/)
    assert.match(prefix("日本"), /^___[0-9a-f]{8}$/)
    assert.notStrictEqual(prefix("a.b"), prefix("a:b"))
    assert.isAtMost(prefix("x".repeat(200)).length, 64)
    assert.isTrue(Schema.is(McpServerConfig.ServerName)("ok name"))
    assert.isFalse(Schema.is(McpServerConfig.ServerName)(""))
  })

  describe("cacheKey", () => {
    it("equal definitions give equal keys; every change gives another key (D3)", () => {
      const key = McpServerConfig.cacheKey(httpServer())
      assert.strictEqual(McpServerConfig.cacheKey(httpServer()), key)
      assert.match(key, /^docs:[0-9a-f]{32}$/)
      const url = "https://docs.example.com/mcp"
      const auth = `Bearer ${headerSecret}`
      const variants = [
        McpServerConfig.http({ name: "docs", url, headers: { Authorization: "Bearer other" } }),
        McpServerConfig.http({ name: "docs", url, headers: { authorization: auth } }),
        McpServerConfig.http({ name: "docs", url: `${url}2`, headers: { Authorization: auth } }),
        McpServerConfig.http({ name: "docs2", url, headers: { Authorization: auth } }),
        McpServerConfig.http({ name: "docs", url })
      ]
      const keys = new Set([key, ...variants.map(McpServerConfig.cacheKey)])
      assert.strictEqual(keys.size, variants.length + 1)

      const base = { name: "files", command: "node", args: ["a", "b"], env: { K: "v" } }
      const stdioKeys = new Set([
        McpServerConfig.stdio(base),
        McpServerConfig.stdio({ ...base, args: ["b", "a"] }),
        McpServerConfig.stdio({ ...base, args: ["a b"] }),
        McpServerConfig.stdio({ ...base, env: { K: "w" } }),
        McpServerConfig.stdio({ ...base, env: {} }),
        McpServerConfig.stdio({ ...base, cwd: "/tmp" }),
        McpServerConfig.stdio({ ...base, command: "nodejs" })
      ].map(McpServerConfig.cacheKey))
      assert.strictEqual(stdioKeys.size, 7)
    })

    it("the key ignores the order in which headers or env entries were written (D3)", () => {
      const a = McpServerConfig.stdio({ name: "s", command: "node", env: { A: "1", B: "2" } })
      const b = McpServerConfig.stdio({ name: "s", command: "node", env: { B: "2", A: "1" } })
      assert.strictEqual(McpServerConfig.cacheKey(a), McpServerConfig.cacheKey(b))
    })

    it("the key is the same in every process (pinned value) (D3)", () => {
      // Pinned: a change here would silently invalidate shared caches of tool lists.
      assert.strictEqual(McpServerConfig.cacheKey(httpServer()), "docs:e8bc4299f9f77b85311acf4fdd690326")
      assert.strictEqual(McpServerConfig.cacheKey(stdioServer()), "files:e4c2b6f2501b2429347bcb0e055a944b")
    })

    it("the key is the same in another process (D3)", () => {
      const script = `
        import { McpServerConfig } from "@zett/mcp"
        const server = McpServerConfig.http({ name: "docs", url: "https://docs.example.com/mcp",
          headers: { Authorization: "Bearer ${headerSecret}" } })
        process.stdout.write(McpServerConfig.cacheKey(server))
      `
      const packageRoot = Path.resolve(import.meta.dirname, "..")
      const output = execFileSync(process.execPath, [...Source.nodeArgs, "--input-type=module", "-e", script], {
        cwd: packageRoot,
        encoding: "utf8",
        timeout: 100_000
      })
      assert.strictEqual(output, McpServerConfig.cacheKey(httpServer()))
    })
  })
})
