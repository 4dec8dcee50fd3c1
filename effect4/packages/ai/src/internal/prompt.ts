/** @internal */
import type { Message, Tool as AgentTool } from "@zett/agent"
import * as Prompt from "effect/ai/Prompt"
import * as Tool from "effect/ai/Tool"
import type * as Toolkit from "effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import type * as JsonSchema from "effect/JsonSchema"

/** @internal The agent's messages as a prompt, built as trusted parts (no decoding). */
export const toPrompt = (messages: ReadonlyArray<Message.Message>): Prompt.Prompt =>
  Prompt.fromMessages(messages.flatMap((message): Array<Prompt.Message> => {
    switch (message._tag) {
      case "SystemMessage":
        return [Prompt.makeMessage("system", { content: message.content })]
      case "UserMessage":
        return [Prompt.makeMessage("user", { content: [Prompt.makePart("text", { text: message.content })] })]
      case "AssistantMessage": {
        const content: Array<Prompt.AssistantMessagePart> = []
        // providers reject empty text blocks (Anthropic) or store them as noise (OpenAI)
        if (message.content !== "") content.push(Prompt.makePart("text", { text: message.content }))
        for (const call of message.toolCalls) {
          content.push(Prompt.makePart("tool-call", {
            id: call.id,
            name: call.name,
            params: call.arguments ?? {},
            providerExecuted: false
          }))
        }
        return content.length === 0 ? [] : [Prompt.makeMessage("assistant", { content })]
      }
      case "ToolMessage":
        return [Prompt.makeMessage("tool", {
          content: [Prompt.makePart("tool-result", {
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

/**
 * @internal A tool as the provider is offered it: `Tool.dynamic` with the agent's JSON Schema, which
 * `Tool.getJsonSchema` hands to the provider unchanged.
 */
export const toTool = (definition: AgentTool.Definition): Tool.Any =>
  Tool.dynamic(definition.name, {
    description: definition.description,
    parameters: definition.parameters as JsonSchema.JsonSchema
  })

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
    handle: (name) => Effect.die(`@zett/ai does not execute tool calls (${String(name)})`)
  }
}

/** @internal The text parts of a message's content, joined (what a wire format without parts takes). */
export const textOf = (parts: ReadonlyArray<{ readonly type: string; readonly text?: string }>): string =>
  parts.flatMap((part) => part.type === "text" ? [part.text ?? ""] : []).join("")
