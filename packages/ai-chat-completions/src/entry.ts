/**
 * The entry of @zett/ai-chat-completions as installed (`exports["."]`): it refuses an Effect outside the package's range
 * with one error before anything of Effect is loaded, then loads the package. A static `export * from
 * "./index.js"` would not do: Node links every static import before it runs any module, and an import that
 * Effect 4 lacks fails that linking first. `index.js` is loaded with `require()` (of an ES module, Node 20.19
 * and later), not with an awaited `import()`: an app's `require()` of this package could not load a module
 * that awaits. Bundlers (the `module` condition) get `index.js` itself, which they can follow. The names are
 * those of `index.ts` (a test compares them).
 *
 * @since 0.1.0
 */
import { createRequire } from "node:module"
import { refuseUnsupported } from "@zett/agent/EffectVersion"

refuseUnsupported(import.meta.url)

const index = createRequire(import.meta.url)("./index.js") as typeof import("./index.js")

export const {
  ChatCompletionsClient,
  ChatCompletionsLanguageModel
} = index
