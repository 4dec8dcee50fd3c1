import { defineConfig } from "vitest/config"

// One project per package of the Effect 4 line; each project's file merges vitest.shared.ts.
export default defineConfig({
  test: {
    projects: ["packages/*/vitest.config.ts", "test/vitest.config.ts"]
  }
})
