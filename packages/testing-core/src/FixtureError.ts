/**
 * What a fixture fails with when the world it sets up is not as a test needs it (a process that never got ready,
 * an update that never arrived): one tagged error, so a test's failure channel stays typed.
 */
import * as Data from "effect/Data"

export class FixtureError extends Data.TaggedError("FixtureError")<{ readonly message: string }> {}
