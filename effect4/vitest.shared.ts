import * as path from "node:path"
import { defaultServerConditions } from "vite"
import type { ViteUserConfig } from "vitest/config"

// As the Effect 3 line's: the packages' `exports` point at their build, and this condition points them (and
// @zett/common, which both lines share) at the TypeScript sources, so the tests run with no build step.
const source = "@zett/source"

const config: ViteUserConfig = {
  resolve: { conditions: [source, ...defaultServerConditions] },
  ssr: { resolve: { conditions: [source, ...defaultServerConditions], externalConditions: [source] } },
  test: {
    setupFiles: [path.join(import.meta.dirname, "vitest.setup.ts")],
    include: ["test/**/*.test.ts"],
    fakeTimers: { toFake: undefined },
    sequence: { concurrent: true },
    // a limit for a test that hangs, not a measure: on a machine busy with other work a worker can stall for tens of
    // seconds, and tests that pass in one or two seconds alone were cut off at 30
    testTimeout: 120_000,
    // As the Effect 3 line's: a worker imports Effect and the packages once for all its files, not once per file.
    isolate: false,
    execArgv: [`--conditions=${source}`]
  }
}

export default config
