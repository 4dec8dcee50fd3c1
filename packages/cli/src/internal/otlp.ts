/**
 * The OpenTelemetry SDK with the standard OTLP/HTTP exporters, on `@effect/opentelemetry`. Loaded only when an
 * OTLP endpoint is configured (see `./telemetry.js`).
 *
 * @internal
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import type { AttributeValue, Span as OtelSpan } from "@opentelemetry/api"
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Tracer from "effect/Tracer"
import type { Endpoints } from "./telemetry.js"

const isPrimitiveArray = (value: unknown): value is AttributeValue =>
  Array.isArray(value) && value.length > 0 &&
  ["string", "number", "boolean"].some((type) => value.every((item) => typeof item === type))

/**
 * `@effect/opentelemetry` exports an array attribute as its JSON text; the GenAI conventions define some as
 * string arrays (`gen_ai.response.finish_reasons`). A homogeneous array of strings, numbers or booleans is set
 * on the OpenTelemetry span as the array it is.
 */
const arrayAttributes: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.map(Effect.tracer, (tracer) =>
    Layer.setTracer(Tracer.make({
      span: (...args) => {
        const span = tracer.span(...args)
        const otel = (span as Tracer.Span & { readonly span?: OtelSpan }).span
        if (otel === undefined) return span
        const attribute = span.attribute.bind(span)
        span.attribute = (key, value) => {
          if (!isPrimitiveArray(value)) return attribute(key, value)
          const attributes = span.attributes as Map<string, unknown>
          attributes.set(key, value)
          otel.setAttribute(key, value)
        }
        return span
      },
      context: tracer.context
    })))
)

/** @internal */
export const layer = (endpoints: Endpoints): Layer.Layer<never> => Layer.provide(arrayAttributes, sdk(endpoints))

const sdk = (endpoints: Endpoints): Layer.Layer<never> =>
  NodeSdk.layer(() => ({
    resource: { serviceName: endpoints.serviceName },
    ...(endpoints.traces !== undefined
      ? { spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url: endpoints.traces })) }
      : {}),
    ...(endpoints.metrics !== undefined
      ? {
        metricReader: new PeriodicExportingMetricReader({
          exporter: new OTLPMetricExporter({ url: endpoints.metrics }),
          // a command is short: what it measured goes out when it ends (the reader exports on shutdown)
          exportIntervalMillis: 60_000
        })
      }
      : {}),
    shutdownTimeout: "5 seconds"
  })) as unknown as Layer.Layer<never>
