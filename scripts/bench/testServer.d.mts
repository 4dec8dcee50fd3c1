// The types of testServer.mjs for the TypeScript files that import it (type-checked by scripts/bench/tsconfig.json).
import type { NodeMcpClientFactory } from "@zett/mcp-node"

/** An SDK server with `k` filler tools `<prefix>tool_<i>` and `<prefix>echo`; tools/list sleeps `delay` ms. */
export declare const makeServer: (options: {
  readonly k: number
  readonly delay?: number
  readonly prefix?: string
  readonly onList?: () => void
}) => NodeMcpClientFactory.InMemoryServer
