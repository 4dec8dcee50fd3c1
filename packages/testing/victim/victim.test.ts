// Not part of any suite: run alone by RunnerKill.test.ts, which kills the runner while this test holds a
// fixture server started the way the suites start theirs.
import { it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { httpFault } from "../src/Faults.js"

it.scopedLive("holds an HTTP fault server until the runner is killed", () =>
  Effect.gen(function*() {
    const url = yield* httpFault(process.env["ZETT_TEST_MARKER"] ?? "", [])
    process.stdout.write(`FIXTURE READY ${url}\n`)
    return yield* Effect.never
  }), 120_000)
