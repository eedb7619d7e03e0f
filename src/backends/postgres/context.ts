/**
 * What every PostgreSQL backend operation works with, built once per queue for its schema:
 * the connection, the schema's names and every statement of the schema (built once, so the
 * hot path never rebuilds SQL text), the group-claim lock key and the wake-up listener.
 */
import { createHash } from 'node:crypto';
import type { ResolvedPostgresConfig } from '../../config.js';
import type { Connection } from './connection.js';
import type { Driver } from './driver.js';
import { JobAvailableListener } from './listener.js';
import { cascadeHintSql, cascadeLevelSql } from './queries/cascade.js';
import {
  addCronScheduleSql,
  casCronSlotsSql,
  cronIdByNameSql,
  dueCronSchedulesSql,
  lockCronSchedulesSql,
  recordCronJobsSql,
  removeCronScheduleSql,
} from './queries/cron.js';
import { cleanupAddedEventsSql, cleanupEventsSql, cleanupRunEventsSql, jobEventsSql } from './queries/events.js';
import {
  addJobsSql,
  addOnePlainJobSql,
  addPlainJobsSql,
  getJobSql,
  idsByKeysSql,
  repointDependenciesSql,
} from './queries/jobs.js';
import { heldJobIdsSql, releaseJobsSql, renewLeasesSql } from './queries/leases.js';
import { cleanupJobsSql, deleteJobSql, reclaimSql, retryJobSql, statusBatchSql } from './queries/manage.js';
import { schemaNames, type SchemaNames } from './queries/names.js';
import { countPerStatusSql, throughputSql, trimThroughputSql } from './queries/overview.js';
import {
  claimJobByIdSql,
  claimJobsSql,
  completeJobsSql,
  failJobsFinalSql,
  failJobsForRetrySql,
  prolongJobSql,
  setOutputSql,
  setProgressSql,
} from './queries/processing.js';
import {
  completeTokenSql,
  createTokenSql,
  enterWaitSql,
  expireTokensSql,
  getTokenSql,
  lockTokenSql,
  resumeTokenWaitersSql,
  saveStepSql,
  stillOursSql,
} from './queries/waits.js';

export interface PostgresContext {
  conn: Connection;
  names: SchemaNames;
  sql: Statements;
  /** The advisory lock that makes group-limited claims of this schema take turns. */
  groupLockKey: bigint;
  listener: JobAvailableListener;
}

export type Statements = ReturnType<typeof buildStatements>;

export function postgresContext(config: ResolvedPostgresConfig, driver: Driver, schema: string): PostgresContext {
  const names = schemaNames(schema);
  const log = (message: string) => config.log.debug(message);
  return {
    conn: driver.conn,
    names,
    sql: buildStatements(names),
    groupLockKey: advisoryKey(`queuedev:group-claim:${schema}`),
    listener: new JobAvailableListener(driver.wakeSource(schema), names.channel, log),
  };
}

/** Every fixed statement of a schema (statements built per call, such as filters, are not here). */
function buildStatements(t: SchemaNames) {
  return {
    addJobs: addJobsSql(t, { traced: false }),
    addPlainJobs: addPlainJobsSql(t, { traced: false }),
    addOnePlainJob: addOnePlainJobSql(t, { traced: false, tagged: false }),
    addOneTaggedPlainJob: addOnePlainJobSql(t, { traced: false, tagged: true }),
    addTracedJobs: addJobsSql(t, { traced: true }),
    addTracedPlainJobs: addPlainJobsSql(t, { traced: true }),
    addOneTracedPlainJob: addOnePlainJobSql(t, { traced: true, tagged: false }),
    addOneTracedTaggedPlainJob: addOnePlainJobSql(t, { traced: true, tagged: true }),
    idsByKeys: idsByKeysSql(t),
    repointDependencies: repointDependenciesSql(t),
    getJob: getJobSql(t),
    jobEvents: jobEventsSql(t),
    retryJob: retryJobSql(t),
    statusBatch: statusBatchSql(t),
    deleteJob: deleteJobSql(t),
    cleanupJobs: cleanupJobsSql(t),
    cleanupEvents: cleanupEventsSql(t),
    cleanupAddedEvents: cleanupAddedEventsSql(t),
    cleanupRunEvents: cleanupRunEventsSql(t),
    reclaim: reclaimSql(t),
    cascadeHint: cascadeHintSql(t),
    cascadeLevel: cascadeLevelSql(t),
    claimJobs: claimJobsSql(t, { grouped: false }),
    claimJobsGrouped: claimJobsSql(t, { grouped: true }),
    claimJobById: claimJobByIdSql(t),
    completeJobs: completeJobsSql(t),
    failJobsForRetry: failJobsForRetrySql(t),
    failJobsFinal: failJobsFinalSql(t),
    prolongJob: prolongJobSql(t),
    setProgress: setProgressSql(t),
    setOutput: setOutputSql(t),
    heldJobIds: heldJobIdsSql(t),
    renewLeases: renewLeasesSql(t),
    releaseJobs: releaseJobsSql(t),
    addCronSchedule: addCronScheduleSql(t),
    cronIdByName: cronIdByNameSql(t),
    removeCronSchedule: removeCronScheduleSql(t),
    dueCronSchedules: dueCronSchedulesSql(t),
    casCronSlots: casCronSlotsSql(t),
    lockCronSchedules: lockCronSchedulesSql(t),
    recordCronJobs: recordCronJobsSql(t),
    saveStep: saveStepSql(t),
    enterWait: enterWaitSql(t),
    stillOurs: stillOursSql(t),
    lockToken: lockTokenSql(t),
    getToken: getTokenSql(t),
    createToken: createTokenSql(t),
    completeToken: completeTokenSql(t),
    expireTokens: expireTokensSql(t),
    resumeTokenWaiters: resumeTokenWaitersSql(t),
    countPerStatus: countPerStatusSql(t),
    throughput: throughputSql(t),
    trimThroughput: trimThroughputSql(t),
  };
}

/** A signed 64-bit advisory lock key derived from a name. */
function advisoryKey(name: string): bigint {
  return BigInt.asIntN(64, createHash('sha256').update(name).digest().readBigUInt64BE(0));
}
