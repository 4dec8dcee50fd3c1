import { mergeConfig, type ViteUserConfig } from "vitest/config"
import shared from "../vitest.shared.js"

// The workspace's own tests (not one package's): the packed packages installed into an app outside the repository.
const config: ViteUserConfig = { test: { include: ["*.test.ts"] } }

export default mergeConfig(shared, config)
