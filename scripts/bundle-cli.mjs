// Bundles the `zett` command into packages/cli/dist (ESM, split at dynamic imports), from the TypeScript
// sources. The installed bin runs this bundle: one file to parse instead of the hundreds of modules of the
// Effect packages, so `zett` starts in a fraction of the time. Each command's own modules load when it runs
// (a model provider only for `run`/`demo` with ZETT_MODEL set); `--version` is answered by the bin itself.
import * as esbuild from "esbuild"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"

// no flags: any argument is an error, not ignored
parseArgs({ args: process.argv.slice(2), strict: true, options: {} })

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const outdir = Path.join(root, "packages", "cli", "dist")
Fs.rmSync(outdir, { recursive: true, force: true })

const result = await esbuild.build({
  entryPoints: { main: Path.join(root, "packages", "cli", "src", "main.ts") },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  conditions: ["@zett/source"],
  // ES modules where a package has them: jsonc-parser's `main` is a UMD build whose requires esbuild cannot follow
  mainFields: ["module", "main"],
  minifyWhitespace: true,
  minifySyntax: true,
  metafile: true,
  logLevel: "warning",
  // bundled CommonJS modules call `require` for Node's built-ins
  banner: {
    js:
      "import { createRequire as __zettRequire } from \"node:module\"; const require = __zettRequire(import.meta.url);"
  }
})
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0)
process.stdout.write(
  `bundled zett into ${Path.relative(root, outdir)}: ${Object.keys(result.metafile.outputs).length} files, ${
    Math.round(bytes / 1024)
  } KB\n`
)
