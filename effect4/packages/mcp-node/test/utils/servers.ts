/**
 * Where the test servers are: the Effect-free servers of the 3 line's `packages/testing/servers` (shared by both
 * lines, not copied) and the npm servers installed in this workspace, each started as `node <file>`.
 */
import * as Data from "effect/Data"
import { createRequire } from "node:module"
import * as Path from "node:path"

/** The shared servers of `packages/testing/servers`. */
export const servers = Path.join(import.meta.dirname, "..", "..", "..", "..", "..", "packages", "testing", "servers")

export const node = process.execPath
export const wrapper = Path.join(servers, "wrapper.mjs")
export const faultyServer = Path.join(servers, "faulty-server.mjs")
export const modernServer = Path.join(servers, "modern-server.mjs")
export const taskServer = Path.join(servers, "task-server.mjs")
export const legacyTaskServer = Path.join(servers, "legacy-task-server.mjs")

/** The 3 line's own fixtures of this package (`packages/mcp-node/test/fixtures/servers`). */
export const fixtures = Path.join(
  import.meta.dirname,
  "..",
  "..",
  "..",
  "..",
  "..",
  "packages",
  "mcp-node",
  "test",
  "fixtures",
  "servers"
)

const require = createRequire(import.meta.url)

/** The entry of an npm server of this workspace (`@modelcontextprotocol/server-everything` ...). */
export const npmServer = (name: string): string =>
  Path.join(Path.dirname(require.resolve(`${name}/package.json`)), "dist", "index.js")

/**
 * What a fixture fails with when the world it sets up is not as a test needs it: one tagged error, so a test's
 * failure channel stays typed.
 */
export class FixtureError extends Data.TaggedError("FixtureError")<{ readonly message: string }> {}

/** The 3 line's configuration fixtures (`packages/mcp-config/test/fixtures`: config files, one per client dialect). */
export const configFixtures = Path.join(
  import.meta.dirname,
  "..",
  "..",
  "..",
  "..",
  "..",
  "packages",
  "mcp-config",
  "test",
  "fixtures"
)
