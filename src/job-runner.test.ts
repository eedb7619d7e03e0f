import { afterEach, describe, expect, it } from 'vitest';
import { JobLostError } from './errors.js';
import type { ContextDeps } from './handler-context.js';
import { RunLoss } from './held-runs.js';
import { runJob } from './job-runner.js';
import type { JobRecord } from './types.js';

const job = {
  id: 7,
  jobType: 't',
  payload: {},
  timeoutMs: null,
  forceKillOnTimeout: false,
  stepData: null,
} as unknown as JobRecord;
const deps = { job, workerId: 'w', writes: {}, report: () => undefined } as unknown as ContextDeps;

describe('a run of a job in process', () => {
  const RealAbortController = globalThis.AbortController;
  afterEach(() => {
    globalThis.AbortController = RealAbortController;
  });

  it('creates one AbortController: the handler signal (the loss of the run is a plain flag)', async () => {
    let created = 0;
    globalThis.AbortController = class extends RealAbortController {
      constructor() {
        super();
        created++;
      }
    };
    const outcome = await runJob(job, () => 'done', deps, new RunLoss());
    expect(outcome).toEqual({ status: 'completed', hasOutput: true, output: 'done' });
    expect(created).toBe(1);
  });

  it('ends as lost when the loss fires, aborting the handler signal with the JobLostError', async () => {
    const loss = new RunLoss();
    let signal: AbortSignal | undefined;
    const running = runJob(
      job,
      (_payload, s) => {
        signal = s;
        return new Promise(() => undefined); // never returns
      },
      deps,
      loss,
    );
    const error = new JobLostError('gone');
    loss.abort(error);
    loss.abort(new JobLostError('again')); // a second loss changes nothing
    const outcome = await running;
    expect(outcome.status).toBe('lost');
    expect(outcome).toMatchObject({ error });
    expect(outcome.abandoned).toBeInstanceOf(Promise);
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBe(error);
  });

  it('tells a listener added after the loss at once', () => {
    const loss = new RunLoss();
    const error = new JobLostError('gone');
    loss.abort(error);
    const seen: JobLostError[] = [];
    loss.onAbort((e) => seen.push(e));
    expect(loss.aborted).toBe(true);
    expect(seen).toEqual([error]);
  });
});
