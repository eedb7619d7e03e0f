/**
 * Where a Redis drain's time goes: `npm run bench:drain-profile`. Never part of `npm test`.
 *
 * For each processor setting, drains 20,000 no-op jobs in this process and prints the rate, the
 * claim and completion calls the backend made (how many, their median round trip from this
 * process), the server's script time per job (`INFO commandstats`), split between claims and
 * completions, and the longest script call (both from `SLOWLOG`, which logs every call for the
 * run: its threshold and length are put back after). Then the fixed
 * server cost of an empty claim and an empty completion, and of decoding and re-encoding a
 * stored job's metadata in Lua, and of defining the shared functions a script call starts with.
 * `--only 1,5` runs only those settings (numbered from 1). Run it on a quiet server: the counters
 * are server-wide.
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { scripts } from '../src/backends/redis/lua.generated.js';
import { initJobQueue, type ProcessorOptions } from '../src/index.js';
import { backendOf } from '../src/queue.js';
import { openStore } from './setup.js';

const JOBS = 20_000;
const SETTINGS: { label: string; options: Partial<ProcessorOptions> }[] = [
  { label: 'batchSize 10, concurrency 10', options: { batchSize: 10, concurrency: 10 } },
  { label: 'batchSize 20, concurrency 20', options: { batchSize: 20, concurrency: 20 } },
  { label: 'batchSize 50, concurrency 50', options: { batchSize: 50, concurrency: 50 } },
  { label: 'batchSize 10, concurrency 10, claimAhead 30', options: { batchSize: 10, concurrency: 10, claimAhead: 30 } },
  {
    label: 'batchSize 500, concurrency 10, claimAhead 500',
    options: { batchSize: 500, concurrency: 10, claimAhead: 500 },
  },
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** Script calls and their server time so far (EVALSHA, and EVAL after a script-cache miss). */
async function scriptStats(admin: Redis): Promise<{ calls: number; usec: number }> {
  const info = await admin.info('commandstats');
  let calls = 0;
  let usec = 0;
  for (const m of info.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+),usec=(\d+)/gm)) {
    calls += Number(m[1]);
    usec += Number(m[2]);
  }
  return { calls, usec };
}

/** Script name by the SHA1 the client sends with EVALSHA. */
const scriptBySha = new Map(
  Object.values(scripts).map((script) => [createHash('sha1').update(script.source).digest('hex'), script.name]),
);

interface SentCommand {
  name: string;
  args: unknown[];
  promise: Promise<unknown>;
}

/** Round trips of the claim and completion scripts `client` sends, from send to reply, in ms. */
function timeScripts(client: Redis): Record<'claimJobs' | 'completeJobs', number[]> {
  const times = { claimJobs: [] as number[], completeJobs: [] as number[] };
  const send = client.sendCommand.bind(client) as (command: SentCommand, ...rest: unknown[]) => unknown;
  Object.assign(client, {
    sendCommand: (command: SentCommand, ...rest: unknown[]) => {
      const name = command.name === 'evalsha' ? scriptBySha.get(String(command.args[0])) : undefined;
      if (name === 'claimJobs' || name === 'completeJobs') {
        const start = performance.now();
        const done = () => times[name].push(performance.now() - start);
        command.promise.then(done, done);
      }
      return send(command, ...rest);
    },
  });
  return times;
}

async function drain(admin: Redis, options: Partial<ProcessorOptions>): Promise<string> {
  const store = await openStore('redis');
  try {
    const queue = initJobQueue(store.config());
    for (let done = 0; done < JOBS; done += 1000) {
      await queue.addJobs(Array.from({ length: 1000 }, (_, i) => ({ jobType: 'noop', payload: { i: done + i } })));
    }
    const { claimJobs: claims, completeJobs: completions } = timeScripts(queue.getRedisClient() as Redis);
    const threshold = await admin.config('GET', 'slowlog-log-slower-than');
    const length = await admin.config('GET', 'slowlog-max-len');
    await admin.config('SET', 'slowlog-log-slower-than', '0', 'slowlog-max-len', '100000');
    await admin.slowlog('RESET');
    const before = await scriptStats(admin);
    let ran = 0;
    const start = performance.now();
    const processor = queue.createProcessor(
      {
        noop: () => {
          ran++;
        },
      },
      options,
    );
    processor.startInBackground();
    while (ran < JOBS) await new Promise((resolve) => setTimeout(resolve, 2));
    const seconds = (performance.now() - start) / 1000;
    await processor.stopAndDrain();
    const after = await scriptStats(admin);
    const logged = (await admin.slowlog('GET', -1)) as [number, number, number, string[]][];
    await admin.config('SET', 'slowlog-log-slower-than', threshold[1]!, 'slowlog-max-len', length[1]!);
    await admin.slowlog('RESET');
    // Each script call's server time, by script (an EVALSHA's first argument is its SHA1).
    const calls = logged.filter((e) => /^evalsha$/i.test(String(e[3][0])));
    const usecOf = (name: string) =>
      calls.filter((e) => scriptBySha.get(String(e[3][1])) === name).reduce((sum, e) => sum + e[2], 0);
    const longest = Math.max(0, ...calls.map((e) => e[2]));
    await queue.close();
    return [
      `${Math.round(JOBS / seconds).toLocaleString('en-US')} jobs/s`,
      `${claims.length} claim scripts (round trip median ${median(claims).toFixed(2)} ms)`,
      `${completions.length} completion scripts (median ${median(completions).toFixed(2)} ms)`,
      `server scripts ${((after.usec - before.usec) / JOBS).toFixed(1)} µs per job` +
        ` (claims ${(usecOf('claimJobs') / JOBS).toFixed(1)}, completions ${(usecOf('completeJobs') / JOBS).toFixed(1)})`,
      `longest script ${(longest / 1000).toFixed(1)} ms`,
    ].join(', ');
  } finally {
    await store.destroy();
  }
}

