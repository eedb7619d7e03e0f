/**
 * A small JavaScript tokenizer, enough to find the identifiers a handler's source refers to
 * (see free-identifiers.ts). Comments are dropped; string, template and regex contents become
 * opaque tokens, while the code inside template `${...}` is tokenized like any other code.
 */

export type TokenType = 'name' | 'punct' | 'string' | 'number' | 'regex' | 'template';

export interface Token {
  type: TokenType;
  value: string;
}

const PUNCTUATORS = [
  '>>>=', '...', '===', '!==', '**=', '<<=', '>>=', '>>>', '&&=', '||=', '??=',
  '=>', '==', '!=', '<=', '>=', '&&', '||', '??', '?.', '++', '--', '+=', '-=', '*=', '/=', '%=',
  '&=', '|=', '^=', '**', '<<', '>>',
];

const NAME_START = /[A-Za-z_$\u0080-\uffff#]/;
const NAME_PART = /[\w$\u0080-\uffff]/;
const NUMBER = /^(?:0[xXoObB][\da-fA-F_]+n?|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?n?)/;

/** After these words a `/` starts a regular expression, not a division. */
const REGEX_AFTER_WORDS = new Set([
  'return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'instanceof', 'yield', 'await',
]);

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  // Which `{` opened each open brace: code, or a template substitution `${`.
  const braces: ('code' | 'template')[] = [];
  let i = 0;

  const regexAllowed = (): boolean => {
    const prev = tokens[tokens.length - 1];
    if (!prev) return true;
    if (prev.type === 'name') return REGEX_AFTER_WORDS.has(prev.value);
    if (prev.type === 'punct') return ![')', ']', '}', '++', '--'].includes(prev.value);
    return prev.type === 'template' && prev.value === '${';
  };

  /** Scans template text from `i` up to the closing backtick or a `${`. */
  const scanTemplate = (): void => {
    while (i < source.length) {
      const c = source[i]!;
      if (c === '\\') i += 2;
      else if (c === '`') {
        i++;
        tokens.push({ type: 'template', value: '`' });
        return;
      } else if (c === '$' && source[i + 1] === '{') {
        i += 2;
        braces.push('template');
        tokens.push({ type: 'template', value: '${' });
        return;
      } else i++;
    }
  };

  while (i < source.length) {
    const c = source[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? source.length : end + 2;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < source.length && source[j] !== c) j += source[j] === '\\' ? 2 : 1;
      tokens.push({ type: 'string', value: source.slice(i, j + 1) });
      i = j + 1;
    } else if (c === '`') {
      i++;
      scanTemplate();
    } else if (c === '}' && braces[braces.length - 1] === 'template') {
      braces.pop();
      i++;
      scanTemplate();
    } else if (c === '/' && regexAllowed()) {
      let j = i + 1;
      let inClass = false;
      while (j < source.length && (inClass || source[j] !== '/') && source[j] !== '\n') {
        if (source[j] === '\\') j++;
        else if (source[j] === '[') inClass = true;
        else if (source[j] === ']') inClass = false;
        j++;
      }
      j++;
      while (j < source.length && NAME_PART.test(source[j]!)) j++;
      tokens.push({ type: 'regex', value: source.slice(i, j) });
      i = j;
    } else if (/\d/.test(c) || (c === '.' && /\d/.test(source[i + 1] ?? ''))) {
      const m = NUMBER.exec(source.slice(i, i + 100));
      const len = m ? m[0].length : 1;
      tokens.push({ type: 'number', value: source.slice(i, i + len) });
      i += len;
    } else if (NAME_START.test(c)) {
      let j = i + 1;
      while (j < source.length && NAME_PART.test(source[j]!)) j++;
      tokens.push({ type: 'name', value: source.slice(i, j) });
      i = j;
    } else {
      let p = PUNCTUATORS.find((op) => source.startsWith(op, i)) ?? c;
      // `a?.5:b` is a conditional, not optional chaining
      if (p === '?.' && /\d/.test(source[i + 2] ?? '')) p = '?';
      if (p === '{') braces.push('code');
      if (p === '}') braces.pop();
      tokens.push({ type: 'punct', value: p });
      i += p.length;
    }
  }
  return tokens;
}
