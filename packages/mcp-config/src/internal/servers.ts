/**
 * A server built from its decoded entry: its values expanded, an `envFile` read, the URL and headers checked.
 *
 * @internal
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as McpConfigDialect from "@zett/common/McpConfigDialect"
import * as McpConfigEntry from "@zett/common/McpConfigEntry"
import { segment, setOwn } from "@zett/common/McpConfigWording"
import { McpHttpServer, McpStdioServer } from "@zett/mcp/McpServerConfig"
import * as Dotenv from "dotenv"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Auth from "./auth.js"
import type * as Entries from "./entries.js"
import { expandSecrets, expandText, type Expansion, FieldIssue } from "./expansion.js"

const serverFields = (entry: Entries.StdioEntry | Entries.RemoteEntry, expansion: Expansion) => ({
  ...(entry.timeout !== undefined
    ? { timeout: Duration.millis(McpConfigDialect.timeoutMillis(expansion.dialect, entry.timeout)) }
    : {}),
  ...(entry.includeTools !== undefined ? { includeTools: entry.includeTools } : {}),
  ...(entry.excludeTools !== undefined ? { excludeTools: entry.excludeTools } : {}),
  ...(entry.resources !== undefined ? { resources: entry.resources } : {}),
  ...(entry.skills !== undefined ? { skills: entry.skills } : {}),
  ...(entry.alwaysLoad !== undefined ? { alwaysLoad: entry.alwaysLoad } : {}),
  ...(entry.protocol !== undefined ? { protocol: entry.protocol } : {}),
  secrets: expansion.secrets.filter((value) => value.length > 0).map((value) => Redacted.make(value))
})

const readEnvFile = (expansion: Expansion, workspace: string, file: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const absolute = path.resolve(workspace, file)
    const text = yield* fs.readFileString(absolute).pipe(
      Effect.mapError((error) =>
        new FieldIssue({
          field: ".envFile",
          reason: `cannot read the file${error._tag === "SystemError" ? ` (${error.reason})` : ""}`
        })
      )
    )
    const parsed = Dotenv.parse(text)
    for (const value of Object.values(parsed)) expansion.secrets.push(value)
    return parsed
  })

/**
 * A process: `envFile`'s values first, the entry's `env` over them.
 *
 * @internal
 */
export const stdio = (
  name: string,
  entry: Entries.StdioEntry,
  expansion: Expansion,
  workspace: string
): Effect.Effect<McpStdioServer, FieldIssue, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const command = yield* expandText(expansion, "command", ".command", entry.command)
    if (command === "") {
      return yield* new FieldIssue({ field: ".command", reason: "is empty once its variables are expanded" })
    }
    const args = yield* Effect.forEach(entry.args ?? [], (arg, i) => expandText(expansion, "args", `.args[${i}]`, arg))
    const fromFile = entry.envFile === undefined
      ? {}
      : yield* Effect.flatMap(
        expandText(expansion, "envFile", ".envFile", entry.envFile),
        (file) => readEnvFile(expansion, workspace, file)
      )
    const env = yield* expandSecrets(expansion, "env", ".env", entry.env)
    const cwd = entry.cwd === undefined ? undefined : yield* expandText(expansion, "cwd", ".cwd", entry.cwd)
    const merged: Record<string, Redacted.Redacted<string>> = {}
    for (const [key, value] of Object.entries(fromFile)) setOwn(merged, key, Redacted.make(value))
    for (const [key, value] of Object.entries(env)) setOwn(merged, key, value)
    return new McpStdioServer({
      name,
      command,
      args,
      env: merged,
      ...(cwd !== undefined ? { cwd } : {}),
      ...serverFields(entry, expansion)
    })
  })

/**
 * A server over HTTP: an http(s) URL, headers without line breaks, and its authorization if it has one.
 *
 * @internal
 */
export const remote = (
  name: string,
  entry: Entries.RemoteEntry,
  expansion: Expansion
): Effect.Effect<McpHttpServer, FieldIssue> =>
  Effect.gen(function*() {
    const key = McpConfigEntry.urlKeys.find((key) => entry[key] !== undefined)!
    const url = yield* expandText(expansion, "url", `.${key}`, entry[key]!)
    const urlIssue = McpConfigEntry.urlIssue(url)
    if (urlIssue !== undefined) return yield* new FieldIssue({ field: `.${key}`, reason: urlIssue })
    const headers = yield* expandSecrets(expansion, "headers", ".headers", entry.headers)
    for (const [header, value] of Object.entries(headers)) {
      const issue = McpConfigEntry.headerValueIssue(Redacted.value(value))
      if (issue !== undefined) return yield* new FieldIssue({ field: `.headers${segment(header)}`, reason: issue })
    }
    const auth = yield* Auth.build(entry, expansion)
    const transport = McpConfigEntry.transport(expansion.dialect, key, entry.type)
    return new McpHttpServer({
      name,
      url,
      headers,
      transport,
      ...(auth !== undefined ? { auth } : {}),
      ...serverFields(entry, expansion)
    })
  })
