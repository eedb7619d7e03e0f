#!/usr/bin/env node
/**
 * queue-cli: the command line of queuedev (SPEC §4.12).
 */
import { packageVersion } from '../package-root.js';
import { MIGRATE_USAGE, UsageError, runMigrate } from './migrate.js';

const NOT_YET = ['init', 'install-skills', 'install-rules', 'install-mcp', 'mcp'] as const;

export const USAGE = `Usage: queue-cli <command> [options]

Commands:
  migrate          apply the PostgreSQL migrations (queue-cli migrate --help)
  init             scaffold a web-framework project (not available yet in this version)
  install-skills   copy assistant skill files (not available yet in this version)
  install-rules    install assistant rule files (not available yet in this version)
  install-mcp      configure the documentation server for assistant clients (not available yet in this version)
  mcp              run the documentation server over stdio (not available yet in this version)

Options:
  -h, --help       print this usage
  -v, --version    print the installed queuedev version

The Redis backend needs no migrations.`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return 0;
  }
  if (command === '--version' || command === '-v') {
    console.log(packageVersion());
    return 0;
  }
  if (command === 'migrate') {
    if (args.includes('--help') || args.includes('-h')) {
      console.log(MIGRATE_USAGE);
      return 0;
    }
    try {
      return await runMigrate(args);
    } catch (err) {
      console.error(`queue-cli migrate: ${(err as Error).message}`);
      if (err instanceof UsageError) console.error(`\n${MIGRATE_USAGE}`);
      return 1;
    }
  }
  if ((NOT_YET as readonly string[]).includes(command ?? '')) {
    console.error(`queue-cli ${command}: not available yet in this version`);
    return 1;
  }
  if (command !== undefined) console.error(`queue-cli: unknown command "${command}"\n`);
  console.error(USAGE);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    // One line, never a stack: the message says what went wrong.
    console.error(`queue-cli: ${(err as Partial<Error> | null | undefined)?.message ?? String(err)}`);
    process.exitCode = 1;
  },
);
