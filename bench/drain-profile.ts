/**
 * Where a Redis drain's time goes: `npm run bench:drain-profile`. Never part of `npm test`.
 *
 * For each processor setting, drains 20,000 no-op jobs in this process and prints the rate, the
 * claim and completion calls the backend made (how many, their median round trip from this
 * process), the server's script time per job (`INFO commandstats`), split between claims and
 * completions, and the longest script call (both from `SLOWLOG`, which logs every call for the
 * run: its threshold and length are put back after). Then the fixed server cost of an empty
 * claim and an empty completion; the JSON work of a processing job's metadata in Lua, against
 * the same in MessagePack; the cost of defining the shared functions a script call starts with;
 * a script call's own cost against a Redis Functions call's (FCALL); where a claim's and a
 * completion's server time goes, by shared function (see sectionProfile). Last, the default drain
 * and the single add with the scripts run as functions against by EVALSHA, in turn (see
 * functionsAgainstEvalsha). `--only 1,5` runs only those settings (numbered from 1; `--only 0`
 * none). Run it on a quiet server: the counters are server-wide.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { keyName } from '../src/backends/redis/keys.js';
import { scripts } from '../src/backends/redis/lua.generated.js';
import { initJobQueue, type ProcessorOptions } from '../src/index.js';
import { backendOf } from '../src/queue.js';
import { openStore, REDIS_URL } from './setup.js';
import { scriptOf, timeScripts } from './store-calls.js';

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

/** Script calls and their server time so far (EVALSHA, EVAL after a script-cache miss, FCALL). */
async function scriptStats(admin: Redis): Promise<{ calls: number; usec: number }> {
  const info = await admin.info('commandstats');
  let calls = 0;
  let usec = 0;
  for (const m of info.matchAll(/^cmdstat_(?:evalsha|eval|fcall):calls=(\d+),usec=(\d+)/gm)) {
    calls += Number(m[1]);
    usec += Number(m[2]);
  }
  return { calls, usec };
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
    // Each script call's server time, by script.
    const calls = logged.filter((e) => scriptOf(String(e[3][0]), e[3][1]) !== undefined);
    const usecOf = (name: string) =>
      calls.filter((e) => scriptOf(String(e[3][0]), e[3][1]) === name).reduce((sum, e) => sum + e[2], 0);
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
    // Claimed by another worker: its metadata is a processing job's, and the completion below
    // is fenced.
    await backend.claimJobs({ workerId: 'other', batchSize: 1, now: new Date() });
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
    // The JSON work of a processing job's metadata, each step alone, and the same round trip
    // in MessagePack (cmsgpack, also built into Redis's Lua): per operation, over 100 a call.
    const meta = (await admin.hget(`${store.describe().keyPrefix!}{q}:jobs`, String(id))) ?? '{}';
    const coding = async (step: string) => {
      const loop = `local j = cjson.decode(ARGV[1]) local m = cmsgpack.pack(j) local x
        for i = 1, tonumber(ARGV[2]) do ${step} end return 1`;
      return ((await perCall(admin, () => admin.eval(loop, 0, meta, '100'))) / 100).toFixed(2);
    };
    const [decode, encode, msgpack] = [
      await coding('x = cjson.decode(ARGV[1])'),
      await coding('x = cjson.encode(j)'),
      await coding('x = cmsgpack.pack(cmsgpack.unpack(m))'),
    ];
    // A script call's own cost against a Redis Functions call's (FCALL, Redis 7), both only
    // returning, with the claim's number of keys; the library is deleted after.
    const keyList = scripts.claimJobs.keys.map((_, i) => `${store.describe().keyPrefix!}{q}:unused${String(i)}`);
    const returner = `queuedev_bench_${createHash('sha1').update(keyList[0]!).digest('hex').slice(0, 8)}`;
    await admin.call(
      'FUNCTION',
      'LOAD',
      `#!lua name=${returner}\nredis.register_function('${returner}', function() return 1 end)`,
    );
    const fcall = await perCall(admin, () => admin.call('FCALL', returner, keyList.length, ...keyList));
    await admin.call('FUNCTION', 'DELETE', returner);
    const evalsha = await bySha('return 1', keyList);
    await queue.close();
    return [
      `an empty claim (a type no job has): ${emptyClaim.toFixed(1)} µs of server time per call`,
      `a completion that finds its job not processing: ${fencedCompletion.toFixed(1)} µs per call`,
      `a processing job's metadata (${meta.length} bytes) in Lua: cjson.decode ${decode} µs, cjson.encode ${encode} µs;` +
        ` as MessagePack, unpack and pack ${msgpack} µs`,
      `defining the shared functions, per call: ${defined.join(', ')}`,
      `a call that only returns, with ${keyList.length} keys: EVALSHA ${evalsha.toFixed(1)} µs, FCALL ${fcall.toFixed(1)} µs`,
    ];
  } finally {
    await store.destroy();
  }
}

