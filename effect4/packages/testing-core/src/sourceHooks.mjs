// Registers a resolve hook: an import of `x.js` that does not exist resolves to `x.ts` (the sources import their
// siblings by the name they have once built).
import { register } from "node:module"

const hook = `
    export async function resolve(specifier, context, next) {
      try {
        return await next(specifier, context)
      } catch (error) {
        if (error?.code === "ERR_MODULE_NOT_FOUND" && specifier.endsWith(".js")) {
          return next(specifier.slice(0, -3) + ".ts", context)
        }
        throw error
      }
    }
`

register("data:text/javascript," + encodeURIComponent(hook.toWellFormed()))
