import { mergeConfig, type ViteUserConfig } from "vitest/config"
import shared from "../vitest.shared.js"

// the scripts' own tests sit beside them (conformance/*.test.ts, *.test.ts)
const config: ViteUserConfig = { test: { name: "scripts", include: ["conformance/**/*.test.ts", "*.test.ts"] } }

export default mergeConfig(shared, config)
