/**
 * What a `tools/call` gives the model, tested once here on `@zett/common`'s own functions: the content mapping
 * (`outcome`), the error text policies, the text MIME types, and that base64 is read as Node reads it (the 3 line read
 * blobs with `Buffer`, which this package cannot use). Each Effect line's `McpToolResult` test checks only how it wraps
 * these in its own data types (packages/mcp/test/McpTool.test.ts, effect4/packages/mcp/test/McpToolResult.test.ts).
 */
import { McpToolResult } from "@zett/common"
import { assert, describe, it } from "vitest"

const { ErrorTextPolicy } = McpToolResult

// what each line's `toResult` does: the mapping, with a tool failure's text chosen by the policy
const toResult = (
  result: McpToolResult.ToolResult | { readonly toolResult: unknown },
  policy: McpToolResult.ErrorTextPolicy
): McpToolResult.Outcome => McpToolResult.outcome(result, (call) => policy({ _tag: "ToolError", result: call }))

const toolError = (result: McpToolResult.ToolResult): McpToolResult.RemoteFailure => ({
  _tag: "ToolError",
  result: { isError: true, content: [], ...result }
})

const requestError = (fields: Partial<McpToolResult.RequestFailure>): McpToolResult.RemoteFailure => ({
  _tag: "RequestError",
  error: { server: "s", method: "tools/call", reason: "Remote", description: "secret detail", ...fields }
})

describe("McpToolResult", () => {
  it("blobText reads what Buffer reads: padded, unpadded, wrapped and URL-safe base64; not invalid UTF-8", () => {
    // "?>?~~~" is "Pz4/fn5+" in base64: both characters the URL-safe alphabet replaces
    const texts = ["hello", "héllo wörld", "a", "ab", "abc", "{\"a\":1}", "🙂 emoji", "", "?>?~~~"]
    for (const text of texts) {
      const base64 = Buffer.from(text).toString("base64")
      assert.strictEqual(McpToolResult.blobText(base64), text, base64)
      assert.strictEqual(McpToolResult.blobText(base64.replace(/=+$/, "")), text, `${base64} unpadded`)
      assert.strictEqual(McpToolResult.blobText(Buffer.from(text).toString("base64url")), text, `${base64} url`)
    }
    assert.strictEqual(McpToolResult.blobText("aGVs\nbG8="), "hello")
    assert.isUndefined(McpToolResult.blobText(Buffer.from([0xff, 0xfe, 0x41]).toString("base64")))
    assert.isUndefined(McpToolResult.blobText("not base64!"))
  })

  it("isTextMime: text types, JSON, XML, YAML and their suffixes; parameters ignored", () => {
    for (
      const mime of [
        "text/plain",
        "text/markdown; charset=utf-8",
        "application/json",
        "application/json; charset=utf-8",
        "application/json ; charset=utf-8",
        "application/ld+json"
      ]
    ) {
      assert.isTrue(McpToolResult.isTextMime(mime), mime)
    }
    for (const mime of ["application/vnd.api+json", "image/svg+xml", "application/x-yaml"]) {
      assert.isTrue(McpToolResult.isTextMime(mime), mime)
    }
    for (const mime of [undefined, "image/png", "application/octet-stream", "application/pdf"]) {
      assert.isFalse(McpToolResult.isTextMime(mime), String(mime))
    }
  })

  it("outcome gives plain tagged values and asks for the failure text with the result itself", () => {
    const failed = { isError: true, content: [{ type: "text", text: "boom" }] }
    const seen: Array<unknown> = []
    const outcome = McpToolResult.outcome(failed, (result) => {
      seen.push(result)
      return "text"
    })
    assert.deepStrictEqual(outcome, { _tag: "Failure", message: "text" })
    assert.strictEqual(seen[0], failed)
    assert.deepStrictEqual(McpToolResult.outcome({ toolResult: 3 }, () => "x"), { _tag: "Success", value: 3 })
    assert.strictEqual(
      McpToolResult.ErrorTextPolicy.toolText({ _tag: "ToolError", result: failed }),
      "boom"
    )
  })
})

