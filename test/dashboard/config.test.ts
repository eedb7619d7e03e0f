/**
 * createQueueDashboard validates its configuration (SPEC §2.10) at construction: a ConfigError
 * naming the field, the rule and the value.
 */
import { expect, it } from 'vitest';
import { createQueueDashboard } from '../../src/dashboard/index.js';
import { ConfigError } from '../../src/errors.js';
import type { JobQueue } from '../../src/queue.js';
import { forEachBackend } from '../helpers/backends.js';

forEachBackend('createQueueDashboard configuration (§2.10)', (ctx) => {
  const create = (overrides: Record<string, unknown>) => () =>
    createQueueDashboard({ jobQueue: ctx.queue, jobHandlers: {}, basePath: '/jobs', ...overrides });

  it('returns GET and POST handlers for a valid configuration', () => {
    const dashboard = create({ jobHandlers: { email: async () => undefined }, processorOptions: { batchSize: 5 } })();
    expect(typeof dashboard.GET).toBe('function');
    expect(typeof dashboard.POST).toBe('function');
  });

  it('accepts a typed queue with handlers typed by its payload map', () => {
    type Payloads = { email: { to: string } };
    const queue = ctx.queue as unknown as JobQueue<Payloads>;
    const dashboard = createQueueDashboard({
      jobQueue: queue,
      jobHandlers: { email: async (payload) => payload.to.toUpperCase() },
      basePath: '/jobs',
    });
    expect(typeof dashboard.GET).toBe('function');
  });

  it.each(['/', '/jobs', '/admin/jobs', '/admin/queue-v2/jobs_1', '/x&y', '/admin/.well-known', '/a/...', '/v1.2'])(
    'accepts basePath %s',
    (basePath) => {
      expect(create({ basePath })).not.toThrow();
    },
  );

  it.each([
    ['jobQueue', { jobQueue: undefined }, 'Expected `jobQueue` to be a queue created by initJobQueue, got undefined'],
    [
      'jobQueue',
      { jobQueue: { getJob() {} } },
      'Expected `jobQueue` to be a queue created by initJobQueue, got object',
    ],
    [
      'jobHandlers',
      { jobHandlers: undefined },
      'Expected `jobHandlers` to be an object mapping job types to handler functions, got undefined',
    ],
    [
      'jobHandlers',
      { jobHandlers: [] },
      'Expected `jobHandlers` to be an object mapping job types to handler functions, got an array of length 0',
    ],
    [
      'jobHandlers.email',
      { jobHandlers: { email: 'send' } },
      'Expected `jobHandlers.email` to be a function, got "send" (string)',
    ],
    ['basePath', { basePath: undefined }, 'got undefined'],
    ['basePath', { basePath: 'jobs' }, 'got "jobs" (string)'],
    ['basePath', { basePath: '/jobs/' }, 'got "/jobs/" (string)'],
    ['basePath', { basePath: '//jobs' }, 'got "//jobs" (string)'],
    ['basePath', { basePath: '/jobs?x=1' }, 'got "/jobs?x=1" (string)'],
    ['basePath', { basePath: '/my jobs' }, 'got "/my jobs" (string)'],
    ['basePath', { basePath: 42 }, 'got 42 (number)'],
    [
      'processorOptions',
      { processorOptions: 'fast' },
      'Expected `processorOptions` to be an object of processor options, got "fast" (string)',
    ],
    [
      'processorOptions',
      { processorOptions: { batchSize: 0 } },
      'Invalid `processorOptions`: Expected `batchSize` to be an integer between 1 and 10000, got 0 (number)',
    ],
    [
      'processorOptions',
      { processorOptions: { pollInterval: -1 } },
      'Invalid `processorOptions`: Expected `pollInterval`',
    ],
    ['readOnly', { readOnly: 'yes' }, 'Expected `readOnly` to be true or false, got "yes" (string)'],
    [
      'an unknown option',
      { basepath: '/jobs' },
      'Unknown option `basepath` in dashboard options, got "/jobs" (string). Did you mean `basePath`?',
    ],
  ])('rejects a bad %s with a ConfigError', (_, overrides, message) => {
    const run = create(overrides);
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(message);
  });

  it('names basePath and its rule', () => {
    expect(create({ basePath: '/jobs/' })).toThrow(
      "Expected `basePath` to be a URL path without a trailing slash (e.g. '/admin/jobs', or '/'), got \"/jobs/\" (string)",
    );
  });

  // Each of these is resolved or re-encoded before a request path reaches the handlers (WHATWG
  // URL), so no request could ever match: refused at construction rather than a dashboard that 404s.
  it.each([
    ['/admin/../x', "without '.' or '..' segments"],
    ['/admin/..', "without '.' or '..' segments"],
    ['/admin/./jobs', "without '.' or '..' segments"],
    ['/.', "without '.' or '..' segments"],
    ['/admin/%2e%2e/x', "without percent-escapes ('%')"],
    ['/admin/%2E/jobs', "without percent-escapes ('%')"],
    ['/my%20jobs', "without percent-escapes ('%')"],
    ['/admin//jobs', "without empty segments ('//')"],
    ['//jobs', "without empty segments ('//')"],
    ['/jobs/', 'without a trailing slash'],
    ['/admin\\jobs', "letters, digits and -._~!$&'()*+,;=:@ only"],
    ['/admin/jobs\n', "letters, digits and -._~!$&'()*+,;=:@ only"],
    ['/admin/\u0000jobs', "letters, digits and -._~!$&'()*+,;=:@ only"],
    ['/jöbs', "letters, digits and -._~!$&'()*+,;=:@ only"],
    ['/jobs#x', "letters, digits and -._~!$&'()*+,;=:@ only"],
    ['admin/jobs', "starting with '/'"],
    ['', "starting with '/'"],
  ])('rejects basePath %j, naming the rule and the value', (basePath, rule) => {
    const run = create({ basePath });
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(`Expected \`basePath\` to be a`);
    expect(run).toThrow(rule);
    expect(run).toThrow(`got ${JSON.stringify(basePath)} (string)`);
  });

  it('rejects a missing configuration', () => {
    expect(() => createQueueDashboard(undefined as never)).toThrow(ConfigError);
  });
});
