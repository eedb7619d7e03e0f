/**
 * The `telemetry` option: checked with the rest of the configuration at construction, then
 * turned into the queue's Telemetry. `@opentelemetry/api` is an optional peer dependency,
 * loaded here and only here, on first use.
 */
import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import { checkKnownKeys, fail, isObject } from '../checks.js';
import { ConfigError } from '../errors.js';
import { loadDriver, loadDriverIfInstalled } from '../load-driver.js';
import type { Log } from '../log.js';
import { packageVersion } from '../package-root.js';
import type { Clock, TelemetryConfig } from '../types.js';
import { OtelTelemetry } from './otel.js';
import { NO_TELEMETRY, type Telemetry } from './telemetry.js';

type Api = typeof import('@opentelemetry/api');

/** @internal The option, checked: off, or the API with the providers to use (absent: the global one). */
export type ResolvedTelemetry = null | {
  api: Api;
  tracerProvider: TracerProvider | undefined;
  meterProvider: MeterProvider | undefined;
};

const RULE = 'true, false or an object { tracerProvider?, meterProvider? }';

/** Checks the option; throws ConfigError naming the field. */
export function resolveTelemetry(value: unknown): ResolvedTelemetry {
  if (value === false) return null;
  if (value === undefined) {
    // The default follows the installation: no API, no telemetry, and nothing to ask for it.
    const api = loadDriverIfInstalled('@opentelemetry/api');
    return api ? { api, tracerProvider: undefined, meterProvider: undefined } : null;
  }
  if (value === true)
    return { api: loadDriver('@opentelemetry/api'), tracerProvider: undefined, meterProvider: undefined };
  if (!isObject(value)) return fail(ConfigError, 'telemetry', RULE, value);
  checkKnownKeys(ConfigError, 'telemetry', value, ['tracerProvider', 'meterProvider'], '`telemetry`');
  const { tracerProvider, meterProvider } = value as TelemetryConfig;
  if (tracerProvider !== undefined && !hasMethod(tracerProvider, 'getTracer')) {
    fail(
      ConfigError,
      'telemetry.tracerProvider',
      'a TracerProvider (an object with a getTracer method)',
      tracerProvider,
    );
  }
  if (meterProvider !== undefined && !hasMethod(meterProvider, 'getMeter')) {
    fail(ConfigError, 'telemetry.meterProvider', 'a MeterProvider (an object with a getMeter method)', meterProvider);
  }
  return {
    api: loadDriver('@opentelemetry/api'),
    tracerProvider: tracerProvider as TracerProvider | undefined,
    meterProvider: meterProvider as MeterProvider | undefined,
  };
}

function hasMethod(value: unknown, name: string): boolean {
  return isObject(value) && typeof value[name] === 'function';
}

/** @internal The queue's telemetry for a checked option. */
export function createTelemetry(
  resolved: ResolvedTelemetry,
  backend: 'postgres' | 'redis',
  clock: Clock,
  log: Log,
): Telemetry {
  if (resolved === null) return NO_TELEMETRY;
  const { api } = resolved;
  return new OtelTelemetry({
    api,
    tracerProvider: resolved.tracerProvider ?? api.trace.getTracerProvider(),
    meterProvider: resolved.meterProvider ?? api.metrics.getMeterProvider(),
    backend,
    clock,
    log,
    version: scopeVersion(),
  });
}

/** The package's version for the instrumentation scope; none when the code was bundled away from its package.json. */
function scopeVersion(): string | undefined {
  try {
    return packageVersion();
  } catch {
    return undefined;
  }
}