describe("McpToolResult.outcome", () => {
  const policy = ErrorTextPolicy.toolText

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
    const outcome = toResult({ content: resources.map((resource) => ({ type: "resource", resource })) }, policy)
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
    const result = {
      content: [{ type: "text", text: "{\"answer\":42,\"unit\":\"items\"}" }],
      structuredContent: { answer: 42, unit: "items", nested: { title: "kept" } }
    }
    const outcome = toResult(result, policy)
    assert.strictEqual(outcome._tag, "Success")
    assert.deepStrictEqual(outcome._tag === "Success" && outcome.value, {
      answer: 42,
      unit: "items",
      nested: { title: "kept" }
    })
  })

  it("text and image content are returned as JSON data, not vision messages (E7)", () => {
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
    const result = {
      content: [
        { type: "text", text: "Here is the chart", annotations: { audience: ["assistant"], priority: 0.5 } },
        { type: "image", data: png, mimeType: "image/png", _meta: { "example.com/trace": "t-1" } }
      ],
      _meta: { "example.com/request": "r-1" }
    }
    const outcome = toResult(result, policy)
    assert.deepStrictEqual(outcome, {
      _tag: "Success",
      value: [
        { type: "text", text: "Here is the chart" },
        { type: "image", data: png, mimeType: "image/png" }
      ]
    })
    // plain JSON, losslessly serialisable
    assert.strictEqual(
      JSON.stringify(outcome._tag === "Success" && outcome.value),
      `[{"type":"text","text":"Here is the chart"},{"type":"image","data":"${png}","mimeType":"image/png"}]`
    )
  })

  it("audio, embedded resources and resource links are serialised as JSON data (E7)", () => {
    const result = {
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
    assert.deepStrictEqual(toResult(result, policy), {
      _tag: "Success",
      value: [
        { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "file:///notes.md", mimeType: "text/markdown", text: "# Notes" } },
        { type: "resource_link", uri: "https://example.com/r/1", name: "report", mimeType: "application/pdf" }
      ]
    })
  })

  it("an empty result is an empty list, and the input result is not mutated (E7)", () => {
    const result = { content: [{ type: "text", text: "ok", _meta: { a: 1 } }] }
    const before = structuredClone(result)
    toResult(result, policy)
    assert.deepStrictEqual(result, before)
    assert.deepStrictEqual(toResult({ content: [] }, policy), { _tag: "Success", value: [] })
  })

  it("a 2024-10-07 compatibility result returns its toolResult (E7)", () => {
    assert.deepStrictEqual(toResult({ toolResult: { rows: 3 } }, policy), { _tag: "Success", value: { rows: 3 } })
  })

  it("a remote isError result is a failure carrying the tool's own text by default (E7) (D8)", () => {
    const result = {
      isError: true,
      content: [
        { type: "text", text: "Invalid date: '2024-13-01'." },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "text", text: "Use YYYY-MM-DD." }
      ],
      structuredContent: { error: "ignored for the default text" }
    }
    assert.deepStrictEqual(toResult(result, policy), {
      _tag: "Failure",
      message: "Invalid date: '2024-13-01'.\nUse YYYY-MM-DD."
    })
  })

  it("long isError text is truncated to a sane length (D8)", () => {
    const outcome = toResult({ isError: true, content: [{ type: "text", text: "e".repeat(50_000) }] }, policy)
    assert.strictEqual(outcome._tag, "Failure")
    const message = outcome._tag === "Failure" ? outcome.message : ""
    assert.isTrue(message.startsWith("e".repeat(McpToolResult.maxErrorTextLength)))
    assert.isTrue(message.endsWith("… (truncated)"))
    assert.isBelow(message.length, McpToolResult.maxErrorTextLength + 20)
  })

  it("an isError result without text gets a fixed line (D8)", () => {
    assert.deepStrictEqual(toResult({ isError: true, content: [] }, policy), {
      _tag: "Failure",
      message: "the tool failed without an error message"
    })
  })

  it("the generic policy never shows remote text (D8)", () => {
    const result = { isError: true, content: [{ type: "text", text: "db password rejected for admin" }] }
    assert.deepStrictEqual(toResult(result, ErrorTextPolicy.generic), { _tag: "Failure", message: "the tool failed" })
  })

  it("the application's own policy decides the text (D8)", () => {
    const mine: McpToolResult.ErrorTextPolicy = (failure) =>
      failure._tag === "ToolError"
        ? `tool said: ${(failure.result.content as ReadonlyArray<unknown>).length} blocks`
        : "request failed"
    const result = { isError: true, content: [{ type: "text", text: "x" }] }
    assert.deepStrictEqual(toResult(result, mine), { _tag: "Failure", message: "tool said: 1 blocks" })
  })
})

