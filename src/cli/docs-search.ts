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

export interface SearchHit {
  page: string;
  heading: string;
  excerpt: string;
  score: number;
}

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
  return (query) =>
    index
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
