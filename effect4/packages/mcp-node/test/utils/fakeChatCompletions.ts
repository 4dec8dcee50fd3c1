/**
 * A fake Chat Completions server on 127.0.0.1 (node:http) for the example app's test: each request gets the next
 * scripted answer, streamed as OpenAI streams a chat completion, and is recorded. The 3 line's
 * `@zett/testing/FakeProvider` (there a Responses API), as far as that test uses it.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

export interface Seen {
  readonly url: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: any
}

/** One answer: the `data:` payloads of a streamed chat completion. */
export type Answer = ReadonlyArray<unknown>

export interface FakeProvider {
  /** the server's root; the client's `apiUrl` is `${url}/v1` */
  readonly url: string
  readonly requests: Array<Seen>
}

/** The server, for the length of the scope: the n-th request gets the n-th answer (the last one after that). */
export const fakeProvider = (answers: ReadonlyArray<Answer>): Effect.Effect<FakeProvider, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.callback<{ readonly provider: FakeProvider; readonly server: Http.Server }>((resume) => {
        const requests: Array<Seen> = []
        const server = Http.createServer((req, res) => {
          let text = ""
          req.on("data", (chunk) => text += chunk)
          req.on("end", () => {
            requests.push({
              url: req.url ?? "",
              headers: req.headers,
              body: text === "" ? undefined : JSON.parse(text)
            })
            res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
            for (const data of answers[Math.min(requests.length - 1, answers.length - 1)]!) {
              res.write(`data: ${JSON.stringify(data)}\n\n`)
            }
            res.end("data: [DONE]\n\n")
          })
        })
        server.listen(0, "127.0.0.1", () =>
          resume(Effect.succeed({
            provider: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests },
            server
          })))
      }),
      ({ server }) =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    ),
    ({ provider }) => provider
  )

const chunk = (delta: unknown, finish_reason: string | null = null) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1_760_000_000,
  model: "gpt-4.1-mini",
  choices: [{ index: 0, delta, logprobs: null, finish_reason }]
})

/** An answer that calls tools: `[id, name, arguments]` each, the arguments streamed as one piece. */
export const calls = (...list: ReadonlyArray<readonly [string, string, unknown]>): Answer => [
  chunk({ role: "assistant", content: null }),
  ...list.map(([id, name, args], index) =>
    chunk({
      tool_calls: [{ index, id, type: "function", function: { name, arguments: JSON.stringify(args) } }]
    })
  ),
  chunk({}, "tool_calls")
]

/** An answer in text. */
export const answer = (text: string): Answer => [
  chunk({ role: "assistant", content: "" }),
  chunk({ content: text }),
  chunk({}, "stop")
]

/** The tool results a Chat Completions request carries back to the model (`role: "tool"` messages), parsed. */
export const toolOutputsOf = (body: any): Array<unknown> =>
  (body.messages as Array<any>).filter((message) => message.role === "tool").map((message) =>
    JSON.parse(message.content)
  )
