/**
 * Bounded work per script. Redis runs one script at a time and answers nobody else meanwhile,
 * so the scripts that walk many jobs (a listing past an unindexed filter, a bulk cancel or edit
 * by filter, a cleanup) examine at most so many candidate jobs per call and return a cursor: the
 * id below which the next call goes on, newest first, or 0 when the walk is over. The TypeScript
 * side repeats the call until then. Sized so one call stays within a few milliseconds: a listing
 * decodes each candidate (`read`), a bulk change may also rewrite each with its indexes and
 * events (`write`, several times the work per job), a cleanup removes each job with every index
 * entry and event (`cleanup`), or events (`events`); counting job types (`count`, getJobCounts)
 * only reads and decodes each job. A claim or a record of completions (`process`) takes at most
 * so many jobs per call, each with its indexes and event (about 25 µs a job, docs/performance.md),
 * whatever the processor's batchSize. A record of failures (`fail`) takes fewer: each adds to
 * the job's error history and writes its event, and a final one may route the job to its
 * dead-letter type and cancel its dependents. Internal: tests lower them to count slices.
 */
export const scriptSlice = { read: 250, write: 25, cleanup: 50, events: 250, count: 250, process: 50, fail: 10 };

/**
 * The next slice of a bulk change whose last slice of `size` candidates did `work` job changes
 * (the candidates changed plus the dependents a cancel cascaded to): sized in proportion so the
 * work of a call stays near `scriptSlice.write`, between one candidate and `scriptSlice.write`.
 * A job's own cascade is never split across calls, so one job with a larger cascade still
 * takes one call.
 */
export function nextWriteSlice(size: number, work: number): number {
  const target = scriptSlice.write;
  return Math.min(target, Math.max(1, Math.floor((size * target) / Math.max(work, 1))));
}

/** A cursor as scripts take it: '' for the first slice. */
export type SliceCursor = number | '';

/**
 * Runs `slice` from `start` on (the first cursor: '' for the newest job, or an id to go on below),
 * handing each reply to `next`, until it returns cursor 0.
 */
export async function walkSlices<T>(
  slice: (cursor: SliceCursor) => Promise<T>,
  next: (reply: T) => number,
  start: SliceCursor = '',
): Promise<void> {
  let cursor = start;
  for (;;) {
    const reply = await slice(cursor);
    const after = next(reply);
    if (after === 0) return;
    cursor = after;
  }
}
