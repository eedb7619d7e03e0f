/**
 * `--envPath <file>`: loads the file into process.env by Node's own `.env` rules
 * (`util.parseEnv`, the parser behind `node --env-file`), so a file that works with Node works
 * here: `#` comments, an optional `export ` prefix, single, double and backtick quotes, `\n` in
 * double quotes, and values spanning lines inside quotes. Variables already set in the
 * environment win over the file.
 */
import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';

/** Loads `path` into `env`; throws with the path in the message when it cannot be read. */
export function loadEnvFile(path: string, env: NodeJS.ProcessEnv = process.env): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`Could not read the env file given to --envPath (${path}): ${(err as Error).message}`, {
      cause: err,
    });
  }
  for (const [key, value] of Object.entries(parseEnv(text))) {
    if (env[key] === undefined && value !== undefined) env[key] = value;
  }
}
