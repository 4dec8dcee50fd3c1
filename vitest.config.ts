import * as Os from "node:os"
import { defineConfig } from "vitest/config"

// One project per package, plus the scripts' own tests; each project's file merges vitest.shared.ts.
// At least two files at a time, even on two cores (vitest's default is one fewer than the cores): most files wait
// on the processes and sockets they start, and a second file uses that time.
export default defineConfig({
  test: {
    projects: ["packages/*/vitest.config.ts", "scripts/vitest.config.ts"],
    maxWorkers: Math.max(2, Os.availableParallelism() - 1)
  }
})
