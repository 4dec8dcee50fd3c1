// Runs `node lifeline.mjs <command> [args...]`: starts the command in this process's group (spawnScoped makes
// this wrapper a group leader) with the same stdout and stderr, and ends the whole group as soon as
// - its stdin ends: it is a pipe from the test process, and a pipe ends when its writer dies, however it dies
//   (SIGKILL included);
// - or the process named by ZETT_LIFELINE_PID (the test runner that started the test process) is gone: a
//   runner killed with SIGKILL leaves its workers running as orphans, and with them their pipes.
import { spawn } from "node:child_process"

const [command, ...args] = process.argv.slice(2)
const child = spawn(command, args, { stdio: ["ignore", "inherit", "inherit"] })
const endGroup = () => {
  try {
    process.kill(-process.pid, "SIGKILL")
  } catch {
    process.exit(1)
  }
}
process.stdin.on("end", endGroup)
process.stdin.on("error", endGroup)
process.stdin.resume()
const runner = Number(process.env.ZETT_LIFELINE_PID)
if (Number.isInteger(runner) && runner > 1) {
  setInterval(() => {
    try {
      process.kill(runner, 0)
    } catch (error) {
      if (error.code === "ESRCH") endGroup()
    }
  }, 200)
}
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
