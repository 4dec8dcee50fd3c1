/**
 * A failure that Zett puts in place of a response the server did not deliver: the response stream closed
 * before it, or the message was larger than `maxMessageBytes`. It travels as the `data` of a JSON-RPC error
 * handed to the SDK's client, which passes it on unchanged in its `McpError`; being an instance of this
 * class (not a shape a server could send), it is recognised as ours, and its reason is shown as it is.
 *
 * @internal
 */
export class LocalFailure {
  constructor(
    readonly kind: "StreamClosed" | "MessageTooLarge",
    /** one readable line, with no remote text in it */
    readonly reason: string
  ) {}
}

/** The JSON-RPC error code the SDK's client gets with a `LocalFailure` (internal error). */
export const code = -32603

/** @internal */
export const streamClosed = new LocalFailure("StreamClosed", "the server closed the response stream before answering")

/** @internal */
export const tooLarge = (maxBytes: number): LocalFailure =>
  new LocalFailure(
    "MessageTooLarge",
    `the result was too large: the server's message is over the limit of ${formatBytes(maxBytes)} (maxMessageBytes)`
  )

const formatBytes = (bytes: number): string =>
  bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0
    ? `${bytes / (1024 * 1024)} MB`
    : bytes >= 1024 && bytes % 1024 === 0
    ? `${bytes / 1024} KB`
    : `${bytes} bytes`
