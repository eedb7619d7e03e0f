/**
 * A seeded source of whole numbers for randomized tests: the same seed gives the same sequence
 * on every run and machine, so a failing seed can be run again.
 *
 * Each draw advances a 32-bit state by a constant (a Weyl sequence) and mixes it with
 * multiply-xorshift rounds (the mulberry32 construction), so every bit of the result varies;
 * a draw scales the whole 32-bit value to `[0, n)` rather than taking its remainder.
 * @example const rnd = seededRandom(42); const op = rnd(8); // 0 to 7
 */
export function seededRandom(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    const unit = ((x ^ (x >>> 14)) >>> 0) / 4294967296;
    return Math.floor(unit * n);
  };
}
