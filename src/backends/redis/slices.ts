/**
 * Bounded work per script. Redis runs one script at a time and answers nobody else meanwhile,
 * so the scripts that walk many jobs (a listing past an unindexed filter, a bulk cancel or edit
 * by filter) examine at most so many candidate jobs per call and return a cursor: the id below
 * which the next call goes on, newest first, or 0 when the walk is over. The TypeScript side
 * repeats the call until then. Sized so one call stays within a few milliseconds: a listing
 * decodes each candidate (`read`), a bulk change may also rewrite each with its indexes and
 * events (`write`, several times the work per job). Internal: tests lower them to count slices.
 */
export const scriptSlice = { read: 250, write: 50 };

/** A cursor as scripts take it: '' for the first slice. */
export type SliceCursor = number | '';

/** Runs `slice` from the first cursor on, handing each reply to `next`, until it returns cursor 0. */
export async function walkSlices<T>(
  slice: (cursor: SliceCursor) => Promise<T>,
  next: (reply: T) => number,
): Promise<void> {
  let cursor: SliceCursor = '';
  for (;;) {
    const reply = await slice(cursor);
    const after = next(reply);
    if (after === 0) return;
    cursor = after;
  }
}
