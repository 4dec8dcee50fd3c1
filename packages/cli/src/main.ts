/**
 * The process entry of `zett` (started by `bin/zett.mjs`): runs the command with the process's arguments
 * and exits with its code once standard output and standard error are flushed.
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Cli from "./Cli.js"
import { ExitCode } from "./CliError.js"
import * as Output from "./Output.js"

const flushAndExit = (code: number) => {
  process.exitCode = code
  // an empty write's callback runs once everything written before it is out (pipes may be asynchronous)
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code)))
}

NodeRuntime.runMain(Cli.run(process.argv.slice(2)).pipe(Effect.provide(Output.layerNode)), {
  disableErrorReporting: true,
  disablePrettyLogger: true,
  teardown: (exit, _onExit) =>
    flushAndExit(
      Exit.isSuccess(exit)
        ? Number(exit.value)
        : Cause.isInterruptedOnly(exit.cause)
        ? ExitCode.interrupted
        : ExitCode.failed
    )
})
