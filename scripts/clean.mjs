import * as fs from "node:fs"
import * as path from "node:path"

for (const pkg of fs.readdirSync("packages")) {
  for (const dir of ["build", "dist", ".tsbuildinfo"]) {
    fs.rmSync(path.join("packages", pkg, dir), { recursive: true, force: true })
  }
}
