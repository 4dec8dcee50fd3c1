#!/usr/bin/env node
// The `zett` command. The packages of this workspace are TypeScript sources: tsx (a dev dependency of the
// workspace root) compiles them as they are imported, so a fresh clone runs after `npm ci` with no build.
import { register } from "tsx/esm/api"

register()
await import("../src/main.ts")
