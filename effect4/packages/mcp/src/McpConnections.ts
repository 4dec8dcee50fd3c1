/**
 * Connections to servers, for one request: at most one per server, acquired on first use into the request's `Scope` and
 * released when that scope closes, whatever the exit, so no process or socket outlives the request that needed it.
 *
 * Where a connection comes from is a `Source`: by default a fresh connection per request (`direct`), or,
 * opt-in, a borrowed one from a pool that keeps connections open across requests while they are used
 * (`pooled`).
 *
 * @since 1.0.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Equal from "effect/Equal"
import * as Exit from "effect/Exit"
import * as Hash from "effect/Hash"
import type * as Option from "effect/Option"
import * as RcMap from "effect/RcMap"
import * as Scope from "effect/Scope"
import type { McpClient, Verdict } from "./McpClient.js"
import type { ConnectOptions, McpClientFactory } from "./McpClientFactory.js"
import * as McpError from "./McpError.js"
import type { McpConnectError, McpTimeoutError } from "./McpError.js"
import * as McpServerConfig from "./McpServerConfig.js"

/**
 * Acquires a connection to a server into the `Scope` it runs in; closing that scope releases it.
 *
 * @since 1.0.0
 * @category models
 */
export interface Source {
  readonly acquire: (
    server: McpServerConfig.McpServerConfig,
    options?: ConnectOptions | undefined
  ) => Effect.Effect<McpClient, McpConnectError, Scope.Scope>
  /** Forget a connection that turned out dead, so the next acquire makes a new one. */
  readonly invalidate: (server: McpServerConfig.McpServerConfig) => Effect.Effect<void>
  /**
   * Optional: whether an acquire would find the connection open (a pooled one), so that it needs no connect
   * timeout: racing a timer costs a warm borrow more than the borrow itself.
   */
  readonly isOpen?: ((server: McpServerConfig.McpServerConfig) => boolean) | undefined
}

/**
 * A new connection each time: the request owns it and closes it (the default).
 *
 * @since 1.0.0
 * @category constructors
 */
export const direct = (factory: McpClientFactory["Service"]): Source => ({
  acquire: factory.connect,
  invalidate: () => Effect.void
})

/**
 * A pool in the current `Scope` (the extension layer's): one connection per server definition, shared by
 * the requests that use it and closed after `idleTimeToLive` without users, or when the pool's scope closes.
 * Closing the pool closes all of its connections at once, so N slow servers take the time of one.
 *
 * @since 1.0.0
 * @category constructors
 */
export const pooled = (
  factory: McpClientFactory["Service"],
  options: { readonly idleTimeToLive: Duration.Input }
): Effect.Effect<Source, never, Scope.Scope> =>
  Effect.gen(function*() {
    // Keyed by the whole definition, so an edited server gets a new connection and never a stale one. Effect 4's
    // RcMap closes an invalidated entry once the last request holding it lets go, and a new connection of the same
    // definition is an entry of its own (the Effect 3 line keys each connection by a generation for this).
    // the ids whose connection is open in the pool, each with its connection's mark: an invalidated connection that
    // closes after its successor opened under the same id must not unmark the successor
    const connected = new Map<string, object>()
    // Each connection lives in a child of `open`, a parallel scope; the RcMap entry closes that child when the
    // connection is idle or invalidated.
    const connect = ({ id, options, server }: PoolKey) =>
      Effect.flatMap(Scope.fork(open, "sequential"), (own) => {
        const mark = {}
        return Effect.andThen(
          Effect.addFinalizer((exit) =>
            Effect.andThen(
              Effect.sync(() => void (connected.get(id) === mark && connected.delete(id))),
              Scope.close(own, exit)
            )
          ),
          Effect.tap(
            Scope.provide(factory.connect(server, options), own),
            () => Effect.sync(() => void connected.set(id, mark))
          )
        )
      })
    const pool = yield* RcMap.make({ lookup: connect, idleTimeToLive: options.idleTimeToLive })
    // RcMap closes its entries one after another when its scope closes. `open` is added to the scope after the
    // RcMap, so it closes first, and closes every connection at once; the RcMap then finds them closed.
    const open = yield* Scope.fork(yield* Effect.scope, "parallel")
    return {
      acquire: (server, connectOptions) =>
        Effect.suspend(() => RcMap.get(pool, new PoolKey(McpServerConfig.cacheKey(server), server, connectOptions))),
      invalidate: (server) =>
        Effect.suspend(() => {
          const id = McpServerConfig.cacheKey(server)
          // the invalidated connection is not open for a borrower, though a request may still hold it
          connected.delete(id)
          return RcMap.invalidate(pool, new PoolKey(id, server))
        }),
      isOpen: (server) => connected.has(McpServerConfig.cacheKey(server))
    }
  })

