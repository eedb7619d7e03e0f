/**
 * The one renderer of what backends report (store-facts.ts): each fact becomes its typed error
 * with the sentence users read, written once here for both backends. Messages follow the
 * library's shape: the field, the rule, the value received.
 * @internal
 */
import {
  DependencyError,
  JobStatusError,
  NotFoundError,
  StoreRejectedError,
  UnsupportedOnBackendError,
  ValidationError,
  describeValue,
  type QueueError,
} from './errors.js';
import type { DeleteJobResult } from './backend.js';
import type { BlockedPrerequisite, Fact } from './store-facts.js';

/** Which backend each driver-specific call belongs to, and the sentence refusing it elsewhere. */
const UNSUPPORTED: Record<Extract<Fact, { kind: 'unsupported-on-backend' }>['operation'], string> = {
  db: 'The `db` option of addJob/addJobs runs the insert on a PostgreSQL client, so it is only supported by the postgres backend; this queue uses redis',
  getPool:
    'getPool() returns the PostgreSQL pool, so it is only available on the postgres backend; this queue uses redis (use getRedisClient())',
  getRedisClient: 'getRedisClient() is only available on the redis backend; this queue uses postgres (use getPool())',
};

/** getPool() on a queue whose PostgreSQL is an embedded PGlite. */
const PGLITE_UNSUPPORTED =
  'getPool() returns a pg.Pool, and this queue runs on PGlite, which has no pool: run SQL on the PGlite instance itself (create it yourself and pass it as `pglite` to keep a handle on it)';

export function renderFact(fact: Fact, cause?: unknown): QueueError {
  switch (fact.kind) {
    case 'prerequisites-blocked':
      return new DependencyError(prerequisitesMessage(fact.prerequisites, fact.batchSize));
    case 'schedule-name-taken': {
      const holder =
        fact.holderId === null ? ', already taken' : `, already the name of cron schedule ${fact.holderId}`;
      return new ValidationError(
        'scheduleName',
        `Expected \`scheduleName\` to be unique, got ${describeValue(fact.name)}${holder}`,
      );
    }
    case 'token-id-taken':
      return new ValidationError(
        'id',
        `Expected a new waitpoint token id, got ${describeValue(fact.tokenId)}, already taken`,
      );
    case 'token-unknown':
      return new NotFoundError(
        `Expected \`tokenId\` to name an existing waitpoint token, got ${describeValue(fact.tokenId)}`,
      );
    case 'unsupported-on-backend':
      return new UnsupportedOnBackendError(fact.target === 'pglite' ? PGLITE_UNSUPPORTED : UNSUPPORTED[fact.operation]);
    case 'values-rejected':
      return new StoreRejectedError(
        `${fact.store} refused the values written by ${fact.operation} (SQLSTATE ${fact.sqlState}): ${fact.detail}`,
        { cause },
      );
  }
}

/** Names every blocked prerequisite and the jobs of the call that listed it. */
function prerequisitesMessage(prerequisites: BlockedPrerequisite[], batchSize: number): string {
  const parts = prerequisites.map(({ id, status, listedBy }) => {
    const fields = listedBy.map((i) => (batchSize === 1 ? 'dependsOn.jobIds' : `jobs[${i}].dependsOn.jobIds`));
    const where = fields.length > 0 ? ` (in \`${fields.join('`, `')}\`)` : '';
    if (status === null) return `job ${id} does not exist${where}`;
    return `job ${id} already ended ${status === 'failed' ? 'failed with no retry left' : status} and can never complete${where}`;
  });
  const unknown = prerequisites.filter((p) => p.status === null).map((p) => p.id);
  const lead = unknown.length > 0 ? `Unknown prerequisite job ids: ${unknown.join(', ')}. ` : '';
  return `${lead}Expected \`dependsOn.jobIds\` to name jobs that can still complete: ${parts.join('; ')}. Nothing was added.`;
}

/** Why deleteJob left job `jobId` in place: it does not exist, or it has not finished. */
export function deleteRefusal(jobId: number, { status, retryDue }: DeleteJobResult): QueueError {
  if (status === null) return new NotFoundError(`Job ${jobId} not found`);
  const state = retryDue ? 'failed with an automatic retry still due' : status;
  return new JobStatusError(
    jobId,
    status,
    `Cannot delete job ${jobId}: it is ${state}; only finished jobs (completed, cancelled, or failed with no retry left) can be deleted`,
  );
}
