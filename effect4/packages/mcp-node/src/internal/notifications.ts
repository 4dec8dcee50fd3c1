/**
 * The notifications of a connection built on the SDK's `Client`: tool list changes, resource and prompt
 * notifications, and the order in which a notification and a response read together are handed on.
 *
 * @internal
 */
import type { Client } from "@modelcontextprotocol/client"
import type { Scrubber } from "@zett/agent"
import { Notification } from "@zett/mcp/McpClient"
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"

/**
 * `McpClient.onToolListChanged`: the handler is installed with the first listener (the extension adds one as soon
 * as it has connected), so a change announced before the first listing is reflected by that listing and none is
 * missed.
 *
 * @internal
 */
export const toolListChanges = (client: Client) => {
  const listeners = new Set<{ readonly listener: () => void }>()
  let handled = false
  return (listener: () => void): Effect.Effect<void, never, Scope.Scope> =>
    Effect.acquireRelease(
      Effect.sync(() => {
        if (!handled) {
          handled = true
          client.setNotificationHandler("notifications/tools/list_changed", () => {
            for (const entry of listeners) entry.listener()
          })
        }
        const entry = { listener }
        listeners.add(entry)
        return entry
      }),
      (entry) => Effect.sync(() => void listeners.delete(entry))
    )
}

/**
 * Hands the client's resource and prompt notifications to each subscriber's queue; each queue ends (`Cause.Done`)
 * when the connection closes, or its subscriber's scope does. The handlers are installed on the first subscription:
 * a notification nobody listens to is dropped either way. The SDK calls notification handlers synchronously: an
 * unbounded queue takes each offer at once. (Effect 4's `PubSub.subscribe` gives a subscription, not the `Queue.Dequeue` that ends, which the core's
 * `McpClient.notifications` is: a queue per subscriber does both.)
 *
 * @internal
 */
export const notificationsOf = (
  client: Client,
  server: string,
  scrubber: Scrubber.Scrubber
): Effect.Effect<Queue.Dequeue<Notification, Cause.Done>, never, Scope.Scope> => {
  const subscribers = new Set<Queue.Queue<Notification, Cause.Done>>()
  let ended = false
  let installed = false
  const install = () => {
    if (installed) return
    installed = true
    const publish = (notification: Notification) => {
      for (const queue of subscribers) Queue.offerUnsafe(queue, notification)
    }
    const shutdown = () => {
      ended = true
      for (const queue of subscribers) Queue.endUnsafe(queue)
      subscribers.clear()
    }
    client.setNotificationHandler(
      "notifications/resources/updated",
      (notification) => publish(Notification.ResourceUpdated({ server, uri: scrubber.scrub(notification.params.uri) }))
    )
    client.setNotificationHandler(
      "notifications/resources/list_changed",
      () => publish(Notification.ResourceListChanged({ server }))
    )
    client.setNotificationHandler(
      "notifications/prompts/list_changed",
      () => publish(Notification.PromptListChanged({ server }))
    )
    // closed already: nothing will come
    if (client.transport === undefined) return shutdown()
    const onclose = client.onclose
    client.onclose = () => {
      onclose?.()
      shutdown()
    }
  }
  return Effect.acquireRelease(
    Effect.flatMap(Queue.unbounded<Notification, Cause.Done>(), (queue) =>
      Effect.sync(() => {
        install()
        if (ended) Queue.endUnsafe(queue)
        else subscribers.add(queue)
        return queue
      })),
    // ended with its scope too: a scope that closes before the connection does would leave its stream waiting
    (queue) =>
      Effect.sync(() => {
        subscribers.delete(queue)
        Queue.endUnsafe(queue)
      })
  )
}

/**
 * The SDK handles a notification one microtask after it arrives, but a response at once, and forgets a request's
 * progress callback with its response: a call's last progress report, read together with its result (one chunk
 * of a busy pipe), would be dropped. A response that comes in the same tick as a notification is handed on one
 * microtask later, after the notification; any other message goes through as it is.
 *
 * @internal
 */
export const keepNotificationOrder = (client: Client): void => {
  const transport = client.transport
  const deliver = transport?.onmessage
  if (transport === undefined || deliver === undefined) return
  let pending = 0
  const settle = () => void pending--
  transport.onmessage = (message, extra) => {
    if (!("id" in message)) {
      pending++
      deliver(message, extra)
      queueMicrotask(settle)
    } else if (pending > 0 && !("method" in message)) {
      queueMicrotask(() => deliver(message, extra))
    } else {
      deliver(message, extra)
    }
  }
}
