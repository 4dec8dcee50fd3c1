/**
 * What each definition's server speaks (its era verdict), for as long as a factory lives: the next connection
 * skips the question (a stdio server's process is new, but its program is the same). Kept in a store beyond the
 * factory's life when it is given one (`NodeMcpClientFactory.Options.verdictStore`).
 *
 * @internal
 */
import type { PriorDiscovery } from "@modelcontextprotocol/client"
import { DiscoverResultSchema } from "@modelcontextprotocol/core"
import * as McpClient from "@zett/mcp/McpClient"
import * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { KeyValueStore } from "effect/persistence"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Crypto from "node:crypto"
import * as JsonDepth from "./jsonDepth.js"

/**
 * A verdict from elsewhere (a tool cache, perhaps another process's) as the SDK takes it: a `server/discover`
 * result that is not one is no verdict, and the server is asked.
 */
const priorOf = (verdict: McpClient.Verdict | undefined): PriorDiscovery | undefined => {
  if (verdict === undefined) return undefined
  if (verdict.kind === "legacy") return { kind: "legacy" }
  const parsed = DiscoverResultSchema.safeParse(verdict.discover)
  return parsed.success ? { kind: "modern", discover: parsed.data } : undefined
}

const decodeVerdictOption = Schema.decodeUnknownOption(Schema.fromJsonString(McpClient.Verdict))
// a discover result is a few hundred bytes, a few levels deep
const MAX_VERDICT_CHARS = 65_536
const MAX_VERDICT_DEPTH = 32
/** A stored verdict, or none when the text is not one (another writer's, half a file), measured before it is parsed. */
const decodeVerdict = (text: string): McpClient.Verdict | undefined =>
  text.length > MAX_VERDICT_CHARS || JsonDepth.deeperThan(text, MAX_VERDICT_DEPTH)
    ? undefined
    : Option.getOrUndefined(decodeVerdictOption(text))

const sameVerdict = (a: PriorDiscovery, b: PriorDiscovery) =>
  a.kind === "legacy"
    ? b.kind === "legacy"
    : b.kind === "modern" && JSON.stringify(a.discover) === JSON.stringify(b.discover)

/** @internal */
export interface Connected {
  readonly client: McpClient.McpClient
  readonly verdict: PriorDiscovery | undefined
}

/** A definition's key in the verdict store: its digest, a short name that any store can keep. */
const storeKey = (key: string): string => Crypto.createHash("sha256").update(key).digest("hex").slice(0, 40)

/**
 * The verdicts of one factory.
 *
 * @internal
 */
export interface EraVerdicts {
  /**
   * Connects with the verdict known for the definition (this factory's, its store's, else the one given), else
   * asking the server; a known verdict that fails is forgotten and the server asked again, once. What a
   * connection settled on is kept.
   */
  readonly withVerdict: <E>(
    server: McpServerConfig.McpServerConfig,
    given: McpClient.Verdict | undefined,
    connect: (prior: PriorDiscovery | undefined) => Effect.Effect<Connected, E, Scope.Scope>
  ) => Effect.Effect<McpClient.McpClient, E, Scope.Scope>
}

/** @internal */
export const make = (store: KeyValueStore.KeyValueStore | undefined): EraVerdicts => {
  const verdicts = new Map<string, PriorDiscovery>()
  // the definitions whose stored verdict was read: after that, this factory's own knowledge is newer
  const recalled = new Set<string>()

  /**
   * One operation of the store, under the definition's digest: a store may make a file name of its key (a
   * definition holds any name), and whatever befalls it costs the next process a question, nothing more.
   */
  const stored = <A>(
    key: string,
    use: (store: KeyValueStore.KeyValueStore, name: string) => Effect.Effect<A, unknown>
  ) =>
    store === undefined ? Effect.succeed(undefined) : Effect.suspend(() => use(store, storeKey(key))).pipe(
      Effect.catchCause((cause) =>
        Effect.as(Effect.logDebug("the verdict store failed; the server is asked what it speaks", cause), undefined)
      )
    )

  /** The verdict this factory knows for a definition, else its store's (read once per definition). */
  const recall = (key: string): Effect.Effect<PriorDiscovery | undefined> => {
    const known = verdicts.get(key)
    if (known !== undefined || store === undefined || recalled.has(key)) return Effect.succeed(known)
    recalled.add(key)
    return stored(
      key,
      (store, name) =>
        Effect.map(store.get(name), (text) => text === undefined ? undefined : priorOf(decodeVerdict(text)))
    )
  }
  const remember = (key: string, verdict: PriorDiscovery) => {
    const before = verdicts.get(key)
    verdicts.set(key, verdict)
    if (before !== undefined && sameVerdict(before, verdict)) return Effect.void
    return Effect.asVoid(stored(key, (store, name) => store.set(name, JSON.stringify(verdict))))
  }
  const forget = (key: string) => {
    verdicts.delete(key)
    return Effect.asVoid(stored(key, (store, name) => store.remove(name)))
  }

  const withVerdict = <E>(
    server: McpServerConfig.McpServerConfig,
    given: McpClient.Verdict | undefined,
    connect: (prior: PriorDiscovery | undefined) => Effect.Effect<Connected, E, Scope.Scope>
  ): Effect.Effect<McpClient.McpClient, E, Scope.Scope> => {
    const key = McpServerConfig.cacheKey(server)
    return Effect.flatMap(recall(key), (recalledVerdict) => {
      // what this factory found out itself is newer than what it is told
      const known = recalledVerdict ?? priorOf(given)
      const first = connect(known)
      const connected = known === undefined
        ? first
        : Effect.catch(first, () => Effect.andThen(forget(key), connect(undefined)))
      return Effect.flatMap(
        connected,
        ({ client, verdict }) =>
          verdict === undefined ? Effect.succeed(client) : Effect.as(remember(key, verdict), client)
      )
    })
  }
  return { withVerdict }
}
