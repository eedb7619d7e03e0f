/**
 * What a backend reports when it refuses a call: a fact (a kind, the offending ids or names),
 * never a sentence. A backend throws a StoreFact; its store-error seam (store-errors.ts) hands
 * the fact to the one renderer (messages.ts), so both backends word every refusal alike.
 * @internal
 */
import type { NewJob } from './backend.js';

/** A prerequisite job that cannot complete: unknown (status null), or ended for good. */
export interface BlockedPrerequisite {
  id: number;
  status: 'cancelled' | 'failed' | null;
  /** Positions, in the call, of the jobs whose `dependsOn.jobIds` list this id. */
  listedBy: number[];
}

export type Fact =
  /** `dependsOn.jobIds` names jobs that do not exist or already ended cancelled or failed for good. */
  | { kind: 'prerequisites-blocked'; prerequisites: BlockedPrerequisite[]; batchSize: number }
  /** Another schedule holds the name (`holderId` null when it was removed again meanwhile). */
  | { kind: 'schedule-name-taken'; name: string; holderId: number | null }
  | { kind: 'token-id-taken'; tokenId: string }
  | { kind: 'token-unknown'; tokenId: string | null }
  /** A driver-specific call on the backend that has no such driver. */
  | { kind: 'unsupported-on-backend'; operation: 'db' | 'getPool' | 'getRedisClient'; target?: 'pglite' }
  /** The store refused the values of a write (PostgreSQL SQLSTATE class 22 or 23). */
  | { kind: 'values-rejected'; store: string; operation: string; sqlState: string; detail: string };

/** Thrown by a backend; never leaves it (the store-error seam renders it). */
export class StoreFact extends Error {
  readonly fact: Fact;
  constructor(fact: Fact, options?: { cause?: unknown }) {
    super(`store fact: ${fact.kind}`, options);
    this.name = 'StoreFact';
    this.fact = fact;
  }
}

/** The fact for prerequisites a store found blocked, with the jobs of the call that list each. */
export function prerequisitesBlocked(
  jobs: Pick<NewJob, 'dependsOnJobIds'>[],
  blocked: { id: number; status: string | null }[],
): StoreFact {
  const prerequisites = [...blocked]
    .sort((a, b) => a.id - b.id)
    .map(({ id, status }) => ({
      id,
      status: status === null ? null : status === 'cancelled' ? ('cancelled' as const) : ('failed' as const),
      listedBy: jobs.flatMap((j, i) => (j.dependsOnJobIds?.includes(id) ? [i] : [])),
    }));
  return new StoreFact({ kind: 'prerequisites-blocked', prerequisites, batchSize: jobs.length });
}
