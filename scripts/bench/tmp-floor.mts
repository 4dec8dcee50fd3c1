import * as Effect from "effect/Effect"
const mode = process.argv[2]
const N = 700
const work = () => new Promise<number>((r) => setImmediate(() => r(1)))
const t0 = performance.now()
const times: number[] = []
if (mode === "raw") {
  for (let i = 0; i < N; i++) { const s = performance.now(); await work(); times.push(performance.now() - s) }
} else {
  await Effect.runPromise(Effect.gen(function*() {
    for (let i = 0; i < N; i++) {
      const s = performance.now()
      yield* Effect.async<number>((resume) => { work().then((v) => resume(Effect.succeed(v))) })
      times.push(performance.now() - s)
    }
  }))
}
const cpu = process.cpuUsage()
const last = times.slice(200)
console.log(mode, "mean µs of calls 200..700:", (1000 * last.reduce((a, b) => a + b, 0) / last.length).toFixed(1), "first200:", (1000 * times.slice(0,200).reduce((a, b) => a + b, 0) / 200).toFixed(1))
