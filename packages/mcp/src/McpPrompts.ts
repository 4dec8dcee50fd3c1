/**
 * The prompts of a connected MCP server: list them (every page), and get one with its arguments as agent
 * `Message`s, ready to append to a conversation.
 *
 * Like `McpResources`, each function takes an `McpClient` and goes through its optional `request` member (a
 * client without it fails with an `McpRequestError` of kind `Unsupported`).
 *
 * ```ts
 * const prompts = yield* McpPrompts.list(client)
 * const { messages } = yield* McpPrompts.get(client, "args-prompt", { city: "Paris" })
 * yield* Agent.run(...)   // or context.addMessage(...) in an extension
 * ```
 *
 * @since 0.1.0
 */
import type {
  ContentBlock,
  GetPromptResult,
  ListPromptsResult,
  Prompt as SdkPrompt,
  PromptMessage
} from "@modelcontextprotocol/client"
import * as Message from "@zett/agent/Message"
import * as ResourceText from "@zett/common/McpToolResult"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as Requests from "./internal/requests.js"
import type * as McpClient from "./McpClient.js"
import type { McpRequestError } from "./McpError.js"

/**
 * A prompt as `prompts/list` gives it (`name`, `title?`, `description?`, `arguments?` with `name`, `description?`,
 * `required?`).
 *
 * @since 0.1.0
 * @category models
 */
export type Prompt = SdkPrompt

/**
 * A prompt got from the server: its description, and its messages as agent messages (`UserMessage`,
 * `AssistantMessage`), in order.
 *
 * @since 0.1.0
 * @category models
 */
export interface Got {
  readonly description: string | undefined
  readonly messages: ReadonlyArray<Message.UserMessage | Message.AssistantMessage>
}

/**
 * Every prompt of the server, all pages (the cursor guard of `McpClient.listAll`).
 *
 * @since 0.1.0
 * @category requests
 */
export const list: (client: McpClient.McpClient) => Effect.Effect<ReadonlyArray<Prompt>, McpRequestError> = Requests
  .listing<ListPromptsResult, Prompt>("McpPrompts.list", "prompts/list", "prompts", (page) => page.prompts)

/**
 * One content block as text: the agent's messages carry text, so a text block is itself, an embedded text
 * resource is its text under a line naming it (a blob of a text MIME type decoded), and images, audio, binary
 * resources and resource links are described in brackets with their URI or MIME type.
 *
 * @since 0.1.0
 * @category conversions
 */
export const contentText: (block: ContentBlock) => string = ResourceText.contentText

/**
 * A prompt's messages as agent messages: role `user` a `UserMessage`, role `assistant` an `AssistantMessage`,
 * each content turned into text by `contentText`.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toMessages = (
  messages: ReadonlyArray<PromptMessage>
): ReadonlyArray<Message.UserMessage | Message.AssistantMessage> =>
  messages.map((message) => {
    const text = contentText(message.content)
    return message.role === "assistant" ? Message.assistant(text) : Message.user(text)
  })

/**
 * Gets a prompt with its arguments (strings, as the protocol has them) and gives its messages as agent
 * messages. A missing required argument or an unknown prompt is the server's error, an `McpRequestError`
 * (usually code -32602).
 *
 * @since 0.1.0
 * @category requests
 */
export const get: {
  (
    name: string,
    args?: Readonly<Record<string, string>>
  ): (client: McpClient.McpClient) => Effect.Effect<Got, McpRequestError>
  (
    client: McpClient.McpClient,
    name: string,
    args?: Readonly<Record<string, string>>
  ): Effect.Effect<Got, McpRequestError>
} = dual(
  (args) => typeof args[0] !== "string",
  (
    client: McpClient.McpClient,
    name: string,
    args?: Readonly<Record<string, string>>
  ): Effect.Effect<Got, McpRequestError> =>
    getRaw(client, name, args).pipe(
      Effect.map((result) => ({ description: result.description, messages: toMessages(result.messages) }))
    )
)

/**
 * Gets a prompt as the server sent it (scrubbed and decoded): its content blocks untouched.
 *
 * @since 0.1.0
 * @category requests
 */
export const getRaw = (
  client: McpClient.McpClient,
  name: string,
  args?: Readonly<Record<string, string>>
): Effect.Effect<GetPromptResult, McpRequestError> =>
  Requests.sendAs<GetPromptResult>(
    client,
    "prompts/get",
    args === undefined ? { name } : { name, arguments: { ...args } }
  ).pipe(Effect.withSpan("McpPrompts.get", { attributes: { "mcp.server": client.server, "mcp.prompt": name } }))
