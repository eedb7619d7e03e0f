/**
 * Every public option is documented the way STYLE.md asks: one sentence, `@default` when the
 * option may be left out, and a short `@example`. Reads the public entry points with the
 * TypeScript compiler, so an option added later without its documentation fails here.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ENTRY_POINTS = ['../../src/index.ts', '../../src/dashboard/index.ts'].map((p) =>
  fileURLToPath(new URL(p, import.meta.url)),
);
/** Option types whose names do not end in Options or Config. */
const NESTED_OPTIONS = ['JobGroup', 'JobDependencies', 'JobFilter', 'DateRange', 'WaitDuration'];

interface OptionDoc {
  option: string;
  sentence: string;
  tags: string[];
  optional: boolean;
}

/** The documented properties of every exported options interface of the package. */
function publicOptions(): OptionDoc[] {
  const program = ts.createProgram(ENTRY_POINTS, {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  });
  const checker = program.getTypeChecker();
  const docs: OptionDoc[] = [];
  for (const entry of ENTRY_POINTS) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const name = symbol.getName();
      if (
        !(symbol.flags & ts.SymbolFlags.Interface) ||
        !(/(Options|Config)$/.test(name) || NESTED_OPTIONS.includes(name))
      )
        continue;
      for (const declaration of symbol.getDeclarations() ?? []) {
        if (!ts.isInterfaceDeclaration(declaration)) continue;
        for (const member of declaration.members) {
          if (!ts.isPropertySignature(member)) continue;
          const jsDoc = ts.getJSDocCommentsAndTags(member).filter(ts.isJSDoc);
          docs.push({
            option: `${name}.${member.name.getText()}`,
            sentence: jsDoc
              .map((d) => ts.getTextOfJSDocComment(d.comment) ?? '')
              .join(' ')
              .trim(),
            tags: jsDoc.flatMap((d) => (d.tags ?? []).map((t) => t.tagName.text)),
            optional: member.questionToken !== undefined,
          });
        }
      }
    }
  }
  return docs;
}

describe('public option documentation (STYLE "Document public options")', () => {
  const options = publicOptions();

  it('finds the options of the queue, jobs, processor, supervisor, dashboard, cron, tokens and close', () => {
    const owners = new Set(options.map((o) => o.option.split('.')[0]));
    for (const owner of [
      'PostgresQueueConfig',
      'RedisQueueConfig',
      'JobOptions',
      'EditJobOptions',
      'JobFilter',
      'ProcessorOptions',
      'SupervisorOptions',
      'DashboardConfig',
      'CronJobOptions',
      'CreateTokenOptions',
      'CloseOptions',
    ]) {
      expect(owners).toContain(owner);
    }
  });

  it('gives every option a sentence and an @example', () => {
    expect(options.filter((o) => o.sentence === '').map((o) => o.option)).toEqual([]);
    expect(options.filter((o) => !o.tags.includes('example')).map((o) => o.option)).toEqual([]);
  });

  it('gives every option that may be left out its @default', () => {
    expect(options.filter((o) => o.optional && !o.tags.includes('default')).map((o) => o.option)).toEqual([]);
  });
});
