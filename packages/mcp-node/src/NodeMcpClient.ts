/**
 * An `McpClient` over a connected SDK `Client`: requests scrubbed and traced, server requests answered in the
 * call that caused them, and calls timed by one deadline timer per connection. Every request honours
 * interruption: interrupting the fiber aborts the SDK request, which sends `notifications/cancelled`.
 *
 * @since 0.1.0
 */
import type { Client } from "@modelcontextprotocol/client"
import type { CallToolResult, Progress as SdkProgress, RequestOptions, Tool } from "@modelcontextprotocol/client"
import { ProtocolError } from "@modelcontextprotocol/client"
import {
  GetPromptResultSchema,
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ReadResourceResultSchema,
  ToolSchema
} from "@modelcontextprotocol/core"
import type { Skill as SdkSkill } from "@modelcontextprotocol/client/ext/skills"
import { SkillsClient, SkillVerificationError } from "@modelcontextprotocol/client/ext/skills"
import { Scrubber, Tracing } from "@zett/agent"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import type { CallLimits, CallOptions, ListToolsPage, Progress } from "@zett/mcp/McpClient"
import * as McpClient from "@zett/mcp/McpClient"
import { callBudget, clipName, normalizeResult, Notification } from "@zett/mcp/McpClient"
import * as McpError from "@zett/mcp/McpError"
import { McpRequestError, McpSkillVerificationError, McpTimeoutError } from "@zett/mcp/McpError"
import type * as McpSkills from "@zett/mcp/McpSkills"
import { z } from "zod"
import * as Deadlines from "./internal/deadlines.js"
import * as CallResult from "./internal/callResult.js"
import * as CallSignal from "./internal/callSignal.js"
import * as Errors from "./internal/errors.js"
import * as JsonDepth from "./internal/jsonDepth.js"
import * as ListedTools from "./internal/listedTools.js"
import type * as McpAuthSession from "@zett/mcp-auth/McpAuthSession"
import * as ServerRequests from "./internal/serverRequests.js"
import * as Subscriptions from "./internal/subscriptions.js"

/**
 * The longest timeout `setTimeout` accepts (about 24.8 days). The SDK arms a 60 s timer on every request
 * unless given a `timeout`; anything larger than this would overflow and fire at once.
 *
 * @since 0.1.0
 * @category constants
 */
export const sdkTimeoutDisabled = 2_147_483_647

// a type, not an interface: the SDK's request params want an index signature
type CallParams = { readonly name: string; readonly arguments: Record<string, unknown> }

const LooseListToolsResult = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() })

// A listed "tool" may be any JSON value; a field of a number, a string, an array or null reads as undefined.
const field = (candidate: unknown, key: "name" | "inputSchema"): unknown =>
  (candidate as { readonly [key: string]: unknown } | null)?.[key]

// The SDK requires `inputSchema.type: "object"`; a schema that leaves `type` out means an object all the
// same (as `McpTool.cleanSchema` reads it), so it is filled in rather than the tool dropped.
const withObjectType = (candidate: unknown): unknown => {
  const schema = field(candidate, "inputSchema")
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return candidate
  // a shortcut: the schema's own `type` would win the spread below, and the SDK's parse orders the keys
  if (Object.hasOwn(schema, "type")) return candidate
  return { ...(candidate as object), inputSchema: { type: "object", ...schema } }
}

// the JSON-RPC code of a header mismatch (the 2026-07-28 revision's HTTP headers)
const HEADER_MISMATCH = -32020

// a listing again after a header mismatch stops here, as the core's does
const MAX_RELIST_PAGES = 100

// well past any schema a provider takes (the core refuses those deeper than 128 levels), and far from the stack's end
const MAX_CHECKED_DEPTH = 256

