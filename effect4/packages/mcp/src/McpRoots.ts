/**
 * Roots (`roots/list`), opt-in: the directories (or other URIs) a server may work in. With an `McpRoots` in the
 * client factory's context the factory declares `roots: { listChanged: true }`, answers `roots/list` with the
 * current roots, and sends `notifications/roots/list_changed` to every open connection when they change
 * (`set`).
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Path from "effect/Path"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { TypeId } from "./McpError.js"

/**
 * One root as the server gets it.
 *
 * @since 1.0.0
 * @category models
 */
export interface Root {
  readonly uri: string
  readonly name?: string | undefined
}

/**
 * A root as configured: a path (made absolute against the working directory and turned into a `file://` URI), a
 * `file://` URI (kept as it is), or either with a name. MCP roots are `file://` URIs: any other scheme is an
 * `InvalidRoot`.
 *
 * @since 1.0.0
 * @category models
 */
export type Input = string | { readonly path: string; readonly name?: string | undefined } | {
  readonly uri: string
  readonly name?: string | undefined
}

/**
 * A configured root that cannot be one: an empty path or URI (`Empty`), a path that has no `file://` URI
 * (`InvalidPath`), or a URI of another scheme than `file:` (`UnsupportedScheme`).
 *
 * @since 1.0.0
 * @category errors
 */
export class InvalidRoot extends Schema.TaggedError<InvalidRoot>("@zett/mcp/InvalidRoot")("InvalidRoot", {
  root: Schema.String,
  reason: Schema.Literals(["Empty", "InvalidPath", "UnsupportedScheme"]),
  description: Schema.String
}) {
  /**
   * @since 1.0.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * @since 1.0.0
   */
  override get message(): string {
    return `roots: ${JSON.stringify(this.root)}: ${this.description}`
  }
}

/**
 * @since 1.0.0
 * @category models
 */
export interface Service {
  /**
   * Whether servers are told that the client answers these requests (the capability is declared): false for the
   * default `none`, true for a service made here; a service of your own says which it is.
   */
  readonly offered: boolean
  readonly get: Effect.Effect<ReadonlyArray<Root>>
  /** Replaces the roots; every open connection is sent `notifications/roots/list_changed`. */
  readonly set: (roots: ReadonlyArray<Input>) => Effect.Effect<void, InvalidRoot>
  /** The changes from now on, until the scope closes (the factory subscribes each connection in its own scope). */
  readonly subscribe: Effect.Effect<PubSub.Subscription<ReadonlyArray<Root>>, never, Scope.Scope>
}

/**
 * The roots and their changes. Provided to the client factory's layer (or with the extension's `roots` option),
 * it makes the factory declare the capability when it is `offered`; by default it is `none`, which is not, and
 * nothing is declared.
 *
 * @since 1.0.0
 * @category tags
 */
export const McpRoots: Context.Reference<Service> = Context.Reference<Service>("@zett/mcp/McpRoots", {
  defaultValue: (): Service => none
})

/**
 * The default: roots are not offered (the capability is not declared).
 *
 * @since 1.0.0
 * @category constructors
 */
export const none: Service = {
  offered: false,
  get: Effect.succeed([]),
  set: () => Effect.void,
  // a subscription to changes nobody publishes
  subscribe: Effect.flatMap(PubSub.unbounded<ReadonlyArray<Root>>(), PubSub.subscribe)
}

// a Windows drive (C:\) is a path, not a scheme
const hasScheme = (s: string) => /^[a-z][a-z0-9+.-]+:/i.test(s)

/**
 * A configured root as the server gets it: paths become absolute `file://` URIs.
 *
 * @since 1.0.0
 * @category utils
 */
export const toRoot = (input: Input): Effect.Effect<Root, InvalidRoot, Path.Path> => {
  const uriOf = (text: string, isUri: boolean): Effect.Effect<string, InvalidRoot, Path.Path> => {
    if (text === "") return new InvalidRoot({ root: text, reason: "Empty", description: "an empty path" })
    if (!isUri) {
      return Effect.flatMap(Path.Path, (path) =>
        Effect.mapBoth(path.toFileUrl(path.resolve(text)), {
          onFailure: () => new InvalidRoot({ root: text, reason: "InvalidPath", description: "not a path" }),
          onSuccess: (url) => url.href
        }))
    }
    return text.toLowerCase().startsWith("file://")
      ? Effect.succeed(text)
      : new InvalidRoot({
        root: text,
        reason: "UnsupportedScheme",
        description: "a root must be a path or a file:// URI"
      })
  }
  if (typeof input === "string") return Effect.map(uriOf(input, hasScheme(input)), (uri) => ({ uri }))
  return Effect.map(
    "uri" in input ? uriOf(input.uri, true) : uriOf(input.path, false),
    (uri) => input.name === undefined ? { uri } : { uri, name: input.name }
  )
}

/**
 * @since 1.0.0
 * @category constructors
 */
export const make = (roots: ReadonlyArray<Input>): Effect.Effect<Service, InvalidRoot, Path.Path> =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const changes = yield* PubSub.unbounded<ReadonlyArray<Root>>()
    let current = yield* Effect.forEach(roots, toRoot)
    return {
      offered: true,
      get: Effect.sync(() => current),
      set: (roots) =>
        Effect.flatMap(Effect.provideService(Effect.forEach(roots, toRoot), Path.Path, path), (next) => {
          current = next
          return PubSub.publish(changes, next)
        }),
      subscribe: PubSub.subscribe(changes)
    }
  })

/**
 * @since 1.0.0
 * @category layers
 */
export const layer = (roots: ReadonlyArray<Input>): Layer.Layer<never, InvalidRoot, Path.Path> =>
  Layer.effect(McpRoots)(make(roots))

/**
 * Runs `f` on every change of the roots from now until the scope closes (subscribed before it returns, so no
 * change made after it is missed).
 *
 * @since 1.0.0
 * @category utils
 */
export const onChange = (
  roots: Service,
  f: (roots: ReadonlyArray<Root>) => Effect.Effect<void>
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.flatMap(
    roots.subscribe,
    (changes) => Effect.asVoid(Effect.forkScoped(Effect.forever(Effect.flatMap(PubSub.take(changes), f))))
  )
