/**
 * @since 0.1.0
 * @internal
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Metric from "effect/Metric"
import * as MetricKey from "effect/MetricKey"
import * as MetricLabel from "effect/MetricLabel"

/**
 * `Metric.increment` of a counter with fixed tags, the key built once. `Metric.tagged` makes and hashes a new
 * key on every update (it joins the tags into a new array, and Effect caches a metric's hooks per array); a
 * metric made from the tagged key finds its hook once. Same key as `Metric.tagged(counter, tag, value)`, tag
 * after tag, so `Metric.value` of that reads it. The update is `Metric.increment`'s (the fiber's metric labels
 * added) in one step of the fiber instead of about ten: it runs on every tool call.
 *
 * @internal
 */
export const taggedIncrement = (
  name: string,
  description: string,
  tags: ReadonlyArray<readonly [key: string, value: string]>
): Effect.Effect<void> => {
  const counter = Metric.fromMetricKey(
    MetricKey.taggedWithLabels(
      MetricKey.counter(name, { description }),
      tags.map(([key, value]) => MetricLabel.make(key, value))
    )
  )
  return Effect.withFiberRuntime((fiber) => {
    counter.unsafeUpdate(1, fiber.getFiberRef(FiberRef.currentMetricLabels))
    return Effect.void
  })
}
