/**
 * Which ioredis errors mean "the store cannot serve", for the backend's one translation seam
 * (src/store-errors.ts), and the typed error for a store found reset (identity.ts).
 */
import type { Redis } from 'ioredis';
import { StoreResetError, type StoreUnavailableReason } from '../../errors.js';
import { SOCKET_CODES, errorChain, storeErrorTranslator, type StoreErrorTranslator } from '../../store-errors.js';
import { AUTH_REPLIES, clientSecrets } from './credentials.js';
import { resetReplyFound } from './identity.js';

/** Reply prefixes of a server that refuses work for now. */
const SERVER_REPLIES = /^(LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|BUSY|OOM)\b/;
/** Whether a reply is a refusal for now: the server refuses work, or the credentials (scripts.ts). */
export function refusesForNow(message: string): boolean {
  return SERVER_REPLIES.test(message) || AUTH_REPLIES.test(message);
}

/** ioredis' own messages when it cannot send a command (the last ones: a `Cluster` client's). */
const CONNECTION_MESSAGES = [
  /^Connection is closed/,
  /^Stream isn't writeable/,
  /^Reached the max retries per request limit/,
  /^Cluster isn't ready/,
  /^Cluster is disconnect/,
  /^Cluster is ended/,
  /^None of startup nodes is available/,
  /^Failed to refresh slots cache/,
  /^Node is disconnected/,
  /^Too many Cluster redirections/,
];

function unavailableReason(client: Redis, err: unknown): StoreUnavailableReason | undefined {
  for (const e of errorChain(err)) {
    const code = typeof e.code === 'string' ? e.code : '';
    const message = typeof e.message === 'string' ? e.message : '';
    if (AUTH_REPLIES.test(message)) return 'authentication';
    if (SERVER_REPLIES.test(message)) return 'server';
    if (e.name === 'MaxRetriesPerRequestError' || SOCKET_CODES.has(code)) return 'connection';
    if (CONNECTION_MESSAGES.some((m) => m.test(message))) {
      // The library's own client ends only through close(); the caller's, through theirs.
      return client.status === 'end' ? 'closed' : 'connection';
    }
  }
  return undefined;
}

/** The translation for one queue's client; its passwords are masked in every error let through. */
export function redisErrorTranslator(client: Redis, describeStore: string): StoreErrorTranslator {
  return storeErrorTranslator({
    store: 'Redis',
    secrets: clientSecrets(client),
    unavailable: (err) => unavailableReason(client, err),
    typed(err) {
      const found = resetReplyFound(err);
      if (found === undefined) return undefined;
      return new StoreResetError(
        `The Redis store ${describeStore} was wiped or replaced again while the queue was adopting it; retry the call`,
        { expected: '', found },
      );
    },
  });
}