/** The tools of a page that are valid one by one; each invalid one is named with its first problem. */
const lenientPage = (
  page: z.infer<typeof LooseListToolsResult>
): ListToolsPage & { readonly skipped: ReadonlyArray<string> } => {
  const tools: Array<Tool> = []
  const skipped: Array<string> = []
  for (const candidate of page.tools.map(withObjectType)) {
    // The protocol's schema reads a tool's input schema as JSON values all the way down, one stack frame a level:
    // a very deep one is checked without it, and left for the core to refuse with its own reason.
    const inputSchema = field(candidate, "inputSchema")
    const deep = JsonDepth.valueDeeperThan(inputSchema, MAX_CHECKED_DEPTH)
    const parsed = ToolSchema.safeParse(deep ? { ...(candidate as object), inputSchema: { type: "object" } } : candidate)
    if (parsed.success) {
      tools.push(deep ? { ...parsed.data, inputSchema: inputSchema as Tool["inputSchema"] } : parsed.data)
      continue
    }
    // a failed parse has at least one issue; one about the whole tool has an empty path
    const issue = parsed.error.issues[0]!
    const where = issue.path.length === 0 ? "" : `${issue.path.join(".")}: `
    skipped.push(`tool ${clipName(field(candidate, "name"))} is skipped: ${where}${issue.message}`)
  }
  const cache = cacheHint(page)
  return { tools, nextCursor: page.nextCursor, skipped, ...(cache !== undefined ? { cache } : {}) }
}

/**
 * The caching hint of a result (2026-07-28): a negative `ttlMs` is read as 0, a scope other than `public` as
 * `private` (what the SDK's own cache does with a missing one). A result without `ttlMs` has none.
 */
const cacheHint = (result: { readonly [key: string]: unknown }): McpClient.CacheHint | undefined => {
  const ttlMs = result.ttlMs
  if (typeof ttlMs !== "number" || Number.isNaN(ttlMs)) return undefined
  return { ttlMs: Math.max(0, ttlMs), scope: result.cacheScope === "public" ? "public" : "private" }
}

// OpenTelemetry's MCP conventions: the method, the session (Streamable HTTP), the tool
const spanAttributes = (client: Client, server: string, method: string): Record<string, unknown> => {
  const session = client.transport?.sessionId
  return { "mcp.method.name": method, "mcp.server": server, ...(session !== undefined ? { "mcp.session.id": session } : {}) }
}
const toolCallAttributes = (client: Client, server: string, name: string) => ({
  ...spanAttributes(client, server, "tools/call"),
  "gen_ai.operation.name": "execute_tool",
  "gen_ai.tool.name": name
})

// the W3C trace context of the request's span travels in `_meta` (a key the protocol reserves for it)
const withTrace = <P extends Record<string, unknown>>(params: P, traceparent: string | undefined): P =>
  traceparent === undefined
    ? params
    : { ...params, _meta: { ...(params._meta as Record<string, unknown> | undefined), traceparent } }

/**
 * A call's time limit as the connection's timer watches it: `entry` adds the call's deadline entry, which asks
 * `expire` when the deadline passes (and gets how to end the call with the error, unless it has ended), and wraps
 * the call's progress listener so that a report moves the deadline when each report starts the time afresh.
 */
interface Timing<E> {
  readonly entry: (expire: () => ((error: E) => void) | undefined) => TimedEntry
  readonly remove: (entry: TimedEntry) => void
}

interface TimedEntry extends Deadlines.Entry {
  readonly onProgress: (listener: (report: SdkProgress) => void) => (report: SdkProgress) => void
}

/** The timing of a call under `limits` with `timeout`, started when its entry is made (`McpClient.callBudget`). */
const timingOf = (deadlines: Deadlines.Deadlines, limits: CallLimits, timeout: Duration.Duration): Timing<McpTimeoutError> => ({
  entry: (expire) => {
    const clock = deadlines.clock
    const budget = callBudget(limits, timeout, clock.unsafeCurrentTimeMillis())
    let last = budget.start
    const entry: TimedEntry = {
      deadline: () => budget.deadline(last),
      expire: () => expire()?.(budget.error(last)),
      onProgress: (listener) =>
        limits.resetOnProgress
          ? (report) => {
            last = clock.unsafeCurrentTimeMillis()
            listener(report)
          }
          : listener
    }
    deadlines.add(entry)
    return entry
  },
  remove: deadlines.remove
})

