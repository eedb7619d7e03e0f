/**
 * `queue-cli mcp` driven by the protocol SDK's own client over stdio, as an assistant client
 * runs it: the three tools with their input schemas, each called, search ranked and capped at
 * 5, and nothing but protocol messages on stdout (the client's reader fails on anything else).
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

  it('get-doc-page returns the page as shipped, with or without .md', async () => {
    const file = readFileSync(join(ROOT, 'docs/retries.md'), 'utf8');
    for (const name of ['retries', 'retries.md']) {
      const result = await call('get-doc-page', { name });
      expect(result.isError).toBeFalsy();
      expect(result.content[0]!.text).toBe(file);
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

  it('wrote nothing but protocol messages on stdout, and nothing on stderr', () => {
    expect(transportErrors).toEqual([]);
    expect(stderr).toBe('');
  });
});
