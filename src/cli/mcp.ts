/**
 * `queue-cli mcp`: a Model Context Protocol server over stdio serving the pages of the
 * package's docs/ folder, with the tools `list-doc-pages`, `get-doc-page` and `search-docs`
 * (SPEC §4.12). stdout carries protocol messages only; anything else goes to stderr.
 *
 * The protocol SDK and the search library are optional peer dependencies, loaded here and
 * nowhere else: an application that only runs jobs does not install them.
 */
import { packageVersion } from '../package-root.js';
import { parseOptions } from './args.js';
import { readDocPages, type DocPage } from './docs-pages.js';
import { createDocSearch, SEARCH_LIMIT, type DocSearch } from './docs-search.js';

export const MCP_USAGE = `Usage: queue-cli mcp

Runs the queuedev documentation server over stdio for assistant clients (the Model Context
Protocol). It serves the docs/ pages of the installed version with three tools:
  list-doc-pages   every page: name, title and a one-line summary
  get-doc-page     one page's markdown, by name
  search-docs      the ${SEARCH_LIMIT} sections that best match a query (BM25 ranking)

A client starts it; \`queue-cli install-mcp\` adds it to the client's configuration. It needs
@modelcontextprotocol/sdk and minisearch in the project:
  npm install --save-dev @modelcontextprotocol/sdk minisearch`;

export const MCP_PEERS = ['@modelcontextprotocol/sdk', 'minisearch'] as const;
export const MCP_PEERS_INSTALL = `npm install --save-dev ${MCP_PEERS.join(' ')}`;

interface ToolResult {
  text: string;
  structured: Record<string, unknown>;
}

/** What a tool call answers: a result, or an error message for the client (isError). */
class ToolInputError extends Error {}

export interface DocTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, object>; required?: string[]; additionalProperties: false };
  outputSchema: { type: 'object'; properties: Record<string, object>; required: string[] };
  run(args: Record<string, unknown>): ToolResult;
}

/** The three tools over `pages`; exported so the tools are one table for server and tests. */
export function docTools(pages: DocPage[], search: DocSearch): DocTool[] {
  const names = pages.map((p) => p.name);
  const pageRef = { type: 'object', properties: { name: { type: 'string' }, title: { type: 'string' }, summary: { type: 'string' } }, required: ['name', 'title', 'summary'] };
  return [
    {
      name: 'list-doc-pages',
      description: 'Lists the queuedev documentation pages: name, title and a one-line summary of each.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      outputSchema: { type: 'object', properties: { pages: { type: 'array', items: pageRef } }, required: ['pages'] },
      run: () => ({
        text: pages.map((p) => `${p.name}: ${p.title}. ${p.summary}`).join('\n'),
        structured: { pages: pages.map(({ name, title, summary }) => ({ name, title, summary })) },
      }),
    },
    {
      name: 'get-doc-page',
      description: 'Returns one queuedev documentation page as markdown, by its name from list-doc-pages.',
      inputSchema: {
        type: 'object',
        properties: { name: { type: 'string', description: `page name, one of: ${names.join(', ')}` } },
        required: ['name'],
        additionalProperties: false,
      },
      outputSchema: { type: 'object', properties: { name: { type: 'string' }, title: { type: 'string' }, markdown: { type: 'string' } }, required: ['name', 'title', 'markdown'] },
      run: (args) => {
        const name = requireString(args, 'name').replace(/\.md$/, '');
        const page = pages.find((p) => p.name === name);
        if (!page) throw new ToolInputError(`No documentation page "${name}". Valid names: ${names.join(', ')}`);
        return { text: page.text, structured: { name: page.name, title: page.title, markdown: page.text } };
      },
    },
    {
      name: 'search-docs',
      description: `Searches the queuedev documentation and returns the ${SEARCH_LIMIT} best matching sections (page, heading, excerpt), best first.`,
      inputSchema: {
        type: 'object',
        properties: { query: { type: 'string', minLength: 1, description: 'words to look for, e.g. "retry backoff"' } },
        required: ['query'],
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: {
          results: {
            type: 'array',
            maxItems: SEARCH_LIMIT,
            items: { type: 'object', properties: { page: { type: 'string' }, heading: { type: 'string' }, excerpt: { type: 'string' }, score: { type: 'number' } }, required: ['page', 'heading', 'excerpt', 'score'] },
          },
        },
        required: ['results'],
      },
      run: (args) => {
        const query = requireString(args, 'query');
        const results = search(query);
        const text =
          results.length === 0
            ? `No section matches "${query}". list-doc-pages shows every page.`
            : results.map((r, i) => `${i + 1}. ${r.page} > ${r.heading}\n   ${r.excerpt}`).join('\n');
        return { text, structured: { results } };
      },
    },
  ];
}

function requireString(args: Record<string, unknown>, field: string): string {
  const value = args[field];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ToolInputError(`Expected \`${field}\` to be a non-empty string, got ${JSON.stringify(value) ?? 'nothing'}`);
  }
  return value;
}

/** Loads the optional peers, or fails with the line that installs them. */
async function loadPeers() {
  try {
    const [server, stdio, types, minisearch] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('@modelcontextprotocol/sdk/types.js'),
      import('minisearch'),
    ]);
    return { Server: server.Server, StdioServerTransport: stdio.StdioServerTransport, types, MiniSearch: minisearch.default };
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new Error(`the documentation server needs ${MCP_PEERS.join(' and ')}, which are not installed: run ${MCP_PEERS_INSTALL}`, { cause: err });
    }
    throw err;
  }
}

/** Runs the server until the client closes stdin. Resolves with the exit code. */
export async function runMcp(args: string[]): Promise<number> {
  parseOptions(args, {});
  const { Server, StdioServerTransport, types, MiniSearch } = await loadPeers();
  const pages = readDocPages();
  if (pages.length === 0) throw new Error('no documentation pages found in the package: reinstall queuedev');
  const tools = docTools(pages, createDocSearch(MiniSearch, pages));

  const server = new Server({ name: 'queuedev-docs', version: packageVersion() }, { capabilities: { tools: {} } });
  server.setRequestHandler(types.ListToolsRequestSchema, () => ({
    tools: tools.map(({ name, description, inputSchema, outputSchema }) => ({ name, description, inputSchema, outputSchema })),
  }));
  server.setRequestHandler(types.CallToolRequestSchema, (request) => {
    const tool = tools.find((t) => t.name === request.params.name);
    if (!tool) {
      return errorResult(`Unknown tool "${request.params.name}". Tools: ${tools.map((t) => t.name).join(', ')}`);
    }
    try {
      const result = tool.run(request.params.arguments ?? {});
      return { content: [{ type: 'text' as const, text: result.text }], structuredContent: result.structured };
    } catch (err) {
      if (err instanceof ToolInputError) return errorResult(err.message);
      throw err;
    }
  });

  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    // The client closing stdin ends the session.
    process.stdin.once('end', () => void server.close().then(resolve, resolve));
  });
  await server.connect(transport);
  await closed;
  return 0;
}

function errorResult(text: string) {
  return { content: [{ type: 'text' as const, text }], isError: true };
}