/** Server µs per call of `call`, over 2,000 calls after 200 to warm up. */
async function perCall(admin: Redis, call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 200; i++) await call();
  const before = await scriptStats(admin);
  for (let i = 0; i < 2000; i++) await call();
  const after = await scriptStats(admin);
  return (after.usec - before.usec) / (after.calls - before.calls);
}

async function fixedCosts(admin: Redis): Promise<string[]> {
  const store = await openStore('redis');
  try {
    const queue = initJobQueue(store.config());
    const [id] = await queue.addJobs([{ jobType: 'noop', payload: { i: 0 } }]);
    const backend = backendOf(queue);
    const emptyClaim = await perCall(admin, () =>
      backend.claimJobs({ workerId: 'w', batchSize: 10, jobTypes: ['none'], now: new Date() }),
    );
    // completeJobs sends nothing for an empty list: one completion of a job that is not processing.
    const fencedCompletion = await perCall(admin, () =>
      backend.completeJobs([{ jobId: id!, workerId: 'w' }], new Date()),
    );
    // Each script cut after its last include (its shared definitions), against a script that
    // only returns, with as many keys; both loaded once and called by SHA, as the queue calls.
    const bySha = async (source: string, keys: string[]) => {
      const sha = (await admin.script('LOAD', source)) as string;
      return perCall(admin, () => admin.evalsha(sha, keys.length, ...keys));
    };
    const definitions = async (name: 'claimJobs' | 'completeJobs' | 'addJob') => {
      const { source, keys } = scripts[name];
      const names = keys.map((_, i) => `${store.describe().keyPrefix!}{q}:unused${String(i)}`);
      const full = await bySha(source.slice(0, source.lastIndexOf('-- end include')) + '\nreturn 1', names);
      const bare = await bySha('return 1', names);
      return `${name} ${(full - bare).toFixed(1)} µs`;
    };
    const defined = [await definitions('claimJobs'), await definitions('completeJobs'), await definitions('addJob')];
    const meta = (await admin.hget(`${store.describe().keyPrefix!}{q}:jobs`, String(id))) ?? '{}';
    const loop = `local n = tonumber(ARGV[2]) local x for i = 1, n do x = cjson.encode(cjson.decode(ARGV[1])) end return #x`;
    const json = await perCall(admin, () => admin.eval(loop, 0, meta, '100'));
    await queue.close();
    return [
      `an empty claim (a type no job has): ${emptyClaim.toFixed(1)} µs of server time per call`,
      `a completion that finds its job not processing: ${fencedCompletion.toFixed(1)} µs per call`,
      `decoding and re-encoding a stored job's metadata (${meta.length} bytes) in Lua: ${(json / 100).toFixed(2)} µs`,
      `defining the shared functions, per call: ${defined.join(', ')}`,
    ];
  } finally {
    await store.destroy();
  }
}

const admin = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
console.log(`Redis drain profile: ${JOBS.toLocaleString('en-US')} no-op jobs per setting, one process\n`);
const only = process.argv.includes('--only')
  ? new Set(process.argv[process.argv.indexOf('--only') + 1]!.split(',').map(Number))
  : undefined;
for (const [i, { label, options }] of SETTINGS.entries()) {
  if (!only || only.has(i + 1)) console.log(`${label}: ${await drain(admin, options)}`);
}
console.log('');
for (const line of await fixedCosts(admin)) console.log(line);
admin.disconnect();
