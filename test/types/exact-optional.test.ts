/**
 * The public types under the strictest common compiler settings: test/types/strict/consumer.ts,
 * a program as an application writes it, compiles with `@tsconfig/strictest`'s options
 * (`exactOptionalPropertyTypes` among them: `connectionString: process.env.DATABASE_URL`
 * compiles) under node16 and bundler resolution, and each of its `@ts-expect-error` lines (a
 * Date field read as a Date in a handler, a payload map holding a function) fails to compile.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const path = (p: string): string => fileURLToPath(new URL(p, import.meta.url));
const CONSUMER = path('./strict/consumer.ts');

/** The options of `@tsconfig/strictest`, with the package's names resolving to its source. */
const STRICTEST: ts.CompilerOptions = {
  ...strictestOptions(),
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts'],
  types: ['node'],
  noEmit: true,
  paths: {
    queuedev: [path('../../src/index.ts')],
    'queuedev/dashboard': [path('../../src/dashboard/index.ts')],
  },
};

const RESOLUTIONS: [string, ts.CompilerOptions][] = [
  ['node16', { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 }],
  ['bundler', { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler }],
];

/**
 * The consumer's errors, as `line: message`. Only the consumer's: the library's own source is
 * compiled under its own tsconfig; what matters here is what its types let a program write.
 */
function consumerErrors(resolution: ts.CompilerOptions): string[] {
  const program = ts.createProgram([CONSUMER], { ...STRICTEST, ...resolution });
  const file = program.getSourceFile(CONSUMER)!;
  return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map((d) => {
    const { line } = file.getLineAndCharacterOfPosition(d.start ?? 0);
    return `${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

describe('the public types under the strictest settings', () => {
  it.each(RESOLUTIONS)(
    'compile a program with exactOptionalPropertyTypes (%s resolution)',
    (_name, resolution) => {
      expect(consumerErrors(resolution)).toEqual([]);
    },
    180_000,
  );
});

/** The compiler options `@tsconfig/strictest` sets, read from the package (plain booleans). */
function strictestOptions(): ts.CompilerOptions {
  const file = createRequire(import.meta.url).resolve('@tsconfig/strictest/tsconfig.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { compilerOptions: ts.CompilerOptions }).compilerOptions;
}
