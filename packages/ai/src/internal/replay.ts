/**
 * What a provider's own tool search answered, kept by a client transform until the requests that send it back: the
 * provider packages drop those parts of an answer, and a stateless request must carry them again, or the tools the
 * search loaded are unknown to the next step. Each answer's parts are kept under the id of the first call of a
 * client tool that followed them in the same answer, which the agent sends back in every later request of the run.
 * Made with the client, so it lives as long as the client's layer; past `limit` entries the oldest goes (a run
 * that old searches again).
 */
export interface Replay<A> {
  readonly keep: (callId: string, parts: A) => void
  readonly get: (callId: string) => A | undefined
}

export const make = <A>(limit = 1_000): Replay<A> => {
  const kept = new Map<string, A>()
  return {
    keep: (callId, parts) => {
      kept.delete(callId)
      kept.set(callId, parts)
      if (kept.size > limit) kept.delete(kept.keys().next().value!)
    },
    get: (callId) => kept.get(callId)
  }
}
