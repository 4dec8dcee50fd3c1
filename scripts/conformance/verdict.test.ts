import { describe, expect, it } from "vitest"
import { verdict } from "./verdict.mjs"

const success = { id: "tool-call", status: "SUCCESS" }

describe("a run's verdict", () => {
  it("passes when the suite passed, a check succeeded, and the driver drove it", () => {
    expect(verdict({ status: 0, output: "", checks: [success, { id: "note", status: "INFO" }], stderr: "" })).toEqual({
      passed: true,
      reasons: []
    })
  })

  it("fails when the suite failed the run though every check succeeded: the client exited 1 after a failed call", () => {
    const run = verdict({
      status: 1,
      output: "Client exited with code 1\n❌ OVERALL: FAILED",
      checks: [success],
      stderr: "FAILED add_numbers: MCP server conformance: tools/call failed\n"
    })
    expect(run.passed).toBe(false)
    expect(run.reasons).toEqual([
      "the suite failed the run (exit 1): Client exited with code 1",
      "call failed: add_numbers: MCP server conformance: tools/call failed"
    ])
  })

  it("fails when every check was skipped", () => {
    const run = verdict({
      status: 0,
      output: "",
      checks: [{ id: "sep-2640-host-no-prefetch", status: "SKIPPED" }],
      stderr: ""
    })
    expect(run).toEqual({ passed: false, reasons: ["every check was SKIPPED: nothing was tested"] })
  })

  it("fails when the suite wrote no check (a scenario it did not run)", () => {
    const run = verdict({ status: 0, output: "SKIPPED: scenario 'x' is not applicable", checks: [], stderr: "" })
    expect(run.passed).toBe(false)
    expect(run.reasons[0]).toContain("no checks (the suite said: SKIPPED: scenario 'x' is not applicable)")
  })

  it("fails on a warning or a failed check, and when the driver could not drive the scenario", () => {
    expect(
      verdict({
        status: 0,
        output: "",
        checks: [success, { id: "wif-no-retry", status: "WARNING", description: "retried" }],
        stderr: ""
      })
    )
      .toEqual({ passed: false, reasons: ["WARNING wif-no-retry: retried"] })
    const undriven = verdict({
      status: 0,
      output: "",
      checks: [success],
      stderr: "zett-conformance: cannot drive x: the context's \"k\" is used by no configuration\n"
    })
    expect(undriven).toEqual({
      passed: false,
      reasons: ["zett-conformance: cannot drive x: the context's \"k\" is used by no configuration"]
    })
  })
})