/**
 * Builds an `McpClient` from a connected SDK `Client`. Everything the server sends back (tool definitions,
 * results, error reasons) passes through `scrubber`, made from the server's header or environment values:
 * a server that repeats its credentials, in any form, does not hand them on. Closing the client stays with
 * whoever connected it.
 *
 * Each request runs in a span named after OpenTelemetry's MCP conventions (`tools/list`, `tools/call {tool}`,
 * attributes `mcp.method.name`, `mcp.session.id`, `gen_ai.tool.name`, and `mcp.server`) whenever a tracer is installed; with Effect's built-in tracer, which exports nothing, the
 * span is skipped to keep the warm call path thin.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromSdkClient = (client: Client, options: SdkClientOptions): McpClient.McpClient => build(client, options, undefined)

/**
 * @since 0.1.0
 * @category models
 */
export interface SdkClientOptions {
  readonly server: string
  readonly scrubber?: Scrubber.Scrubber | undefined
  readonly pid?: number | undefined
  /** How the connection reaches the server (`stdio`, `streamable-http`, `sse`, `inproc`). */
  readonly transport?: string | undefined
  /** What the connect found out about the server's revisions. */
  readonly verdict?: McpClient.Verdict | undefined
  /** A login for a request that needs one (a host with a user): the request is then sent again. */
  readonly reauthorize?: McpAuthSession.Reauthorize | undefined
}

/**
 * `effect`, sent again after a login when it failed for want of one (the server refused its token, or a call
 * needs a wider scope), at most `limit` times; a login that fails is the request's failure.
 */
const withLogins = (reauthorize: McpAuthSession.Reauthorize, server: string, method: string) =>
<A, E>(effect: Effect.Effect<A, E | McpRequestError>): Effect.Effect<A, E | McpRequestError> => {
  const attempt = (round: number): Effect.Effect<A, E | McpRequestError> =>
    Effect.suspend(() => {
      const seen = reauthorize.generation()
      return Effect.catchIf(
        effect,
        (error): error is McpRequestError =>
          McpError.isMcpError(error) && error._tag === "McpRequestError" && error.reason === "NeedsAuthorization",
        (error) =>
          round < reauthorize.limit
            ? reauthorize.run(seen).pipe(
              Effect.mapError((error) => new McpRequestError({ server, method, reason: "Unauthorized", description: error.description })),
              Effect.zipRight(attempt(round + 1))
            )
            : round === 0
            ? Effect.fail(error)
            : Effect.fail(loginsSpent(reauthorize, server, method, round))
      )
    })
  return attempt(0)
}

// a scope as RFC 6749 spells one: said to the model, anything else is not
const scopePattern = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/

/** The failure of a request that still needed authorization after every login it was allowed. */
const loginsSpent = (reauthorize: McpAuthSession.Reauthorize, server: string, method: string, logins: number) => {
  const scope = reauthorize.stepUpScope()
  const times = `${logins} authorization${logins === 1 ? "" : "s"}`
  return scope !== undefined && scopePattern.test(scope) && scope.length <= 200
    ? new McpRequestError({
      server,
      method,
      reason: "InsufficientScope",
      description: `the server asks for scope "${scope}", which the authorization server did not grant in ${times}`
    })
    : new McpRequestError({ server, method, reason: "Unauthorized", description: `the server still refuses the request after ${times}` })
}

