/**
 * A fake OpenAI Responses API on 127.0.0.1 for the length of a scope: the n-th request gets the n-th
 * scripted answer, streamed as server-sent events (the event shapes @effect/ai-openai reads, as in
 * packages/ai/test/utils.ts).
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

export interface Answer {
  readonly text?: string
  readonly call?: { readonly id: string; readonly name: string; readonly arguments: string }
}

export interface FakeOpenAi {
  /** The base URL to put in OPENAI_BASE_URL. */
  readonly baseUrl: string
  /** The request bodies received. */
  readonly requests: Array<any>
  readonly authorizations: Array<string | undefined>
}

const response = (status: string, output: ReadonlyArray<unknown>) => ({
  id: "resp_1",
  object: "response",
  created_at: 1_760_000_000,
  status,
  error: null,
  incomplete_details: null,
  instructions: null,
  model: "gpt-4.1-mini",
  output,
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
  metadata: {},
  temperature: 1,
  top_p: 1,
  usage: {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15
  }
})

const events = (answer: Answer): Array<{ readonly type: string } & Record<string, unknown>> => {
  const out: Array<{ type: string } & Record<string, unknown>> = []
  const output: Array<unknown> = []
  out.push({ type: "response.created", response: response("in_progress", []) })
  if (answer.text !== undefined) {
    const message = (content: ReadonlyArray<unknown>, status: string) => ({
      type: "message",
      id: "msg_1",
      status,
      role: "assistant",
      content
    })
    out.push({ type: "response.output_item.added", output_index: 0, item: message([], "in_progress") })
    out.push({
      type: "response.output_text.delta",
      item_id: "msg_1",
      output_index: 0,
      content_index: 0,
      delta: answer.text,
      logprobs: []
    })
    const done = message([{ type: "output_text", text: answer.text, annotations: [], logprobs: [] }], "completed")
    out.push({ type: "response.output_item.done", output_index: 0, item: done })
    output.push(done)
  }
  if (answer.call !== undefined) {
    const index = output.length
    const call = answer.call
    const item = (args: string, status: string) => ({
      type: "function_call",
      id: `fc_${call.id}`,
      call_id: call.id,
      name: call.name,
      arguments: args,
      status
    })
    out.push({ type: "response.output_item.added", output_index: index, item: item("", "in_progress") })
    out.push({
      type: "response.function_call_arguments.delta",
      item_id: `fc_${call.id}`,
      output_index: index,
      delta: call.arguments
    })
    const done = item(call.arguments, "completed")
    out.push({ type: "response.output_item.done", output_index: index, item: done })
    output.push(done)
  }
  out.push({ type: "response.completed", response: response("completed", output) })
  return out.map((event, i) => ({ ...event, sequence_number: i }))
}

export const fakeOpenAi = (answers: ReadonlyArray<Answer>): Effect.Effect<FakeOpenAi, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: Http.Server; readonly fake: FakeOpenAi }>((resume) => {
      const requests: Array<any> = []
      const authorizations: Array<string | undefined> = []
      const server = Http.createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          const index = requests.push(JSON.parse(Buffer.concat(chunks).toString("utf8") || "null")) - 1
          authorizations.push(req.headers.authorization)
          const answer = answers[Math.min(index, answers.length - 1)]!
          res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
          for (const event of events(answer)) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
          res.end()
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ server, fake: { baseUrl: `http://127.0.0.1:${port}/v1`, requests, authorizations } }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ fake }) => fake))
