/**
 * The fault-injecting MCP server (servers/faulty-server.mjs: one fault per `--fault=<name>`, over stdio or
 * Streamable HTTP) and its server definitions, the client factory the fault runs use, a naive npx-style
 * wrapper, and what a fault test checks afterwards: processes carrying the test's marker and sockets of this
 * process. Shared by the test suites and the soak.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeMcpClientFactory from "@zett/mcp-node/NodeMcpClientFactory"
import * as ProcessGroups from "@zett/mcp-node/ProcessGroups"
import * as McpClientFactory from "@zett/mcp/McpClientFactory"
import * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as Processes from "./Processes.js"

export const node = process.execPath
const servers = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "..", "servers")
export const faultyServer = Path.join(servers, "faulty-server.mjs")
export const wrapper = Path.join(servers, "wrapper.mjs")

/** Live processes whose environment carries `ZETT_TEST_MARKER=<marker>`. */
export const withMarker = (marker: string): Array<Processes.ProcessInfo> =>
  Processes.list().filter((p) => {
    if (!Processes.isLive(p)) return false
    try {
      return Fs.readFileSync(`/proc/${p.pid}/environ`, "latin1").split("\0").includes(`ZETT_TEST_MARKER=${marker}`)
    } catch {
      return false
    }
  })

/** The socket inodes this process holds open (`/proc/self/fd` links `socket:[n]`). */
export const sockets = (): Set<string> => {
  const out = new Set<string>()
  for (const fd of Fs.readdirSync("/proc/self/fd")) {
    try {
      const link = Fs.readlinkSync(`/proc/self/fd/${fd}`)
      if (link.startsWith("socket:")) out.add(link)
    } catch {
      // closed meanwhile
    }
  }
  return out
}

/** The sockets open now that were not open in `before`. */
export const newSockets = (before: ReadonlySet<string>): Array<string> => [...sockets()].filter((s) => !before.has(s))

/** The command line of the fault server over stdio, for a server definition or a configuration entry. */
export const stdioArgs = (
  name: string,
  faults: ReadonlyArray<string>,
  extra: ReadonlyArray<string> = []
): Array<string> => [faultyServer, ...faults.map((f) => `--fault=${f}`), `--name=${name}`, ...extra]

/** A stdio server definition of the fault server, its process marked with `marker`. */
export const stdioFault = (
  name: string,
  marker: string,
  faults: ReadonlyArray<string>,
  extra: ReadonlyArray<string> = []
): McpServerConfig.McpStdioServer =>
  McpServerConfig.stdio({
    name,
    command: node,
    args: stdioArgs(name, faults, extra),
    env: { ZETT_TEST_MARKER: marker }
  })

/**
 * The SDK-backed client factory (short close steps unless `options` say otherwise), except for the servers
 * named in `inMemory`, which are reached in-process whatever their definition says.
 */
export const factoryLayer = (
  inMemory: Readonly<
    Record<string, () => NodeMcpClientFactory.InMemoryServer | Promise<NodeMcpClientFactory.InMemoryServer>>
  >,
  options: NodeMcpClientFactory.Options = { closeTimeout: "300 millis" }
): Layer.Layer<McpClientFactory.McpClientFactory> =>
  Layer.effect(
    McpClientFactory.McpClientFactory,
    Effect.gen(function*() {
      const sdk = yield* NodeMcpClientFactory.make(options)
      const memory = yield* NodeMcpClientFactory.makeInMemory(inMemory)
      return McpClientFactory.of((
        server
      ) => (Object.hasOwn(inMemory, server.name) ? memory.connect(server) : sdk.connect(server)))
    })
  ).pipe(Layer.provide(ProcessGroups.layer), Layer.provide(NodeContext.layer))

/** Starts the fault server over Streamable HTTP for the length of the scope; its `/mcp` URL. */
export const httpFault = (
  marker: string,
  faults: ReadonlyArray<string>,
  extra: ReadonlyArray<string> = []
): Effect.Effect<string, Error, Scope.Scope> =>
  Effect.map(
    Processes.spawnScoped({
      command: node,
      args: [faultyServer, "--http", "--port=0", ...faults.map((f) => `--fault=${f}`), ...extra],
      env: { ZETT_TEST_MARKER: marker },
      ready: /listening on (\S+)/
    }),
    (p) => /listening on (\S+)/.exec(p.output())![1]!
  )

/** One line of a fault server's own record (`--record=<file>`). */
export interface RecordEntry {
  readonly event: "ready" | "SIGTERM" | "wait-started" | "wait-cancelled"
  readonly pid: number
  /** SIGTERM: the servers of the same record that had not exited when this one received it */
  readonly alive?: ReadonlyArray<number>
}

/** What the fault servers wrote to a record file (`--record=<file>`), in order. */
export const readRecord = (file: string): Array<RecordEntry> =>
  Fs.existsSync(file)
    ? Fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) =>
      JSON.parse(line) as RecordEntry
    )
    : []
