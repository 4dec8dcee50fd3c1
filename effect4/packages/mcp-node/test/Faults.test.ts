/**
 * Every fault of the fault-injecting server (`@zett/testing`: servers/faulty-server.mjs), one test each: what the model
 * sees, that a healthy server configured next to it still works in the same request, and that nothing is
 * left once the request has returned: no process started for it, no socket of this process, no running fiber.
 * Timeouts are real (real processes are involved, which TestClock cannot drive), and where a test waits for one,
 * ten times or more what the servers that must answer within it need, so that a busy machine passes too.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpServerConfig } from "@zett/mcp"
import type { NodeMcpClientFactory } from "@zett/mcp-node"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Crypto from "node:crypto"
import {
  healthy,
  httpFault,
  type RequestReport,
  runRequest,
  stdioFault,
  systemOf,
  toolResults,
  withMarker
} from "./utils/faults.js"

const calls = (...names: ReadonlyArray<string>) => ({
  toolCalls: names.map((name) => ({ name, arguments: { text: "hi" } }))
})

/** One request: the model calls `names` (the healthy server's echo last), then answers "done". */
const probe = (options: {
  readonly marker: string
  readonly servers: ReadonlyArray<McpServerConfig.McpServerConfig>
  readonly names: ReadonlyArray<string>
  readonly connectTimeout?: Duration.Input
  readonly callTimeout?: Duration.Input
  readonly factory?: NodeMcpClientFactory.Options
}) =>
  runRequest({
    marker: options.marker,
    servers: [...options.servers, healthy],
    steps: [calls(...options.names, "healthy__echo"), { text: "done" }],
    connectTimeout: options.connectTimeout,
    callTimeout: options.callTimeout,
    factory: options.factory
  })

/** The request succeeded, the healthy server answered, and nothing the request started outlives it. */
const assertHealthyAndClean = (report: RequestReport) => {
  assert.isTrue(Exit.isSuccess(report.exit), String(report.exit))
  const results = toolResults(report.requests[1])
  assert.strictEqual(results["healthy__echo"]?.status, "ok")
  assert.deepStrictEqual(results["healthy__echo"]?.content, [{ type: "text", text: "healthy echo: hi" }])
  assert.deepStrictEqual(report.processes, [], "no server process is left")
  assert.deepStrictEqual(report.sockets, [], "no socket is left")
  assert.strictEqual(report.fibers, 0, "no fiber is left running")
}

const unavailable = (report: RequestReport) => systemOf(report.requests[0])
const toolNames = (report: RequestReport) => report.requests[0]!.tools.map((t) => t.name)
const failure = (report: RequestReport, name: string) => {
  const message = toolResults(report.requests[1])[name]
  assert.strictEqual(message?.status, "TOOL_FAILED", `${name}: ${JSON.stringify(message?.content)}`)
  return (message!.content as { readonly error: { readonly type: string; readonly message: string } }).error
}

const newMarker = () => Crypto.randomUUID()

