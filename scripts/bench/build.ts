// The bundle every lane runs: Zett ships TypeScript sources; lanes run them bundled (types stripped,
// dependencies left in node_modules) in plain node, as an application's build would, so no lane pays for a
// TypeScript loader. Split at the dynamic imports, so that a lane loads only its own library (start-up time
// is measured). Used by bench.ts and profile.ts.
import { build } from "esbuild"
import { join } from "node:path"
import { benchDir } from "./common.js"

/** Bundles lane.ts into scripts/bench/.build; the path of lane.mjs. */
export const buildLane = async (): Promise<string> => {
  await build({
    entryPoints: [join(benchDir, "lane.ts")],
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outdir: join(benchDir, ".build"),
    outExtension: { ".js": ".mjs" },
    external: ["effect", "@effect/*", "@modelcontextprotocol/*", "undici", "dotenv", "zod", "ioredis"],
    conditions: ["@zett/source"],
    // jsonc-parser's `main` is a UMD build whose requires esbuild cannot follow
    mainFields: ["module", "main"],
    logLevel: "warning"
  })
  return join(benchDir, ".build", "lane.mjs")
}
