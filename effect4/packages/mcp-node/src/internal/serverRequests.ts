/**
 * The requests a server sends to the client (elicitation, sampling, roots) and where they run.
 *
 * MCP does not say which of the client's requests a server request belongs to (on stdio nothing could carry
 * it). A connection knows which tool calls it has in flight (each call, as it starts, records the fiber it runs
 * in), so:
 *
 * - with one call in flight, the handler runs as part of that call: forked with the calling fiber's context
 *   (its services: the agent's model and the request's sampling count; its log annotations and span), and
 *   interrupted when the call ends, however it ends (result, failure, interruption, `callTimeout`); the call
 *   waits for it to stop;
 * - with several in flight, it runs with the context of the first of them and is interrupted once all of them
 *   have ended;
 * - with none (`roots/list` right after `initialize`), it runs in the connection's scope with the connection's
 *   own services: those the factory was made with, and a sampling count of the connection's.
 *
 * In every case it is also interrupted when the server cancels the request (the SDK's `ctx.mcpReq.signal`) or the
 * connection closes.
 *
 * @internal
 */
import {
  type Client,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
  ProtocolError,
  ProtocolErrorCode
} from "@modelcontextprotocol/client"
import type { Scrubber } from "@zett/agent"
import * as McpElicitation from "@zett/mcp/McpElicitation"
import * as McpError from "@zett/mcp/McpError"
import { McpRequestError } from "@zett/mcp/McpError"
import * as McpRoots from "@zett/mcp/McpRoots"
import * as McpSampling from "@zett/mcp/McpSampling"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as NodeMcpElicitation from "../NodeMcpElicitation.js"

/** @internal */
export interface Handlers {
  readonly elicitation: Option.Option<McpElicitation.Service>
  readonly sampling: Option.Option<McpSampling.Service>
  readonly roots: Option.Option<McpRoots.Service>
}

const offered = <A extends { readonly offered: boolean }>(service: A): Option.Option<A> =>
  service.offered ? Option.some(service) : Option.none()

/**
 * The handlers in context (`McpElicitation`, `McpSampling`, `McpRoots`, each a reference whose default, `none`,
 * is not offered): those that say they are offered. @internal
 */
export const handlersInContext: Effect.Effect<Handlers> = Effect.all({
  elicitation: Effect.map(McpElicitation.McpElicitation, offered),
  sampling: Effect.map(McpSampling.McpSampling, offered),
  roots: Effect.map(McpRoots.McpRoots, offered)
})

/** A capability is declared only when its handler is installed. @internal */
export const capabilities = (handlers: Handlers): ClientCapabilities => ({
  ...(Option.isSome(handlers.elicitation) ? { elicitation: { form: { applyDefaults: true }, url: {} } } : {}),
  ...(Option.isSome(handlers.sampling) ? { sampling: {} } : {}),
  ...(Option.isSome(handlers.roots) ? { roots: { listChanged: true } } : {})
})

/** @internal */
export const none = (handlers: Handlers): boolean =>
  Option.isNone(handlers.elicitation) && Option.isNone(handlers.sampling) && Option.isNone(handlers.roots)

const result = (r: ElicitResult): ElicitResult => r

// JSON-RPC's code for a request that timed out (the SDK keeps its own timeouts local, with no wire code)
const REQUEST_TIMEOUT = -32001

/** What the server is answered with instead of a result. */
class Refused extends Data.TaggedError("Refused")<{ readonly code: number; readonly reason: string }> {}

interface Call {
  /** The calling fiber, suspended in the call while it is in flight: its context is read when a request comes. */
  readonly fiber: Fiber.Fiber<unknown, unknown>
  readonly onEnd: Set<Effect.Effect<void>>
  /** Why the client refused the server's requests that came while the call was in flight. */
  readonly refused: Array<string>
}

/**
 * A call that failed after the client refused a request the server made while it ran: the refusal is why (the
 * server's own error, or the SDK passing on the refusal, says less).
 */
const afterRefusal = (call: Call) => <E>(error: E): E | McpRequestError =>
  call.refused.length > 0 && McpError.isMcpError(error) && error._tag === "McpRequestError" &&
    (error.reason === "Remote" || error.reason === "Unknown")
    ? new McpRequestError({
      server: error.server,
      method: error.method,
      reason: "Refused",
      description: `the client refused a request the server made during the call: ${call.refused[0]}`,
      ...(error.code !== undefined ? { code: error.code } : {})
    })
    : error

/** Where a request that came during `call` runs: the calling fiber's context, log annotations and span. */
const runtimeOf = (call: Call): Context.Context<never> => call.fiber.context

