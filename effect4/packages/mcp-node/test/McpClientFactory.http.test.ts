/**
 * The client factory over HTTP: the 3 line's `McpClientFactory (http)` tests of McpClientFactory.test.ts (the
 * stdio ones are in McpClientFactory.test.ts), every assertion kept.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClientFactory, type McpError, McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import { makeLogCapture } from "@zett/testing-core/CapturedLogs"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Formatter from "effect/Formatter"
import * as Layer from "effect/Layer"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as Util from "node:util"
import * as Processes from "./utils/processes.js"

const sdkFactory = (options?: NodeMcpClientFactory.Options) => NodeMcpClientFactory.layer(options)

describe("McpClientFactory (http)", () => {
  it.live("a server that cannot be reached is an McpConnectError with a readable reason", () =>
    Effect.gen(function*() {
      const port = yield* Processes.freePort
      const error = yield* Effect.scoped(
        Effect.service(McpClientFactory.McpClientFactory).pipe(
          Effect.flatMap((factory) =>
            factory.connect(McpServerConfig.http({ name: "nobody", url: `http://127.0.0.1:${port}/mcp` }))
          ),
          Effect.provide(sdkFactory()),
          Effect.flip
        )
      )
      assert.strictEqual(error._tag, "McpConnectError")
      assert.strictEqual(error.message, "nobody: fetch failed (ECONNREFUSED)")
      assert.strictEqual(error.reason, "Network")
    }))

  it.live("a 401 that echoes the header never puts the secret in errors or logs (B2)", () =>
    Effect.gen(function*() {
      const secret = "hdr-secret-9a8b7c6d"
      const seen: Array<string | undefined> = []
      const server = Http.createServer((req, res) => {
        seen.push(req.headers.authorization)
        res.writeHead(401, { "content-type": "text/plain" })
        res.end(`invalid credentials: ${req.headers.authorization}`)
      })
      const port = yield* Effect.acquireRelease(
        Effect.callback<number>((resume) => {
          server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as Net.AddressInfo).port)))
        }),
        () =>
          Effect.callback<void>((resume) => {
            server.closeAllConnections()
            server.close(() => resume(Effect.void))
          })
      )
      const logs = makeLogCapture()
      const exit = yield* Effect.scoped(
        Effect.service(McpClientFactory.McpClientFactory).pipe(
          Effect.flatMap((factory) =>
            factory.connect(
              McpServerConfig.http({
                name: "guarded",
                url: `http://127.0.0.1:${port}/mcp`,
                headers: { Authorization: `Bearer ${secret}` }
              })
            )
          ),
          Effect.tapCause((cause) => Effect.logError("connect failed", cause)),
          Effect.provide(sdkFactory().pipe(Layer.provideMerge(logs.layer))),
          Effect.exit
        )
      )
      // the header did reach the server: unwrapped where the transport is built
      assert.deepStrictEqual(seen, [`Bearer ${secret}`])
      assert.isTrue(Exit.isFailure(exit))
      const cause = (exit as Exit.Failure<unknown, unknown>).cause
      const error = Cause.squash(cause) as McpError.McpConnectError
      assert.strictEqual(error._tag, "McpConnectError")
      assert.strictEqual(error.message, "guarded: HTTP 401 Unauthorized")
      assert.deepStrictEqual([error.reason, error.httpStatus], ["Unauthorized", 401])
      const texts = [
        error.message,
        error.description,
        String(error),
        JSON.stringify(error),
        Util.inspect(error, { depth: 10 }),
        Formatter.format(error),
        // Effect 4 renders an error's own cause without being asked (the 3 line passed renderErrorCause)
        Cause.pretty(cause),
        ...logs.lines.map((line) => `${line.message} ${JSON.stringify(line.annotations)}`)
      ]
      assert.isTrue(logs.lines.length > 0)
      for (const text of texts) assert.notInclude(text, secret)
    }))
})
