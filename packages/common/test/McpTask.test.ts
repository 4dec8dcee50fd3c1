import { McpTask } from "@zett/common"
import { assert, describe, it } from "vitest"

describe("McpTask", () => {
  const task: McpTask.Task = { server: "s", taskId: "t-1", status: "working", pollIntervalMs: 500 }

  it("a task as a call's result is read back from it; another result has no task", () => {
    const result = McpTask.asResult(task)
    assert.deepStrictEqual(JSON.parse(result.content[0]!.text), {
      task: { server: "s", taskId: "t-1", status: "working", pollIntervalMs: 500 }
    })
    assert.deepStrictEqual(McpTask.fromResult(result), {
      server: "s",
      taskId: "t-1",
      status: "working",
      pollIntervalMs: 500
    })
    assert.isUndefined(McpTask.fromResult({ _meta: { "dev.zett/task": { server: "s", taskId: "t", status: "odd" } } }))
    assert.isUndefined(McpTask.fromResult({}))
  })

  it("settled: ended, and a completed task with its result; changed: status, message or time", () => {
    assert.isFalse(McpTask.settled(task))
    assert.isFalse(McpTask.settled({ ...task, status: "completed" }))
    assert.isTrue(McpTask.settled({ ...task, status: "completed", result: { content: [] } }))
    assert.isTrue(McpTask.settled({ ...task, status: "failed" }))
    assert.isTrue(McpTask.changed(task, { ...task, statusMessage: "half" }))
    assert.isTrue(McpTask.changed(task, { ...task, lastUpdatedAt: "2026-12-06T00:00:00Z" }))
    assert.isFalse(McpTask.changed(task, { ...task, pollIntervalMs: 10 }))
  })
})
