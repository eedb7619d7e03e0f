/**
 * Full-text search over the documentation sections, ranked by MiniSearch's BM25+ with the
 * heading weighted above the body, prefix matches for the last typed word and small typos
 * forgiven. Built once per server from the pages it serves.
 */
import type MiniSearch from 'minisearch';
import type { DocPage, DocSection } from './docs-pages.js';
import { sectionsOf } from './docs-pages.js';

export const SEARCH_LIMIT = 5;
const EXCERPT_LENGTH = 240;

/**
 * The largest query `search-docs` takes. Each word is matched against the index's terms with
 * typos forgiven, at a cost that grows with the number of words and with the square of a word's
 * length: a 1 MB query held the server for 40 s, and a 200 kB word failed inside the search
 * library. The costliest query within them (20 long words) took about 0.2 s, most take a few ms.
 */
export const QUERY_LIMITS = { characters: 500, words: 20, wordCharacters: 50 };

/** A query past QUERY_LIMITS; the message says which bound and the query's size, not its text. */
export class QueryRefusedError extends Error {}

export interface SearchHit {
  page: string;
  heading: string;
  excerpt: string;
  score: number;
}

/** Searches the sections; throws QueryRefusedError for a query past QUERY_LIMITS. */
export type DocSearch = (query: string) => SearchHit[];

/** Builds the index with the MiniSearch class the caller loaded (it is an optional peer). */
export function createDocSearch(MiniSearchClass: typeof MiniSearch, pages: DocPage[]): DocSearch {
  const sections = pages.flatMap(sectionsOf);
  const byId = new Map(sections.map((s) => [s.id, s]));
  const titles = new Map(pages.map((p) => [p.name, p.title]));
  const index = new MiniSearchClass<DocSection & { title: string }>({
    fields: ['title', 'heading', 'text'],
    storeFields: [],
    searchOptions: { boost: { heading: 3, title: 1.5 }, prefix: true, fuzzy: 0.2, combineWith: 'OR' },
  });
  index.addAll(sections.map((s) => ({ ...s, title: titles.get(s.page) ?? s.page })));
  const tokenize = MiniSearchClass.getDefault('tokenize') as (text: string) => string[];
  return (query) => {
    checkQuery(query, tokenize);
    return index
      .search(query)
      .slice(0, SEARCH_LIMIT)
      .map((result) => {
        const section = byId.get(result.id as string)!;
        return {
          page: section.page,
          heading: section.heading,
          excerpt: excerptOf(section.text, result.terms),
          score: Math.round(result.score * 1000) / 1000,
        };
      });
  };
}

/** Throws QueryRefusedError for a query past QUERY_LIMITS, its words split as the index splits text. */
function checkQuery(query: string, tokenize: (text: string) => string[]): void {
  const { characters, words, wordCharacters } = QUERY_LIMITS;
  const refuse = (what: string) => {
    throw new QueryRefusedError(`${what}. Search with a few words, e.g. "retry backoff".`);
  };
  if (query.length > characters) {
    refuse(`The query is ${query.length} characters long; search-docs takes at most ${characters}`);
  }
  const terms = tokenize(query).filter((t) => t.length > 0);
  if (terms.length > words) refuse(`The query has ${terms.length} words; search-docs takes at most ${words}`);
  const longest = Math.max(0, ...terms.map((t) => t.length));
  if (longest > wordCharacters) {
    refuse(`The query has a word of ${longest} characters; search-docs takes words of at most ${wordCharacters}`);
  }
}

/** About EXCERPT_LENGTH characters of `text` around the first matched term, on one line. */
export function excerptOf(text: string, terms: string[]): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const lower = flat.toLowerCase();
  const at = Math.min(...terms.map((t) => lower.indexOf(t.toLowerCase())).filter((i) => i >= 0), flat.length);
  const start = at === flat.length ? 0 : Math.max(0, at - EXCERPT_LENGTH / 3);
  const end = Math.min(flat.length, start + EXCERPT_LENGTH);
  return `${start > 0 ? '…' : ''}${flat.slice(start, end).trim()}${end < flat.length ? '…' : ''}`;
}
