/**
 * Roots (`roots/list`), opt-in: the directories (or other URIs) a server may work in. With an `McpRoots` in the
 * client factory's context the factory declares `roots: { listChanged: true }`, answers `roots/list` with the
 * current roots, and sends `notifications/roots/list_changed` to every open connection when they change
 * (`set`).
 *
 * @since 1.0.0
 */
import * as Schema from "effect/Schema"
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
