// Whether one run of a scenario passed, from what the suite left: its exit status and output, the checks it
// wrote, and the client's stderr.

/**
 * @param {{ status: number | null, output: string, checks: ReadonlyArray<{ id: string, status: string, errorMessage?: string, description?: string }>, stderr: string }} run
 * @returns {{ passed: boolean, reasons: Array<string> }}
 */
export const verdict = ({ checks, output, status, stderr }) => {
  const scored = checks.filter((check) => check.status === "SUCCESS" || check.status === "FAILURE")
  const bad = checks.filter((check) => check.status === "FAILURE" || check.status === "WARNING")
  const undriven = stderr.match(/zett-conformance: cannot drive [^\n]*/)?.[0]
  const reasons = [
    ...(undriven !== undefined ? [undriven] : []),
    ...(checks.length === 0 ? [`no checks (the suite said: ${output.trim().split("\n").slice(-3).join(" / ")})`] : []),
    ...(checks.length > 0 && scored.length === 0 ? ["every check was SKIPPED: nothing was tested"] : []),
    ...bad.map((check) => `${check.status} ${check.id}: ${check.errorMessage ?? check.description}`),
    ...(status !== 0 && bad.length === 0 && checks.length > 0
      ? [
        `the suite failed the run (exit ${status}): ${output.match(/[^\n]*(client|timed out|exit)[^\n]*/i)?.[0] ?? ""}`
          .trim()
      ]
      : []),
    ...[...stderr.matchAll(/^FAILED ([^\n]*)/gm)].map((m) => `call failed: ${m[1]}`).slice(0, 3)
  ]
  const passed = status === 0 && scored.length > 0 && bad.length === 0 && undriven === undefined
  return { passed, reasons: passed ? [] : reasons }
}
