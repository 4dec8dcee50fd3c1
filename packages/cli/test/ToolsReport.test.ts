/**
 * The text of `zett tools` and the spinner: sized by what a terminal shows (CJK characters and emoji take two
 * columns).
 */
import { assert, describe, it } from "@effect/vitest"
import type { Discovery } from "@zett/cli"
import { Output, Progress, ToolsReport } from "@zett/cli"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import stringWidth from "string-width"

const tool = (name: string, tokens: number, description: string): Discovery.ToolReport => ({
  name,
  remoteName: name.split("__")[1] ?? name,
  description,
  tokens,
  inputSchema: { type: "object", properties: {} }
})

const server = (name: string, tools: ReadonlyArray<Discovery.ToolReport>): Discovery.ServerReport => ({
  server: name,
  transport: "stdio",
  status: "ok",
  discoveryMillis: 12,
  tools,
  filtered: [],
  tokens: tools.reduce((sum, t) => sum + t.tokens, 0)
})

const report = (servers: ReadonlyArray<Discovery.ServerReport>): ToolsReport.ToolsReport => ({
  config: "/tmp/mcp.json",
  configExists: true,
  servers,
  skipped: []
})

/** The terminal column at which `part` starts in `line`. */
const columnOf = (line: string, part: string): number => {
  const at = line.indexOf(part)
  assert.isAtLeast(at, 0, `${JSON.stringify(part)} in ${JSON.stringify(line)}`)
  return stringWidth(line.slice(0, at))
}

describe("ToolsReport.render", () => {
  it("CJK and emoji server and tool names line up with ASCII ones", () => {
    const text = ToolsReport.render(
      report([
        server("文档", [tool("文档__搜索", 12, "搜索文档"), tool("文档__list", 7, "Lists documents")]),
        server("🚀rocket", [tool("🚀rocket__launch", 345, "Launches")]),
        server("👩‍👩‍👧", [tool("👩‍👩‍👧__🇯🇵", 6, "A family and a flag")]),
        server("plain-ascii", [tool("plain-ascii__x", 1234, "Does x")])
      ]),
      { width: 100 }
    )
    const lines = text.split("\n")
    const header = lines.findIndex((line) => line.startsWith("SERVER"))
    const table = lines.slice(header, header + 5)
    // every column starts at the same terminal column in every row
    const transport = columnOf(table[0]!, "TRANSPORT")
    const status = columnOf(table[0]!, "STATUS")
    for (const row of table.slice(1)) {
      assert.strictEqual(columnOf(row, "stdio"), transport, row)
      assert.strictEqual(columnOf(row, "  ok") + 2, status, row)
    }
    // the right-aligned numbers end in one column
    const ends = table.slice(1).map((row) => stringWidth(row.replace(/\s+ok$/, "")))
    assert.deepStrictEqual(new Set(ends).size, 1, table.join("\n"))
    // within a server's list, the token counts end and the descriptions start in one column
    const listed = (name: string) => lines.filter((line) => line.startsWith(`  ${name}__`))
    const docs = listed("文档")
    assert.strictEqual(docs.length, 2)
    assert.strictEqual(columnOf(docs[0]!, "搜索文档"), columnOf(docs[1]!, "Lists documents"))
    assert.strictEqual(columnOf(docs[0]!, "12 ") + 2, columnOf(docs[1]!, "7 ") + 1)
    // and a list is as wide as its widest name: two spaces after it
    assert.strictEqual(columnOf(docs[0]!, "12"), 2 + stringWidth("文档__搜索") + 2)
  })

  it("cuts long descriptions at the display width, never inside a character", () => {
    const long = "这是一个很长的描述".repeat(12)
    const text = ToolsReport.render(
      report([
        server("文档", [tool("文档__搜索", 12, long), tool("文档__emoji", 3, "🚀".repeat(60))])
      ]),
      { width: 60 }
    )
    for (const line of text.split("\n")) assert.isAtMost(stringWidth(line), 60, line)
    const [cjk, emoji] = text.split("\n").filter((line) => line.startsWith("  文档__"))
    for (const line of [cjk!, emoji!]) {
      assert.isTrue(line.endsWith("…"), line)
      // cut where the next wide character would not fit: 59 or 60 columns
      assert.isAtLeast(stringWidth(line), 59, line)
    }
    assert.isFalse(emoji!.includes("\uFFFD"))
    assert.match(emoji!, /^ {2}文档__emoji {2}\s*3 {2}(🚀)+…$/u)
  })
})

describe("ToolsReport.parameterLines", () => {
  it("a line per argument: its type, required or its default, and its description's first line", () => {
    const lines = ToolsReport.parameterLines({
      type: "object",
      properties: {
        city: { type: "string", description: "The city\nand more" },
        days: { type: "integer", default: 3 },
        units: { enum: ["metric", "imperial"] },
        tags: { type: "array", items: { type: "string" } },
        extra: {}
      },
      required: ["city"]
    })
    assert.deepStrictEqual(lines, [
      "      city   string                       required   The city",
      "      days   integer                      default 3",
      "      units  one of \"metric\", \"imperial\"  optional",
      "      tags   array of string              optional",
      "      extra  any                          optional"
    ])
    assert.deepStrictEqual(ToolsReport.parameterLines({ type: "object" }), ["      (no arguments)"])
  })
})

describe("Progress.withSpinner", () => {
  it.scoped("a status of wide characters is cut to the terminal's width", () =>
    Effect.gen(function*() {
      const { captured, output } = Output.makeMemory({ interactive: true, columns: 24 })
      yield* Progress.withSpinner("正在连接服务器：文档、搜索、🚀火箭、邮件", () => TestClock.adjust("80 millis")).pipe(
        Effect.provideService(Output.Output, output)
      )
      const frames = captured.stderr().split("\r\u001b[2K").map((frame) => frame.replace(/\u001b\[\?25[hl]/g, ""))
        .filter((frame) => frame !== "")
      assert.isAtLeast(frames.length, 1)
      for (const frame of frames) {
        // the spinner, a space and the status fit the 24 columns less 3
        assert.isAtMost(stringWidth(frame), 2 + 21, frame)
        assert.isTrue(frame.endsWith("…"), frame)
      }
    }))
})