describe("McpToolResult.ErrorTextPolicy", () => {
  const leaky = requestError({
    server: "catalog",
    code: -32603,
    description: "fetch failed: connect ECONNREFUSED https://internal.example.corp:8443/mcp?token=abc123\n" +
      "    at TLSSocket.onConnectEnd (node:_tls_wrap:1727:19)\n    at Object.onceWrapper (node:events:634:28)"
  })

  it("by default a request error shows no description, stack trace or URL (D8)", () => {
    const text = ErrorTextPolicy.toolText(leaky)
    assert.strictEqual(text, "the server failed to run the tool (internal error)")
    for (const secret of ["internal.example.corp", "abc123", "ECONNREFUSED", "node:_tls_wrap", " at ", "catalog"]) {
      assert.notInclude(text, secret)
    }
  })

  it("the default names well-known protocol codes and nothing else (D8)", () => {
    const line = (code?: number) =>
      ErrorTextPolicy.toolText(
        requestError({ description: "MCP error: secret detail", ...(code === undefined ? {} : { code }) })
      )
    assert.strictEqual(line(-32000), "the server failed to run the tool (connection closed)")
    assert.strictEqual(line(-32001), "the server failed to run the tool (request timed out or was cancelled)")
    assert.strictEqual(line(-32602), "the server failed to run the tool (invalid params)")
    assert.strictEqual(line(12345), "the server failed to run the tool")
    assert.strictEqual(line(), "the server failed to run the tool")
  })

  it("a response that never arrived is described in Zett's own words by the default and the generic policy (D8)", () => {
    const own = (reason: "StreamClosed" | "MessageTooLarge" | "Unsupported" | "Remote", description: string) =>
      requestError({ reason, description })
    for (const policy of [ErrorTextPolicy.toolText, ErrorTextPolicy.generic]) {
      assert.strictEqual(
        policy(own("StreamClosed", "the server closed the response stream")),
        "the server failed to run the tool (the server closed the response stream)"
      )
      assert.strictEqual(
        policy(own("MessageTooLarge", "the response is over 8 MiB")),
        "the server failed to run the tool (the response is over 8 MiB)"
      )
      assert.strictEqual(
        policy(own("Unsupported", "not implemented here")),
        "the server failed to run the tool (not implemented here)"
      )
      assert.strictEqual(policy(own("Remote", "remote secret text")), "the server failed to run the tool")
    }
  })

  it("the generic policy shows one fixed line for request errors (D8)", () => {
    assert.strictEqual(ErrorTextPolicy.generic(leaky), "the server failed to run the tool")
  })

  it("the verbose policy shows transport details for development (D8)", () => {
    const text = ErrorTextPolicy.verbose(leaky)
    assert.include(text, "catalog: tools/call failed (code -32603): fetch failed")
    assert.include(text, "https://internal.example.corp:8443/mcp")
    assert.strictEqual(
      ErrorTextPolicy.verbose(toolError({ content: [], structuredContent: { code: "E42" } })),
      `the tool failed: {"code":"E42"}`
    )
  })
})

