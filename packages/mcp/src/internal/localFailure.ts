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
    /** one readable line, with no remote text in it */
    readonly reason: string,
    /** whether the connection is unusable afterwards (it is then forgotten, and the next use reconnects) */
    readonly closed: boolean
  ) {}
}

/** The JSON-RPC error code the SDK's client gets with a `LocalFailure`: connection closed, or internal error. */
export const codeOf = (failure: LocalFailure): number => (failure.closed ? -32000 : -32603)