/**
 * `fromSdkClient`, with one timer for the connection in the current `Scope` (the connection's): `callWithin`
 * then times a call by a deadline that the timer watches, instead of racing a fiber against each call.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (client: Client, options: SdkClientOptions): Effect.Effect<McpClient.McpClient, never, Scope.Scope> =>
  makeWith(client, options, undefined)

/**
 * `make`, for a client on which the connection's server-request handlers are installed: each call records the
 * fiber it runs in, where a server's request during it runs (internal/serverRequests).
 *
 * @internal
 */
export const makeWith = (
  client: Client,
  options: SdkClientOptions,
  requests: ServerRequests.ServerRequests | undefined
): Effect.Effect<McpClient.McpClient, never, Scope.Scope> =>
  Effect.map(Deadlines.make, (deadlines) => build(client, options, deadlines, requests))

const build = (
  client: Client,
  options: SdkClientOptions,
  deadlines: Deadlines.Deadlines | undefined,
  requests?: ServerRequests.ServerRequests | undefined
): McpClient.McpClient => {
  const server = options.server
  const scrubber = options.scrubber ?? Scrubber.none
  const outputs = new ListedTools.ListedTools(client.getProtocolEra() === "modern" && options.transport === "streamable-http")
  keepNotificationOrder(client)
  const listSpan = () => ({ attributes: spanAttributes(client, server, "tools/list"), captureStackTrace: false })
  const listError = (cause: unknown) => Errors.requestError({ server, method: "tools/list", cause, scrubber })
  const callError = (cause: unknown) => Errors.requestError({ server, method: "tools/call", cause, scrubber })

  // One page of tools/list, each tool checked on its own (one malformed tool must not cost the server all of its
  // tools), and kept for the calls that need its definition.
  const requestPage = async (params: Record<string, unknown> | undefined, signal: AbortSignal | undefined) => {
    const page = lenientPage(
      await client.request(
        { method: "tools/list", params },
        LooseListToolsResult,
        { ...(signal !== undefined ? { signal } : {}), timeout: sdkTimeoutDisabled }
      )
    )
    return { ...page, ...outputs.remember(page.tools) }
  }

  // Tools/list is sent as it is, one page per call (the SDK's own listing walks every page and keeps a cache of
  // its own): the core decides how far to page and what a malformed page costs.
  const listTools = (cursor?: string | undefined): Effect.Effect<ListToolsPage, McpRequestError> =>
    Tracing.withTraceparent((traceparent) =>
      Effect.tryPromise({
        try: async (signal): Promise<ListToolsPage & { readonly skipped: ReadonlyArray<string> }> => {
          const given = cursor === undefined ? {} : { cursor }
          const params = cursor === undefined && traceparent === undefined ? undefined : withTrace(given, traceparent)
          const page = await requestPage(params, signal)
          return {
            ...scrubber.scrubDeep({ tools: page.tools, nextCursor: page.nextCursor, skipped: [...page.skipped, ...page.excluded] }),
            cache: page.cache
          }
        },
        catch: listError
      })
    ).pipe(
      Effect.tap(({ skipped }) =>
        Effect.forEach(skipped, (reason) =>
          Effect.logWarning(`MCP server ${server}: ${reason}`).pipe(Effect.annotateLogs("mcp.server", server)),
          { discard: true }
        )
      ),
      Effect.map(({ cache, nextCursor, tools }) => (cache === undefined ? { tools, nextCursor } : { tools, nextCursor, cache })),
      Tracing.traced("tools/list", listSpan)
    )

  // Tools/call goes through `request` with a schema of the driver's own (internal/callResult): `callTool` adds
  // only the SDK's own listing (output schemas, header mirroring), which the driver keeps itself.
  const send = (params: CallParams, options: RequestOptions): Promise<CallToolResult> =>
    client.request({ method: "tools/call", params }, CallResult.schema, options)

  // On the 2026-07-28 revision over HTTP, a tool's `x-mcp-header` arguments go into headers, from its definition as
  // this connection listed it (the SDK's `callTool` mirrors them); a server that finds them missing or stale (a tool
  // list cached elsewhere, or changed) refuses the call with a header mismatch: the tools are listed again and the
  // call sent again, once.
  const sendMirrored = (params: CallParams, options: RequestOptions): Promise<CallToolResult> => {
    const definition = outputs.definition(params.name)
    return definition === undefined ? send(params, options) : client.callTool(params, { ...options, toolDefinition: definition })
  }
  const sdkCall = outputs.headers
    ? async (params: CallParams, options: RequestOptions) => {
      try {
        return await sendMirrored(params, options)
      } catch (error) {
        if (!(error instanceof ProtocolError) || error.code !== HEADER_MISMATCH) throw error
        await relist(options.signal)
        return sendMirrored(params, options)
      }
    }
    : send

  const relist = async (signal: AbortSignal | undefined) => {
    let cursor: string | undefined
    for (let page = 0; page < MAX_RELIST_PAGES; page++) {
      const result = await requestPage(cursor === undefined ? undefined : { cursor }, signal)
      if (result.nextCursor === undefined || result.nextCursor === cursor) return
      cursor = result.nextCursor
    }
  }

  // Every call asks for progress (the SDK sends a `progressToken` only with a callback); one without a
  // listener gets a shared callback that does nothing.
  const progressOf = (onProgress: ((progress: Progress) => void) | undefined): (progress: SdkProgress) => void =>
    onProgress === undefined ? ignoreProgress : (report) => {
      const message = report.message
      onProgress({
        progress: report.progress,
        total: report.total,
        message: message === undefined ? undefined : scrubber.scrub(message)
      })
    }

  // One call, the one path of `callTool` and `callWithin`: one abort signal (internal/callSignal), which an
  // interruption and a deadline both abort (the SDK then sends `notifications/cancelled`); under a time limit, a
  // deadline entry for the connection's timer (`deadlines`), not a fiber raced against the call. Traced, scrubbed
  // and normalized here only.
  const call = <E>(
    name: string,
    args: Record<string, unknown>,
    onProgress: ((progress: Progress) => void) | undefined,
    timing: Timing<E> | undefined
  ): Effect.Effect<CallToolResult, McpRequestError | E> =>
    Tracing.withTraceparent((traceparent) =>
      Effect.async<CallToolResult, McpRequestError | E>((resume) => {
        let done = false
        const controller = new CallSignal.CallSignal()
        const entry = timing?.entry(() => {
          if (done) return undefined
          done = true
          return (error) => {
            controller.abort(error)
            resume(Effect.fail(error))
          }
        })
        // only while the call is pending: a deadline or an interruption may have ended it
        const settle = (outcome: Effect.Effect<CallToolResult, McpRequestError>) => {
          done = true
          if (entry !== undefined) timing!.remove(entry)
          resume(outcome)
        }
        let pending: Promise<CallToolResult>
        try {
          pending = sdkCall(withTrace({ name, arguments: args }, traceparent), {
            signal: controller.signal,
            timeout: sdkTimeoutDisabled,
            onprogress: entry === undefined ? progressOf(onProgress) : entry.onProgress(progressOf(onProgress))
          })
        } catch (error) {
          // a request refused before it is sent (a transport already closed) fails as one refused after
          pending = Promise.reject(error)
        }
        pending.then(
          (result) => {
            if (done) return
            // read here rather than in an `Effect.try` after the resume: one step of the fiber less per call
            let outcome: Effect.Effect<CallToolResult, McpRequestError>
            try {
              outcome = Effect.succeed(scrubber.scrubDeep(normalizeResult(outputs.check(name, result))))
            } catch (error) {
              outcome = Effect.fail(callError(error))
            }
            settle(outcome)
          },
          (error) => {
            if (!done) settle(Effect.fail(callError(error)))
          }
        )
        return Effect.sync(() => {
          if (done) return
          done = true
          if (entry !== undefined) timing!.remove(entry)
          controller.abort()
        })
      })
    ).pipe(Tracing.traced(() => `tools/call ${name}`, () => ({
      kind: "client",
      attributes: toolCallAttributes(client, server, name),
      captureStackTrace: false
    })))

  const callTool = (
    name: string,
    args: Record<string, unknown>,
    options?: CallOptions | undefined
  ): Effect.Effect<CallToolResult, McpRequestError> => call<never>(name, args, options?.onProgress, undefined)

  // without a timer of the connection's (`fromSdkClient`), the core races the call against a sleep
  const callWithin = deadlines === undefined ? undefined : (
    name: string,
    args: Record<string, unknown>,
    limits: CallLimits
  ): Effect.Effect<CallToolResult, McpRequestError | McpTimeoutError> =>
    call(name, args, limits.onProgress, Option.isNone(limits.timeout) ? undefined : timingOf(deadlines, limits, limits.timeout.value))

  // The handler is installed with the first listener (the extension adds one as soon as it has connected): a
  // change announced before the first listing is reflected by that listing, so none is missed.
  const listeners = new Set<{ readonly listener: () => void }>()
  let handled = false
  const onToolListChanged = (listener: () => void): Effect.Effect<void, never, Scope.Scope> =>
    Effect.acquireRelease(
      Effect.sync(() => {
        if (!handled) {
          handled = true
          client.setNotificationHandler("notifications/tools/list_changed", () => {
            for (const entry of listeners) entry.listener()
          })
        }
        const entry = { listener }
        listeners.add(entry)
        return entry
      }),
      (entry) => Effect.sync(() => void listeners.delete(entry))
    )

  const request = (method: string, params?: Record<string, unknown> | undefined): Effect.Effect<unknown, McpRequestError> =>
    Tracing.withTraceparent((traceparent) =>
      Effect.tryPromise({
        try: async (signal) =>
          scrubber.scrubDeep(
            await client.request(
              params === undefined && traceparent === undefined ? { method } : { method, params: withTrace(params ?? {}, traceparent) },
              resultSchemas[method] ?? LooseResult,
              { signal, timeout: sdkTimeoutDisabled }
            )
          ),
        catch: (cause) => Errors.requestError({ server, method, cause, scrubber })
      })
    ).pipe(Tracing.traced("McpClient.request", () => ({
      attributes: { "mcp.server": server, "mcp.method": method },
      captureStackTrace: false
    })))

  // a server request (elicitation, sampling) during a call runs as part of it (see internal/serverRequests)
  const track = requests === undefined ? undefined : requests.track
  const reauthorize = options.reauthorize
  // the deadline of a call is its own attempt's: a login between two attempts is the user's time
  const logins = reauthorize === undefined ? undefined : {
    list: withLogins(reauthorize, server, "tools/list"),
    call: withLogins(reauthorize, server, "tools/call")
  }
  // what every call goes through besides the call itself: the tracker of server requests, and logins
  const around = <E>(self: Effect.Effect<CallToolResult, McpRequestError | E>): Effect.Effect<CallToolResult, McpRequestError | E> => {
    const tracked = track === undefined ? self : track(self)
    return logins === undefined ? tracked : logins.call(tracked)
  }
  const plain = track === undefined && logins === undefined
  const skills = skillsOf(client, server, scrubber)
  return McpClient.make({
    server,
    pid: options.pid,
    protocolVersion: client.getNegotiatedProtocolVersion(),
    transport: options.transport,
    verdict: options.verdict,
    listTools: logins === undefined ? listTools : (cursor) => logins.list(listTools(cursor)),
    // every argument is passed on, whatever `callTool` takes
    callTool: plain ? callTool : (name, args, options) => around(callTool(name, args, options)),
    callWithin: plain || callWithin === undefined ? callWithin : (name, args, limits) => around(callWithin(name, args, limits)),
    request: reauthorize === undefined ? request : (method, params) => withLogins(reauthorize, server, method)(request(method, params)),
    notifications: notificationsOf(client, server, scrubber),
    onToolListChanged,
    skills: reauthorize === undefined ? skills : {
      list: withLogins(reauthorize, server, "skills/list")(skills.list),
      get: (uri) => withLogins(reauthorize, server, "skills/get")(skills.get(uri)),
      read: (skill, path) => withLogins(reauthorize, server, "resources/read")(skills.read(skill, path))
    },
    // on the 2025 revisions, the core's way: list changes come unasked, resources are subscribed one by one
    ...(client.getProtocolEra() === "modern"
      ? {
        listen: Subscriptions.make(
          client,
          server,
          (cause) => Errors.requestError({ server, method: "subscriptions/listen", cause, scrubber })
        )
      }
      : {})
  })
}

