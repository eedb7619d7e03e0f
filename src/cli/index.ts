#!/usr/bin/env node
/**
 * queue-cli: the command line of queuedev (SPEC §4.12). Each command is a usage text and a run
 * function; this file dispatches, prints `--help`, and turns every failure into one line on
 * stderr and exit status 1 (a bad command line also gets the command's usage).
 */
import { packageVersion } from '../package-root.js';
import { UsageError } from './args.js';
import { INIT_USAGE, runInit } from './init/index.js';
import { INSTALL_MCP_USAGE, runInstallMcp } from './install-mcp.js';
import { INSTALL_RULES_USAGE, INSTALL_SKILLS_USAGE, runInstallRules, runInstallSkills } from './install-assets.js';
import { MCP_USAGE, runMcp } from './mcp.js';
import { MIGRATE_USAGE, runMigrate } from './migrate.js';

interface Command {
  usage: string;
  run(args: string[]): Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  migrate: { usage: MIGRATE_USAGE, run: runMigrate },
  init: { usage: INIT_USAGE, run: runInit },
  'install-skills': { usage: INSTALL_SKILLS_USAGE, run: runInstallSkills },
  'install-rules': { usage: INSTALL_RULES_USAGE, run: runInstallRules },
  'install-mcp': { usage: INSTALL_MCP_USAGE, run: runInstallMcp },
  mcp: { usage: MCP_USAGE, run: runMcp },
};

export const USAGE = `Usage: queue-cli <command> [options]

Commands:
  migrate          apply the PostgreSQL migrations
  init             scaffold queuedev into a Next.js, Express, Hono, Fastify or Node.js project
  install-skills   copy the queuedev skill files for coding assistants into the project
  install-rules    write the queuedev rule files for coding assistants into the project
  install-mcp      add the documentation server to the assistant clients' configuration
  mcp              run the documentation server over stdio (Model Context Protocol)

Options:
  -h, --help       print this usage; queue-cli <command> --help prints the command's
  -v, --version    print the installed queuedev version

The Redis backend needs no migrations.`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    console.log(USAGE);
    return 0;
  }
  if (name === '--version' || name === '-v') {
    console.log(packageVersion());
    return 0;
  }
  // hasOwn: names of Object.prototype ("constructor") are not commands.
  const command = name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    if (name !== undefined) console.error(`queue-cli: unknown command "${name}"\n`);
    console.error(USAGE);
    return 1;
  }
  if (args.includes('--help') || args.includes('-h')) {
    console.log(command.usage);
    return 0;
  }
  try {
    return await command.run(args);
  } catch (err) {
    // One line, never a stack: each command's messages say what went wrong and what to do.
    console.error(`queue-cli ${name}: ${firstLine(err)}`);
    if (err instanceof UsageError) console.error(`\n${command.usage}`);
    return 1;
  }
}

function firstLine(err: unknown): string {
  return ((err as Partial<Error> | null | undefined)?.message ?? String(err)).split('\n')[0]!;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`queue-cli: ${firstLine(err)}`);
    process.exitCode = 1;
  },
);
