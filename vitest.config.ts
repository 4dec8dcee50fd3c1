import { defineConfig } from "vitest/config"

// One project per package, plus the scripts' own tests; each project's file merges vitest.shared.ts.
export default defineConfig({
  test: {
    projects: ["packages/*/vitest.config.ts", "scripts/vitest.config.ts"]
  }
})
