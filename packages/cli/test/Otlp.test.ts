/**
 * `zett` exports traces and metrics over OTLP/HTTP when the standard variables say where.
 */
import { assert, describe, it } from "@effect/vitest"
import { ScriptedModel } from "@zett/agent"
import * as Source from "@zett/testing-core/Source"
import * as FakeProvider from "@zett/testing/FakeProvider"
import * as Effect from "effect/Effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { demoCall, demoTools, fakeFactory, httpConfig, tempDir, zett } from "./utils/zett.js"

interface OtlpSpan {
  readonly name: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
}

const spansOf = (requests: ReadonlyArray<FakeProvider.Seen>): Array<OtlpSpan> =>
  requests.filter((r) => r.url === "/v1/traces").flatMap((r) =>
    r.body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans))
  )

/**
 * The span attributes of the GenAI semantic conventions that Zett writes, with the OTLP value type the
 * conventions define for each (opentelemetry.io/docs/specs/semconv/registry/attributes/gen-ai).
 */
const genAiTypes: Readonly<Record<string, string>> = {
  "gen_ai.operation.name": "stringValue",
  "gen_ai.provider.name": "stringValue",
  "gen_ai.request.model": "stringValue",
  "gen_ai.response.model": "stringValue",
  "gen_ai.response.id": "stringValue",
  "gen_ai.response.finish_reasons": "arrayValue",
  "gen_ai.usage.input_tokens": "intValue",
  "gen_ai.usage.output_tokens": "intValue",
  "gen_ai.usage.cache_read.input_tokens": "intValue",
  "gen_ai.tool.name": "stringValue",
  "gen_ai.tool.call.id": "stringValue",
  "gen_ai.tool.type": "stringValue",
  "gen_ai.tool.call.arguments": "stringValue",
  "gen_ai.tool.call.result": "stringValue",
  "gen_ai.input.messages": "stringValue",
  "gen_ai.output.messages": "stringValue"
}

const resourceOf = (request: FakeProvider.Seen) =>
  Object.fromEntries(
    request.body.resourceSpans[0].resource.attributes.map((a: any) => [a.key, Object.values(a.value)[0]])
  )

describe("zett OTLP export", () => {
  it.live("a local OTLP/HTTP receiver gets the spans of a zett call, under OTEL_SERVICE_NAME", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["demo"])
      const { factory } = fakeFactory({ demo: { tools: demoTools, call: demoCall } })
      const receiver = yield* FakeProvider.fakeProvider([FakeProvider.json(200, {})])
      const result = yield* zett(["call", "demo__add", "{\"a\":2,\"b\":40}", "--config", config], {
        clientFactory: factory,
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: "zett-otlp-test" }
      })
      assert.strictEqual(result.code, 0, result.stderr)
      const spans = spansOf(receiver.requests)
      const names = spans.map((span) => span.name)
      assert.include(names, "zett call")
      const root = spans.find((span) => span.name === "zett call")!
      // every other span of the command is in the command's trace
      for (const span of spans) if (span !== root) assert.isDefined(span.parentSpanId, span.name)
      const traces = receiver.requests.find((r) => r.url === "/v1/traces")!
      assert.strictEqual(traces.headers["content-type"], "application/json")
      assert.strictEqual(resourceOf(traces)["service.name"], "zett-otlp-test")
      // metrics go to their own path when the command ends
      assert.include(receiver.requests.map((r) => r.url), "/v1/metrics")
    }).pipe(Effect.scoped))

  it.live("the GenAI attributes of a zett run arrive with the types the conventions define: finish reasons as a string array", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["demo"])
      const { factory } = fakeFactory({ demo: { tools: demoTools, call: demoCall } })
      const receiver = yield* FakeProvider.fakeProvider([FakeProvider.json(200, {})])
      const model = ScriptedModel.layer([{ toolCalls: [{ name: "demo__add", arguments: { a: 2, b: 40 } }] }, {
        text: "42"
      }])
      const result = yield* zett(["run", "What is 2 + 40?", "--config", config], {
        clientFactory: factory,
        model,
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }
      })
      assert.strictEqual(result.code, 0, result.stderr)
      const attributes = spansOf(receiver.requests).flatMap((span) => span.attributes)
      const genAi = attributes.filter((attribute) => attribute.key.startsWith("gen_ai."))
      assert.includeMembers(genAi.map((attribute) => attribute.key), [
        "gen_ai.response.finish_reasons",
        "gen_ai.usage.input_tokens"
      ])
      for (const attribute of genAi) {
        assert.isDefined(genAiTypes[attribute.key], `${attribute.key} is not a GenAI attribute of the conventions`)
        assert.deepStrictEqual(Object.keys(attribute.value), [genAiTypes[attribute.key]], attribute.key)
      }
      const reasons = genAi.filter((attribute) => attribute.key === "gen_ai.response.finish_reasons").map((attribute) =>
        attribute.value
      )
      assert.deepStrictEqual(reasons, [
        { arrayValue: { values: [{ stringValue: "tool_calls" }] } },
        { arrayValue: { values: [{ stringValue: "stop" }] } }
      ])
    }).pipe(Effect.scoped))

  it.live("without an OTLP endpoint nothing is sent", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["demo"])
      const { factory } = fakeFactory({ demo: { tools: demoTools, call: demoCall } })
      const receiver = yield* FakeProvider.fakeProvider([FakeProvider.json(200, {})])
      const result = yield* zett(["call", "demo__add", "{\"a\":2,\"b\":40}", "--config", config], {
        clientFactory: factory,
        env: { OTEL_SERVICE_NAME: "zett-otlp-test" }
      })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.deepStrictEqual(receiver.requests, [])
    }).pipe(Effect.scoped))

  it.live(
    "a zett process loads no OpenTelemetry module without an endpoint, and loads them with one",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        // a module hook that reports every OpenTelemetry module the process resolves
        Fs.writeFileSync(
          Path.join(dir, "hooks.mjs"),
          "export async function resolve(specifier, context, next) {\n" +
            "  if (specifier.includes(\"opentelemetry\")) console.error(`RESOLVED ${specifier}`)\n" +
            "  return next(specifier, context)\n}\n"
        )
        Fs.writeFileSync(
          Path.join(dir, "register.mjs"),
          `import { register } from "node:module"\nregister(${
            JSON.stringify(pathToFileURL(Path.join(dir, "hooks.mjs")).href)
          })\n`
        )
        const config = httpConfig(dir, [])
        const run = (env: Record<string, string>) =>
          Effect.async<string>((resume) => {
            const child = ChildProcess.execFile(
              process.execPath,
              ["--import", Path.join(dir, "register.mjs"), ...Source.zettArgs, "tools", "--config", config],
              { cwd: Source.root, timeout: 120_000, env: { PATH: process.env.PATH ?? "", HOME: dir, ...env } },
              (_error, _stdout, stderr) => resume(Effect.succeed(stderr))
            )
            return Effect.sync(() => child.kill("SIGKILL"))
          })
        const without = yield* run({})
        assert.notInclude(without, "RESOLVED")
        const receiver = yield* FakeProvider.fakeProvider([FakeProvider.json(200, {})])
        const withEndpoint = yield* run({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url })
        assert.include(withEndpoint, "RESOLVED @effect/opentelemetry/NodeSdk")
      }).pipe(Effect.scoped),
    240_000
  )
})