/**
 * The Skills extension over the SDK's `SkillsClient`, which walks the pages of `skills/list` and checks each
 * file it reads against the entry (listed, size, digest, `SKILL.md` frontmatter). The entries and files handed on
 * are scrubbed; a file is verified against the entry as the server sent it, kept for each entry handed on. The
 * client declares nothing for it: the extension asks only the server to declare it.
 */
const skillsOf = (client: Client, server: string, scrubber: Scrubber.Scrubber): McpClient.Skills => {
  const sdk = new SkillsClient(client, { skipInvalid: true })
  const sent = new WeakMap<McpSkills.Skill, SdkSkill>()
  const shown = (skill: SdkSkill): McpSkills.Skill => {
    const scrubbed = scrubber.scrubDeep(skill) as McpSkills.Skill
    sent.set(scrubbed, skill)
    return scrubbed
  }
  const requestOptions = (signal: AbortSignal) => ({ signal, timeout: sdkTimeoutDisabled })
  const undeclared = (method: string) =>
    new McpRequestError({
      server,
      method,
      reason: "Unsupported",
      description: "the server does not declare the Skills extension (io.modelcontextprotocol/skills)"
    })
  const traced = (method: string) =>
    Tracing.traced(method, () => ({ attributes: spanAttributes(client, server, method), captureStackTrace: false }))

  const list = Effect.tryPromise({
    try: async (signal) => {
      // a server without the extension has no skills (the SDK's own answer, without its debug line)
      if (!sdk.supported) return { skills: [], invalid: [] }
      return sdk.list({}, requestOptions(signal))
    },
    catch: (cause) => Errors.requestError({ server, method: "skills/list", cause, scrubber })
  }).pipe(
    Effect.tap(({ invalid }) =>
      Effect.forEach(invalid, (entry) =>
        Effect.logWarning(
          `MCP server ${server}: skill ${scrubber.scrub(entry.uri ?? `#${entry.index}`)} is skipped: ${scrubber.scrub(entry.reason)}`
        ).pipe(Effect.annotateLogs("mcp.server", server)), { discard: true })
    ),
    Effect.map(({ skills }) => skills.map(shown)),
    traced("skills/list")
  )

  const get = (uri: string) =>
    Effect.suspend(() =>
      sdk.supported
        ? Effect.tryPromise({
          try: async (signal) => shown((await sdk.get(uri, requestOptions(signal))).skill),
          catch: (cause) => Errors.requestError({ server, method: "skills/get", cause, scrubber })
        })
        : Effect.fail(undeclared("skills/get"))
    ).pipe(traced("skills/get"))

  const read = (skill: McpSkills.Skill, path?: string | undefined) =>
    Effect.suspend(() =>
      sdk.supported
        ? Effect.tryPromise({
          try: async (signal): Promise<McpSkills.SkillFile> => {
            const entry = sent.get(skill) ?? (skill as SdkSkill)
            const file = await sdk.read(entry, path, requestOptions(signal))
            const text = file.text === undefined ? undefined : scrubber.scrub(file.text)
            return {
              uri: scrubber.scrub(file.uri),
              mimeType: file.mimeType,
              // the bytes of a text a secret was scrubbed from are the scrubbed text's
              bytes: text === file.text ? file.bytes : new TextEncoder().encode(text),
              text,
              verified: file.verified,
              frontmatter: file.frontmatter === undefined ? undefined : scrubber.scrubDeep(file.frontmatter),
              body: file.body === undefined ? undefined : scrubber.scrub(file.body)
            }
          },
          catch: (cause) =>
            cause instanceof SkillVerificationError
              ? new McpSkillVerificationError({
                server,
                uri: scrubber.scrub(cause.uri),
                reason: cause.reason,
                description: scrubber.scrub(cause.message)
              })
              // an entry that is not one (`TypeError`) is refused before any request
              : cause instanceof TypeError
              ? new McpRequestError({ server, method: "resources/read", reason: "InvalidResponse", description: scrubber.scrub(cause.message) })
              : Errors.requestError({ server, method: "resources/read", cause, scrubber })
        })
        : Effect.fail(undeclared("resources/read"))
    ).pipe(traced("resources/read"))

  return { list, get, read }
}

