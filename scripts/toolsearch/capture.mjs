// Captures the tool lists of real MCP servers from npm into fixtures/tools.json, for the tool search evaluation
// (`npm run eval:toolsearch`). Run it by hand when the set of servers changes:
//
//   node scripts/toolsearch/capture.mjs [--dir /tmp/zett-toolsearch-servers]
//
// The servers are installed into a folder outside the repository (never into its package.json), each is started
// with `node <its bin file>` (never npx), with no credentials: a server that needs a variable to start gets a
// dummy value, which is enough to list its tools. Each server's list is taken with the SDK client over stdio.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const argDir = process.argv.indexOf("--dir")
const dir = argDir > 0 ? process.argv[argDir + 1] : path.join(os.tmpdir(), "zett-toolsearch-servers")

/**
 * The servers: the npm package, the server name the model would see, extra arguments, and the dummy environment a
 * server needs to start. Versions are pinned so that a capture can be repeated.
 */
const servers = [
  { pkg: "@modelcontextprotocol/server-everything", version: "2026.8.31", name: "everything", args: ["stdio"] },
  { pkg: "@modelcontextprotocol/server-filesystem", version: "2026.8.31", name: "filesystem", args: [os.tmpdir()] },
  {
    pkg: "@modelcontextprotocol/server-memory",
    version: "2026.8.31",
    name: "memory",
    env: { MEMORY_FILE_PATH: path.join(os.tmpdir(), "zett-capture-memory.json") }
  },
  {
    pkg: "@modelcontextprotocol/server-github",
    version: "2025.4.8",
    name: "github",
    env: { GITHUB_PERSONAL_ACCESS_TOKEN: "dummy" }
  },
  { pkg: "@modelcontextprotocol/server-sequential-thinking", version: "2026.8.31", name: "thinking" },
  { pkg: "@modelcontextprotocol/server-puppeteer", version: "2025.5.12", name: "puppeteer" },
  {
    pkg: "@modelcontextprotocol/server-brave-search",
    version: "0.6.2",
    name: "brave",
    env: { BRAVE_API_KEY: "dummy" }
  },
  {
    pkg: "@modelcontextprotocol/server-slack",
    version: "2025.4.25",
    name: "slack",
    env: { SLACK_BOT_TOKEN: "dummy", SLACK_TEAM_ID: "T0" }
  },
  {
    pkg: "@modelcontextprotocol/server-gitlab",
    version: "2025.4.25",
    name: "gitlab",
    env: { GITLAB_PERSONAL_ACCESS_TOKEN: "dummy" }
  },
  {
    pkg: "@modelcontextprotocol/server-google-maps",
    version: "0.6.2",
    name: "maps",
    env: { GOOGLE_MAPS_API_KEY: "dummy" }
  },
  {
    pkg: "@modelcontextprotocol/server-postgres",
    version: "0.6.2",
    name: "postgres",
    args: ["postgresql://localhost:1/none"]
  },
  { pkg: "@playwright/mcp", version: "0.0.86", name: "playwright", args: ["--headless"] },
  { pkg: "@notionhq/notion-mcp-server", version: "2.5.2", name: "notion", env: { NOTION_TOKEN: "dummy" } },
  { pkg: "@upstash/context7-mcp", version: "4.1.1", name: "context7" },
  { pkg: "mcp-server-kubernetes", version: "4.1.7", name: "kubernetes" },
  { pkg: "@cyanheads/git-mcp-server", version: "2.15.3", name: "git" },
  { pkg: "@wonderwhy-er/desktop-commander", version: "0.2.52", name: "desktop" }
]

const install = () => {
  fs.mkdirSync(dir, { recursive: true })
  if (!fs.existsSync(path.join(dir, "package.json"))) {
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "zett-toolsearch-servers", private: true }))
  }
  const wanted = servers.map((server) => `${server.pkg}@${server.version}`)
  // install scripts download browsers and binaries this capture does not need
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", ...wanted], {
    cwd: dir,
    stdio: "inherit",
    env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: "1" }
  })
}

const binOf = (pkg) => {
  const root = path.join(dir, "node_modules", pkg)
  const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))
  const bin = typeof manifest.bin === "string" ? manifest.bin : Object.values(manifest.bin ?? {})[0]
  const file = bin ?? "dist/index.js"
  return { file: path.join(root, file), version: manifest.version }
}

const withTimeout = (promise, ms, what) =>
  Promise.race([
    promise,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms).unref())
  ])

const capture = async (server) => {
  const { file, version } = binOf(server.pkg)
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [file, ...(server.args ?? [])],
    env: { ...server.env, HOME: path.join(dir, "home") },
    stderr: "pipe",
    cwd: dir
  })
  const client = new Client({ name: "zett-toolsearch-capture", version: "0.0.0" })
  try {
    await withTimeout(client.connect(transport), 60_000, `${server.pkg} connect`)
    const tools = []
    let cursor
    do {
      const page = await withTimeout(
        client.listTools(cursor === undefined ? {} : { cursor }),
        60_000,
        `${server.pkg} tools/list`
      )
      for (const tool of page.tools) tools.push(tool)
      cursor = page.nextCursor
    } while (cursor !== undefined)
    return {
      name: server.name,
      package: server.pkg,
      version,
      instructions: client.getInstructions() ?? "",
      tools: tools.map((tool) => ({
        name: tool.name,
        description: tool.description ?? "",
        inputSchema: tool.inputSchema
      }))
    }
  } finally {
    await client.close().catch(() => {})
  }
}

fs.mkdirSync(path.join(dir, "home"), { recursive: true })
if (!process.argv.includes("--no-install")) install()
const captured = []
for (const server of servers) {
  try {
    const entry = await capture(server)
    captured.push(entry)
    console.log(`${server.pkg}@${entry.version}: ${entry.tools.length} tools`)
  } catch (error) {
    console.log(`${server.pkg}: skipped (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`)
  }
}
fs.mkdirSync(path.join(here, "fixtures"), { recursive: true })
const out = path.join(here, "fixtures", "tools.json")
fs.writeFileSync(
  out,
  JSON.stringify(
    { capturedAt: new Date().toISOString().slice(0, 10), node: process.version, servers: captured },
    null,
    1
  ) + "\n"
)
console.log(
  `${captured.length} servers, ${captured.reduce((n, s) => n + s.tools.length, 0)} tools -> ${
    path.relative(process.cwd(), out)
  }`
)
process.exit(0)
