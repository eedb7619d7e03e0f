import { describe, expect, it } from 'vitest';
import MiniSearch from 'minisearch';
import { sectionsOf, type DocPage } from './docs-pages.js';
import { createDocSearch, excerptOf } from './docs-search.js';

const page = (name: string, text: string): DocPage => ({ name, title: name, summary: '', text });

describe('sectionsOf', () => {
  it('splits at ## to #### headings, not at # lines inside fenced code', () => {
    const sections = sectionsOf(
      page('p', '# P\n\nIntro.\n\n## One\n\nA\n\n```sh\n## not a heading\n```\n\n### Two\n\nB\n'),
    );
    expect(sections.map((s) => [s.heading, s.text])).toEqual([
      ['p', 'Intro.'],
      ['One', 'A\n\n```sh\n## not a heading\n```'],
      ['Two', 'B'],
    ]);
    expect(sections.map((s) => s.id)).toEqual(['p#0', 'p#1', 'p#2']);
  });
});

describe('createDocSearch', () => {
  it('returns at most 5 hits, best first, and weighs a heading match above a body match', () => {
    const pages = Array.from({ length: 8 }, (_, i) =>
      page(`p${i}`, `# P${i}\n\n## Section ${i}\n\nbackoff appears here.\n`),
    );
    pages.push(page('retries', '# Retries\n\n## Backoff\n\nHow long between attempts.\n'));
    const hits = createDocSearch(MiniSearch, pages)('backoff');
    expect(hits).toHaveLength(5);
    expect(hits[0]).toMatchObject({ page: 'retries', heading: 'Backoff' });
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
  });
});

describe('excerptOf', () => {
  it('cuts around the first matched term, on one line, marking the cuts', () => {
    const text = `${'lorem '.repeat(100)}the needle\nis here ${'ipsum '.repeat(100)}`;
    const excerpt = excerptOf(text, ['needle']);
    expect(excerpt.startsWith('…')).toBe(true);
    expect(excerpt.endsWith('…')).toBe(true);
    expect(excerpt).toContain('the needle is here');
    expect(excerpt.length).toBeLessThanOrEqual(242);
  });
});