// the results the core reads are checked against the protocol's schemas; any other passes as an object
const LooseResult = z.looseObject({})
const resultSchemas: Readonly<Record<string, z.ZodType<object>>> = {
  "resources/list": ListResourcesResultSchema,
  "resources/templates/list": ListResourceTemplatesResultSchema,
  "resources/read": ReadResourceResultSchema,
  "prompts/list": ListPromptsResultSchema,
  "prompts/get": GetPromptResultSchema
}

/**
 * Publishes the client's resource and prompt notifications to subscribers; ended when the connection closes.
 * The handlers are installed on the first subscription: a notification nobody listens to is dropped either way.
 * The SDK calls notification handlers synchronously: an unbounded PubSub takes each offer at once.
 */
const notificationsOf = (client: Client, server: string, scrubber: Scrubber.Scrubber) => {
  const pubsub = Effect.runSync(PubSub.unbounded<Notification>())
  let installed = false
  const install = () => {
    if (installed) return
    installed = true
    const publish = (notification: Notification) => void Effect.runSync(PubSub.publish(pubsub, notification))
    const shutdown = () => void Effect.runSync(PubSub.shutdown(pubsub))
    client.setNotificationHandler("notifications/resources/updated", (notification) =>
      publish(Notification.ResourceUpdated({ server, uri: scrubber.scrub(notification.params.uri) })))
    client.setNotificationHandler("notifications/resources/list_changed", () =>
      publish(Notification.ResourceListChanged({ server })))
    client.setNotificationHandler("notifications/prompts/list_changed", () => publish(Notification.PromptListChanged({ server })))
    // closed already: nothing will come
    if (client.transport === undefined) return shutdown()
    const onclose = client.onclose
    client.onclose = () => {
      onclose?.()
      shutdown()
    }
  }
  return Effect.suspend(() => {
    install()
    return PubSub.subscribe(pubsub)
  })
}

const ignoreProgress = (_: SdkProgress): void => {}

/**
 * The SDK handles a notification one microtask after it arrives, but a response at once, and forgets a request's
 * progress callback with its response: a call's last progress report, read together with its result (one chunk
 * of a busy pipe), would be dropped. A response that comes in the same tick as a notification is handed on one
 * microtask later, after the notification; any other message goes through as it is.
 */
const keepNotificationOrder = (client: Client): void => {
  const transport = client.transport
  const deliver = transport?.onmessage
  if (transport === undefined || deliver === undefined) return
  let pending = 0
  const settle = () => void pending--
  transport.onmessage = (message, extra) => {
    if (!("id" in message)) {
      pending++
      deliver(message, extra)
      queueMicrotask(settle)
    } else if (pending > 0 && !("method" in message)) {
      queueMicrotask(() => deliver(message, extra))
    } else {
      deliver(message, extra)
    }
  }
}

