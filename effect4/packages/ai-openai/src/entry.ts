/**
 * The entry of @zett/ai-openai as installed (`exports["."]`): it refuses an Effect outside the package's range with
 * one error before anything of Effect is loaded, then loads the package. A static `export * from "./index.js"`
 * would not do: Node links every static import before it runs any module, and an import that Effect 3 lacks fails
 * that linking first (see `EffectVersion.loadIndex`). Bundlers (the `module` condition) get `index.js` itself,
 * which they can follow. The names are those of `index.ts` (a test compares them).
 *
 * @since 1.0.0
 */
import { loadIndex } from "@zett/agent/EffectVersion"
import type * as Index from "./index.js"

export const {
  OpenAiClient,
  OpenAiLanguageModel
} = loadIndex<typeof Index>(import.meta.url)
