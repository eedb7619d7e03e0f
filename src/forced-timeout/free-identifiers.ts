/**
 * Finds what a handler's source needs from outside itself: variables it reads or writes without
 * declaring them, and `this`. A handler run in a worker thread keeps only its source, so such
 * captured variables would be undefined there (SPEC §4.7 rule 2).
 *
 * The source is parsed by acorn and its scopes resolved by eslint-scope, the scope analyser of
 * ESLint: every syntax the runtime accepts (regular expression literals, default parameters,
 * destructuring defaults, classes, closures) is read as the engine reads it, so a reference the
 * handler does not declare is one the worker could not resolve.
 */
import { parse } from 'acorn';
import { analyze, type Scope } from 'eslint-scope';
import type * as ESTree from 'estree';

export interface SourceAnalysis {
  /** Identifiers referenced but neither declared in the source nor known globals, in order of appearance. */
  freeIdentifiers: string[];
  /** The source uses `this` of the handler itself or of the code around it. */
  usesThis: boolean;
}

/** Both tools read the newest syntax; the handler already compiled in this runtime. */
const ECMA_VERSION = 2026;

/**
 * `source` is a function's source text (an arrow or a function expression, as
 * Function.prototype.toString gives it); throws a SyntaxError when it does not parse as one.
 */
export function analyzeHandlerSource(source: string, knownGlobals: ReadonlySet<string>): SourceAnalysis {
  // Parenthesized, as the worker evaluates it: a function expression, not a declaration. The
  // newline keeps a trailing line comment from swallowing the parenthesis. eslint-scope needs
  // `range` on every node (to tell default parameters from the body).
  const program = parse(`(${source}\n)`, {
    ecmaVersion: ECMA_VERSION,
    sourceType: 'script',
    ranges: true,
  }) as unknown as ESTree.Program;
  const handler = (program.body[0] as ESTree.ExpressionStatement).expression;
  const scopes = analyze(program, { ecmaVersion: ECMA_VERSION, sourceType: 'script' });

  // `typeof name` is how code tests for an optional global (`typeof window`); it never throws.
  const typeofOperands = new Set<ESTree.Node>();
  visit(program, (node) => {
    if (node.type === 'UnaryExpression' && node.operator === 'typeof' && node.argument.type === 'Identifier')
      typeofOperands.add(node.argument);
  });

  // References no scope of the source resolves: the worker would look them up in its globals.
  const free = scopes
    .globalScope!.through.map((reference) => reference.identifier as ESTree.Identifier)
    .filter((identifier) => !knownGlobals.has(identifier.name) && !typeofOperands.has(identifier))
    .sort((a, b) => a.range![0] - b.range![0])
    .map((identifier) => identifier.name);

  const usesThis = scopes.scopes.some((scope) => {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- eslint-scope has no other public record of the scopes that use `this`
    if (!scope.thisFound) return false;
    const owner = thisOwner(scope);
    return owner.type === 'global' || owner.block === handler;
  });
  return { freeIdentifiers: [...new Set(free)], usesThis };
}

/**
 * The scope whose `this` a `this` in `scope` means: arrow functions have none of their own, so
 * it is that of the nearest enclosing non-arrow function, class field or static block (or the
 * code around the handler).
 */
function thisOwner(scope: Scope): Scope {
  let owner = scope.variableScope;
  while (owner.block.type === 'ArrowFunctionExpression' && owner.upper) owner = owner.upper.variableScope;
  return owner;
}

/** Calls `fn` on every node of the tree. */
function visit(node: ESTree.Node, fn: (node: ESTree.Node) => void): void {
  fn(node);
  for (const value of Object.values(node) as unknown[]) {
    for (const child of Array.isArray(value) ? value : [value]) {
      if (isNode(child)) visit(child, fn);
    }
  }
}

function isNode(value: unknown): value is ESTree.Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}
