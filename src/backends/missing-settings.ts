/**
 * The backend of a queue whose connection settings name no server (a connection string read
 * from an environment variable that is not set): it opens nothing, and every call rejects with
 * the ConfigError that names the missing setting (config.ts, connection-strings.ts).
 */
import type { Backend } from '../backend.js';
import type { ConfigError } from '../errors.js';

export function missingSettingsBackend(error: ConfigError): Backend {
  return new Proxy({} as Backend, {
    get(_target, property) {
      if (property === 'close') return () => Promise.resolve();
      if (property === 'setErrorReporter') return () => undefined;
      // Driver access is synchronous: it throws.
      if (property === 'getPool' || property === 'getRedisClient')
        return () => {
          throw error;
        };
      // Optional limits (maxCompletionsPerCall) and what is not a method (`then`) stay unset.
      if (typeof property !== 'string' || property === 'then' || property.startsWith('max')) return undefined;
      return () => Promise.reject(error);
    },
  });
}
