// docs/conformance.md from the results of a full `npm run conformance` (run.mjs): written by the run, never by hand.
import * as Fs from "node:fs"

const cell = (run) => {
  if (run === undefined) return ""
  const succeeded = run.checks.filter((check) => check.status === "SUCCESS").length
  return `${run.passed ? "passed" : "**failed**"} (${succeeded}/${run.checks.length})`
}

export const writeReport = (summary, expectedFailures, file) => {
  const runs = summary.runs
  const scenarios = [...new Set(runs.map((run) => run.scenario))]
  const passed = runs.filter((run) => run.passed).length
  const lines = [
    "# The MCP conformance suite",
    "",
    `<!-- written by \`npm run conformance\` (scripts/conformance/report.mjs) from its results; do not edit -->`,
    "",
    `\`npm run conformance\` runs every client scenario of the official suite, \`@modelcontextprotocol/conformance\``,
    `${summary.suite}, against Zett: the scenarios \`conformance list --client\` lists, each at every wire the suite names it`,
    "for (its own revision tags, and every requirement set whose list names it; a scenario of an extension alone at the",
    "suite's default wire), in two modes, on both Effect lines: the 3 line (`scripts/conformance/client.ts`, on the",
    "Node that runs the runner) and the 4 line (`effect4/conformance/client.ts`, the same client written with the 4",
    "line's packages, on Node 22). `.ci/run` runs it; it fails when any run below fails that is not an expected failure.",
    "",
    "- **client**: `scripts/conformance/client.ts` with Zett's public API only: the server as a user configures it (an",
    "  mcp.json entry read by `@zett/mcp-config`), `NodeMcpClientFactory.connect`, `McpClient.discover`, then the calls",
    "  the scenario's context names or every tool with a value for each required argument, then every skill loaded.",
    "- **agent**: the same file through `NodeMcpExtension.layerAgent`, with a scripted model that calls every tool it was",
    "  given (or the context's calls) and loads every skill of the index it was shown.",
    "",
    "A run passes when the suite passes it (no failed check, no warning, no timeout, and the client exited 0 where the",
    "scenario expects success: the client exits 1 when any call or skill load failed), at least one check was scored",
    "(a run whose checks are all SKIPPED fails), and the driver knew how to drive it (every key of the scenario's context",
    "is used by the configuration, or named as one a user would not configure). The only per-scenario inputs are the",
    "`auth` form a user would write for the scenario's server (`configured` in client.ts, its values from the context)",
    "and, for `sep-2640-client-no-prefetch`, a user request that needs no skill.",
    "",
    `Last run: ${summary.date}, ${runs.length} runs of ${scenarios.length} scenarios, ${passed} passed, in ${summary.seconds} s.`,
    "",
    "## Expected failures",
    "",
    "Scenarios whose failure is Zett being right, in the suite versions where they fail; a run of one of these does not",
    "fail the whole run there.",
    "",
    ...Object.entries(expectedFailures).map(([scenario, { reason, versions }]) => {
      const own = runs.filter((run) => run.scenario === scenario)
      const applies = versions.test(summary.suite)
      const state = own.length === 0
        ? "not run"
        : own.every((run) => !run.passed)
        ? "fails here"
        : own.every((run) => run.passed)
        ? "passes here"
        : "fails in some runs here"
      return `- \`${scenario}\`, suite versions \`${versions.source}\` (${
        applies ? "this one" : `not ${summary.suite}`
      }; ${state}): ${reason}.`
    }),
    "",
    "## Every run",
    "",
    "Checks: how many of the run's checks succeeded, of all it reported (informational records included).",
    "",
    "| scenario | wire | Effect 3 client | Effect 3 agent | Effect 4 client | Effect 4 agent |",
    "| --- | --- | --- | --- | --- | --- |"
  ]
  for (const scenario of scenarios) {
    const wires = [...new Set(runs.filter((run) => run.scenario === scenario).map((run) => run.wire))]
    for (const wire of wires) {
      const of = (line, mode) =>
        runs.find((run) => run.scenario === scenario && run.wire === wire && run.line === line && run.mode === mode)
      lines.push(
        `| \`${scenario}\` | ${wire} | ${cell(of("3", "client"))} | ${cell(of("3", "agent"))} | ${
          cell(of("4", "client"))
        } | ${cell(of("4", "agent"))} |`
      )
    }
  }
  const failed = runs.filter((run) => !run.passed)
  if (failed.length > 0) {
    lines.push("", "## Why the failed runs failed", "")
    for (const run of failed) {
      lines.push(`- \`${run.scenario}\` at ${run.wire}, ${run.mode}, Effect ${run.line}:`)
      for (const reason of run.reasons.slice(0, 5)) {
        lines.push(`  - ${reason.replaceAll("|", "\\|").replaceAll("\n", " ")}`)
      }
    }
  }
  lines.push(
    "",
    "## The checks of each scenario",
    "",
    "Each check's id, with its statuses over the scenario's runs.",
    ""
  )
  for (const scenario of scenarios) {
    const counts = new Map()
    for (const run of runs.filter((run) => run.scenario === scenario)) {
      for (const check of run.checks) {
        const byStatus = counts.get(check.id) ?? {}
        byStatus[check.status] = (byStatus[check.status] ?? 0) + 1
        counts.set(check.id, byStatus)
      }
    }
    const text = [...counts].map(([id, byStatus]) =>
      `\`${id}\` (${Object.entries(byStatus).map(([status, n]) => `${status.toLowerCase()} ${n}`).join(", ")})`
    )
    lines.push(`- \`${scenario}\`: ${text.join(", ") || "no checks"}`)
  }
  Fs.writeFileSync(file, `${lines.join("\n")}\n`)
}
