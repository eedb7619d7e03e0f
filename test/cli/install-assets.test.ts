/**
 * `queue-cli install-skills` and `queue-cli install-rules` in temp projects: the shipped files
 * land where each assistant reads them, a second run changes nothing, a file the user changed
 * or wrote is left alone unless --force, and the markers let a later version update its text.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli, ROOT, show, tempProject } from './run-cli.js';

const dirs: string[] = [];
function project(): string {
  const dir = tempProject('install-assets');
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');
const SKILLS = readdirSync(join(ROOT, 'assistants/skills')).sort();
const RULES = readFileSync(join(ROOT, 'assistants/rules/queuedev.md'), 'utf8');
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

/** The marker an earlier version wrote around `text` (the format later versions must read). */
function marked(text: string, writtenBy = '0.0.1'): string {
  const hash = createHash('sha256').update(text).digest('hex');
  return `<!-- queuedev:begin version=${writtenBy} sha256=${hash} -->\n${text}<!-- queuedev:end -->\n`;
}

/** A file's text without the marker lines. */
const unmarked = (text: string) => text.replace(/^<!-- queuedev:(begin|end)[^\n]*\n/gm, '');

describe('queue-cli install-skills', () => {
  it('ships the four skills, each a SKILL.md opening with its name and description', () => {
    expect(SKILLS).toEqual(['queuedev-deployment', 'queuedev-handlers', 'queuedev-troubleshooting', 'queuedev-usage']);
    for (const skill of SKILLS) {
      expect(read(ROOT, `assistants/skills/${skill}/SKILL.md`)).toMatch(
        new RegExp(`^---\\nname: ${skill}\\ndescription: Use when .+\\n---\\n`),
      );
    }
  });

  it('copies every skill into .claude/skills with front matter first, then changes nothing on a second run', async () => {
    const dir = project();
    const run = await cli(['install-skills'], dir);
    expect(run.code, show(run)).toBe(0);
    for (const skill of SKILLS) {
      const path = `.claude/skills/${skill}/SKILL.md`;
      expect(run.stdout).toContain(`${path}: created`);
      const text = read(dir, path);
      expect(text.startsWith(`---\nname: ${skill}\n`)).toBe(true);
      expect(text).toContain(`<!-- queuedev:begin version=${version} sha256=`);
      expect(unmarked(text)).toBe(read(ROOT, `assistants/skills/${skill}/SKILL.md`));
    }
    const before = read(dir, '.claude/skills/queuedev-usage/SKILL.md');
    const again = await cli(['install-skills'], dir);
    expect(again.stdout.match(/: unchanged$/gm)).toHaveLength(SKILLS.length);
    expect(read(dir, '.claude/skills/queuedev-usage/SKILL.md')).toBe(before);
  });

  it('leaves a skill the user changed, or a file it did not write, unless --force', async () => {
    const dir = project();
    await cli(['install-skills'], dir);
    const changed = `${read(dir, '.claude/skills/queuedev-usage/SKILL.md')}\nOur own note.\n`;
    writeFileSync(join(dir, '.claude/skills/queuedev-usage/SKILL.md'), changed);
    writeFileSync(join(dir, '.claude/skills/queuedev-handlers/SKILL.md'), '# our handlers skill\n');
    const run = await cli(['install-skills'], dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      '.claude/skills/queuedev-usage/SKILL.md: skipped: changed since queuedev wrote it (--force replaces it)',
    );
    expect(run.stdout).toContain(
      '.claude/skills/queuedev-handlers/SKILL.md: skipped: the file exists and queuedev did not write it',
    );
    expect(read(dir, '.claude/skills/queuedev-usage/SKILL.md')).toBe(changed);
    expect(read(dir, '.claude/skills/queuedev-handlers/SKILL.md')).toBe('# our handlers skill\n');

    const forced = await cli(['install-skills', '--force'], dir);
    expect(forced.stdout.match(/: replaced \(--force\)$/gm)).toHaveLength(2);
    expect(unmarked(read(dir, '.claude/skills/queuedev-usage/SKILL.md'))).toBe(
      read(ROOT, 'assistants/skills/queuedev-usage/SKILL.md'),
    );
  });

  it('updates a skill an earlier version wrote and the user left as it was', async () => {
    const dir = project();
    const old = '---\nname: queuedev-usage\ndescription: old\n---\n# old text\n';
    const front = '---\nname: queuedev-usage\ndescription: old\n---\n';
    mkdirSync(join(dir, '.claude/skills/queuedev-usage'), { recursive: true });
    writeFileSync(join(dir, '.claude/skills/queuedev-usage/SKILL.md'), front + marked(old).replace(front, ''));
    const run = await cli(['install-skills'], dir);
    expect(run.stdout).toContain('.claude/skills/queuedev-usage/SKILL.md: updated');
    expect(unmarked(read(dir, '.claude/skills/queuedev-usage/SKILL.md'))).toBe(
      read(ROOT, 'assistants/skills/queuedev-usage/SKILL.md'),
    );
  });

  it('--to picks the folder and --dry-run writes nothing', async () => {
    const dir = project();
    const dry = await cli(['install-skills', '--to', 'skills', '--dry-run'], dir);
    expect(dry.code, show(dry)).toBe(0);
    expect(dry.stdout).toContain('dry run: would write skills/queuedev-usage/SKILL.md: created');
    expect(existsSync(join(dir, 'skills'))).toBe(false);
    await cli(['install-skills', '--to', 'skills'], dir);
    expect(readdirSync(join(dir, 'skills')).sort()).toEqual(SKILLS);
  });
});

