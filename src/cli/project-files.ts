/**
 * Writing into the user's project, shared by init and the install commands: paths shown
 * relative to the project, dry runs that print instead of writing, and the check for packages
 * the project has installed.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export interface Project {
  /** Absolute path of the project root. */
  root: string;
  dryRun: boolean;
}

export function projectAt(dir: string | undefined, dryRun: boolean): Project {
  const root = resolve(dir ?? process.cwd());
  if (!existsSync(root)) throw new Error(`the project folder ${root} does not exist: pass an existing folder to --dir`);
  return { root, dryRun };
}

/** `file` relative to the project root, with forward slashes, for messages. */
export function shown(project: Project, file: string): string {
  return relative(project.root, file).split('\\').join('/');
}

/** Writes `text` to `file` (creating folders), or only reports it on a dry run. */
export function writeProjectFile(project: Project, file: string, text: string): void {
  if (project.dryRun) return;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** Whether the project (or a folder above it, as Node resolves) has installed `name`. */
export function hasInstalled(project: Project, name: string): boolean {
  for (let dir = project.root; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules', name, 'package.json'))) return true;
    if (dirname(dir) === dir) return false;
  }
}
