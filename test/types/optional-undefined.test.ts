/**
 * Every optional property of the public types says `?: T | undefined`, so a program compiled
 * with `exactOptionalPropertyTypes` (the default of `tsc --init`) may pass an unset variable:
 * `{ connectionString: process.env.DATABASE_URL }`. Reads the public entry points with the
 * TypeScript compiler and follows every type they reach inside src/, so a property added later
 * without `| undefined` fails here. The runtime side (an explicit `undefined` is an absent key)
 * is tested in test/types/undefined-options.test.ts.
 */
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const ENTRY_POINTS = ['src/index.ts', 'src/dashboard/index.ts'].map((p) => `${ROOT}${p}`);

/** `file:line Owner.property` of every public optional property whose type leaves out undefined. */
function optionalsWithoutUndefined(): { checked: number; missing: string[] } {
  const program = ts.createProgram(ENTRY_POINTS, {
    strict: true,
    exactOptionalPropertyTypes: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  });
  const checker = program.getTypeChecker();
  const seen = new Set<ts.Node>();
  const queue: ts.Node[] = [];
  const missing: string[] = [];
  let checked = 0;

  const inSource = (node: ts.Node): boolean => node.getSourceFile().fileName.startsWith(SRC);
  const enqueue = (symbol: ts.Symbol | undefined): void => {
    if (!symbol) return;
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    for (const declaration of target.getDeclarations() ?? []) {
      if (inSource(declaration) && !seen.has(declaration)) {
        seen.add(declaration);
        queue.push(declaration);
      }
    }
  };
  const where = (node: ts.Node): string => {
    const file = node.getSourceFile();
    const { line } = file.getLineAndCharacterOfPosition(node.getStart());
    return `${relative(ROOT, file.fileName)}:${line + 1}`;
  };
  const allowsUndefined = (typeNode: ts.TypeNode | undefined): boolean => {
    if (!typeNode) return false;
    const type = checker.getTypeFromTypeNode(typeNode);
    const flags = ts.TypeFlags.Undefined | ts.TypeFlags.Any | ts.TypeFlags.Unknown | ts.TypeFlags.Void;
    return type.isUnion() ? type.types.some((t) => (t.flags & flags) !== 0) : (type.flags & flags) !== 0;
  };
  /** Members the declarations leave out or mark internal are not public. */
  const isHidden = (node: ts.Node): boolean =>
    (ts.getCombinedModifierFlags(node as ts.Declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !==
      0 ||
    ((ts.isPropertyDeclaration(node) || ts.isMethodDeclaration(node)) && ts.isPrivateIdentifier(node.name)) ||
    ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'internal');

  const visit = (node: ts.Node): void => {
    // Implementations and initial values are not part of a type.
    if (ts.isBlock(node) || isHidden(node)) return;
    if ((ts.isPropertySignature(node) || ts.isPropertyDeclaration(node)) && node.questionToken) {
      checked++;
      if (!allowsUndefined(node.type)) {
        const owner = (node.parent as { name?: ts.Identifier }).name?.text ?? '{}';
        missing.push(`${where(node)} ${owner}.${node.name.getText()}`);
      }
    }
    if (ts.isMappedTypeNode(node) && node.questionToken && node.questionToken.kind !== ts.SyntaxKind.MinusToken) {
      checked++;
      if (!allowsUndefined(node.type)) missing.push(`${where(node)} mapped type [${node.typeParameter.getText()}]?`);
    }
    if (ts.isTypeReferenceNode(node)) {
      const symbol = checker.getSymbolAtLocation(node.typeName);
      if (symbol?.getName() === 'Partial' && !(symbol.getDeclarations() ?? []).some(inSource)) {
        missing.push(`${where(node)} Partial<> (use a mapped type with ?: T[K] | undefined)`);
      }
      enqueue(symbol);
    }
    if (ts.isExpressionWithTypeArguments(node) || ts.isTypeQueryNode(node)) {
      enqueue(checker.getSymbolAtLocation(ts.isTypeQueryNode(node) ? node.exprName : node.expression));
    }
    if (ts.isPropertyDeclaration(node) || ts.isVariableDeclaration(node) || ts.isParameter(node)) {
      // The type annotation only, not the initial value.
      if (node.type) visit(node.type);
      if (ts.isPropertyDeclaration(node)) visit(node.name);
      return;
    }
    ts.forEachChild(node, visit);
  };

  for (const entry of ENTRY_POINTS) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
    for (const exported of checker.getExportsOfModule(module)) enqueue(exported);
  }
  for (let node = queue.shift(); node; node = queue.shift()) visit(node);
  return { checked, missing };
}

describe('public optional properties accept undefined (exactOptionalPropertyTypes)', () => {
  const { checked, missing } = optionalsWithoutUndefined();

  it('reaches the options of the queue, jobs, processor, supervisor and dashboard', () => {
    expect(checked).toBeGreaterThan(150);
  });

  it('types every optional property as `?: T | undefined`', () => {
    expect(missing).toEqual([]);
  });
});
