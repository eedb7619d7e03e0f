/**
 * Writing or checking a generated, committed module: shared by build-lua.ts and
 * build-dashboard.ts, so `npm test` (check) and `npm run build:*` (write) treat both alike.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

export interface GeneratedModule {
  /** The command's name, which starts every message, e.g. `build-lua`. */
  tool: string;
  outFile: string;
  /** The module as it should be now. */
  rendered: string;
  /** What the module is generated from, for the stale message, e.g. `the Lua sources`. */
  sources: string;
  /** The npm script that regenerates it, e.g. `build:lua`. */
  script: string;
  /** Compare only: a missing or different module is stale. */
  check: boolean;
}

export function writeOrCheck(m: GeneratedModule): { ok: boolean; message: string } {
  const target = relative(process.cwd(), m.outFile) || m.outFile;
  if (!m.check) {
    writeFileSync(m.outFile, m.rendered);
    return { ok: true, message: `${m.tool}: wrote ${target}` };
  }
  let current = '';
  try {
    current = readFileSync(m.outFile, 'utf8');
  } catch {
    // A missing module is stale too.
  }
  if (current !== m.rendered) {
    return {
      ok: false,
      message: `${m.tool}: ${target} is stale: it does not match ${m.sources}. Run \`npm run ${m.script}\` and commit the result.`,
    };
  }
  return { ok: true, message: `${m.tool}: ${target} is up to date` };
}
