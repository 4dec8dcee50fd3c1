// The vitest configuration of `npm run mutate`: the shared settings, and only the unit suites that
// scripts/mutate.mjs names (ZETT_MUTATE_TESTS), run from the root.
import { mergeConfig } from "vitest/config"
import shared from "./vitest.shared.js"

export default mergeConfig(shared, {
  test: {
    // this one project, not the root vitest.config.ts's projects
    projects: [{ extends: true, test: { name: "mutate" } }],
    include: (process.env.ZETT_MUTATE_TESTS ?? "packages/*/test/*.test.ts").split(","),
    sequence: { concurrent: false },
    // instrumented code on a busy machine: the property suites take minutes, not the usual 30 s
    testTimeout: 300_000
  }
})
