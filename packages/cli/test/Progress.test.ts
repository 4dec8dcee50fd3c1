/**
 * `zett call` and `zett run` draw a tool's progress as a bar on a terminal (standard error),
 * and nothing when the output is piped. In-process, with fake servers; real ones through a pseudo-terminal are in
 * Progress.process.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Extension, ScriptedModel } from "@zett/agent"
import { Output, Progress } from "@zett/cli"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import {
  awaitSleepFor,
  awaitSleeps,
  demoTools,
  fakeFactory,
  httpConfig,
  tempDir,
  terminalControl,
  zett
} from "./utils/zett.js"

const reports = [{ progress: 1, total: 2, message: "half" }, { progress: 2, total: 2 }]
const clearLine = "\r\u001b[2K"

describe("Progress.bar", () => {
  it("a report with a total is a bar, its count and percentage; without one, the count", () => {
    assert.strictEqual(
      Progress.bar({ progress: 3, total: 10, message: "copying" }),
      "[██████░░░░░░░░░░░░░░] 3/10 30% copying"
    )
    assert.strictEqual(Progress.bar({ progress: 0, total: 4 }, 4), "[░░░░] 0/4 0%")
    assert.strictEqual(Progress.bar({ progress: 9, total: 4 }, 4), "[████] 9/4 100%")
    assert.strictEqual(Progress.bar({ progress: 7 }), "7")
    assert.strictEqual(Progress.bar({ progress: 7, total: 0, message: "files" }), "7 files")
  })
})

describe("Progress.prompting", () => {
  const hasFrame = (text: string) => Progress.frames.some((frame) => text.includes(frame))

  it.effect("while a prompt holds the terminal no spinner frame is written; the spinner comes back after it", () =>
    Effect.gen(function*() {
      const { captured, output } = Output.makeMemory({ interactive: true })
      const done = yield* Deferred.make<void>()
      const answered = yield* Deferred.make<void>()
      const asking = yield* Deferred.make<void>()
      const spinner = yield* Effect.fork(
        Progress.withSpinner("Calling t…", () => Deferred.await(done)).pipe(
          Effect.provideService(Output.Output, output)
        )
      )
      yield* TestClock.adjust("200 millis")
      assert.isTrue(hasFrame(captured.stderr()))

      const prompt = yield* Effect.fork(
        Progress.prompting(Effect.zipRight(Deferred.succeed(asking, undefined), Deferred.await(answered))).pipe(
          Effect.provideService(Output.Output, output)
        )
      )
      yield* Deferred.await(asking)
      // the spinner's line is erased and the cursor shown as the prompt begins
      assert.isTrue(captured.stderr().endsWith(`${clearLine}\u001b[?25h`))
      const before = captured.stderr().length
      yield* TestClock.adjust("2 seconds")
      assert.strictEqual(captured.stderr().slice(before), "")

      yield* Deferred.succeed(answered, undefined)
      yield* Fiber.join(prompt)
      yield* TestClock.adjust("100 millis")
      const after = captured.stderr().slice(before)
      assert.isTrue(after.startsWith("\u001b[?25l"), JSON.stringify(after))
      assert.include(after, "Calling t…")
      assert.isTrue(hasFrame(after))

      yield* Deferred.succeed(done, undefined)
      yield* Fiber.join(spinner)
      assert.isTrue(captured.stderr().endsWith(`${clearLine}\u001b[?25h`))
    }))

  it.effect("a tool's progress bar is erased when a prompt begins; a report during the prompt is not drawn, the next one is", () =>
    Effect.gen(function*() {
      const { captured, output } = Output.makeMemory({ interactive: true })
      const extension = yield* Progress.extension().pipe(Effect.provideService(Output.Output, output))
      // the progress extension reads nothing of the run's context
      const context = undefined as unknown as Extension.RunContext
      const report = (progress: number) =>
        extension.onEvent!(context, { _tag: "ToolProgress", runId: 1, toolCallId: "c1", tool: "t", progress, total: 4 })
      yield* report(1)
      assert.strictEqual(captured.stderr(), `${clearLine}t [█████░░░░░░░░░░░░░░░] 1/4 25%`)
      yield* Progress.prompting(
        Effect.gen(function*() {
          assert.strictEqual(captured.stderr().slice(-clearLine.length - 6), `${clearLine}\u001b[?25h`)
          const before = captured.stderr().length
          yield* report(2)
          assert.strictEqual(captured.stderr().length, before)
        })
      ).pipe(Effect.provideService(Output.Output, output))
      yield* report(3)
      assert.isTrue(captured.stderr().endsWith(`${clearLine}t [███████████████░░░░░] 3/4 75%`))
    }))

  it.effect("a tool that runs as a task: its status and message on the line, erased before the result", () =>
    Effect.gen(function*() {
      const { captured, output } = Output.makeMemory({ interactive: true })
      const extension = yield* Progress.extension().pipe(Effect.provideService(Output.Output, output))
      const context = undefined as unknown as Extension.RunContext
      yield* extension.onEvent!(context, {
        _tag: "ToolTask",
        runId: 1,
        toolCallId: "c1",
        tool: "builds__build",
        taskId: "t-1",
        status: "working",
        message: "step 2 of 5"
      })
      assert.strictEqual(captured.stderr(), `${clearLine}builds__build: task t-1 working (step 2 of 5)`)
      yield* extension.afterTool!(context, undefined as never, undefined as never, Option.none())
      assert.isTrue(captured.stderr().endsWith(clearLine))
    }))

  it.effect("piped, a prompt writes nothing of its own", () =>
    Effect.gen(function*() {
      const { captured, output } = Output.makeMemory({ interactive: false })
      const value = yield* Progress.prompting(Effect.succeed(7)).pipe(Effect.provideService(Output.Output, output))
      assert.strictEqual(value, 7)
      assert.strictEqual(captured.stderr(), "")
    }))
})

describe("zett call with progress", () => {
  const call = (interactive: boolean) =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["demo"])
      const { factory } = fakeFactory({ demo: { tools: demoTools, progress: reports } })
      const fiber = yield* Effect.fork(
        zett(["call", "--config", config, "demo__add", "{}"], { clientFactory: factory, interactive })
      )
      // the call's first report comes after a second; with a terminal, the spinner sleeps too
      yield* awaitSleeps(interactive ? 2 : 1)
      yield* awaitSleepFor("1 second")
      yield* TestClock.adjust("1 second")
      // the second report, a second after the first
      yield* awaitSleepFor("1 second")
      yield* TestClock.adjust("1 second")
      return yield* Fiber.join(fiber)
    })

  it.scoped("on a terminal, the spinner line shows the tool's progress as a bar, and is erased at the end", () =>
    Effect.gen(function*() {
      const result = yield* call(true)
      assert.strictEqual(result.code, 0, result.stderr)
      assert.include(result.stderr, "Calling demo__add…")
      assert.include(result.stderr, "demo__add [██████████░░░░░░░░░░] 1/2 50% half")
      assert.isTrue(result.stderr.endsWith(`${clearLine}\u001b[?25h`))
      assert.strictEqual(result.stdout, "[\n  {\n    \"type\": \"text\",\n    \"text\": \"add called\"\n  }\n]\n")
    }))

  it.scoped("piped, nothing is drawn: standard error stays empty", () =>
    Effect.gen(function*() {
      const result = yield* call(false)
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(result.stderr, "")
      assert.notMatch(result.stdout, terminalControl)
    }))
})

describe("zett run with progress", () => {
  const run = (interactive: boolean) =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["demo"])
      const { factory } = fakeFactory({ demo: { tools: demoTools, progress: reports } })
      const model = ScriptedModel.layer([{ toolCalls: [{ name: "demo__add", arguments: { a: 1, b: 2 } }] }, {
        text: "Done."
      }])
      const fiber = yield* Effect.fork(
        zett(["run", "Add.", "--config", config], { clientFactory: factory, model, interactive })
      )
      yield* awaitSleepFor("1 second")
      yield* TestClock.adjust("1 second")
      yield* awaitSleepFor("1 second")
      yield* TestClock.adjust("1 second")
      return yield* Fiber.join(fiber)
    })

  it.scoped("on a terminal, each report redraws the bar on standard error; it is erased before the result", () =>
    Effect.gen(function*() {
      const result = yield* run(true)
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(
        result.stderr,
        `${clearLine}demo__add [██████████░░░░░░░░░░] 1/2 50% half${clearLine}demo__add [████████████████████] 2/2 100%${clearLine}`
      )
      assert.strictEqual(
        result.stdout,
        "→ demo__add {\"a\":1,\"b\":2}\n← demo__add: [{\"type\":\"text\",\"text\":\"add called\"}]\nDone.\n"
      )
    }))

  it.scoped("piped, the transcript is the same and nothing else is written", () =>
    Effect.gen(function*() {
      const result = yield* run(false)
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(result.stderr, "")
      assert.strictEqual(
        result.stdout,
        "→ demo__add {\"a\":1,\"b\":2}\n← demo__add: [{\"type\":\"text\",\"text\":\"add called\"}]\nDone.\n"
      )
    }))
})
