// The bundle every lane runs: Zett ships TypeScript sources; lanes run them bundled (types stripped,
// dependencies left in node_modules) in plain node, as an application's build would, so no lane pays for a
// TypeScript loader. Split at the dynamic imports, so that a lane loads only its own library (start-up time
// is measured). Used by bench.ts and profile.ts.
import { build, type Plugin } from "esbuild"
import { isBuiltin } from "node:module"
import { join, relative } from "node:path"
import { pathToFileURL } from "node:url"
import { benchDir, rootDir } from "./common.js"

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

const effect4Dir = join(rootDir, "effect4")

/**
 * The 4 line's dependencies as the 4 line installs them: every package but `@zett/*` (bundled from its sources) is
 * resolved in effect4/ (its own `effect` 4.1.5, `@effect/platform-node` 4.1.5, the SDK) and left out of the bundle,
 * imported by its file URL; a module outside effect4/ (the bench's common.ts, `@zett/common`) gets effect4/'s too.
 */
const fromEffect4: Plugin = {
  name: "effect4-dependencies",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === "effect4" || args.path.startsWith("@zett/")) return undefined
      if (isBuiltin(args.path)) return { path: args.path, external: true }
      const inside = !relative(effect4Dir, args.resolveDir).startsWith("..")
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: inside ? args.resolveDir : effect4Dir,
        pluginData: "effect4"
      })
      if (resolved.errors.length > 0) return { errors: resolved.errors }
      return { path: pathToFileURL(resolved.path).href, external: true }
    })
  }
}

/**
 * Bundles the Effect 4 lanes (effect4/bench/lane4.ts: `zett4`, `effect4-mcpclient`) into
 * scripts/bench/.build/lane4.mjs, which runs on Node 22, split as lane.mjs is; the path of lane4.mjs. effect4/ must
 * be installed.
 */
export const buildLane4 = async (): Promise<string> => {
  await build({
    entryPoints: [join(effect4Dir, "bench", "lane4.ts")],
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node22",
    outdir: join(benchDir, ".build"),
    outExtension: { ".js": ".mjs" },
    plugins: [fromEffect4],
    conditions: ["@zett/source"],
    mainFields: ["module", "main"],
    logLevel: "warning"
  })
  return join(benchDir, ".build", "lane4.mjs")
}
