/**
 * OTLP export for `zett`, when the standard variables ask for it: `OTEL_EXPORTER_OTLP_ENDPOINT` (or the
 * `_TRACES_` / `_METRICS_` variants), `OTEL_SERVICE_NAME` (default `zett`). Without them no OpenTelemetry module
 * is loaded: the exporters live in `./otlp.js`, imported only here and only then.
 *
 * @internal
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

const variable = (name: string) =>
  Config.option(Config.string(name)).pipe(
    Effect.map(Option.filter((value) => value.trim() !== "")),
    Effect.map(Option.map((value) => value.trim())),
    Effect.orElseSucceed(() => Option.none<string>())
  )

// OTLP/HTTP puts each signal under its path of the base endpoint; a signal's own variable is used as given
const signalUrl = (own: Option.Option<string>, base: Option.Option<string>, path: string): string | undefined =>
  Option.isSome(own)
    ? own.value
    : Option.isSome(base)
    ? `${base.value.replace(/\/+$/, "")}/${path}`
    : undefined

/** @internal */
export interface Endpoints {
  readonly traces: string | undefined
  readonly metrics: string | undefined
  readonly serviceName: string
}

/** @internal */
export const endpoints: Effect.Effect<Endpoints | undefined> = Effect.gen(function*() {
  const base = yield* variable("OTEL_EXPORTER_OTLP_ENDPOINT")
  const traces = signalUrl(yield* variable("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), base, "v1/traces")
  const metrics = signalUrl(yield* variable("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"), base, "v1/metrics")
  if (traces === undefined && metrics === undefined) return undefined
  const serviceName = Option.getOrElse(yield* variable("OTEL_SERVICE_NAME"), () => "zett")
  return { traces, metrics, serviceName }
})

/**
 * The tracer and metrics of the OpenTelemetry SDK exporting over OTLP/HTTP, flushed when the command ends; or
 * nothing.
 *
 * @internal
 */
export const layer: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.flatMap(endpoints, (endpoints) =>
    endpoints === undefined
      ? Effect.succeed(Layer.empty)
      : Effect.tryPromise(() => import("./otlp.js")).pipe(
        Effect.map((otlp) => otlp.layer(endpoints)),
        // the bundled zett has them; @zett/cli used as a library has them as optional peers
        Effect.catchAll(() =>
          Effect.as(
            Effect.logWarning(
              "an OTLP endpoint is set, but @effect/opentelemetry and the OpenTelemetry SDK are not installed: " +
                "nothing is exported"
            ),
            Layer.empty
          )
        )
      ))
)