/**
 * The shared functions a claim and a completion spend their time in, each timed in an
 * instrumented copy of the script (sectionProfile). None of them calls another of its list,
 * except `store`, which calls `saveJob`: each is timed without the listed functions it calls.
 */
const SECTIONS = {
  claimJobs: [
    'checkStore',
    'loadJob',
    'transition',
    'keepProcessingEvent',
    'store',
    'saveJob',
    'jobRow',
    'flushWrites',
  ],
  completeJobs: ['loadJob', 'transition', 'keepCompletedEvent', 'store', 'saveJob', 'flushWrites', 'countAttempts'],
} as const;

/**
 * A copy of `source` in which each function of `names` adds its own time (without that of the
 * other wrapped functions it calls) and its calls to tables the script returns as a third
 * reply element, read by two TIME calls per call; a wrapped empty function, called 20 times at
 * the end as `(overhead)`, gives the timing's own cost, which the caller takes off per call. The
 * copy is for this benchmark only.
 */
function instrumented(source: string, names: readonly string[], replyLine: RegExp, reply: string): string {
  const at = source.lastIndexOf('-- end include');
  const after = source.indexOf('\n', at) + 1;
  const timing = `
local __self, __calls, __stack = {}, {}, {}
local function __now() local t = redis.call('TIME') return t[1] * 1000000 + t[2] end
local function __wrap(name, f)
  return function(...)
    local t = __now()
    local parent = __stack[#__stack]
    if parent then __self[parent[1]] = (__self[parent[1]] or 0) + t - parent[2] end
    __stack[#__stack + 1] = { name, t }
    local r1, r2, r3 = f(...)
    local e = __now()
    __self[name] = (__self[name] or 0) + e - table.remove(__stack)[2]
    __calls[name] = (__calls[name] or 0) + 1
    if parent then parent[2] = e end
    return r1, r2, r3
  end
end
${names.map((n) => `${n} = __wrap('${n}', ${n})`).join('\n')}
local __empty = __wrap('(overhead)', function() end)
local function __timings()
  for _ = 1, 20 do __empty() end
  local out = {}
  for name, usec in pairs(__self) do out[#out + 1] = name .. '=' .. usec .. '=' .. __calls[name] end
  return out
end
`;
  const body = source.slice(after);
  if (!replyLine.test(body)) throw new Error(`no reply line ${String(replyLine)} to instrument`);
  return source.slice(0, after) + timing + body.replace(replyLine, reply);
}

/**
 * Where a default drain's claims (10 jobs a call) and completions (50 a call) spend the
 * server's time, per job: the script totals from `INFO commandstats` on the scripts as they are
 * (by EVALSHA, so a call's total includes defining the shared code), then each shared function's
 * own time from instrumented copies on a second store, less the timing's own cost per call, and
 * its share of that total (the rest is the scripts' own lines, the unlisted functions and the
 * call itself). The JSON work of a job's metadata is `loadJob` (HGET and cjson.decode) and
 * `saveJob` (cjson.encode and the HSET, deferred to flushWrites).
 */
