/**
 * The OpenTelemetry SDK with the standard OTLP/HTTP exporters, on `@effect/opentelemetry`. Loaded only when an
 * OTLP endpoint is configured (see `./telemetry.js`).
 *
 * @internal
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import type * as Layer from "effect/Layer"
import type { Endpoints } from "./telemetry.js"

/** @internal */
export const layer = (endpoints: Endpoints): Layer.Layer<never> =>
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