/** @internal */
export class ServerRequests {
  private readonly calls = new Set<Call>()
  private clients: Array<Client> = []
  constructor(
    readonly server: string,
    readonly handlers: Handlers,
    private readonly scrubber: Scrubber.Scrubber,
    private readonly runtime: Context.Context<never>,
    private readonly fibers: FiberSet.FiberSet<unknown, unknown>,
    private readonly counter: McpSampling.RequestCounter["Service"]
  ) {}

  /** Runs `self` as a call that server requests may belong to, in the fiber that runs it. */
  readonly track = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | McpRequestError, R> =>
    Effect.withFiber((fiber) => {
      const call: Call = { fiber, onEnd: new Set(), refused: [] }
      this.calls.add(call)
      return Effect.ensuring(
        Effect.mapError(self, afterRefusal(call)),
        Effect.suspend(() => {
          this.calls.delete(call)
          return call.onEnd.size === 0
            ? Effect.void
            : Effect.all(call.onEnd, { discard: true, concurrency: "unbounded" })
        })
      )
    })

  /** Runs a handler where it belongs (see the module's comment), as a promise for the SDK. */
  private run<A>(effect: Effect.Effect<A, Refused>, signal: AbortSignal): Promise<A> {
    const calls = [...this.calls]
    const first = calls[0]
    // set up before the fiber starts: `runForkWith` runs it at once, and the calls may end before it returns
    let fiber: Fiber.Fiber<A, Refused> | undefined
    let left = calls.length
    const end = Effect.suspend(() => --left === 0 && fiber !== undefined ? Fiber.interrupt(fiber) : Effect.void)
    for (const call of calls) call.onEnd.add(end)
    const abort = () => fiber?.interruptUnsafe()
    signal.addEventListener("abort", abort, { once: true })
    fiber = Effect.runForkWith(first === undefined ? this.runtime : runtimeOf(first))(effect)
    FiberSet.addUnsafe(this.fibers, fiber)
    if ((calls.length > 0 && left === 0) || signal.aborted) fiber.interruptUnsafe()
    const running = fiber
    return new Promise<A>((resolve, reject) =>
      running.addObserver((exit) => {
        signal.removeEventListener("abort", abort)
        for (const call of calls) call.onEnd.delete(end)
        if (Exit.isSuccess(exit)) return resolve(exit.value)
        const failure = Cause.findErrorOption(exit.cause)
        if (Option.isSome(failure)) {
          for (const call of calls) call.refused.push(failure.value.reason)
          return reject(new ProtocolError(failure.value.code, failure.value.reason))
        }
        reject(
          Cause.hasInterruptsOnly(exit.cause)
            ? new ProtocolError(REQUEST_TIMEOUT, "cancelled: the tool call it came with ended")
            : new ProtocolError(ProtocolErrorCode.InternalError, "the client failed to answer")
        )
      })
    )
  }

  /** Declares nothing itself: sets the handlers on a client built with `capabilities(handlers)`. */
  install(client: Client): Client {
    this.clients.push(client)
    const { elicitation, roots, sampling } = this.handlers
    if (Option.isSome(elicitation)) {
      client.setRequestHandler(
        "elicitation/create",
        (request, ctx) => this.run(this.elicit(elicitation.value, request.params), ctx.mcpReq.signal)
      )
    }
    if (Option.isSome(sampling)) {
      client.setRequestHandler(
        "sampling/createMessage",
        (request, ctx) => this.run(this.sample(sampling.value, request.params), ctx.mcpReq.signal)
      )
    }
    if (Option.isSome(roots)) {
      client.setRequestHandler(
        "roots/list",
        (_request, ctx) => this.run(Effect.map(roots.value.get, (roots) => ({ roots: [...roots] })), ctx.mcpReq.signal)
      )
    }
    return client
  }

  /**
   * The answer to a request a task asks for input with (the Tasks extension's `inputRequests`): the same as to the
   * request sent by itself during a call, and run where that runs; refused when its handler is not installed.
   */
  answer(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    const { elicitation, roots, sampling } = this.handlers
    if (method === "elicitation/create" && Option.isSome(elicitation)) {
      return this.run(this.elicit(elicitation.value, params as ElicitRequest["params"]), signal)
    }
    if (method === "sampling/createMessage" && Option.isSome(sampling)) {
      return this.run(this.sample(sampling.value, params as McpSampling.Request["params"]), signal)
    }
    if (method === "roots/list" && Option.isSome(roots)) {
      return this.run(Effect.map(roots.value.get, (roots) => ({ roots: [...roots] })), signal)
    }
    return Promise.reject(new ProtocolError(ProtocolErrorCode.MethodNotFound, `the client does not offer ${method}`))
  }

