/**
 * `queue-cli mcp` driven by the protocol SDK's own client over stdio, as an assistant client
 * runs it: the three tools with their input schemas, each called, search ranked and capped at
 * 5, and nothing but protocol messages on stdout (the client's reader fails on anything else).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_CHARACTER_LIMIT } from '../../src/cli/docs-page-sections.js';
import { MAX_MESSAGE_BYTES } from '../../src/cli/mcp-input.js';
import { CLI, ROOT, TSX, tempProject } from './run-cli.js';

interface TextResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

const DOC_NAMES = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => f.slice(0, -3))
  .sort();

describe('queue-cli mcp over stdio', () => {
  const dir = tempProject('mcp');
  const client = new Client({ name: 'queuedev-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', TSX, CLI, 'mcp'],
    cwd: dir,
    env: { PATH: process.env.PATH ?? '' },
    stderr: 'pipe',
  });
  const transportErrors: Error[] = [];
  let stderr = '';

  beforeAll(async () => {
    transport.onerror = (err) => transportErrors.push(err);
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    await client.connect(transport);
  }, 60_000);

  afterAll(async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as TextResult;

  it('offers the three tools, each with an input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['get-doc-page', 'list-doc-pages', 'search-docs']);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.description).toBeTruthy();
    }
    expect(tools.find((t) => t.name === 'get-doc-page')!.inputSchema.required).toEqual(['name']);
    expect(tools.find((t) => t.name === 'search-docs')!.inputSchema.required).toEqual(['query']);
  });

  it('list-doc-pages names every page of docs/ with its title and one-line summary', async () => {
    const result = await call('list-doc-pages', {});
    const pages = result.structuredContent!.pages as { name: string; title: string; summary: string }[];
    expect(pages.map((p) => p.name)).toEqual(DOC_NAMES);
    const cron = pages.find((p) => p.name === 'cron')!;
    expect(cron.title).toBe('Cron schedules');
    expect(cron.summary).toBe(
      'Enqueue a job on a recurring schedule, written as a standard 5-field cron expression read in an IANA time zone.',
    );
    for (const page of pages) expect(page.summary).not.toContain('\n');
    expect(result.content[0]!.text).toContain('cron: Cron schedules.');
  });

  it('get-doc-page returns a page under its limit as shipped, with or without .md', async () => {
    const file = readFileSync(join(ROOT, 'docs/retries.md'), 'utf8');
    for (const name of ['retries', 'retries.md']) {
      const result = await call('get-doc-page', { name });
      expect(result.isError).toBeFalsy();
      expect(result.content[0]!.text).toBe(file);
    }
  });

  it('get-doc-page answers a page longer than its limit with the page contents, then a section by heading', async () => {
    const file = readFileSync(join(ROOT, 'docs/performance.md'), 'utf8');
    expect(file.length).toBeGreaterThan(PAGE_CHARACTER_LIMIT);
    const contents = (await call('get-doc-page', { name: 'performance' })).content[0]!.text!;
    expect(contents.length).toBeLessThanOrEqual(PAGE_CHARACTER_LIMIT);
    expect(contents).toMatch(/^# Performance\n/);
    expect(contents).toContain('- How the comparison works (');
    expect(contents).toContain('"section": "<heading>"');

    // The section as the file has it: from its heading to the next heading of its level.
    const start = file.indexOf('\n## How the comparison works\n') + 1;
    const end = file.indexOf('\n## ', start + 1);
    const section = await call('get-doc-page', { name: 'performance', section: 'how the comparison works' });
    expect(section.isError).toBeFalsy();
    expect(section.content[0]!.text).toBe(file.slice(start, end + 1).trimEnd());

    const unknown = await call('get-doc-page', { name: 'performance', section: 'no such heading' });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]!.text).toMatch(
      /^No section "no such heading" in the page "performance"\. Its sections: How the comparison works; /,
    );
  });

  it('no get-doc-page answer, for any page or any of its sections, runs past the limit', async () => {
    for (const name of DOC_NAMES) {
      const page = (await call('get-doc-page', { name })).content[0]!.text!;
      expect(page.length, name).toBeLessThanOrEqual(PAGE_CHARACTER_LIMIT);
      const headings = [...page.matchAll(/^\s*- (.+) \([\d,]+ characters\)$/gm)].map((m) => m[1]!);
      for (const heading of headings) {
        const section = await call('get-doc-page', { name, section: heading });
        expect(section.isError, `${name} > ${heading}`).toBeFalsy();
        expect(section.content[0]!.text!.length, `${name} > ${heading}`).toBeLessThanOrEqual(PAGE_CHARACTER_LIMIT);
      }
    }
  });

  it('get-doc-page answers an unknown name with an error listing the valid names', async () => {
    const result = await call('get-doc-page', { name: 'nope' });
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toBe(`No documentation page "nope". Valid names: ${DOC_NAMES.join(', ')}`);
  });

  it('refuses arguments that break the input schema, naming the field', async () => {
    const empty = await call('search-docs', { query: ' ' });
    expect(empty.isError).toBe(true);
    expect(empty.content[0]!.text).toMatch(/Input validation error: .* at query$/);
    const missing = await call('get-doc-page', {});
    expect(missing.isError).toBe(true);
    expect(missing.content[0]!.text).toMatch(/Input validation error: .* at name$/);
  });

  it('search-docs returns at most 5 sections, best first, with page, heading and excerpt', async () => {
    const result = await call('search-docs', { query: 'retry backoff delay' });
    const results = result.structuredContent!.results as {
      page: string;
      heading: string;
      excerpt: string;
      score: number;
    }[];
    expect(results).toHaveLength(5);
    const scores = results.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(results[0]).toMatchObject({ page: 'retries', heading: 'The retry delay' });
    for (const r of results) {
      expect(DOC_NAMES).toContain(r.page);
      expect(r.excerpt.length).toBeLessThanOrEqual(242);
    }
  });

  it('ranks the section about a rare term first (term weighting, not counting words)', async () => {
    const result = await call('search-docs', { query: 'daylight saving time' });
    const results = result.structuredContent!.results as { page: string; heading: string }[];
    expect(results[0]).toEqual(
      expect.objectContaining({ page: 'cron', heading: 'Time zones and daylight saving time' }),
    );
    const none = await call('search-docs', { query: 'zzzqqqxxy' });
    expect(none.structuredContent!.results).toEqual([]);
  });

  it('search-docs refuses a 1 MB query, a 200 kB word and too many or too long words with a worded error', async () => {
    const refusals = [
      [`${'ab '.repeat(333_333)}a`, 'The query is 1000000 characters long; search-docs takes at most 500'],
      ['y'.repeat(200_000), 'The query is 200000 characters long; search-docs takes at most 500'],
      [`retry ${'z'.repeat(51)}`, 'The query has a word of 51 characters; search-docs takes words of at most 50'],
      ['a '.repeat(21), 'The query has 21 words; search-docs takes at most 20'],
    ];
    for (const [query, message] of refusals) {
      const result = await call('search-docs', { query });
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toBe(`${message}. Search with a few words, e.g. "retry backoff".`);
    }
    // Within the bounds, and after the refusals, the server answers as before.
    const result = await call('search-docs', { query: `retry ${'b'.repeat(50)} ${'delay '.repeat(18)}` });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent!.results).toHaveLength(5);
  });

  it('wrote nothing but protocol messages on stdout, and nothing on stderr', () => {
    expect(transportErrors).toEqual([]);
    expect(stderr).toBe('');
  });
});

describe('queue-cli mcp reading a message too long', () => {
  const dir = tempProject('mcp-line');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Starts the server, writes `bytes` bytes of one unfinished message line, and waits for it to exit. */
  function sendLine(bytes: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn(process.execPath, ['--import', TSX, CLI, 'mcp'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // The server stops reading once the line is too long: the rest of the write is refused.
    child.stdin.on('error', () => undefined);
    const head = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search-docs","arguments":{"query":"';
    child.stdin.end(head + 'q'.repeat(bytes - head.length));
    return new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  it.each([
    ['just past the limit of 4 MiB', MAX_MESSAGE_BYTES + 1],
    ['past 10 MiB', 10 * 1024 * 1024 + 1],
  ])('exits with status 1 and says why on stderr for a line %s', async (_label, bytes) => {
    const run = await sendLine(bytes);
    expect(run.stderr).toBe(
      `queue-cli mcp: a message of more than ${MAX_MESSAGE_BYTES} bytes arrived on stdin; the documentation server reads messages of at most ${MAX_MESSAGE_BYTES} bytes, one per line, and stops\n`,
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
  });
});