async function sectionProfile(admin: Redis): Promise<string[]> {
  const JOBS_HERE = 3000;
  const run = async (instrument: boolean) => {
    const store = await openStore('redis');
    try {
      const queue = initJobQueue(store.config());
      for (let done = 0; done < JOBS_HERE; done += 1000) {
        await queue.addJobs(Array.from({ length: 1000 }, (_, i) => ({ jobType: 'noop', payload: { i: done + i } })));
      }
      const prefix = store.describe().keyPrefix!;
      const storeId = (await admin.hget(keyName(prefix, 'meta'), 'storeId'))!;
      const load = async (name: 'claimJobs' | 'completeJobs', replyLine: RegExp, reply: string) => {
        const { source, keys } = scripts[name];
        const text = instrument ? instrumented(source, SECTIONS[name], replyLine, reply) : source;
        return { sha: (await admin.script('LOAD', text)) as string, keys: keys.map((k) => keyName(prefix, k)) };
      };
      const claim = await load(
        'claimJobs',
        /return \{ claimed, moved \}\s*$/,
        'return { claimed, moved, __timings() }',
      );
      const complete = await load('completeJobs', /return recorded\s*$/, 'return { recorded, __timings() }');
      const totals = { claimJobs: 0, completeJobs: 0 };
      const sections = {
        claimJobs: new Map<string, [number, number]>(),
        completeJobs: new Map<string, [number, number]>(),
      };
      // Each call as the queue makes it; an instrumented one's timings are taken off its reply.
      const call = async (name: 'claimJobs' | 'completeJobs', args: string[]): Promise<unknown> => {
        const { sha, keys } = name === 'claimJobs' ? claim : complete;
        const before = await scriptStats(admin);
        const reply = (await admin.evalsha(sha, keys.length, ...keys, ...args)) as unknown[];
        totals[name] += (await scriptStats(admin)).usec - before.usec;
        if (!instrument) return reply;
        for (const entry of reply.pop() as string[]) {
          const [fn, usec, calls] = entry.split('=') as [string, string, string];
          const [u, c] = sections[name].get(fn) ?? [0, 0];
          sections[name].set(fn, [u + Number(usec), c + Number(calls)]);
        }
        return name === 'claimJobs' ? reply : reply[0];
      };
      let claimed: number[] = [];
      for (let total = 0; total < JOBS_HERE;) {
        const [rows] = (await call('claimJobs', [String(Date.now()), 'w', '10', '', '', storeId])) as [string[][]];
        if (rows.length === 0) throw new Error('the section profile found no job to claim');
        total += rows.length;
        claimed.push(...rows.map((r) => (JSON.parse(r[0]!) as { id: number }).id));
        if (claimed.length >= 50 || total >= JOBS_HERE) {
          const batch = JSON.stringify(claimed.map((id) => ({ id, workerId: 'w' })));
          const recorded = (await call('completeJobs', [String(Date.now()), batch])) as number[];
          if (recorded.length !== claimed.length)
            throw new Error('the section profile completed fewer jobs than it claimed');
          claimed = [];
        }
      }
      await queue.close();
      return { totals, sections };
    } finally {
      await store.destroy();
    }
  };
  const shipped = await run(false);
  const timed = await run(true);
  const lines: string[] = [];
  for (const name of ['claimJobs', 'completeJobs'] as const) {
    const perJob = (usec: number) => (usec / JOBS_HERE).toFixed(1);
    const measured = timed.sections[name];
    const [overUsec, overCalls] = measured.get('(overhead)')!;
    const perCall = overUsec / overCalls;
    const parts = SECTIONS[name]
      .filter((fn) => measured.has(fn))
      .map((fn) => {
        const [usec, calls] = measured.get(fn)!;
        return [fn, Math.max(0, usec - calls * perCall)] as const;
      });
    // Shares of the shipped scripts' total: the instrumented copies' own total carries more of
    // the timing's cost than the empty function shows, so it is no denominator.
    const total = shipped.totals[name];
    lines.push(
      `${name}: ${perJob(total)} µs of server time per job by EVALSHA; each function's own time: ` +
        parts.map(([fn, usec]) => `${fn} ${perJob(usec)} (${((100 * usec) / total).toFixed(0)}%)`).join(', ') +
        ` (the timing's cost, ${perCall.toFixed(1)} µs per wrapped call, taken off)`,
    );
  }
  return lines;
}

/**
 * The default drain and the single add with the scripts run as functions of the library
 * (FCALL) and by EVALSHA, in turn, on one server: the EVALSHA side is a queue whose Redis user
 * the ACL denies FCALL, so scripts.ts runs every script by EVALSHA (the user is created for the
 * run and deleted after). Per round and side: the drain's rate (10,000 jobs, batch size 10,
 * concurrency 10) and the server's script time per job, the rate of 1,000 sequential adds and
 * the server's script time per add; then the medians of FCALL ÷ EVALSHA over the rounds.
 */
