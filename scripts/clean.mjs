import * as fs from "node:fs"
import * as path from "node:path"
import { parseArgs } from "node:util"

// no flags: any argument is an error, not ignored
parseArgs({ args: process.argv.slice(2), strict: true, options: {} })

for (const pkg of fs.readdirSync("packages")) {
  for (const dir of ["build", "dist", ".tsbuildinfo"]) {
    fs.rmSync(path.join("packages", pkg, dir), { recursive: true, force: true })
  }
}
