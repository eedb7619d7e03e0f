/**
 * `--envPath <file>`: loads KEY=value lines into process.env, like dotenv (which is not a
 * dependency): `#` comments, optional `export `, single or double quotes (double quotes
 * understand \n). Variables already set in the environment win over the file.
 */
import { readFileSync } from 'node:fs';

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*?)\s*$/;

export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    if (/^\s*(#|$)/.test(raw)) continue;
    const match = LINE.exec(raw);
    if (!match) continue;
    const key = match[1]!;
    let value = match[2]!;
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\"/g, '"');
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    out[key] = value;
  }
  return out;
}

/** Loads `path` into `env`; throws with the path in the message when it cannot be read. */
export function loadEnvFile(path: string, env: NodeJS.ProcessEnv = process.env): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`Could not read the env file given to --envPath (${path}): ${(err as Error).message}`);
  }
  for (const [key, value] of Object.entries(parseEnvFile(text))) {
    if (env[key] === undefined) env[key] = value;
  }
}
