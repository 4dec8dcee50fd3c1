import * as path from "node:path"
import type { ViteUserConfig } from "vitest/config"

const config: ViteUserConfig = {
  test: {
    setupFiles: [path.join(__dirname, "vitest.setup.ts")],
    include: ["test/**/*.test.ts"],
    fakeTimers: { toFake: undefined },
    sequence: { concurrent: true },
    testTimeout: 30_000
  }
}

export default config
