/**
 * `queue-cli mcp`: a Model Context Protocol server over stdio serving the pages of the
 * package's docs/ folder, with the tools `list-doc-pages`, `get-doc-page` and `search-docs`
 * (SPEC §4.12). stdout carries protocol messages only; anything else goes to stderr.
 *
 * The protocol SDK, zod (its schema language) and the search library are optional peer
 * dependencies, loaded here and nowhere else: an application that only runs jobs does not
 * install them.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type * as Zod from 'zod';
import { packageVersion } from '../package-root.js';
import { parseOptions } from './args.js';
import { PAGE_CHARACTER_LIMIT, pageAnswer } from './docs-page-sections.js';
import { readDocPages, type DocPage } from './docs-pages.js';
import { createDocSearch, QUERY_LIMITS, QueryRefusedError, SEARCH_LIMIT, type DocSearch } from './docs-search.js';
import { BoundedLines } from './mcp-input.js';

export const MCP_PEERS = ['@modelcontextprotocol/sdk', 'zod', 'minisearch'] as const;
export const MCP_PEERS_INSTALL = `npm install --save-dev ${MCP_PEERS.join(' ')}`;

export const MCP_USAGE = `Usage: queue-cli mcp

Runs the queuedev documentation server over stdio for assistant clients (the Model Context
Protocol). It serves the docs/ pages of the installed version with three tools:
  list-doc-pages   every page: name, title and a one-line summary
  get-doc-page     one page's markdown, by name; a long page as its contents, then by section
  search-docs      the ${SEARCH_LIMIT} sections that best match a query (BM25 ranking)

A client starts it; \`queue-cli install-mcp\` adds it to the client's configuration. It needs
${MCP_PEERS.join(', ')} in the project:
  ${MCP_PEERS_INSTALL}`;

type Z = typeof Zod.z;

/** Registers the three tools over `pages` on `server`. */
export function registerDocTools(server: McpServer, z: Z, pages: DocPage[], search: DocSearch): void {
  const names = pages.map((p) => p.name);
  const text = (value: string) => [{ type: 'text' as const, text: value }];

  server.registerTool(
    'list-doc-pages',
    {
      description: 'Lists the queuedev documentation pages: name, title and a one-line summary of each.',
      inputSchema: {},
      outputSchema: { pages: z.array(z.object({ name: z.string(), title: z.string(), summary: z.string() })) },
    },
    () => ({
      content: text(pages.map((p) => `${p.name}: ${p.title}. ${p.summary}`).join('\n')),
      structuredContent: { pages: pages.map(({ name, title, summary }) => ({ name, title, summary })) },
    }),
  );

  server.registerTool(
    'get-doc-page',
    {
      description: `Returns one queuedev documentation page as markdown, by its name from list-doc-pages. A page longer than ${PAGE_CHARACTER_LIMIT} characters comes back as its table of contents: then ask for one section by its heading.`,
      inputSchema: {
        name: z
          .string()
          .min(1)
          .describe(`page name, one of: ${names.join(', ')}`),
        section: z
          .string()
          .trim()
          .min(1)
          .max(200)
          .optional()
          .describe('a heading of the page, as its table of contents lists it, e.g. "Results"'),
      },
    },
    ({ name, section }) => {
      const page = pages.find((p) => p.name === name.replace(/\.md$/, ''));
      if (!page)
        return { content: text(`No documentation page "${name}". Valid names: ${names.join(', ')}`), isError: true };
      const answer = pageAnswer(page, section);
      return answer.isError ? { content: text(answer.text), isError: true } : { content: text(answer.text) };
    },
  );

  server.registerTool(
    'search-docs',
    {
      description: `Searches the queuedev documentation and returns the ${SEARCH_LIMIT} best matching sections (page, heading, excerpt), best first.`,
      inputSchema: {
        query: z
          .string()
          .trim()
          .min(1)
          .describe(
            `words to look for, e.g. "retry backoff": at most ${QUERY_LIMITS.characters} characters and ${QUERY_LIMITS.words} words of at most ${QUERY_LIMITS.wordCharacters} characters`,
          ),
      },
      outputSchema: {
        results: z
          .array(z.object({ page: z.string(), heading: z.string(), excerpt: z.string(), score: z.number() }))
          .max(SEARCH_LIMIT),
      },
    },
    ({ query }) => {
      let results;
      try {
        results = search(query);
      } catch (err) {
        if (err instanceof QueryRefusedError) return { content: text(err.message), isError: true };
        throw err;
      }
      const lines = results.map((r, i) => `${i + 1}. ${r.page} > ${r.heading}\n   ${r.excerpt}`);
      return {
        content: text(
          results.length > 0 ? lines.join('\n') : `No section matches "${query}". list-doc-pages shows every page.`,
        ),
        structuredContent: { results },
      };
    },
  );
}

/** Loads the optional peers, or fails with the line that installs them. */
async function loadPeers() {
  try {
    const [mcp, stdio, zod, minisearch] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/mcp.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('zod'),
      import('minisearch'),
    ]);
    return {
      McpServer: mcp.McpServer,
      StdioServerTransport: stdio.StdioServerTransport,
      z: zod.z,
      MiniSearch: minisearch.default,
    };
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new Error(
        `the documentation server needs ${MCP_PEERS.join(', ')} in the project: run ${MCP_PEERS_INSTALL}`,
        {
          cause: err,
        },
      );
    }
    throw err;
  }
}

/** Runs the server until the client closes stdin. Resolves with the exit code. */
export async function runMcp(args: string[]): Promise<number> {
  parseOptions(args, {});
  const { McpServer, StdioServerTransport, z, MiniSearch } = await loadPeers();
  const pages = readDocPages();
  if (pages.length === 0) throw new Error('no documentation pages found in the package: reinstall queuedev');
  const server = new McpServer({ name: 'queuedev-docs', version: packageVersion() });
  registerDocTools(server, z, pages, createDocSearch(MiniSearch, pages));

  const input = process.stdin.pipe(new BoundedLines());
  const transport = new StdioServerTransport(input, process.stdout);
  const closed = new Promise<void>((resolve, reject) => {
    transport.onclose = resolve;
    // The client closing stdin ends the session.
    input.once('end', () => void server.close().then(resolve, resolve));
    // A message too long to read ends it too, with the reason on stderr and exit status 1.
    input.once('error', (err) => {
      reject(err);
      process.stdin.destroy();
      void server.close();
    });
  });
  await server.connect(transport);
  await closed;
  return 0;
}
