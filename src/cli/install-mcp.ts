/**
 * `queue-cli install-mcp`: adds the documentation server (`queue-cli mcp`) to the project's
 * configuration files of assistant clients. Merges into an existing file through jsonc-parser,
 * which edits the one entry in place and keeps the user's other entries, comments and layout;
 * a second run finds the entry and changes nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { applyEdits, modify, parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { listOf, parseOptions } from './args.js';
import { MCP_PEERS, MCP_PEERS_INSTALL } from './mcp.js';
import { checkProjectPaths, hasInstalled, projectAt, shown, writeProjectFile, type Project } from './project-files.js';

export const SERVER_NAME = 'queuedev';
const SERVER = { command: 'npx', args: ['queue-cli', 'mcp'] };

/** Each client's project configuration file, the key holding its servers, and the entry it expects. */
export const MCP_CLIENTS = {
  claude: {
    file: '.mcp.json',
    key: 'mcpServers',
    entry: { type: 'stdio', ...SERVER },
    signs: ['.mcp.json', '.claude', 'CLAUDE.md'],
  },
  cursor: { file: '.cursor/mcp.json', key: 'mcpServers', entry: SERVER, signs: ['.cursor'] },
  vscode: { file: '.vscode/mcp.json', key: 'servers', entry: { type: 'stdio', ...SERVER }, signs: ['.vscode'] },
} as const;
type Client = keyof typeof MCP_CLIENTS;
const CLIENT_NAMES = Object.keys(MCP_CLIENTS) as Client[];

export const INSTALL_MCP_USAGE = `Usage: queue-cli install-mcp [options]

Adds the queuedev documentation server ("${SERVER_NAME}": npx queue-cli mcp) to the project's
assistant client configuration, keeping every other entry of the file:
  claude   .mcp.json          (Claude Code and other clients reading .mcp.json)
  cursor   .cursor/mcp.json
  vscode   .vscode/mcp.json   (VS Code, GitHub Copilot)
Without --client it configures the clients the project shows signs of (.claude, CLAUDE.md,
.mcp.json, .cursor, .vscode), or claude when there are none. Running it again changes nothing.

Options:
  --client <names>   comma-separated: ${CLIENT_NAMES.join(', ')}, or all
  --dir <path>       the project folder, default the current folder
  --dry-run          print the files it would write, write nothing`;

export function runInstallMcp(args: string[]): Promise<number> {
  const { values } = parseOptions(args, {
    client: { type: 'string' },
    dir: { type: 'string' },
    'dry-run': { type: 'boolean' },
  });
  const project = projectAt(values.dir, values['dry-run'] ?? false);
  const clients = chooseClients(project, values.client);
  // Every file is checked first: a refused one leaves the project as it was.
  checkProjectPaths(
    project,
    clients.map((c) => join(project.root, MCP_CLIENTS[c].file)),
  );
  for (const client of clients) installFor(project, client);
  const missing = MCP_PEERS.filter((name) => !hasInstalled(project, name));
  if (missing.length > 0) console.log(`\nThe server needs ${missing.join(', ')} in the project: ${MCP_PEERS_INSTALL}`);
  return Promise.resolve(0);
}

function chooseClients(project: Project, option: string | undefined): Client[] {
  if (option !== undefined) return listOf('--client', option, CLIENT_NAMES);
  const seen = CLIENT_NAMES.filter((c) => MCP_CLIENTS[c].signs.some((sign) => existsSync(join(project.root, sign))));
  if (seen.length > 0) return seen;
  console.log('No assistant client configuration found; writing .mcp.json (--client chooses others).');
  return ['claude'];
}

function installFor(project: Project, client: Client): void {
  const { file, key, entry } = MCP_CLIENTS[client];
  const path = join(project.root, file);
  const exists = existsSync(path);
  const before = exists ? readFileSync(path, 'utf8') : '';
  const errors: ParseError[] = [];
  const config: unknown = exists && before.trim() !== '' ? parse(before, errors, { allowTrailingComma: true }) : {};
  const name = shown(project, path);
  if (errors.length > 0) {
    const [first] = errors;
    throw new Error(
      `${name} is not valid JSON (${printParseErrorCode(first!.error)} at offset ${first!.offset}): fix it, then run the command again`,
    );
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new Error(`${name} does not hold a JSON object: fix it, then run the command again`);
  }
  const servers = (config as Record<string, unknown>)[key];
  if (servers !== undefined && (typeof servers !== 'object' || servers === null || Array.isArray(servers))) {
    throw new Error(`"${key}" in ${name} is not an object: fix it, then run the command again`);
  }
  if (isDeepStrictEqual((servers as Record<string, unknown> | undefined)?.[SERVER_NAME], entry)) {
    console.log(`${name}: unchanged, "${SERVER_NAME}" is already configured`);
    return;
  }
  const base = exists && before.trim() !== '' ? before : '{}\n';
  const edits = modify(base, [key, SERVER_NAME], entry, {
    formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' },
  });
  let after = applyEdits(base, edits);
  if (!after.endsWith('\n')) after += '\n';
  const change = !exists ? 'created' : servers !== undefined && SERVER_NAME in servers ? 'updated' : 'added';
  const what = change === 'created' ? `created with "${SERVER_NAME}"` : `"${SERVER_NAME}" ${change}`;
  if (project.dryRun) {
    console.log(`dry run: would write ${name} (${what}):\n${after}`);
    return;
  }
  writeProjectFile(project, path, after);
  console.log(`${name}: ${what}`);
}
