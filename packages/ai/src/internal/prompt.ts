/** @internal */
import * as Prompt from "@effect/ai/Prompt"
import * as Tool from "@effect/ai/Tool"
import type * as Toolkit from "@effect/ai/Toolkit"
import type { Message, Tool as AgentTool } from "@zett/agent"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** @internal */
export const toPrompt = (messages: ReadonlyArray<Message.Message>): Prompt.Prompt =>
  Prompt.fromMessages(messages.flatMap((message): Array<Prompt.Message> => {
    switch (message._tag) {
      case "SystemMessage":
        return [Prompt.systemMessage({ content: message.content })]
      case "UserMessage":
        return [Prompt.userMessage({ content: [Prompt.textPart({ text: message.content })] })]
      case "AssistantMessage": {
        const content: Array<Prompt.AssistantMessagePart> = []
        // providers reject empty text blocks (Anthropic) or store them as noise (OpenAI)
        if (message.content !== "") content.push(Prompt.textPart({ text: message.content }))
        for (const call of message.toolCalls) {
          content.push(Prompt.toolCallPart({
            id: call.id,
            name: call.name,
            params: call.arguments ?? {},
            providerExecuted: false
          }))
        }
        return content.length === 0 ? [] : [Prompt.assistantMessage({ content })]
      }
      case "ToolMessage":
        return [Prompt.toolMessage({
          content: [Prompt.toolResultPart({
            id: message.toolCallId,
            name: message.name,
            // a skipped call has no result either: the model should not read it as one
            isFailure: message.status !== "ok",
            result: message.content,
            providerExecuted: false
          })]
        })]
    }
  }))

// The parameters schema only carries the agent's JSON Schema to the provider: `Tool.getJsonSchema` returns the
// `jsonSchema` annotation unchanged, and decoding a tool call's arguments accepts any JSON object.
const Parameters = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** @internal */
export const toTool = (definition: AgentTool.Definition): Tool.Any =>
  Tool.make(definition.name, { description: definition.description }).setParameters(
    Parameters.annotations({ jsonSchema: definition.parameters as object })
  ) as unknown as Tool.Any

/** @internal */
export const toToolkit = (
  definitions: ReadonlyArray<AgentTool.Definition>
): Toolkit.WithHandler<Record<string, Tool.Any>> | undefined => {
  if (definitions.length === 0) return undefined
  const tools: Record<string, Tool.Any> = {}
  for (const definition of definitions) tools[definition.name] = toTool(definition)
  return {
    tools,
    // never called: the toolkit is used with `disableToolCallResolution`, the agent runs every call itself
    handle: (name) => Effect.dieMessage(`@zett/ai does not execute tool calls (${String(name)})`)
  } as Toolkit.WithHandler<Record<string, Tool.Any>>
}

/** @internal The text parts of a message's content, joined (what a wire format without parts takes). */
export const textOf = (parts: ReadonlyArray<{ readonly type: string; readonly text?: string }>): string =>
  parts.flatMap((part) => part.type === "text" ? [part.text ?? ""] : []).join("")
