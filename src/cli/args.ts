/**
 * The command line's shared pieces: the error for a bad command line, and option parsing on
 * Node's own `util.parseArgs`, whose errors become that error.
 */
import { parseArgs } from 'node:util';

/** A problem with the command line, reported with the command's usage and exit code 1. */
export class UsageError extends Error {}

export type OptionSpecs = Record<string, { type: 'string' | 'boolean'; short?: string }>;

export interface ParsedOptions<T extends OptionSpecs> {
  values: { [K in keyof T]?: T[K]['type'] extends 'boolean' ? boolean : string };
  positionals: string[];
}

/**
 * Parses `args` against `options` (strict: an unknown option or a missing value is a
 * UsageError). `positionals` is how many plain arguments the command takes.
 */
export function parseOptions<T extends OptionSpecs>(args: string[], options: T, positionals = 0): ParsedOptions<T> {
  let parsed: ParsedOptions<T>;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: positionals > 0 });
  } catch (err) {
    // parseArgs words its errors for Node's own use ("... To specify a positional argument ...").
    const first = (err as Error).message.split('. ')[0]!;
    throw new UsageError(first.charAt(0).toLowerCase() + first.slice(1));
  }
  if (parsed.positionals.length > positionals) {
    throw new UsageError(`unexpected argument "${parsed.positionals[positionals]!}"`);
  }
  return parsed;
}

/** The value of a one-of option, or a UsageError naming the option, the choices and the value. */
export function oneOf<const C extends string>(option: string, value: string, choices: readonly C[]): C {
  if ((choices as readonly string[]).includes(value)) return value as C;
  throw new UsageError(`${option} must be one of ${choices.join(', ')}, got "${value}"`);
}

/** A comma-separated list of choices, or `all` for every one; each name checked like oneOf. */
export function listOf<const C extends string>(option: string, value: string, choices: readonly C[]): C[] {
  const names = value.split(',').map((name) => oneOf(option, name.trim(), [...choices, 'all']));
  return names.includes('all') ? [...choices] : [...new Set(names as C[])];
}
