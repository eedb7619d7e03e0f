/**
 * `queue-cli install-skills` and `queue-cli install-rules`: copy the assistant files the package
 * ships in assistants/ (written from docs/) into the project, through managed-files.ts so a
 * later version updates its own text and never a file the user changed, unless --force.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findPackageRoot } from '../package-root.js';
import { listOf, parseOptions } from './args.js';
import { writeManaged, type ManagedFile } from './managed-files.js';
import { checkProjectPaths, projectAt, projectFolder, type Project } from './project-files.js';

const DEFAULT_SKILLS_DIR = '.claude/skills';

export const INSTALL_SKILLS_USAGE = `Usage: queue-cli install-skills [options]

Copies the queuedev skills (one folder with a SKILL.md each) into ${DEFAULT_SKILLS_DIR}/:
  queuedev-usage             adding jobs, the queue singleton, querying and managing jobs
  queuedev-handlers          writing handlers: payload types, signals, retries, waits
  queuedev-deployment        migrations, workers, serverless routes, cron, the supervisor
  queuedev-troubleshooting   stuck, failed and never-running jobs, error codes
A file queuedev wrote is updated when a later version changes it; a file you changed, or one
queuedev did not write, is left alone unless --force is given.

Options:
  --to <folder>   the skills folder, default ${DEFAULT_SKILLS_DIR}: relative to the project, or an
                  absolute path inside it
  --dir <path>    the project folder, default the current folder
  --force         replace files you changed
  --dry-run       print what it would write, write nothing`;

/** Each assistant's rule file: where it goes, whether the user shares it, and its front matter. */
const RULE_TARGETS = {
  agents: { file: 'AGENTS.md', shared: true, front: '', signs: ['AGENTS.md'] },
  claude: { file: 'CLAUDE.md', shared: true, front: '', signs: ['CLAUDE.md', '.claude'] },
  cursor: {
    file: '.cursor/rules/queuedev.mdc',
    shared: false,
    front: '---\ndescription: Using the queuedev job queue (PostgreSQL or Redis)\nglobs:\nalwaysApply: false\n---\n',
    signs: ['.cursor'],
  },
  copilot: {
    file: '.github/copilot-instructions.md',
    shared: true,
    front: '',
    signs: ['.github/copilot-instructions.md'],
  },
  windsurf: {
    file: '.windsurf/rules/queuedev.md',
    shared: false,
    front: '---\ntrigger: model_decision\ndescription: Using the queuedev job queue (PostgreSQL or Redis)\n---\n',
    signs: ['.windsurf'],
  },
} as const;
type RuleTarget = keyof typeof RULE_TARGETS;
const RULE_TARGET_NAMES = Object.keys(RULE_TARGETS) as RuleTarget[];

export const INSTALL_RULES_USAGE = `Usage: queue-cli install-rules [options]

Writes the queuedev rules for coding assistants, in each one's format:
  agents     AGENTS.md (a marked section)
  claude     CLAUDE.md (a marked section)
  cursor     .cursor/rules/queuedev.mdc
  copilot    .github/copilot-instructions.md (a marked section)
  windsurf   .windsurf/rules/queuedev.md
Without --client it writes for the assistants the project shows signs of, or AGENTS.md when
there are none. In a file you share (AGENTS.md, CLAUDE.md, ...) only the section between the
queuedev markers is touched. Text you changed is left alone unless --force is given.

Options:
  --client <names>   comma-separated: ${RULE_TARGET_NAMES.join(', ')}, or all
  --dir <path>       the project folder, default the current folder
  --force            replace text you changed
  --dry-run          print what it would write, write nothing`;

function assetsDir(): string {
  return join(findPackageRoot(), 'assistants');
}

export function runInstallSkills(args: string[]): Promise<number> {
  const { values } = parseOptions(args, {
    to: { type: 'string' },
    dir: { type: 'string' },
    force: { type: 'boolean' },
    'dry-run': { type: 'boolean' },
  });
  const project = projectAt(values.dir, values['dry-run'] ?? false);
  const source = join(assetsDir(), 'skills');
  const target = projectFolder(project, '--to', values.to ?? DEFAULT_SKILLS_DIR);
  const files: ManagedFile[] = readdirSync(source, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((skill) =>
      readdirSync(join(source, skill.name)).map((file) => ({
        path: join(target, skill.name, file),
        text: readFileSync(join(source, skill.name, file), 'utf8'),
        shared: false,
      })),
    );
  writeAll(project, files, values.force ?? false);
  return Promise.resolve(0);
}

export function runInstallRules(args: string[]): Promise<number> {
  const { values } = parseOptions(args, {
    client: { type: 'string' },
    dir: { type: 'string' },
    force: { type: 'boolean' },
    'dry-run': { type: 'boolean' },
  });
  const project = projectAt(values.dir, values['dry-run'] ?? false);
  const rules = readFileSync(join(assetsDir(), 'rules', 'queuedev.md'), 'utf8');
  const files = chooseRuleTargets(project, values.client).map((name): ManagedFile => {
    const { file, shared, front } = RULE_TARGETS[name];
    return { path: join(project.root, file), text: front + rules, shared };
  });
  writeAll(project, files, values.force ?? false);
  return Promise.resolve(0);
}

function chooseRuleTargets(project: Project, option: string | undefined): RuleTarget[] {
  if (option !== undefined) return listOf('--client', option, RULE_TARGET_NAMES);
  const seen = RULE_TARGET_NAMES.filter((t) => RULE_TARGETS[t].signs.some((s) => existsSync(join(project.root, s))));
  if (seen.length > 0) return seen;
  console.log('No assistant rule files found; writing AGENTS.md (--client chooses others).');
  return ['agents'];
}

function writeAll(project: Project, files: ManagedFile[], force: boolean): void {
  // Every file is checked first: a refused one leaves the project as it was.
  checkProjectPaths(
    project,
    files.map((f) => f.path),
  );
  const outcomes = files.map((file) => writeManaged(project, file, force));
  if (outcomes.some((o) => o.startsWith('skipped'))) {
    console.log('Some files were left as they are; run again with --force to replace them.');
  }
}
