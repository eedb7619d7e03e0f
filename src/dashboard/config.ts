/**
 * DashboardConfig (SPEC §2.10), validated once in createQueueDashboard so a mistake fails at
 * start-up with a ConfigError naming the field, not on the first request.
 */
import { checkFunction, checkKnownKeys, checkObject, fail, isObject } from '../checks.js';
import { ConfigError } from '../errors.js';
import type { JobHandlers, ProcessorOptions } from '../processor-options.js';
import type { JobQueue } from '../queue.js';
import type { PayloadMap } from '../types.js';

export interface DashboardConfig<P extends PayloadMap = PayloadMap> {
  /**
   * The queue to show, as returned by `initJobQueue`.
   * @example { jobQueue: queue }
   */
  jobQueue: JobQueue<P>;
  /**
   * Handlers used by the "Process batch" action, one per job type.
   * @example { jobHandlers: { email: sendEmail } }
   */
  jobHandlers: JobHandlers<P>;
  /**
   * The path the handlers are mounted at: it must equal the mount path, start with '/', have
   * no trailing slash (except the root '/'), and be normalised: no '.' or '..' segment, no
   * '//', no '%'.
   * @example { basePath: '/admin/jobs' }
   */
  basePath: string;
  /**
   * Options of the temporary processor that runs one batch per "Process batch" click.
   * @default { batchSize: 10 }
   * @example { processorOptions: { batchSize: 50, concurrency: 5 } }
   */
  processorOptions?: ProcessorOptions | undefined;
  /**
   * Shows the jobs without any action: the page hides every button that changes something, and
   * every POST route answers 403 whatever sends it.
   * @default false
   * @example { readOnly: true }
   */
  readOnly?: boolean | undefined;
}

export interface ResolvedDashboardConfig {
  queue: JobQueue;
  handlers: JobHandlers;
  basePath: string;
  processorOptions: ProcessorOptions;
  readOnly: boolean;
}

const KNOWN = ['jobQueue', 'jobHandlers', 'basePath', 'processorOptions', 'readOnly'];
/**
 * What the dashboard calls on the queue: public methods only. Checked by shape, not
 * `instanceof`: the CommonJS build bundles `queuedev` and `queuedev/dashboard` separately, each
 * with its own JobQueue class.
 */
const QUEUE_METHODS = [
  'getJob',
  'queryJobs',
  'getJobEvents',
  'cancelJob',
  'retryJob',
  'createProcessor',
  'countJobs',
  'retryAllFailedJobs',
  'cancelAllUpcomingJobs',
  'deleteJob',
  'editJob',
  'getJobCounts',
  'getThroughput',
  'getHoldReasons',
  'getJobTypes',
  'listCronJobs',
  'getCronJob',
  'pauseCronJob',
  'resumeCronJob',
  'triggerCronJob',
  'editCronJob',
] as const;
/** URL path characters (RFC 3986 pchar) that a URL keeps as written, '%' excepted. */
const SEGMENT = /^[A-Za-z0-9._~!$&'()*+,;=:@-]+$/;
const BASE_PATH_EXAMPLE = "(e.g. '/admin/jobs', or '/')";

/**
 * Why `basePath` could never equal a request's pathname, or null when it can. Request paths
 * reach the handlers normalised (WHATWG URL): '.' and '..' segments resolved, '%2e' read as '.',
 * and frameworks differ on other percent-escapes, so basePath must already be in that form.
 */
function basePathProblem(basePath: string): string | null {
  if (!basePath.startsWith('/')) return "a URL path starting with '/'";
  if (basePath === '/') return null;
  if (basePath.endsWith('/')) return 'a URL path without a trailing slash';
  const segments = basePath.slice(1).split('/');
  if (segments.includes('')) return "a URL path without empty segments ('//')";
  if (segments.some((s) => s === '.' || s === '..')) return "a normalised URL path, without '.' or '..' segments";
  if (basePath.includes('%')) return "a URL path without percent-escapes ('%'); write the characters themselves";
  if (!segments.every((s) => SEGMENT.test(s))) {
    return "a URL path of letters, digits and -._~!$&'()*+,;=:@ only (no spaces, '?', '#', '\\' or control characters)";
  }
  return null;
}

export const DEFAULT_BATCH_SIZE = 10;

/** The dashboard's configuration is refused at createQueueDashboard with a ConfigError. */
const E = ConfigError;

export function resolveDashboardConfig(config: unknown): ResolvedDashboardConfig {
  const { jobQueue, jobHandlers, basePath, processorOptions, readOnly } = checkObject(
    E,
    'config',
    config,
    'an object { jobQueue, jobHandlers, basePath, processorOptions?, readOnly? }',
  );
  checkKnownKeys(E, '', config as object, KNOWN, 'dashboard options');

  const queue = jobQueue as Record<string, unknown> | undefined;
  if (!isObject(queue) || QUEUE_METHODS.some((m) => typeof queue[m] !== 'function')) {
    fail(E, 'jobQueue', 'a queue created by initJobQueue', jobQueue);
  }
  const handlers = checkObject(E, 'jobHandlers', jobHandlers, 'an object mapping job types to handler functions');
  // A type left undefined has no handler, as in createProcessor.
  for (const [jobType, handler] of Object.entries(handlers)) {
    if (handler !== undefined) checkFunction(E, `jobHandlers.${jobType}`, handler);
  }
  if (typeof basePath !== 'string') fail(E, 'basePath', `a URL path string ${BASE_PATH_EXAMPLE}`, basePath);
  const problem = basePathProblem(basePath);
  if (problem !== null) fail(E, 'basePath', `${problem} ${BASE_PATH_EXAMPLE}`, basePath);
  if (processorOptions !== undefined)
    checkObject(E, 'processorOptions', processorOptions, 'an object of processor options');
  if (readOnly !== undefined && typeof readOnly !== 'boolean') fail(E, 'readOnly', 'true or false', readOnly);

  const resolved: ResolvedDashboardConfig = {
    queue: jobQueue as JobQueue,
    handlers: jobHandlers as JobHandlers,
    basePath,
    // An option left undefined takes the dashboard's default, not undefined over it.
    processorOptions: { batchSize: DEFAULT_BATCH_SIZE, ...definedEntries(processorOptions as ProcessorOptions) },
    readOnly: readOnly === true,
  };
  // Creating a processor validates its options; it starts nothing until start() is called.
  try {
    resolved.queue.createProcessor(resolved.handlers, resolved.processorOptions);
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    throw new ConfigError(`Invalid \`processorOptions\`: ${err.message}`, { cause: err });
  }
  return resolved;
}

/** The entries of `options` whose value is not undefined (none for undefined itself). */
function definedEntries<T extends object>(options: T | undefined): Partial<T> {
  if (options === undefined) return {};
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
}
