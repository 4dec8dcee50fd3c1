import * as Os from "node:os"
import * as Path from "node:path"
import { defineConfig } from "vitest/config"
import { BaseSequencer, type TestSpecification } from "vitest/node"

// The files that take minutes, longest first (measured in CI-like runs): with two workers, a file of ten minutes
// started late decides when the run ends, so these start first and the short files fill the other worker around
// them. The rest keep vitest's own order.
const longest = [
  "packages/cli/test/Consumer.test.ts",
  "packages/cli/test/readme.test.ts",
  "packages/cli/test/Task.process.test.ts",
  "packages/cli/test/Cli.process.test.ts",
  "packages/mcp-redis/test/Fleet.test.ts",
  "packages/cli/test/ServerRequests.process.test.ts"
].map((file) => Path.join(__dirname, file))

class LongestFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const rank = (spec: TestSpecification) => {
      const at = longest.indexOf(Path.resolve(spec.moduleId))
      return at === -1 ? longest.length : at
    }
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b))
  }
}

// One project per package, plus the scripts' own tests; each project's file merges vitest.shared.ts.
// At least two files at a time, even on two cores (vitest's default is one fewer than the cores): most files wait
// on the processes and sockets they start, and a second file uses that time.
export default defineConfig({
  test: {
    projects: ["packages/*/vitest.config.ts", "scripts/vitest.config.ts"],
    maxWorkers: Math.max(2, Os.availableParallelism() - 1),
    sequence: { sequencer: LongestFirst }
  }
})