/** A pool entry's key: equal by `id` alone; it carries the definition to connect with. */
class PoolKey implements Equal.Equal {
  constructor(
    readonly id: string,
    readonly server: McpServerConfig.McpServerConfig,
    readonly options?: ConnectOptions | undefined
  ) {}
  [Equal.symbol](that: unknown): boolean {
    return that instanceof PoolKey && that.id === this.id
  }
  [Hash.symbol](): number {
    return Hash.string(this.id)
  }
}

/**
 * @since 1.0.0
 * @category models
 */
export interface McpConnections {
  /**
   * The request's connection to `server`, acquired on first use. Concurrent first uses share one acquire;
   * a failed connect is remembered for the rest of the request, an interrupted one (a caller's timeout) is
   * not. The caller bounds the time (`McpError.within`): discovery bounds connect and list together.
   */
  readonly get: (server: McpServerConfig.McpServerConfig) => Effect.Effect<McpClient, McpConnectError>
  /**
   * As `get`, with the connect (not a connection already open) under `limit`: a warm call pays no timer.
   */
  readonly getWithin: (
    server: McpServerConfig.McpServerConfig,
    limit: Option.Option<Duration.Duration>
  ) => Effect.Effect<McpClient, McpConnectError | McpTimeoutError>
  /** Forget the request's connection to `server` (and the source's), after it was found dead. */
  readonly invalidate: (server: McpServerConfig.McpServerConfig) => Effect.Effect<void>
  /**
   * What the request learned about `server`'s revisions from elsewhere (a cached tool list's verdict), given to
   * its connect if it has not connected yet.
   */
  readonly learn: (server: McpServerConfig.McpServerConfig, verdict: Verdict | undefined) => void
}

/**
 * @since 1.0.0
 * @category constructors
 */
export const make = (options: {
  readonly source: Source
  readonly scope: Scope.Scope
}): Effect.Effect<McpConnections> =>
  Effect.sync(() => {
    // Connections close in parallel, so closing N slow servers takes the time of one. Their scope is forked from
    // the request's on first use: a request that finds its tools cached and calls none forks no scope. (Two first
    // uses at once may fork two; the spare one is empty and closes with the request.)
    let parentScope: Scope.Closeable | undefined
    const parent = Effect.suspend(() =>
      parentScope !== undefined
        ? Effect.succeed(parentScope)
        : Effect.map(Scope.fork(options.scope, "parallel"), (forked) => (parentScope ??= forked))
    )
    const connections = new Map<string, Effect.Effect<McpClient, McpConnectError>>()
    // the connections that are open, for a fast path that needs no memo and no timer
    const open = new Map<string, McpClient>()
    // verdicts of the request's cached tool lists, by server name
    const verdicts = new Map<string, Verdict>()
    // Each connection gets a child scope, so a connect that fails releases what it acquired at once.
    const connect = (server: McpServerConfig.McpServerConfig): Effect.Effect<McpClient, McpConnectError> =>
      Effect.flatMap(Effect.flatMap(parent, (parent) => Scope.fork(parent, "sequential")), (scope) =>
        options.source.acquire(server, verdictOptions(verdicts.get(server.name))).pipe(
          Scope.provide(scope),
          Effect.tap((client) =>
            Effect.sync(() => void open.set(server.name, client))
          ),
          Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause)))
        ))
    const get = (server: McpServerConfig.McpServerConfig): Effect.Effect<McpClient, McpConnectError> =>
      Effect.suspend(() => {
        let connection = connections.get(server.name)
        if (connection === undefined) {
          connection = Effect.runSync(Effect.cached(connect(server)))
          connections.set(server.name, connection)
        }
        const memo = connection
        // An interrupted connect (e.g. discovery's timeout) is forgotten, so a later use tries again.
        return Effect.onInterrupt(memo, () =>
          Effect.sync(() => {
            if (connections.get(server.name) === memo) connections.delete(server.name)
          }))
      })
    return {
      get,
      getWithin: (server, limit) =>
        Effect.suspend(() => {
          const client = open.get(server.name)
          return client !== undefined
            ? Effect.succeed(client)
            : options.source.isOpen?.(server) === true
            ? get(server)
            : McpError.within(get(server), { server: server.name, operation: "connect", limit })
        }),
      invalidate: (server) =>
        Effect.suspend(() => {
          connections.delete(server.name)
          open.delete(server.name)
          return options.source.invalidate(server)
        }),
      learn: (server, verdict) => {
        if (verdict !== undefined) verdicts.set(server.name, verdict)
      }
    }
  })

const verdictOptions = (verdict: Verdict | undefined): ConnectOptions | undefined =>
  verdict === undefined ? undefined : { verdict }