describe("faults of a server", { concurrent: false }, () => {
  it.live("a server that exits during initialize is unavailable with its exit status and its last stderr line; the others work (D5)", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const report = yield* probe({
        marker,
        servers: [stdioFault("quitter", marker, ["exit-during-initialize"])],
        names: []
      })
      assert.match(
        unavailable(report),
        /quitter \(Connection closed: the server process exited with code 3; stderr: ready pid=\d+ \| exiting during initialize\)/
      )
      assert.deepStrictEqual(toolNames(report), ["healthy__echo"])
      assertHealthyAndClean(report)
    }))

  it.live("an HTTP server that exits during initialize is unavailable; the others work (D5)", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const url = yield* httpFault(`${marker}-http`, ["exit-during-initialize"])
      const report = yield* probe({ marker, servers: [McpServerConfig.http({ name: "gone", url })], names: [] })
      assert.match(unavailable(report), /gone \(fetch failed|gone \(.*(socket|terminated|ECONNRESET)/)
      assertHealthyAndClean(report)
    }))

  it.live("a server that exits during a call: TOOL_FAILED (connection closed); the others work (D7)", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const report = yield* probe({
        marker,
        servers: [stdioFault("crash", marker, ["exit-during-call"])],
        names: ["crash__echo"]
      })
      assert.deepStrictEqual(failure(report, "crash__echo"), {
        type: "RequestFailed",
        message: "the server failed to run the tool (connection closed)"
      })
      assertHealthyAndClean(report)
    }))

  it.live("an HTTP server that exits during a call: TOOL_FAILED; the others work (D7)", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const url = yield* httpFault(`${marker}-http`, ["exit-during-call"])
      const report = yield* probe({
        marker,
        servers: [McpServerConfig.http({ name: "crash", url })],
        names: ["crash__echo"]
      })
      assert.strictEqual(failure(report, "crash__echo").type, "RequestFailed")
      assertHealthyAndClean(report)
    }))

  it.live("a server that never answers initialize is unavailable after connectTimeout, and is gone at once (D5)", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const report = yield* probe({
        marker,
        servers: [stdioFault("mute", marker, ["silent-initialize"])],
        names: [],
        // far above what the healthy server's connect needs (a few hundred ms), also on a busy machine
        connectTimeout: "5 seconds"
      })
      assert.include(unavailable(report), "mute (timed out after 5s)")
      assertHealthyAndClean(report)
    }))

  it.live("a server that never answers tools/list is unavailable after connectTimeout (D5)", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const report = yield* probe({
        marker,
        servers: [stdioFault("nolist", marker, ["silent-list"])],
        names: [],
        connectTimeout: "5 seconds"
      })
      assert.include(unavailable(report), "nolist (timed out after 5s)")
      assert.deepStrictEqual(toolNames(report), ["healthy__echo"])
      assertHealthyAndClean(report)
    }))

  it.live("a call that is never answered is a TimeoutError the model sees (D6)", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const report = yield* probe({
        marker,
        servers: [stdioFault("nocall", marker, ["silent-call"])],
        names: ["nocall__echo"],
        callTimeout: "3 seconds"
      })
      assert.deepStrictEqual(failure(report, "nocall__echo"), {
        type: "Timeout",
        message: "nocall__echo did not finish within 3s"
      })
      assertHealthyAndClean(report)
    }))

  it.live("garbage on stdout is skipped: listing and calls work; a call answered only by garbage times out (D6) (D7)", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const report = yield* probe({
        marker,
        servers: [stdioFault("noisy", marker, ["garbage-stdout"])],
        names: ["noisy__echo", "noisy__garble"],
        callTimeout: "3 seconds"
      })
      assert.includeMembers(toolNames(report), ["noisy__echo", "noisy__garble"])
      const results = toolResults(report.requests[1])
      assert.deepStrictEqual(results["noisy__echo"]?.content, [{ type: "text", text: "noisy echo: hi" }])
      assert.strictEqual(failure(report, "noisy__garble").type, "Timeout")
      assertHealthyAndClean(report)
    }))

  it.live("a server that floods stderr (megabytes, a 1 MB line) is read to the end and works", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const report = yield* probe({
        marker,
        servers: [stdioFault("flood", marker, ["flood-stderr"])],
        names: ["flood__echo"],
        connectTimeout: "60 seconds",
        callTimeout: "60 seconds"
      })
      // a pipe holds 64 KB: had nobody read stderr, the server would block on its first megabyte
      assert.deepStrictEqual(toolResults(report.requests[1])["flood__echo"]?.content, [
        { type: "text", text: "flood echo: hi" }
      ])
      assertHealthyAndClean(report)
    }))

  it.live("a 5 MB result reaches the model whole, over stdio and over Streamable HTTP (an event stream, JSON, gzip) (E7)", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const url = yield* httpFault(`${marker}-http`, ["big-result"])
      const json = yield* httpFault(`${marker}-http`, ["big-result", "json-response"])
      const gzip = yield* httpFault(`${marker}-http`, ["big-result", "gzip"])
      const report = yield* probe({
        marker,
        servers: [
          stdioFault("bigs", marker, ["big-result"]),
          McpServerConfig.http({ name: "bigh", url }),
          McpServerConfig.http({ name: "bigj", url: json }),
          McpServerConfig.http({ name: "bigz", url: gzip })
        ],
        names: ["bigs__big", "bigh__big", "bigj__big", "bigz__big"],
        connectTimeout: "60 seconds",
        callTimeout: "10 seconds"
      })
      const results = toolResults(report.requests[1])
      for (const name of ["bigs__big", "bigh__big", "bigj__big", "bigz__big"]) {
        const content = results[name]?.content as ReadonlyArray<{ readonly text: string }>
        assert.strictEqual(results[name]?.status, "ok")
        assert.strictEqual(content[0]!.text.length, 5 * 1024 * 1024)
      }
      assertHealthyAndClean(report)
    }))

  it.live("a result over maxMessageBytes fails at once as too large, over stdio and HTTP; the connection goes on", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const url = yield* httpFault(`${marker}-http`, ["big-result"])
      const report = yield* probe({
        marker,
        servers: [stdioFault("bigs", marker, ["big-result"]), McpServerConfig.http({ name: "bigh", url })],
        names: ["bigs__big", "bigh__big", "bigs__echo", "bigh__echo"],
        connectTimeout: "60 seconds",
        // far longer than the test takes: the failure comes from the limit, not from a timeout
        callTimeout: "120 seconds",
        factory: { closeTimeout: "300 millis", maxMessageBytes: 1024 * 1024 }
      })
      for (const name of ["bigs__big", "bigh__big"]) {
        assert.deepStrictEqual(failure(report, name), {
          type: "RequestFailed",
          message:
            "the server failed to run the tool (the result was too large: the server's message is over the limit " +
            "of 1 MB (maxMessageBytes))"
        })
      }
      const results = toolResults(report.requests[1])
      assert.deepStrictEqual(results["bigs__echo"]?.content, [{ type: "text", text: "bigs echo: hi" }])
      assert.deepStrictEqual(results["bigh__echo"]?.content, [{ type: "text", text: "faulty echo: hi" }])
      assertHealthyAndClean(report)
    }))

  it.live("over Streamable HTTP a result over maxMessageBytes fails as too large in JSON and gzip-encoded bodies too (measured decoded); the connection goes on", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const servers = [
        ["json", ["json-response"]],
        ["gzip", ["gzip"]],
        ["gzjson", ["gzip", "json-response"]]
      ] as const
      const urls = yield* Effect.forEach(
        servers,
        ([, faults]) => httpFault(`${marker}-http`, ["big-result", ...faults])
      )
      const report = yield* probe({
        marker,
        servers: servers.map(([name], i) => McpServerConfig.http({ name, url: urls[i]! })),
        names: servers.flatMap(([name]) => [`${name}__big`, `${name}__echo`]),
        connectTimeout: "60 seconds",
        callTimeout: "120 seconds",
        factory: { closeTimeout: "300 millis", maxMessageBytes: 1024 * 1024 }
      })
      const results = toolResults(report.requests[1])
      for (const [name] of servers) {
        // 5 MB of one letter: a few kilobytes gzip-encoded
        assert.deepStrictEqual(failure(report, `${name}__big`), {
          type: "RequestFailed",
          message:
            "the server failed to run the tool (the result was too large: the server's message is over the limit " +
            "of 1 MB (maxMessageBytes))"
        })
        assert.deepStrictEqual(results[`${name}__echo`]?.content, [{ type: "text", text: "faulty echo: hi" }])
      }
      assertHealthyAndClean(report)
    }))

  it.live("a response stream closed before the answer fails the call at once; a resumable one is resumed", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const closing = yield* httpFault(`${marker}-http`, ["close-stream-during-call"])
      const resuming = yield* httpFault(`${marker}-http`, ["resumable"])
      const report = yield* probe({
        marker,
        servers: [
          McpServerConfig.http({ name: "closing", url: closing }),
          McpServerConfig.http({ name: "resuming", url: resuming })
        ],
        names: ["closing__half", "closing__echo", "resuming__half"],
        connectTimeout: "60 seconds",
        callTimeout: "120 seconds"
      })
      assert.deepStrictEqual(failure(report, "closing__half"), {
        type: "RequestFailed",
        message: "the server failed to run the tool (the server closed the response stream before answering)"
      })
      const results = toolResults(report.requests[1])
      assert.deepStrictEqual(results["closing__echo"]?.content, [{ type: "text", text: "faulty echo: hi" }])
      assert.deepStrictEqual(results["resuming__half"]?.content, [{ type: "text", text: "resumed answer" }])
      assertHealthyAndClean(report)
    }))

  // With event ids the SDK resumes the stream (a GET with Last-Event-ID) instead of giving the request up: a
  // half event's id does not count, and a resumption refused (405) or closed empty loses the request too.
  // The generous callTimeout would be the failure (a timeout) if the call waited for it.
  it.live(
    "a response stream closed mid-event with event ids fails the call, also when its resumption gets 405 or closes",
    () =>
      Effect.gen(function*() {
        const marker = newMarker()
        const halfEvent = yield* httpFault(`${marker}-http`, ["half-event-with-id"])
        const refused = yield* httpFault(`${marker}-http`, ["event-then-half"])
        const closed = yield* httpFault(`${marker}-http`, ["event-then-half"], ["--resume=close"])
        const report = yield* probe({
          marker,
          servers: [
            McpServerConfig.http({ name: "halfevent", url: halfEvent }),
            McpServerConfig.http({ name: "refused", url: refused }),
            McpServerConfig.http({ name: "closed", url: closed })
          ],
          names: ["halfevent__half", "refused__half", "closed__half", "refused__echo"],
          connectTimeout: "60 seconds",
          callTimeout: "60 seconds"
        })
        for (const name of ["halfevent__half", "refused__half", "closed__half"]) {
          assert.deepStrictEqual(failure(report, name), {
            type: "RequestFailed",
            message: "the server failed to run the tool (the server closed the response stream before answering)"
          }, name)
        }
        // the connection goes on
        const results = toolResults(report.requests[1])
        assert.deepStrictEqual(results["refused__echo"]?.content, [{ type: "text", text: "faulty echo: hi" }])
        assertHealthyAndClean(report)
      })
  )

  it.live("HTTP 401, 404 and 500 make a server unavailable with the status as the reason (D5)", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const servers = yield* Effect.forEach(
        [401, 404, 500],
        (status) =>
          Effect.map(
            httpFault(`${marker}-http`, [`http-${status}`]),
            (url) =>
              McpServerConfig.http({ name: `s${status}`, url, headers: { Authorization: "Bearer hdr-secret-1234" } })
          ),
        { concurrency: "unbounded" }
      )
      const report = yield* probe({ marker, servers, names: [] })
      const system = unavailable(report)
      assert.include(system, "s401 (HTTP 401 Unauthorized)")
      assert.include(system, "s404 (HTTP 404 Not Found)")
      assert.include(system, "s500 (HTTP 500 Internal Server Error)")
      assert.notInclude(system, "hdr-secret-1234")
      assertHealthyAndClean(report)
    }))

  it.live("a server that forgets the session (404 for the old id): the listing worked, the call is TOOL_FAILED (D7)", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const url = yield* httpFault(`${marker}-http`, ["forget-session"])
      const report = yield* probe({
        marker,
        servers: [McpServerConfig.http({ name: "amnesiac", url })],
        names: ["amnesiac__echo"]
      })
      assert.include(toolNames(report), "amnesiac__echo")
      assert.deepStrictEqual(failure(report, "amnesiac__echo"), {
        type: "RequestFailed",
        message: "the server failed to run the tool"
      })
      assertHealthyAndClean(report)
    }))

  it.live("a server that repeats a pagination cursor is unavailable (D9)", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const report = yield* probe({ marker, servers: [stdioFault("loop", marker, ["repeat-cursor"])], names: [] })
      assert.include(unavailable(report), "loop (tools/list failed: the server repeated a pagination cursor)")
      assert.deepStrictEqual(toolNames(report), ["healthy__echo"])
      assertHealthyAndClean(report)
    }))

  it.live("101 pages make a server unavailable; 100 pages are listed in full (D9)", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const report = yield* probe({
        marker,
        servers: [
          stdioFault("p101", marker, ["many-pages"]),
          stdioFault("p100", marker, ["many-pages"], ["--pages=100"])
        ],
        names: ["p100__tool_100"],
        connectTimeout: "60 seconds"
      })
      assert.include(unavailable(report), "p101 (tools/list failed: more than 100 pages of tools)")
      assert.strictEqual(toolNames(report).filter((n) => n.startsWith("p100__")).length, 100)
      assert.isFalse(toolNames(report).some((n) => n.startsWith("p101__")))
      assert.deepStrictEqual(toolResults(report.requests[1])["p100__tool_100"]?.content, { called: "tool_100" })
      assertHealthyAndClean(report)
    }))

  it.live("two tools with the same name: the second is skipped with a warning, the first is called (E3)", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const report = yield* probe({
        marker,
        servers: [stdioFault("twice", marker, ["duplicate-names"])],
        names: ["twice__echo"]
      })
      assert.strictEqual(toolNames(report).filter((n) => n === "twice__echo").length, 1)
      assert.strictEqual(
        report.requests[0]!.tools.find((t) => t.name === "twice__echo")!.description,
        "echoes its text"
      )
      assert.isTrue(
        report.logs.some((l) => l.level === "WARN" && l.message.includes("twice__echo is already registered"))
      )
      assert.deepStrictEqual(toolResults(report.requests[1])["twice__echo"]?.content, [{
        type: "text",
        text: "twice echo: hi"
      }])
      assertHealthyAndClean(report)
    }))

  it.live("a tool with an invalid input schema is skipped with a warning; the server's other tools work", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const report = yield* probe({
        marker,
        servers: [stdioFault("bad", marker, ["invalid-schema"])],
        names: ["bad__echo"]
      })
      assert.notInclude(unavailable(report), "bad (")
      assert.includeMembers(toolNames(report), ["bad__echo", "bad__report", "bad__wait"])
      assert.notInclude(toolNames(report), "bad__broken")
      const warning = report.logs.find((l) => l.level === "WARN" && l.message.includes("broken"))
      assert.strictEqual(
        warning?.message,
        "MCP server bad: tool broken is skipped: inputSchema.type: Invalid input: expected \"object\""
      )
      assert.deepStrictEqual(toolResults(report.requests[1])["bad__echo"]?.content, [{
        type: "text",
        text: "bad echo: hi"
      }])
      assertHealthyAndClean(report)
    }))

  it.live("a tool whose input schema nests 5,000 or 100,000 levels is skipped with a warning; the model request is sent", () =>
    Effect.gen(function*() {
      for (const depth of [5_000, 100_000]) {
        const marker = newMarker()
        const report = yield* probe({
          marker,
          servers: [stdioFault("deep", marker, ["deep-schema"], [`--depth=${depth}`])],
          names: ["deep__echo"]
        })
        assert.notInclude(unavailable(report), "deep (")
        assert.includeMembers(toolNames(report), ["deep__echo", "deep__report", "deep__wait"])
        assert.notInclude(toolNames(report), "deep__deep")
        const warning = report.logs.find((l) => l.level === "WARN" && l.message.includes("deep is skipped"))
        assert.strictEqual(
          warning?.message,
          "MCP server deep: tool deep is skipped: its input schema nests deeper than 128 levels"
        )
        // what a provider does with the tools next: it must not overflow
        assert.isAbove(JSON.stringify(report.requests[0]!.tools).length, 100)
        assert.deepStrictEqual(toolResults(report.requests[1])["deep__echo"]?.content, [{
          type: "text",
          text: "deep echo: hi"
        }])
        assertHealthyAndClean(report)
      }
    }))

  it.live("names with spaces, unicode and 200 characters are exposed as valid names and reach the remote tool (E2)", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const first = yield* probe({ marker, servers: [stdioFault("odd", marker, ["odd-names"])], names: [] })
      const exposed = toolNames(first).filter((n) => n.startsWith("odd__") && !/__(echo|report|wait)$/.test(n))
      assert.strictEqual(exposed.length, 3)
      for (const name of exposed) {
        assert.match(name, /^[A-Za-z0-9_-]{1,64}$/)
      }
      // the same names in another process: the hash is stable
      assert.deepStrictEqual(exposed, [
        "odd__say_hello_cdde9e3f",
        "odd__gr__e-___143b06dc",
        "odd__aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_9293acc0"
      ])
      const report = yield* probe({ marker, servers: [stdioFault("odd", marker, ["odd-names"])], names: exposed })
      const results = toolResults(report.requests[1])
      assert.deepStrictEqual(exposed.map((n) => results[n]?.content), [
        { called: "say hello" },
        { called: "grüße-世界" },
        { called: "a".repeat(200) }
      ])
      assertHealthyAndClean(first)
      assertHealthyAndClean(report)
    }))

  it.live("a server that ignores the end of input and SIGTERM works, and is killed when the request ends (D1)", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const report = yield* probe({
        marker,
        servers: [stdioFault("mule", marker, ["stubborn"])],
        names: ["mule__echo"]
      })
      assert.deepStrictEqual(toolResults(report.requests[1])["mule__echo"]?.content, [{
        type: "text",
        text: "mule echo: hi"
      }])
      // 300 ms after the end of input, 300 ms after SIGTERM, then SIGKILL
      assert.isAtLeast(report.ms, 600)
      assertHealthyAndClean(report)
    }))

  it.live(
    "many faults in one request: each server's outcome, healthy stdio and HTTP servers work (D1) (D5, D6, D7)",
    () =>
      Effect.gen(function*() {
        const marker = newMarker()
        const [web, down] = yield* Effect.all([
          httpFault(`${marker}-http`, ["none"]),
          httpFault(`${marker}-http`, ["http-500"])
        ], { concurrency: "unbounded" })
        const report = yield* probe({
          marker,
          servers: [
            stdioFault("calm", marker, ["none"]),
            McpServerConfig.http({ name: "web", url: web }),
            stdioFault("quitter", marker, ["exit-during-initialize"]),
            stdioFault("mute", marker, ["silent-initialize"]),
            stdioFault("loop", marker, ["repeat-cursor"]),
            McpServerConfig.http({ name: "down", url: down }),
            stdioFault("crash", marker, ["exit-during-call"]),
            stdioFault("nocall", marker, ["silent-call"]),
            stdioFault("mule", marker, ["stubborn"])
          ],
          names: ["crash__echo", "nocall__echo", "calm__echo", "web__echo", "mule__echo"],
          // nine servers start at once: the healthy ones must connect within it on a busy machine too, so mute's wait
          // is long
          connectTimeout: "20 seconds",
          callTimeout: "3 seconds"
        })
        const system = unavailable(report)
        assert.match(
          system,
          /quitter \(Connection closed: the server process exited with code 3; stderr: ready pid=\d+ \| exiting during initialize\)/
        )
        assert.include(system, "mute (timed out after 20s)")
        assert.include(system, "loop (tools/list failed: the server repeated a pagination cursor)")
        assert.include(system, "down (HTTP 500 Internal Server Error)")
        assert.strictEqual(failure(report, "crash__echo").type, "RequestFailed")
        assert.strictEqual(failure(report, "nocall__echo").type, "Timeout")
        const results = toolResults(report.requests[1])
        assert.deepStrictEqual(results["calm__echo"]?.content, [{ type: "text", text: "calm echo: hi" }])
        assert.deepStrictEqual(results["web__echo"]?.content, [{ type: "text", text: "faulty echo: hi" }])
        assert.deepStrictEqual(results["mule__echo"]?.content, [{ type: "text", text: "mule echo: hi" }])
        assertHealthyAndClean(report)
      })
  )

  it.live("interrupting a request during a call returns only once the server process is gone (D1)", () =>
    Effect.gen(function*() {
      const marker = newMarker()
      const fiber = yield* Effect.forkChild(
        runRequest({
          marker,
          servers: [stdioFault("waiter", marker, ["none"]), healthy],
          steps: [calls("healthy__echo", "waiter__wait"), { text: "never" }],
          callTimeout: "1 minute"
        })
      )
      while (withMarker(marker).length === 0) yield* Effect.sleep("20 millis")
      yield* Effect.sleep("300 millis")
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(withMarker(marker), [])
    }))
})