  private sample(handler: McpSampling.Service, params: McpSampling.Request["params"]) {
    return handler.handle({ server: this.server, params: this.scrubber.scrubDeep(params) }).pipe(
      // counted against the agent request in the call's context; outside one, against this connection
      // (whose own runtime has its counter)
      (handle) =>
        Effect.flatMap(Effect.serviceOption(McpSampling.RequestCounter), (given) =>
          Option.isSome(given)
            ? handle
            : Effect.provideService(handle, McpSampling.RequestCounter, this.counter)),
      Effect.tapError((error) =>
        Effect.annotateLogs(Effect.logWarning(error.message), {
          "mcp.server": this.server,
          "mcp.stream": "requests"
        })
      ),
      Effect.mapError((error) => new Refused({ code: error.code, reason: error.message }))
    )
  }

  /** Sends `notifications/roots/list_changed` on every change until the connection's scope closes. */
  watchRoots(): Effect.Effect<void, never, Scope.Scope> {
    return Option.match(this.handlers.roots, {
      onNone: () => Effect.void,
      onSome: (roots) =>
        McpRoots.onChange(roots, () =>
          Effect.promise(() =>
            // only a client still connected (HTTP may have tried a first one on Streamable HTTP and closed it)
            Promise.all(this.clients.map((client) =>
              client.transport === undefined ? undefined : client.sendRootsListChanged().catch(() => {})
            ))
          ))
    })
  }

  private elicit(
    handler: McpElicitation.Service,
    params: ElicitRequest["params"]
  ): Effect.Effect<ElicitResult, Refused> {
    const server = this.server
    const scrubber = this.scrubber
    return Effect.gen(function*() {
      const message = scrubber.scrub(params.message)
      const request: McpElicitation.Request = params.mode === "url"
        ? { _tag: "Url", server, message, url: scrubber.scrub(params.url), elicitationId: params.elicitationId }
        : { _tag: "Form", server, message, requestedSchema: scrubber.scrubDeep(params.requestedSchema) }
      const response = yield* handler.handle(request)
      if (response.action !== "accept") return result({ action: response.action })
      if (request._tag === "Url") return result({ action: "accept" })
      const content = McpElicitation.applyDefaults(request.requestedSchema, response.content ?? {})
      const problem = NodeMcpElicitation.check(request.requestedSchema, content)
      if (problem !== undefined) {
        const reason = `the reply does not match the requested schema (${problem}); it was not sent`
        yield* Effect.logWarning(`MCP server ${server}: elicitation refused: ${reason}`)
        return yield* new Refused({
          code: ProtocolErrorCode.InvalidParams,
          reason: `elicitation refused by the client: ${reason}`
        })
      }
      return result({ action: "accept", content: content as NonNullable<ElicitResult["content"]> })
    }).pipe(
      // a line caused by a server's request: a host may limit how many of them it prints
      Effect.annotateLogs({ "mcp.server": server, "mcp.stream": "requests" }),
      Effect.withSpan("McpElicitation.handle", { attributes: { "mcp.server": server } })
    )
  }
}

/**
 * The server requests of one connection, whose scope interrupts what still runs when it closes. A request made
 * outside any call runs with `own`: the services the factory was made with, and a sampling count of this
 * connection's (not those of whichever request happened to connect it).
 *
 * @internal
 */
export const make = (
  server: string,
  handlers: Handlers,
  scrubber: Scrubber.Scrubber,
  own: Context.Context<never>
): Effect.Effect<ServerRequests, never, Scope.Scope> =>
  Effect.gen(function*() {
    const fibers = yield* FiberSet.make<unknown, unknown>()
    const counter = McpSampling.counter()
    const runtime = Context.add(own, McpSampling.RequestCounter, counter)
    const requests = new ServerRequests(server, handlers, scrubber, runtime, fibers, counter)
    yield* requests.watchRoots()
    return requests
  })

/**
 * The server requests of a new connection, when the factory has handlers (none: `undefined`, and the connection
 * declares no capability and tracks nothing).
 *
 * @internal
 */
export const ofConnection = (
  handlers: Handlers,
  own: Context.Context<never>,
  server: string,
  scrubber: Scrubber.Scrubber
): Effect.Effect<ServerRequests | undefined, never, Scope.Scope> =>
  none(handlers) ? Effect.succeed(undefined) : make(server, handlers, scrubber, own)