async function functionsAgainstEvalsha(admin: Redis, rounds = 3): Promise<string[]> {
  const user = `queuedev_bench_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  await admin.call('ACL', 'SETUSER', user, 'on', `>${password}`, '~*', '&*', '+@all', '-fcall');
  const evalshaUrl = new URL(REDIS_URL);
  evalshaUrl.username = user;
  evalshaUrl.password = password;
  const DRAINED = 10_000;
  const ADDS = 1000;
  const side = async (viaEvalsha: boolean) => {
    const store = await openStore('redis');
    try {
      const { redisConfig } = store.config() as { redisConfig: { url: string; keyPrefix: string } };
      const url = viaEvalsha ? evalshaUrl.toString() : redisConfig.url;
      const queue = initJobQueue({ backend: 'redis', redisConfig: { ...redisConfig, url } });
      await queue.addJob({ jobType: 'noop', payload: { i: -1 } });
      const calls = async () => {
        const info = await admin.info('commandstats');
        return Number(/^cmdstat_fcall:calls=(\d+)/m.exec(info)?.[1] ?? 0);
      };
      const fcallsBefore = await calls();
      let before = await scriptStats(admin);
      let start = performance.now();
      for (let i = 0; i < ADDS; i++) await queue.addJob({ jobType: 'noop', payload: { i } });
      const addRate = ADDS / ((performance.now() - start) / 1000);
      const addUsec = ((await scriptStats(admin)).usec - before.usec) / ADDS;
      for (let done = ADDS + 1; done < DRAINED; done += 1000) {
        const n = Math.min(1000, DRAINED - done);
        await queue.addJobs(Array.from({ length: n }, (_, i) => ({ jobType: 'noop', payload: { i: done + i } })));
      }
      let ran = 0;
      before = await scriptStats(admin);
      start = performance.now();
      const processor = queue.createProcessor(
        {
          noop: () => {
            ran++;
          },
        },
        { batchSize: 10, concurrency: 10 },
      );
      processor.startInBackground();
      while (ran < DRAINED) await new Promise((resolve) => setTimeout(resolve, 2));
      const drainRate = DRAINED / ((performance.now() - start) / 1000);
      await processor.stopAndDrain();
      const drainUsec = ((await scriptStats(admin)).usec - before.usec) / DRAINED;
      // The EVALSHA side must have made no FCALL, and the other only FCALLs.
      if (viaEvalsha !== ((await calls()) === fcallsBefore)) throw new Error('a side ran its scripts the other way');
      await queue.close();
      return { drainRate, drainUsec, addRate, addUsec };
    } finally {
      await store.destroy();
    }
  };
  const lines: string[] = [];
  const ratios: Record<'drainRate' | 'drainUsec' | 'addRate' | 'addUsec', number[]> = {
    drainRate: [],
    drainUsec: [],
    addRate: [],
    addUsec: [],
  };
  const rate = (n: number) => Math.round(n).toLocaleString('en-US');
  try {
    for (let round = 1; round <= rounds; round++) {
      const evalsha = await side(true);
      const fcall = await side(false);
      for (const key of Object.keys(ratios) as (keyof typeof ratios)[]) ratios[key].push(fcall[key] / evalsha[key]);
      lines.push(
        `round ${String(round)}: drain ${rate(fcall.drainRate)} jobs/s with FCALL (${fcall.drainUsec.toFixed(1)} µs of` +
          ` server script time per job), ${rate(evalsha.drainRate)} with EVALSHA (${evalsha.drainUsec.toFixed(1)});` +
          ` single add ${rate(fcall.addRate)}/s (${fcall.addUsec.toFixed(1)} µs per add),` +
          ` ${rate(evalsha.addRate)}/s (${evalsha.addUsec.toFixed(1)})`,
      );
    }
  } finally {
    await admin.call('ACL', 'DELUSER', user);
  }
  const ratio = (key: keyof typeof ratios) => `${median(ratios[key]).toFixed(2)}x`;
  lines.push(
    `FCALL ÷ EVALSHA, medians of the rounds: drain rate ${ratio('drainRate')}, its server time per job` +
      ` ${ratio('drainUsec')}; single add rate ${ratio('addRate')}, its server time per add ${ratio('addUsec')}`,
  );
  return lines;
}

const admin = new Redis(REDIS_URL);
console.log(`Redis drain profile: ${JOBS.toLocaleString('en-US')} no-op jobs per setting, one process\n`);
const only = process.argv.includes('--only')
  ? new Set(process.argv[process.argv.indexOf('--only') + 1]!.split(',').map(Number))
  : undefined;
for (const [i, { label, options }] of SETTINGS.entries()) {
  if (!only || only.has(i + 1)) console.log(`${label}: ${await drain(admin, options)}`);
}
console.log('');
for (const line of await fixedCosts(admin)) console.log(line);
console.log('');
console.log('Where the server time of a claim of 10 and a completion of 50 goes, per job:');
for (const line of await sectionProfile(admin)) console.log(line);
console.log('');
console.log('The scripts as functions of the library (FCALL) against the same scripts by EVALSHA, in turn:');
for (const line of await functionsAgainstEvalsha(admin)) console.log(line);
admin.disconnect();
