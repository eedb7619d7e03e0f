/**
 * Finds what a handler's source needs from outside itself: identifiers it reads without
 * declaring them, and `this`. A handler run in a worker thread keeps only its source, so such
 * captured variables would be undefined there (SPEC §4.7 rule 2).
 *
 * This is a scan over tokens, not a full parser. It errs on the side of accepting: names in
 * destructuring patterns and parameter lists count as declared wherever they appear, object
 * keys and labels are skipped. It catches the common mistakes (a captured client, config or
 * helper), and the worker reports anything it misses as a ReferenceError when the job runs.
 */
import { tokenize, type Token } from './tokenize.js';

export interface SourceAnalysis {
  /** Identifiers read but neither declared in the source nor known globals, in order of appearance. */
  freeIdentifiers: string[];
  /** The source uses `this` outside any nested function or class of its own. */
  usesThis: boolean;
}

/** Words that are never references to an outer variable. */
const NOT_REFERENCES = new Set([
  'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else', 'export',
  'extends', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'new', 'return', 'super', 'switch',
  'this', 'throw', 'try', 'typeof', 'var', 'void', 'while', 'with', 'yield', 'let', 'static', 'await', 'async',
  'of', 'get', 'set', 'null', 'true', 'false', 'enum',
]);

/** Words that end a declaration list scanned without semicolons. */
const STATEMENT_START = new Set([
  'if', 'for', 'while', 'do', 'return', 'const', 'let', 'var', 'try', 'throw', 'switch', 'break', 'continue', 'function', 'class',
]);

const OPEN = new Set(['(', '[', '{']);
const CLOSE = new Set([')', ']', '}']);

const isPunct = (t: Token | undefined, value: string): boolean => t?.type === 'punct' && t.value === value;
const isName = (t: Token | undefined): t is Token => t?.type === 'name';

/** Index of the matching bracket for every bracket token. */
function matchBrackets(tokens: Token[]): Map<number, number> {
  const match = new Map<number, number>();
  const stack: number[] = [];
  tokens.forEach((t, i) => {
    if (t.type !== 'punct') return;
    if (OPEN.has(t.value)) stack.push(i);
    else if (CLOSE.has(t.value)) {
      const open = stack.pop();
      if (open !== undefined) {
        match.set(open, i);
        match.set(i, open);
      }
    }
  });
  return match;
}

export function analyzeHandlerSource(source: string, knownGlobals: ReadonlySet<string>): SourceAnalysis {
  const tokens = tokenize(source);
  const match = matchBrackets(tokens);
  const declared = new Set<string>();
  const functionBodies = new Set<number>(); // `{` tokens opening a function or method body
  const classBodies = new Set<number>();
  const memberNames = new Set<number>(); // method names: keys, not references

  const declareWithin = (open: number): number => {
    const close = match.get(open) ?? tokens.length;
    for (let k = open + 1; k < close; k++) if (isName(tokens[k])) declared.add(tokens[k]!.value);
    return close;
  };

  const declareList = (start: number): void => {
    let depth = 0;
    let expectBinding = true;
    for (let j = start; j < tokens.length; j++) {
      const t = tokens[j]!;
      if (expectBinding) {
        expectBinding = false;
        if (isName(t)) declared.add(t.value);
        else if (isPunct(t, '{') || isPunct(t, '[')) j = declareWithin(j);
        else return;
        continue;
      }
      if (t.type === 'punct' && OPEN.has(t.value)) depth++;
      else if (t.type === 'punct' && CLOSE.has(t.value) && --depth < 0) return;
      else if (depth === 0 && isPunct(t, ',')) expectBinding = true;
      else if (depth === 0 && (isPunct(t, ';') || (isName(t) && STATEMENT_START.has(t.value)))) return;
    }
  };

  // Pass 1: declarations, function and class bodies.
  tokens.forEach((t, i) => {
    const next = tokens[i + 1];
    if (t.type === 'punct' && t.value === '(' && isPunct(tokens[(match.get(i) ?? -2) + 1], '=>')) {
      declareWithin(i); // arrow parameters
      return;
    }
    if (!isName(t)) return;
    if (isPunct(tokens[i - 1], '.') || isPunct(tokens[i - 1], '?.')) return;
    if (isPunct(next, '=>')) declared.add(t.value);
    else if (t.value === 'var' || t.value === 'let' || t.value === 'const') declareList(i + 1);
    else if (t.value === 'catch' && isPunct(next, '(')) declareWithin(i + 1);
    else if (t.value === 'function') {
      let j = i + 1;
      if (isPunct(tokens[j], '*')) j++;
      if (isName(tokens[j])) declared.add(tokens[j++]!.value);
      if (isPunct(tokens[j], '(')) {
        const close = declareWithin(j);
        if (isPunct(tokens[close + 1], '{')) functionBodies.add(close + 1);
      }
    } else if (t.value === 'class') {
      if (isName(next) && next.value !== 'extends') declared.add(next.value);
      const body = tokens.findIndex((u, k) => k > i && isPunct(u, '{'));
      if (body >= 0) classBodies.add(body);
    } else if (!NOT_REFERENCES.has(t.value) && isPunct(next, '(')) {
      // `name(params) {` is a method definition (a call is never followed by a block)
      const close = match.get(i + 1) ?? -2;
      if (isPunct(tokens[close + 1], '{')) {
        memberNames.add(i);
        declareWithin(i + 1);
        functionBodies.add(close + 1);
      }
    }
  });

  // Pass 2: references and `this`.
  const handlerIsFunction = isName(tokens[0]) && (tokens[0].value === 'function' || tokens[1]?.value === 'function');
  const free: string[] = [];
  const braces: ('fn' | 'class' | 'block')[] = [];
  let usesThis = false;
  tokens.forEach((t, i) => {
    if (isPunct(t, '{')) braces.push(functionBodies.has(i) ? 'fn' : classBodies.has(i) ? 'class' : 'block');
    else if (isPunct(t, '}')) braces.pop();
    if (!isName(t)) return;
    const prev = tokens[i - 1];
    if (t.value === 'this') {
      const ownScopes = braces.filter((b) => b !== 'block').length;
      if (ownScopes < (handlerIsFunction ? 2 : 1)) usesThis = true;
      return;
    }
    if (NOT_REFERENCES.has(t.value) || t.value.startsWith('#') || memberNames.has(i)) return;
    if (isPunct(prev, '.') || isPunct(prev, '?.')) return; // property access
    if (isName(prev) && ['typeof', 'break', 'continue'].includes(prev.value)) return; // optional global check, label
    if (braces[braces.length - 1] === 'class') return; // class member name
    const next = tokens[i + 1];
    const keyPosition = !prev || isPunct(prev, '{') || isPunct(prev, ',') || isPunct(prev, ';') || isPunct(prev, '}');
    if (isPunct(next, ':') && keyPosition) return; // object key or label
    if (declared.has(t.value) || knownGlobals.has(t.value) || free.includes(t.value)) return;
    free.push(t.value);
  });
  return { freeIdentifiers: free, usesThis };
}
