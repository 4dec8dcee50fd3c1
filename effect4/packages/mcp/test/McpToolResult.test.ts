/**
 * What a call gives the model (`McpToolResult`): the Effect 3 line's tests (packages/mcp/test/McpTool.test.ts) on
 * Effect 4. The mapping and the policies are `@zett/common`'s; these check them through this line's data types.
 */
import { assert, describe, it } from "@effect/vitest"
import type { CallToolResult } from "@modelcontextprotocol/client"
import { McpError, McpToolResult } from "@zett/mcp"
import { pipe } from "effect/Function"

describe("McpToolResult.toResult", () => {
  const policy = McpToolResult.ErrorTextPolicy.toolText

  it("an embedded resource's blob reaches the model as text only when its MIME type is text and it is UTF-8", () => {
    const base64 = (bytes: string | Uint8Array) => Buffer.from(bytes).toString("base64")
    const resources = [
      { uri: "r://text", mimeType: "text/plain; charset=utf-8", blob: base64("hello") },
      { uri: "r://json", mimeType: "application/json", blob: base64("{\"a\":1}"), _meta: { dropped: true } },
      { uri: "r://image", mimeType: "image/png", blob: base64("not text to a model") },
      { uri: "r://untyped", blob: base64("no MIME type") },
      { uri: "r://invalid", mimeType: "text/plain", blob: base64(new Uint8Array([0xff, 0xfe, 0x41])) },
      { uri: "r://already", mimeType: "text/plain", text: "a text resource" },
      { uri: "r://odd", mimeType: 7, blob: base64("a MIME type that is no string") },
      { uri: "r://bytes", mimeType: "text/plain", blob: [104, 105] }
    ]
    const outcome = McpToolResult.toResult(
      { content: resources.map((resource) => ({ type: "resource", resource })) } as unknown as CallToolResult,
      policy
    )
    assert.strictEqual(outcome._tag, "Success")
    assert.deepStrictEqual(outcome._tag === "Success" && outcome.value, [
      { type: "resource", resource: { uri: "r://text", mimeType: "text/plain; charset=utf-8", text: "hello" } },
      { type: "resource", resource: { uri: "r://json", mimeType: "application/json", text: "{\"a\":1}" } },
      { type: "resource", resource: { uri: "r://image", mimeType: "image/png", blob: base64("not text to a model") } },
      { type: "resource", resource: { uri: "r://untyped", blob: base64("no MIME type") } },
      {
        type: "resource",
        resource: { uri: "r://invalid", mimeType: "text/plain", blob: base64(new Uint8Array([0xff, 0xfe, 0x41])) }
      },
      { type: "resource", resource: { uri: "r://already", mimeType: "text/plain", text: "a text resource" } },
      { type: "resource", resource: { uri: "r://odd", mimeType: 7, blob: base64("a MIME type that is no string") } },
      // a blob that is no string is not decoded (Buffer.from would read an array as bytes)
      { type: "resource", resource: { uri: "r://bytes", mimeType: "text/plain", blob: [104, 105] } }
    ])
  })

  it("a result with structuredContent returns that structured value (E7)", () => {
    const result: CallToolResult = {
      content: [{ type: "text", text: "{\"answer\":42,\"unit\":\"items\"}" }],
      structuredContent: { answer: 42, unit: "items", nested: { title: "kept" } }
    }
    const outcome = McpToolResult.toResult(result, policy)
    assert.strictEqual(outcome._tag, "Success")
    assert.deepStrictEqual(outcome._tag === "Success" && outcome.value, {
      answer: 42,
      unit: "items",
      nested: { title: "kept" }
    })
  })

  it("text and image content are returned as JSON data, not vision messages (E7)", () => {
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
    const result: CallToolResult = {
      content: [
        { type: "text", text: "Here is the chart", annotations: { audience: ["assistant"], priority: 0.5 } },
        { type: "image", data: png, mimeType: "image/png", _meta: { "example.com/trace": "t-1" } }
      ],
      _meta: { "example.com/request": "r-1" }
    }
    const outcome = McpToolResult.toResult(result, policy)
    assert.deepStrictEqual(
      outcome,
      McpToolResult.ToolOutcome.Success({
        value: [
          { type: "text", text: "Here is the chart" },
          { type: "image", data: png, mimeType: "image/png" }
        ]
      })
    )
    // plain JSON, losslessly serialisable
    assert.strictEqual(
      JSON.stringify(outcome._tag === "Success" && outcome.value),
      `[{"type":"text","text":"Here is the chart"},{"type":"image","data":"${png}","mimeType":"image/png"}]`
    )
  })

  it("audio, embedded resources and resource links are serialised as JSON data (E7)", () => {
    const result: CallToolResult = {
      content: [
        { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
        {
          type: "resource",
          resource: { uri: "file:///notes.md", mimeType: "text/markdown", text: "# Notes", _meta: { x: 1 } },
          annotations: { priority: 1 }
        },
        { type: "resource_link", uri: "https://example.com/r/1", name: "report", mimeType: "application/pdf" }
      ]
    }
    assert.deepStrictEqual(
      McpToolResult.toResult(result, policy),
      McpToolResult.ToolOutcome.Success({
        value: [
          { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///notes.md", mimeType: "text/markdown", text: "# Notes" } },
          { type: "resource_link", uri: "https://example.com/r/1", name: "report", mimeType: "application/pdf" }
        ]
      })
    )
  })

  it("an empty result is an empty list, and the input result is not mutated (E7)", () => {
    const result: CallToolResult = { content: [{ type: "text", text: "ok", _meta: { a: 1 } }] }
    const before = structuredClone(result)
    McpToolResult.toResult(result, policy)
    assert.deepStrictEqual(result, before)
    assert.deepStrictEqual(
      McpToolResult.toResult({ content: [] }, policy),
      McpToolResult.ToolOutcome.Success({ value: [] })
    )
  })

  it("a 2024-10-07 compatibility result returns its toolResult (E7)", () => {
    assert.deepStrictEqual(
      McpToolResult.toResult({ toolResult: { rows: 3 } }, policy),
      McpToolResult.ToolOutcome.Success({ value: { rows: 3 } })
    )
  })

  it("a remote isError result is a failure carrying the tool's own text by default (E7) (D8)", () => {
    const result: CallToolResult = {
      isError: true,
      content: [
        { type: "text", text: "Invalid date: '2024-13-01'." },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "text", text: "Use YYYY-MM-DD." }
      ],
      structuredContent: { error: "ignored for the default text" }
    }
    assert.deepStrictEqual(
      McpToolResult.toResult(result, policy),
      McpToolResult.ToolOutcome.Failure({ message: "Invalid date: '2024-13-01'.\nUse YYYY-MM-DD." })
    )
  })

  it("long isError text is truncated to a sane length (D8)", () => {
    const outcome = McpToolResult.toResult(
      { isError: true, content: [{ type: "text", text: "e".repeat(50_000) }] },
      policy
    )
    assert.strictEqual(outcome._tag, "Failure")
    const message = outcome._tag === "Failure" ? outcome.message : ""
    assert.isTrue(message.startsWith("e".repeat(McpToolResult.maxErrorTextLength)))
    assert.isTrue(message.endsWith("… (truncated)"))
    assert.isBelow(message.length, McpToolResult.maxErrorTextLength + 20)
  })

  it("an isError result without text gets a fixed line (D8)", () => {
    assert.deepStrictEqual(
      McpToolResult.toResult({ isError: true, content: [] }, policy),
      McpToolResult.ToolOutcome.Failure({ message: "the tool failed without an error message" })
    )
  })

  it("the generic policy never shows remote text (D8)", () => {
    const result: CallToolResult = {
      isError: true,
      content: [{ type: "text", text: "db password rejected for admin" }]
    }
    assert.deepStrictEqual(
      McpToolResult.toResult(result, McpToolResult.ErrorTextPolicy.generic),
      McpToolResult.ToolOutcome.Failure({ message: "the tool failed" })
    )
  })

  it("the application's own policy decides the text, in both call styles (D8)", () => {
    const mine: McpToolResult.ErrorTextPolicy = (failure) =>
      failure._tag === "ToolError" ? `tool said: ${failure.result.content.length} blocks` : "request failed"
    const result: CallToolResult = { isError: true, content: [{ type: "text", text: "x" }] }
    const expected = McpToolResult.ToolOutcome.Failure({ message: "tool said: 1 blocks" })
    assert.deepStrictEqual(McpToolResult.toResult(result, mine), expected)
    assert.deepStrictEqual(pipe(result, McpToolResult.toResult(mine)), expected)
  })
})

describe("McpToolResult.describeFailure", () => {
  const leaky = new McpError.McpRequestError({
    server: "catalog",
    method: "tools/call",
    code: -32603,
    reason: "Remote",
    description: "fetch failed: connect ECONNREFUSED https://internal.example.corp:8443/mcp?token=abc123\n" +
      "    at TLSSocket.onConnectEnd (node:_tls_wrap:1727:19)\n    at Object.onceWrapper (node:events:634:28)"
  })
  const failure = McpToolResult.RemoteFailure.RequestError({ error: leaky })

  it("by default a request error shows no description, stack trace or URL (D8)", () => {
    const text = McpToolResult.describeFailure(failure, McpToolResult.ErrorTextPolicy.toolText)
    assert.strictEqual(text, "the server failed to run the tool (internal error)")
    for (const secret of ["internal.example.corp", "abc123", "ECONNREFUSED", "node:_tls_wrap", " at ", "catalog"]) {
      assert.notInclude(text, secret)
    }
  })

  it("the default names well-known protocol codes and nothing else (D8)", () => {
    const line = (code?: number) =>
      McpToolResult.describeFailure(
        McpToolResult.RemoteFailure.RequestError({
          error: new McpError.McpRequestError({
            server: "s",
            method: "tools/call",
            reason: "Remote",
            description: "MCP error: secret detail",
            ...(code === undefined ? {} : { code })
          })
        }),
        McpToolResult.ErrorTextPolicy.toolText
      )
    assert.strictEqual(line(-32000), "the server failed to run the tool (connection closed)")
    assert.strictEqual(line(-32001), "the server failed to run the tool (request timed out or was cancelled)")
    assert.strictEqual(line(-32602), "the server failed to run the tool (invalid params)")
    assert.strictEqual(line(12345), "the server failed to run the tool")
    assert.strictEqual(line(), "the server failed to run the tool")
  })

  it("a response that never arrived is described in Zett's own words by the default and the generic policy (D8)", () => {
    const own = (reason: "StreamClosed" | "MessageTooLarge" | "Unsupported" | "Remote", description: string) =>
      McpToolResult.RemoteFailure.RequestError({
        error: new McpError.McpRequestError({ server: "s", method: "tools/call", reason, description })
      })
    for (const policy of [McpToolResult.ErrorTextPolicy.toolText, McpToolResult.ErrorTextPolicy.generic]) {
      assert.strictEqual(
        McpToolResult.describeFailure(own("StreamClosed", "the server closed the response stream"), policy),
        "the server failed to run the tool (the server closed the response stream)"
      )
      assert.strictEqual(
        McpToolResult.describeFailure(own("MessageTooLarge", "the response is over 8 MiB"), policy),
        "the server failed to run the tool (the response is over 8 MiB)"
      )
      assert.strictEqual(
        McpToolResult.describeFailure(own("Unsupported", "not implemented here"), policy),
        "the server failed to run the tool (not implemented here)"
      )
      assert.strictEqual(
        McpToolResult.describeFailure(own("Remote", "remote secret text"), policy),
        "the server failed to run the tool"
      )
    }
  })

  it("the generic policy shows one fixed line for request errors (D8)", () => {
    assert.strictEqual(
      pipe(failure, McpToolResult.describeFailure(McpToolResult.ErrorTextPolicy.generic)),
      "the server failed to run the tool"
    )
  })

  it("the verbose policy shows transport details for development (D8)", () => {
    const text = McpToolResult.describeFailure(failure, McpToolResult.ErrorTextPolicy.verbose)
    assert.include(text, "catalog: tools/call failed (code -32603): fetch failed")
    assert.include(text, "https://internal.example.corp:8443/mcp")
    const toolError = McpToolResult.RemoteFailure.ToolError({
      result: { isError: true, content: [], structuredContent: { code: "E42" } }
    })
    assert.strictEqual(
      McpToolResult.describeFailure(toolError, McpToolResult.ErrorTextPolicy.verbose),
      `the tool failed: {"code":"E42"}`
    )
  })
})

describe("McpToolResult, exactly", () => {
  const { ErrorTextPolicy, RemoteFailure, ToolOutcome } = McpToolResult
  const toolError = (result: Partial<CallToolResult>) =>
    RemoteFailure.ToolError({ result: { isError: true, content: [], ...result } as CallToolResult })
  const requestError = (fields: Partial<ConstructorParameters<typeof McpError.McpRequestError>[0]>) =>
    RemoteFailure.RequestError({
      error: new McpError.McpRequestError({
        server: "s",
        method: "tools/call",
        reason: "Remote",
        description: "secret detail",
        ...fields
      })
    })

  it("text of exactly the maximum length is kept whole; a cut never splits a surrogate pair (D8)", () => {
    const max = McpToolResult.maxErrorTextLength
    const exact = "e".repeat(max)
    assert.strictEqual(ErrorTextPolicy.toolText(toolError({ content: [{ type: "text", text: exact }] })), exact)
    const over = "e".repeat(max + 1)
    const cut = ErrorTextPolicy.toolText(toolError({ content: [{ type: "text", text: over }] }))
    assert.strictEqual(cut, `${exact}… (truncated)`)
    // an emoji whose first half is the last character that fits goes as a whole
    const emoji = `${"e".repeat(max - 1)}\u{1F600}tail`
    assert.strictEqual(
      ErrorTextPolicy.toolText(toolError({ content: [{ type: "text", text: emoji }] })),
      `${"e".repeat(max - 1)}… (truncated)`
    )
  })

  it("only text blocks with string text count as the tool's text, trimmed (D8)", () => {
    const content = [
      { type: "text", text: "  first" },
      { type: "text", text: 42 },
      { type: "image", data: "AAAA", mimeType: "image/png", text: "not a text block" },
      { type: "text", text: "last \n" }
    ] as unknown as CallToolResult["content"]
    assert.strictEqual(ErrorTextPolicy.toolText(toolError({ content })), "first\nlast")
    assert.strictEqual(ErrorTextPolicy.verbose(toolError({ content })), "first\nlast")
    const blank = [{ type: "text", text: " \n " }] as CallToolResult["content"]
    const none = "the tool failed without an error message"
    assert.strictEqual(ErrorTextPolicy.toolText(toolError({ content: blank })), none)
    // content that is not a list has no text
    const notAList = { content: "text" } as unknown as Partial<CallToolResult>
    assert.strictEqual(ErrorTextPolicy.toolText(toolError(notAList)), none)
  })

  it("request errors: the named codes, and Zett's own description when the response never arrived (D8)", () => {
    const notFound = ErrorTextPolicy.toolText(requestError({ code: -32601 }))
    assert.strictEqual(notFound, "the server failed to run the tool (method not found)")
    assert.strictEqual(ErrorTextPolicy.toolText(requestError({ code: 32601 })), "the server failed to run the tool")
    const closed = requestError({
      reason: "StreamClosed",
      description: "the server closed the stream before answering"
    })
    const expected = "the server failed to run the tool (the server closed the stream before answering)"
    assert.strictEqual(ErrorTextPolicy.toolText(closed), expected)
    assert.strictEqual(ErrorTextPolicy.generic(closed), expected)
    assert.strictEqual(ErrorTextPolicy.generic(requestError({ code: -32601 })), "the server failed to run the tool")
  })

  it("verbose: the tool's text first, a fixed line without text or structure, no code when none (D8)", () => {
    const withText = toolError({ content: [{ type: "text", text: "boom" }], structuredContent: { code: "E42" } })
    assert.strictEqual(ErrorTextPolicy.verbose(withText), "boom")
    assert.strictEqual(ErrorTextPolicy.verbose(toolError({})), "the tool failed without an error message")
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const unprintable = ErrorTextPolicy.verbose(toolError({ structuredContent: cyclic }))
    assert.strictEqual(unprintable, "the tool failed: [object Object]")
    assert.strictEqual(ErrorTextPolicy.verbose(requestError({})), "s: tools/call failed: secret detail")
  })

  it("blocks that are not objects stay as they are; only a resource object loses its _meta (E7)", () => {
    const content = [
      "plain",
      null,
      [1, 2],
      7,
      { type: "resource", resource: "not an object" },
      { type: "resource", resource: null },
      { type: "resource", resource: [{ _meta: 1 }] },
      { type: "x-data", data: { _meta: { kept: true }, a: 1 } }
    ] as unknown as CallToolResult["content"]
    assert.deepStrictEqual(
      McpToolResult.toResult({ content }, ErrorTextPolicy.toolText),
      ToolOutcome.Success({
        value: [
          "plain",
          null,
          [1, 2],
          7,
          { type: "resource", resource: "not an object" },
          { type: "resource", resource: null },
          { type: "resource", resource: [{ _meta: 1 }] },
          { type: "x-data", data: { _meta: { kept: true }, a: 1 } }
        ]
      })
    )
  })

  it("a block key named __proto__ stays an ordinary property (E7)", () => {
    const block = JSON.parse(`{"type":"text","text":"a","__proto__":{"x":1}}`)
    const outcome = McpToolResult.toResult({ content: [block] }, ErrorTextPolicy.toolText)
    const out = (outcome._tag === "Success" ? outcome.value : []) as Array<Record<string, unknown>>
    assert.strictEqual(Object.getPrototypeOf(out[0]), Object.prototype)
    assert.deepStrictEqual(Object.getOwnPropertyDescriptor(out[0], "__proto__"), {
      value: { x: 1 },
      writable: true,
      enumerable: true,
      configurable: true
    })
    assert.strictEqual(JSON.stringify(out), `[{"type":"text","text":"a","__proto__":{"x":1}}]`)
  })

  it("the compatibility shape only without content; a result without content is an empty list (E7)", () => {
    const both = { content: [{ type: "text", text: "new" }], toolResult: "old" } as unknown as CallToolResult
    assert.deepStrictEqual(
      McpToolResult.toResult(both, ErrorTextPolicy.toolText),
      ToolOutcome.Success({ value: [{ type: "text", text: "new" }] })
    )
    const bare = {} as CallToolResult
    assert.deepStrictEqual(McpToolResult.toResult(bare, ErrorTextPolicy.toolText), ToolOutcome.Success({ value: [] }))
    const failed = { isError: true } as CallToolResult
    assert.deepStrictEqual(
      McpToolResult.toResult(failed, ErrorTextPolicy.toolText),
      ToolOutcome.Failure({ message: "the tool failed without an error message" })
    )
  })
})
