/**
 * The commands that write into a project never write outside it: not through a symbolic link
 * that leads out of the project or to nothing, not into a folder an absolute `--to` names
 * elsewhere; each refusal is one worded line naming the path, and nothing is written. Real
 * symbolic links in temp folders, the CLI run as a child process.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli, show, tempProject } from './run-cli.js';

const dirs: string[] = [];
function folder(prefix: string): string {
  const dir = tempProject(prefix);
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A Node.js project with src/, and a folder outside it. */
function projectAndOutside(): { dir: string; outside: string } {
  const dir = folder('paths');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'app', dependencies: {} }));
  mkdirSync(join(dir, 'src'));
  return { dir, outside: folder('outside') };
}

describe('writing into a project', () => {
  it('init refuses a dangling link at a file it would create, and writes nothing', async () => {
    const { dir, outside } = projectAndOutside();
    mkdirSync(join(dir, 'src/queue'));
    symlinkSync(join(outside, 'handlers.ts'), join(dir, 'src/queue/handlers.ts'));
    const run = await cli(['init'], dir);
    expect(run.code, show(run)).toBe(1);
    expect(run.stderr).toContain(
      `queue-cli init: src/queue/handlers.ts is a symbolic link to ${join(outside, 'handlers.ts')}, which does not exist`,
    );
    expect(run.stdout).not.toContain('created');
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(join(dir, 'src/queue'))).toEqual(['handlers.ts']);
    expect(existsSync(join(dir, '.env.example'))).toBe(false);
  });

  it('init refuses a folder that is a link out of the project, even to a folder that exists', async () => {
    const { dir, outside } = projectAndOutside();
    symlinkSync(outside, join(dir, 'src/queue'));
    const run = await cli(['init'], dir);
    expect(run.code, show(run)).toBe(1);
    expect(run.stderr).toContain(`src/queue is a symbolic link to ${outside}, outside the project`);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('install-skills refuses an absolute --to outside the project, and takes one inside it', async () => {
    const { dir, outside } = projectAndOutside();
    const target = join(outside, 'skills');
    const run = await cli(['install-skills', '--to', target], dir);
    expect(run.code, show(run)).toBe(1);
    expect(run.stderr).toContain(`--to must name a folder inside the project`);
    expect(run.stderr).toContain(`got "${target}"`);
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(['package.json', 'src']);

    const inside = await cli(['install-skills', '--to', join(dir, 'skills')], dir);
    expect(inside.code, show(inside)).toBe(0);
    expect(existsSync(join(dir, 'skills/queuedev-usage/SKILL.md'))).toBe(true);
    const up = await cli(['install-skills', '--to', '../elsewhere'], dir);
    expect(up.code, show(up)).toBe(1);
    expect(up.stderr).toContain('got "../elsewhere"');
  });

  it('install-rules words a dangling link in the way instead of a raw file system error', async () => {
    const { dir, outside } = projectAndOutside();
    mkdirSync(join(dir, '.windsurf'));
    symlinkSync(join(outside, 'rules'), join(dir, '.windsurf/rules'));
    const run = await cli(['install-rules'], dir);
    expect(run.code, show(run)).toBe(1);
    expect(run.stderr).toContain(
      `.windsurf/rules is a symbolic link to ${join(outside, 'rules')}, which does not exist`,
    );
    expect(run.stderr).not.toMatch(/ENOENT/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('install-mcp refuses a client folder that links out of the project', async () => {
    const { dir, outside } = projectAndOutside();
    symlinkSync(outside, join(dir, '.cursor'));
    const run = await cli(['install-mcp', '--client', 'cursor'], dir);
    expect(run.code, show(run)).toBe(1);
    expect(run.stderr).toContain(`.cursor is a symbolic link to ${outside}, outside the project`);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('follows a link to a folder inside the project', async () => {
    const { dir } = projectAndOutside();
    mkdirSync(join(dir, 'assistant'));
    symlinkSync(join(dir, 'assistant'), join(dir, '.claude'));
    const run = await cli(['install-skills'], dir);
    expect(run.code, show(run)).toBe(0);
    expect(existsSync(join(dir, 'assistant/skills/queuedev-usage/SKILL.md'))).toBe(true);
  });

  it('names a folder standing where a file goes, and a file standing where a folder goes', async () => {
    const { dir } = projectAndOutside();
    mkdirSync(join(dir, 'AGENTS.md'));
    const rules = await cli(['install-rules', '--client', 'agents'], dir);
    expect(rules.code, show(rules)).toBe(1);
    expect(rules.stderr).toContain('queue-cli install-rules: AGENTS.md is a folder, where queuedev would write a file');

    writeFileSync(join(dir, '.vscode'), '');
    const mcp = await cli(['install-mcp', '--client', 'vscode'], dir);
    expect(mcp.code, show(mcp)).toBe(1);
    expect(mcp.stderr).toContain('queue-cli install-mcp: .vscode is a file, and .vscode/mcp.json would go inside it');
  });
});
