// On-CPU time of a lane's main thread over its timed window, by part: kernel (fork and exec, or the rest), V8
// compiling functions run for the first time, main-thread GC, or running, counted to the owner of the innermost JS
// frame. A V8 CPU profile cannot say this on a loaded machine: it samples on a wall-clock tick, so a descheduled
// or blocked thread still lands samples on its frame (docs/benchmarks.md section 20).
//
//   perf record -k CLOCK_MONOTONIC -F 4999 -e cpu-clock -g -i -o lane.data -- \
//     node --perf-basic-prof --interpreted-frames-native-stack --expose-gc .build/lane.mjs --case=discovery ...
//   node scripts/bench/perf-window.mjs lane.data <windowUs from the lane's RESULT: from,to> [more data,window pairs]
//
// `-i`: the main thread only, no children; `CLOCK_MONOTONIC`: the clock of the lane's `windowUs`. With several
// pairs, the mean over them.
import { execFileSync } from "node:child_process"

const args = process.argv.slice(2)
if (args.length === 0 || args.length % 2 !== 0) {
  process.stderr.write("usage: perf-window.mjs <perf.data> <fromUs,toUs> [<perf.data> <fromUs,toUs> ...]\n")
  process.exit(2)
}
const seconds = (us) => `${Math.floor(us / 1e6)}.${String(us % 1e6).padStart(6, "0")}`
const owner = (frame) =>
  frame.includes("effect/dist") ?
    "Effect" :
    frame.includes("/zod/") ?
    "zod" :
    frame.includes("@modelcontextprotocol") ?
    "the SDK" :
    frame.includes(".build/") ?
    "Zett and the bench" :
    frame.includes("node:") ?
    "Node's JS" :
    "other JS"
const part = (frames) => {
  if (frames[0].includes("kallsyms")) {
    return frames.some((f) => /copy_process|dup_mm|copy_page_range|kernel_clone|execve|exec_binprm/.test(f))
      ? "kernel: fork and exec"
      : "kernel: other (pipes, epoll, memory)"
  }
  if (
    frames.some((f) => /Compiler::|BytecodeGenerator|Parser::|Scanner::|PreParser|AstValueFactory|CompileLazy/.test(f))
  ) {
    return "V8 compiling a function run for the first time"
  }
  if (frames.some((f) => /Heap::|Scavenger|MarkCompact|GCTracer|MinorMarkSweep|Sweeper/.test(f))) {
    return "GC on the main thread"
  }
  const js = frames.find((f) => f.includes("JS:"))
  return js === undefined ? "running: native, no JS frame" : `running: ${owner(js)}`
}

const totals = new Map()
const runs = args.length / 2
for (let i = 0; i < args.length; i += 2) {
  const [from, to] = args[i + 1].split(",").map(Number)
  const text = execFileSync("perf", [
    "script",
    "-i",
    args[i],
    "--time",
    `${seconds(from)},${seconds(to)}`,
    "-F",
    "time,ip,sym,dso"
  ], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
    stdio: ["ignore", "pipe", "ignore"]
  })
  for (const sample of text.split("\n\n")) {
    const frames = sample.trim().split("\n").slice(1).map((line) => line.trim())
    if (frames.length === 0) continue
    const key = part(frames)
    totals.set(key, (totals.get(key) ?? 0) + 1)
  }
}
// a sample at -F 4999 stands for 1/4.999 ms
const ms = (count) => count / 4.999 / runs
let all = 0
for (const [key, count] of [...totals].sort((a, b) => b[1] - a[1])) {
  all += count
  console.log(`${ms(count).toFixed(0).padStart(6)} ms  ${key}`)
}
console.log(`${ms(all).toFixed(0).padStart(6)} ms  in all (mean of ${runs})`)
