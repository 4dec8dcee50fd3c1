import { deserializeMessage, specTypeSchemas } from "@modelcontextprotocol/client"
const mode = process.argv[2]
const N = Number(process.argv[3] ?? 700)
const lines = Array.from({ length: N }, (_, i) => JSON.stringify({ result: { content: [{ type: "text", text: `Echo: hello ${i}` }] }, jsonrpc: "2.0", id: i + 3 }))
const result = specTypeSchemas.JSONRPCResultResponse["~standard"]
const fast = (line: string) => {
  const value = JSON.parse(line)
  if (typeof value === "object" && value !== null && !("method" in value) && "result" in value) {
    const r = (specTypeSchemas.JSONRPCResultResponse as any).safeParse(value)
    if (r.success) return r.data
  }
  return deserializeMessage(line)
}
const f = mode === "sdk" ? deserializeMessage : fast
const t: number[] = []
let sink = 0
for (let i = 0; i < N; i++) { const s = performance.now(); sink += (f(lines[i]!) as any).id; t.push(performance.now() - s) }
const m = (a: number[]) => (1000 * a.reduce((x, y) => x + y, 0) / a.length).toFixed(2)
console.log(mode, "µs first 200:", m(t.slice(0, 200)), "200..700:", m(t.slice(200, 700)), "after:", m(t.slice(700)), sink > 0)