describe('queue-cli install-rules', () => {
  it('writes AGENTS.md when no assistant shows, and changes nothing on a second run', async () => {
    const dir = project();
    const run = await cli(['install-rules'], dir);
    expect(run.code, show(run)).toBe(0);
    expect(run.stdout).toContain('AGENTS.md: created');
    expect(read(dir, 'AGENTS.md')).toBe(marked(RULES, version));
    const again = await cli(['install-rules'], dir);
    expect(again.stdout).toContain('AGENTS.md: unchanged');
    expect(read(dir, 'AGENTS.md')).toBe(marked(RULES, version));
  });

  it('adds a section to the user CLAUDE.md and later replaces only that section', async () => {
    const dir = project();
    writeFileSync(join(dir, 'CLAUDE.md'), '# Our project\n\nUse pnpm.\n');
    const run = await cli(['install-rules'], dir);
    expect(run.stdout).toContain('CLAUDE.md: queuedev section added');
    expect(read(dir, 'CLAUDE.md')).toBe(`# Our project\n\nUse pnpm.\n\n${marked(RULES, version)}`);

    // An earlier version's section between the user's text: updated in place.
    writeFileSync(
      join(dir, 'CLAUDE.md'),
      `# Our project\n\n${marked('## queuedev\nold rules\n')}\n## Ours\nKeep this.\n`,
    );
    const update = await cli(['install-rules', '--client', 'claude'], dir);
    expect(update.stdout).toContain('CLAUDE.md: updated');
    expect(read(dir, 'CLAUDE.md')).toBe(`# Our project\n\n${marked(RULES, version)}\n## Ours\nKeep this.\n`);
  });

  it('leaves a section the user edited unless --force', async () => {
    const dir = project();
    await cli(['install-rules', '--client', 'agents'], dir);
    const edited = read(dir, 'AGENTS.md').replace('never create a queue per request', 'one queue, please');
    writeFileSync(join(dir, 'AGENTS.md'), edited);
    const run = await cli(['install-rules', '--client', 'agents'], dir);
    expect(run.stdout).toContain('AGENTS.md: skipped: changed since queuedev wrote it');
    expect(read(dir, 'AGENTS.md')).toBe(edited);
    const forced = await cli(['install-rules', '--client', 'agents', '--force'], dir);
    expect(forced.stdout).toContain('AGENTS.md: replaced (--force)');
    expect(read(dir, 'AGENTS.md')).toBe(marked(RULES, version));
  });

  it('--client all writes every format; Cursor and Windsurf files open with their front matter', async () => {
    const dir = project();
    const run = await cli(['install-rules', '--client', 'all'], dir);
    expect(run.code, show(run)).toBe(0);
    for (const file of ['AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md']) {
      expect(read(dir, file)).toBe(marked(RULES, version));
    }
    const cursor = read(dir, '.cursor/rules/queuedev.mdc');
    expect(cursor).toMatch(/^---\ndescription: .+\nglobs:\nalwaysApply: false\n---\n<!-- queuedev:begin /);
    expect(unmarked(cursor).endsWith(RULES)).toBe(true);
    expect(read(dir, '.windsurf/rules/queuedev.md')).toMatch(
      /^---\ntrigger: model_decision\ndescription: .+\n---\n<!-- queuedev:begin /,
    );
  });

  it('picks the assistants the project shows signs of', async () => {
    const dir = project();
    mkdirSync(join(dir, '.cursor'));
    mkdirSync(join(dir, '.windsurf'));
    const run = await cli(['install-rules'], dir);
    expect(run.code, show(run)).toBe(0);
    expect(existsSync(join(dir, '.cursor/rules/queuedev.mdc'))).toBe(true);
    expect(existsSync(join(dir, '.windsurf/rules/queuedev.md'))).toBe(true);
    expect(existsSync(join(dir, 'AGENTS.md'))).toBe(false);
  });
});