describe("McpToolResult, exactly", () => {
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
    ]
    assert.strictEqual(ErrorTextPolicy.toolText(toolError({ content })), "first\nlast")
    assert.strictEqual(ErrorTextPolicy.verbose(toolError({ content })), "first\nlast")
    const blank = [{ type: "text", text: " \n " }]
    const none = "the tool failed without an error message"
    assert.strictEqual(ErrorTextPolicy.toolText(toolError({ content: blank })), none)
    // content that is not a list has no text
    assert.strictEqual(ErrorTextPolicy.toolText(toolError({ content: "text" })), none)
    // nor do entries of a list that are not blocks
    const odd = [null, "text", 7, { type: "text", text: "kept" }] as unknown as McpToolResult.ToolResult["content"]
    assert.strictEqual(ErrorTextPolicy.toolText(toolError({ content: odd })), "kept")
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
    ]
    assert.deepStrictEqual(toResult({ content }, ErrorTextPolicy.toolText), {
      _tag: "Success",
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
  })

  it("a block key named __proto__ stays an ordinary property (E7)", () => {
    const block = JSON.parse(`{"type":"text","text":"a","__proto__":{"x":1}}`)
    const outcome = toResult({ content: [block] }, ErrorTextPolicy.toolText)
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
    const both = { content: [{ type: "text", text: "new" }], toolResult: "old" }
    assert.deepStrictEqual(toResult(both, ErrorTextPolicy.toolText), {
      _tag: "Success",
      value: [{ type: "text", text: "new" }]
    })
    assert.deepStrictEqual(toResult({}, ErrorTextPolicy.toolText), { _tag: "Success", value: [] })
    assert.deepStrictEqual(toResult({ isError: true }, ErrorTextPolicy.toolText), {
      _tag: "Failure",
      message: "the tool failed without an error message"
    })
  })
})

describe("McpToolResult's resource and prompt text", () => {
  const png = Buffer.from([1, 2, 3]).toString("base64")
  const hello = Buffer.from("hello").toString("base64")

  it("resourceForModel gives the URI, the MIME type when there is one, and text for text or a UTF-8 blob of a text type", () => {
    assert.deepStrictEqual(McpToolResult.resourceForModel({ uri: "file:///a", text: "A" }), {
      uri: "file:///a",
      text: "A"
    })
    assert.deepStrictEqual(McpToolResult.resourceForModel({ uri: "file:///a", mimeType: "text/plain", blob: hello }), {
      uri: "file:///a",
      mimeType: "text/plain",
      text: "hello"
    })
    assert.deepStrictEqual(McpToolResult.resourceForModel({ uri: "file:///p", mimeType: "image/png", blob: png }), {
      uri: "file:///p",
      mimeType: "image/png",
      blob: png
    })
    assert.deepStrictEqual(McpToolResult.resourceForModel({ uri: "file:///b", blob: hello }), {
      uri: "file:///b",
      blob: hello
    })
    assert.strictEqual(McpToolResult.resourceText({ uri: "file:///b", blob: hello }), "hello")
  })

  it("contentText: text as it is, a text resource with its URI, everything else one bracketed line with its size", () => {
    assert.strictEqual(McpToolResult.contentText({ type: "text", text: "plain" } as never), "plain")
    // "aA==" is one byte: the padding is not counted
    assert.strictEqual(
      McpToolResult.contentText({ type: "image", data: "aA==", mimeType: "image/png" } as never),
      "[image image/png, 1 bytes]"
    )
    assert.strictEqual(
      McpToolResult.contentText({ type: "audio", data: "AAAA", mimeType: "audio/wav" } as never),
      "[audio audio/wav, 3 bytes]"
    )
    const resource = (contents: McpToolResult.ResourceContents) =>
      McpToolResult.contentText({ type: "resource", resource: contents } as never)
    assert.strictEqual(resource({ uri: "file:///a", text: "A" }), "Resource file:///a:\nA")
    assert.strictEqual(
      resource({ uri: "file:///a", mimeType: "text/csv", text: "A" }),
      "Resource file:///a (text/csv):\nA"
    )
    assert.strictEqual(
      resource({ uri: "file:///h", mimeType: "text/plain", blob: hello }),
      "Resource file:///h (text/plain):\nhello"
    )
    assert.strictEqual(
      resource({ uri: "file:///p", mimeType: "image/png", blob: png }),
      "[resource file:///p (image/png), 3 bytes]"
    )
    assert.strictEqual(resource({ uri: "file:///u", blob: hello }), "[resource file:///u, 5 bytes]")
    assert.strictEqual(
      McpToolResult.contentText({ type: "resource_link", uri: "file:///l", name: "l" } as never),
      "[resource link file:///l (l)]"
    )
    assert.strictEqual(
      McpToolResult.contentText(
        { type: "resource_link", uri: "file:///l", name: "l", mimeType: "text/plain", description: "a log" } as never
      ),
      "[resource link file:///l (l, text/plain): a log]"
    )
    assert.strictEqual(McpToolResult.contentText({ type: "video" }), "[video content]")
  })
})
