// @ts-nocheck
// `npm run mutate [-- <package> | <file glob>] [--concurrency <n>]`: StrykerJS (stryker.config.json) on the logic modules in `scope` below,
// or on one package (`agent`, `mcp`) or file glob. Only the tests of the package that holds the mutated code run
// (the integration and process suites would make a mutant cost minutes). Incremental: reports/mutation.
import { spawnSync } from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const { positionals, values } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  allowPositionals: true,
  // `--concurrency 1` on a machine shared with other work
  options: { concurrency: { type: "string" } }
})

// the logic modules in scope: what `npm run mutate` mutates without an argument
const scope = {
  agent: [
    "packages/agent/src/internal/run.ts",
    "packages/agent/src/Tool.ts",
    "packages/agent/src/Extension.ts",
    "packages/common/src/Scrubber.ts",
    "packages/common/src/EditDistance.ts"
  ],
  mcp: [
    "packages/common/src/McpTool.ts",
    "packages/common/src/McpToolResult.ts",
    "packages/mcp/src/McpToolResult.ts",
    "packages/common/src/internal/toolName.ts",
    "packages/common/src/internal/jsonSchema.ts",
    "packages/mcp-config/src/McpConfiguration.ts",
    "packages/mcp-config/src/internal/config.ts",
    "packages/common/src/McpConfigFile.ts",
    "packages/common/src/McpConfigEntry.ts",
    "packages/mcp-config/src/internal/entries.ts",
    "packages/mcp-config/src/internal/expansion.ts",
    "packages/mcp-config/src/internal/servers.ts",
    "packages/mcp-config/src/internal/auth.ts",
    "packages/common/src/McpConfigWording.ts",
    "packages/common/src/McpConfigVariables.ts",
    "packages/common/src/McpConfigDialect.ts",
    "packages/mcp/src/McpToolCache.ts",
    "packages/mcp/src/McpConnections.ts",
    "packages/mcp/src/McpExtension.ts",
    "packages/mcp/src/internal/session.ts",
    "packages/mcp/src/McpToolkit.ts",
    "packages/mcp/src/McpClient.ts"
  ]
}
// fast unit suites per package: what a mutant is tested against
const tests = {
  agent: ["packages/agent/test/*.test.ts", "packages/common/test/*.test.ts"],
  mcp: [
    "packages/mcp/test/McpTool.test.ts",
    "packages/common/test/McpTool.test.ts",
    "packages/common/test/McpToolResult.test.ts",
    "packages/common/test/McpConfig*.test.ts",
    "packages/mcp-config/test/McpConfiguration.test.ts",
    "packages/mcp-config/test/McpConfiguration.property.test.ts",
    "packages/mcp-config/test/McpConfiguration.variables.test.ts",
    "packages/mcp-config/test/McpConfiguration.entries.test.ts",
    "packages/mcp-config/test/McpConfiguration.reload.test.ts",
    "packages/mcp-config/test/AuthConfig.test.ts",
    "packages/mcp-config/test/AuthConfig.entries.test.ts",
    "packages/mcp/test/McpToolCache.test.ts",
    "packages/mcp/test/McpToolCache.persisted.test.ts",
    // entries another writer stored: checked before use (an in-memory backing; a redis-server of its own)
    "packages/mcp/test/McpToolCache.stored.test.ts",
    "packages/mcp-redis/test/RedisToolCache.stored.test.ts",
    // the lock path of the shared cache on a lock of the test's own, on TestClock
    "packages/mcp/test/McpToolCache.lock.test.ts",
    // a redis-server of its own per test (@zett/testing RedisServer): seconds in all
    "packages/mcp-redis/test/RedisToolCache.test.ts",
    "packages/mcp/test/McpConnectionPool.test.ts",
    "packages/mcp/test/McpConnections.test.ts",
    "packages/mcp/test/McpExtension.test.ts",
    "packages/mcp-config/test/McpExtension.config.test.ts",
    "packages/mcp/test/McpExtension.observed.test.ts",
    "packages/mcp/test/McpExtension.features.test.ts",
    "packages/mcp-node/test/McpExtension.features.test.ts",
    "packages/mcp/test/McpToolkit.test.ts",
    "packages/mcp/test/McpClient.test.ts",
    "packages/mcp-node/test/NodeMcpClient.test.ts",
    "packages/mcp/test/McpServerConfig.test.ts",
    // the MCP features (progress, list changes, resources as tools, server requests) through the extension (in-process servers; a few stdio/HTTP tests of seconds each)
    "packages/mcp/test/Progress.test.ts",
    "packages/mcp-node/test/Progress.test.ts",
    "packages/mcp-node/test/ToolListChanged.test.ts",
    "packages/mcp-node/test/ResourceTools.test.ts",
    "packages/mcp-node/test/ServerRequests.test.ts"
  ]
}

const target = positionals[0]
const packageOf = (glob) =>
  glob.includes("packages/agent/") || /packages\/common\/src\/(Scrubber|EditDistance)/.test(glob) ? "agent" : "mcp"
const runs = target === undefined
  ? Object.keys(scope).map((pkg) => ({ pkg, mutate: scope[pkg] }))
  : target in scope
  ? [{ pkg: target, mutate: scope[target] }]
  : [{ pkg: packageOf(target), mutate: [target] }]

for (const { mutate, pkg } of runs) {
  const args = [
    "stryker",
    "run",
    "--mutate",
    mutate.join(","),
    ...(values.concurrency === undefined ? [] : ["--concurrency", values.concurrency])
  ]
  const env = { ...process.env, ZETT_MUTATE_TESTS: tests[pkg].join(",") }
  const result = spawnSync("npx", args, { cwd: root, stdio: "inherit", env })
  if (result.status !== 0) process.exit(result.status ?? 1)
}
