/**
 * `queue-cli install-mcp` in temp projects: the entry each client expects, merged into an
 * existing file without losing other entries (or comments), idempotent, --client, --dry-run.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'jsonc-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { cli, show, tempProject } from './run-cli.js';

const dirs: string[] = [];
function project(): string {
  const dir = tempProject('install-mcp');
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');
const ENTRY = { command: 'npx', args: ['queue-cli', 'mcp'] };

describe('queue-cli install-mcp', () => {
  it('writes .mcp.json when no client shows, says so, and a second run changes nothing', async () => {
    const dir = project();
    const first = await cli(['install-mcp'], dir);
    expect(first.code, show(first)).toBe(0);
    expect(first.stdout).toContain('.mcp.json: created with "queuedev"');
    expect(JSON.parse(read(dir, '.mcp.json'))).toEqual({ mcpServers: { queuedev: { type: 'stdio', ...ENTRY } } });
    const before = read(dir, '.mcp.json');
    const second = await cli(['install-mcp'], dir);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('.mcp.json: unchanged');
    expect(read(dir, '.mcp.json')).toBe(before);
  });

  it('merges into an existing file, keeping the other servers, keys and comments', async () => {
    const dir = project();
    mkdirSync(join(dir, '.vscode'));
    const original = `{
  // the team's servers
  "inputs": [],
  "servers": {
    "github": { "type": "http", "url": "https://example.com/mcp" },
  },
}
`;
    writeFileSync(join(dir, '.vscode/mcp.json'), original);
    const run = await cli(['install-mcp'], dir);
    expect(run.code, show(run)).toBe(0);
    expect(run.stdout).toContain('.vscode/mcp.json: "queuedev" added');
    const text = read(dir, '.vscode/mcp.json');
    expect(text).toContain("// the team's servers");
    expect(parse(text)).toEqual({
      inputs: [],
      servers: { github: { type: 'http', url: 'https://example.com/mcp' }, queuedev: { type: 'stdio', ...ENTRY } },
    });
    expect(existsSync(join(dir, '.mcp.json'))).toBe(false);
    const again = await cli(['install-mcp'], dir);
    expect(again.stdout).toContain('unchanged');
    expect(read(dir, '.vscode/mcp.json')).toBe(text);
  });

  it('updates an outdated queuedev entry in place', async () => {
    const dir = project();
    writeFileSync(
      join(dir, '.mcp.json'),
      JSON.stringify({ mcpServers: { queuedev: { command: 'old' }, other: { command: 'x' } } }),
    );
    const run = await cli(['install-mcp', '--client', 'claude'], dir);
    expect(run.stdout).toContain('.mcp.json: "queuedev" updated');
    expect(JSON.parse(read(dir, '.mcp.json'))).toEqual({
      mcpServers: { queuedev: { type: 'stdio', ...ENTRY }, other: { command: 'x' } },
    });
  });

  it('--client all writes each client its own format', async () => {
    const dir = project();
    const run = await cli(['install-mcp', '--client', 'all'], dir);
    expect(run.code, show(run)).toBe(0);
    expect(JSON.parse(read(dir, '.mcp.json')).mcpServers.queuedev).toEqual({ type: 'stdio', ...ENTRY });
    expect(JSON.parse(read(dir, '.cursor/mcp.json')).mcpServers.queuedev).toEqual(ENTRY);
    expect(JSON.parse(read(dir, '.vscode/mcp.json')).servers.queuedev).toEqual({ type: 'stdio', ...ENTRY });
  });

  it('picks the clients the project shows signs of', async () => {
    const dir = project();
    mkdirSync(join(dir, '.cursor'));
    writeFileSync(join(dir, 'CLAUDE.md'), '# notes\n');
    const run = await cli(['install-mcp'], dir);
    expect(run.code, show(run)).toBe(0);
    expect(existsSync(join(dir, '.mcp.json'))).toBe(true);
    expect(existsSync(join(dir, '.cursor/mcp.json'))).toBe(true);
    expect(existsSync(join(dir, '.vscode'))).toBe(false);
  });

  it('--dry-run prints the file it would write and writes nothing', async () => {
    const dir = project();
    const run = await cli(['install-mcp', '--client', 'cursor', '--dry-run'], dir);
    expect(run.code, show(run)).toBe(0);
    expect(run.stdout).toContain('dry run: would write .cursor/mcp.json (created with "queuedev"):');
    expect(run.stdout).toContain('"queuedev": {');
    expect(existsSync(join(dir, '.cursor'))).toBe(false);
  });

  it('says which packages the server still needs in the project', async () => {
    const dir = project();
    const run = await cli(['install-mcp'], dir);
    expect(run.stdout).toContain(
      'The server needs @modelcontextprotocol/sdk, zod, minisearch in the project: npm install --save-dev @modelcontextprotocol/sdk zod minisearch',
    );
    mkdirSync(join(dir, 'node_modules/minisearch'), { recursive: true });
    writeFileSync(join(dir, 'node_modules/minisearch/package.json'), '{"name":"minisearch"}');
    const again = await cli(['install-mcp'], dir);
    expect(again.stdout).toContain('The server needs @modelcontextprotocol/sdk, zod in the project');
  });

  it('refuses a file that is not JSON in one line, and leaves it alone', async () => {
    const dir = project();
    writeFileSync(join(dir, '.mcp.json'), '{ "mcpServers": ');
    const run = await cli(['install-mcp'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^queue-cli install-mcp: \.mcp\.json is not valid JSON \(\w+ at offset \d+\): fix it, then run the command again\n$/,
    );
    expect(read(dir, '.mcp.json')).toBe('{ "mcpServers": ');
  });
});
