import * as path from "node:path"
import { defaultServerConditions } from "vite"
import type { ViteUserConfig } from "vitest/config"

// The packages' `exports` point at their build; this condition points them at the TypeScript sources, so the
// tests run on the sources with no build step (as `npm start` and the examples do, through `--conditions`).
const source = "@zett/source"

const config: ViteUserConfig = {
  resolve: { conditions: [source, ...defaultServerConditions] },
  ssr: { resolve: { conditions: [source, ...defaultServerConditions], externalConditions: [source] } },
  test: {
    setupFiles: [path.join(__dirname, "vitest.setup.ts")],
    include: ["test/**/*.test.ts"],
    fakeTimers: { toFake: undefined },
    sequence: { concurrent: true },
    // a limit for a test that hangs, not a measure: on a machine busy with other work a worker can stall for tens of
    // seconds, and tests that pass in one or two seconds alone were cut off at 30
    testTimeout: 120_000,
    // A worker runs its files in one module graph: importing Effect and the packages once per worker, not per file,
    // was about a third of the suite's worker time (collect and setup). The tests keep no state in modules: each
    // builds its layers, servers and processes in its own scope.
    isolate: false,
    poolOptions: { forks: { execArgv: [`--conditions=${source}`] }, threads: { execArgv: [`--conditions=${source}`] } }
  }
}

export default config
