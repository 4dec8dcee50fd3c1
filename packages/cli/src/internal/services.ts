/**
 * What a `zett` run may be given instead of its defaults, for the commands' handlers.
 *
 * @internal
 */
import type { Model } from "@zett/agent"
import type { McpClientFactory } from "@zett/mcp"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as Option from "effect/Option"

export class Services extends Context.Tag("@zett/cli/Cli/Services")<Services, {
  /** The client factory: the SDK-backed one unless given; made on first use, so `--help` loads no MCP code. */
  readonly clientFactory: Effect.Effect<McpClientFactory.McpClientFactory["Type"]>
  readonly model: Option.Option<Layer.Layer<Model.Model, unknown>>
}>() {}
