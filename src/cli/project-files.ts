/**
 * Writing into the user's project, shared by init and the install commands: paths shown
 * relative to the project, dry runs that print instead of writing, the check for packages the
 * project has installed, and the rule that nothing is written outside the project: not through a
 * symbolic link that leads out of it, not through a link to nothing, not to a folder given as an
 * absolute path elsewhere. Every refusal and every file system failure is a ProjectPathError
 * naming the path and what to do.
 */
import { existsSync, lstatSync, mkdirSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { UsageError } from './args.js';

export interface Project {
  /** Absolute path of the project root. */
  root: string;
  dryRun: boolean;
}

/** Why a path of the project cannot be written. */
export type ProjectPathProblem =
  'outside-project' | 'link-outside' | 'dangling-link' | 'not-a-folder' | 'not-a-file' | 'file-system';

/** A file the command would write cannot be written where it belongs; nothing was written. */
export class ProjectPathError extends Error {
  /** The path, relative to the project. */
  readonly path: string;
  readonly problem: ProjectPathProblem;
  constructor(problem: ProjectPathProblem, path: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProjectPathError';
    this.problem = problem;
    this.path = path;
  }
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

function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * The folder an option such as `--to` names: relative to the project, or an absolute path
 * inside it. One outside the project is refused: the command writes into one project, the one
 * `--dir` names.
 */
export function projectFolder(project: Project, option: string, value: string): string {
  const folder = resolve(project.root, value);
  if (isInside(project.root, folder)) return folder;
  throw new UsageError(
    `${option} must name a folder inside the project (${project.root}), relative to it or as an absolute path under it, got "${value}": to write into another project, pass that project's folder as --dir`,
  );
}

/**
 * Throws a ProjectPathError when writing `file` would leave the project: every part of its path
 * that exists is checked, and a symbolic link is followed only when it leads to something that
 * exists inside the project.
 */
export function checkProjectPath(project: Project, file: string): void {
  const name = shown(project, file);
  if (!isInside(project.root, file)) {
    throw new ProjectPathError(
      'outside-project',
      name,
      `${file} is outside the project ${project.root}: nothing was written`,
    );
  }
  const realRoot = realpathSync(project.root);
  const parts = relative(project.root, file).split(sep);
  let path = project.root;
  for (const [i, part] of parts.entries()) {
    path = join(path, part);
    const here = shown(project, path);
    let stat;
    try {
      stat = lstatSync(path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      throw fileSystemError(project, path, err);
    }
    if (stat.isSymbolicLink()) {
      const target = resolve(dirname(path), readlinkSync(path));
      let real: string;
      try {
        real = realpathSync(path);
      } catch {
        throw new ProjectPathError(
          'dangling-link',
          here,
          `${here} is a symbolic link to ${target}, which does not exist: queuedev does not write through it. Create what it points to, or remove the link, then run the command again`,
        );
      }
      if (!isInside(realRoot, real)) {
        throw new ProjectPathError(
          'link-outside',
          here,
          `${here} is a symbolic link to ${real}, outside the project: queuedev writes only inside the project. Replace the link by a folder or file of the project, then run the command again`,
        );
      }
      stat = lstatSync(real);
    }
    if (i === parts.length - 1 && stat.isDirectory()) {
      throw new ProjectPathError(
        'not-a-file',
        here,
        `${here} is a folder, where queuedev would write a file: move it away, then run the command again`,
      );
    }
    if (i < parts.length - 1 && !stat.isDirectory()) {
      throw new ProjectPathError(
        'not-a-folder',
        here,
        `${here} is a file, and ${name} would go inside it: move the file away, then run the command again`,
      );
    }
  }
}

/** Checks every file before any is written, so a refused one leaves the project as it was. */
export function checkProjectPaths(project: Project, files: readonly string[]): void {
  for (const file of files) checkProjectPath(project, file);
}

/** Writes `text` to `file` (creating folders), or only reports it on a dry run. */
export function writeProjectFile(project: Project, file: string, text: string): void {
  checkProjectPath(project, file);
  if (project.dryRun) return;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  } catch (err) {
    throw fileSystemError(project, file, err);
  }
}

const ADVICE: Record<string, string> = {
  EACCES: 'permission denied: make it writable for this user, or run the command as a user who may write there',
  EPERM: 'the operation is not permitted: make it writable for this user',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  EISDIR: 'a folder is in the way: move it away',
  ELOOP: 'symbolic links loop there: fix or remove them',
};

/** A file system failure in one line: the path, what happened, what to do. */
function fileSystemError(project: Project, path: string, err: unknown): ProjectPathError {
  const e = err as NodeJS.ErrnoException;
  const name = shown(project, path);
  const what = (e.code && ADVICE[e.code]) ?? e.message;
  return new ProjectPathError('file-system', name, `cannot write ${name} (${e.code ?? 'error'}): ${what}`, {
    cause: err,
  });
}

/** Whether the project (or a folder above it, as Node resolves) has installed `name`. */
export function hasInstalled(project: Project, name: string): boolean {
  for (let dir = project.root; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules', name, 'package.json'))) return true;
    if (dirname(dir) === dir) return false;
  }
}
