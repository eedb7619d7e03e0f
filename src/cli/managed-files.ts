/**
 * Files the package writes into a project and may update later (skills, rules): the written
 * text sits between marker comments that carry the package version and a hash of that text.
 * A later run updates its own text when the hash still matches, leaves text the user changed
 * alone unless forced, and in a file the user shares with other tools (CLAUDE.md, AGENTS.md)
 * touches only its own section.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { packageVersion } from '../package-root.js';
import { shown, writeProjectFile, type Project } from './project-files.js';

const BEGIN = /^<!-- queuedev:begin version=(\S+) sha256=([0-9a-f]{64}) -->\n/m;
const END = '<!-- queuedev:end -->';

export interface ManagedFile {
  path: string;
  /** The text to write, without markers, ending with a line break. An owned file may open with front matter. */
  text: string;
  /** A file the user also writes in: only the marked section is the package's. */
  shared: boolean;
}

export type Outcome =
  'created' | 'added' | 'updated' | 'unchanged' | 'skipped-changed' | 'skipped-foreign' | 'replaced';

/** Writes (or on a dry run, plans) one file and prints what happened. */
export function writeManaged(project: Project, file: ManagedFile, force: boolean): Outcome {
  const outcome = plan(file, force);
  const name = shown(project, file.path);
  const messages: Record<Outcome, string> = {
    created: 'created',
    added: 'queuedev section added',
    updated: 'updated',
    unchanged: 'unchanged',
    'skipped-changed': 'skipped: changed since queuedev wrote it (--force replaces it)',
    'skipped-foreign': 'skipped: the file exists and queuedev did not write it (--force replaces it)',
    replaced: 'replaced (--force)',
  };
  if (outcome.text !== undefined) writeProjectFile(project, file.path, outcome.text);
  console.log(
    `${project.dryRun && outcome.text !== undefined ? 'dry run: would write ' : ''}${name}: ${messages[outcome.outcome]}`,
  );
  return outcome.outcome;
}

function plan(file: ManagedFile, force: boolean): { outcome: Outcome; text?: string } {
  const begin = `<!-- queuedev:begin version=${packageVersion()} sha256=${hash(file.text)} -->\n`;
  // An owned file keeps its front matter first, where tools read it; the hash covers it too.
  const front = file.shared ? '' : (/^---\n[\s\S]*?\n---\n/.exec(file.text)?.[0] ?? '');
  const fresh = `${front}${begin}${file.text.slice(front.length)}${END}\n`;
  if (!existsSync(file.path)) return { outcome: 'created', text: fresh };
  const current = readFileSync(file.path, 'utf8');
  const found = findBlock(current, file.shared);
  if (!found) {
    const separator = current === '' ? '' : current.endsWith('\n') ? '\n' : '\n\n';
    if (file.shared) return { outcome: 'added', text: `${current}${separator}${fresh}` };
    return force ? { outcome: 'replaced', text: fresh } : { outcome: 'skipped-foreign' };
  }
  if (found.text === file.text) return { outcome: 'unchanged' };
  if (hash(found.text) !== found.recordedHash && !force) return { outcome: 'skipped-changed' };
  const outcome = hash(found.text) === found.recordedHash ? 'updated' : 'replaced';
  return { outcome, text: file.shared ? current.slice(0, found.start) + fresh + current.slice(found.end) : fresh };
}

interface FoundBlock {
  /** The package's text as the file holds it now. */
  text: string;
  recordedHash: string;
  start: number;
  end: number;
}

function findBlock(current: string, shared: boolean): FoundBlock | undefined {
  const begin = BEGIN.exec(current);
  if (!begin) return undefined;
  const bodyStart = begin.index + begin[0].length;
  const endAt = current.indexOf(END, bodyStart);
  if (endAt < 0) return undefined;
  // The end marker's line break belongs to the block.
  const end = endAt + END.length + (current[endAt + END.length] === '\n' ? 1 : 0);
  if (shared) return { text: current.slice(bodyStart, endAt), recordedHash: begin[2]!, start: begin.index, end };
  // Owned: everything but the two marker lines is the package's text.
  const text = current.slice(0, begin.index) + current.slice(bodyStart, endAt) + current.slice(end);
  return { text, recordedHash: begin[2]!, start: 0, end: current.length };
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
