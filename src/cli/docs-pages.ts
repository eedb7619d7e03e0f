/**
 * The documentation pages shipped in the package's docs/ folder, as `queue-cli mcp` serves
 * them: each page with its title and one-line summary, split into sections for search.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findPackageRoot } from '../package-root.js';

export interface DocPage {
  /** The file name without `.md`, e.g. `getting-started`. */
  name: string;
  title: string;
  /** The page's first paragraph: what it covers, in one sentence. */
  summary: string;
  text: string;
}

export interface DocSection {
  /** `page#n`, unique. */
  id: string;
  page: string;
  /** The section's heading, or the page title for the text before the first heading. */
  heading: string;
  text: string;
}

/** A heading of a page, with the span of text it heads (up to the next heading of its level or above). */
export interface DocHeading {
  /** 2 for `##`, 3 for `###`, 4 for `####`. */
  level: number;
  heading: string;
  /** The headings above it and its own, joined with ` > `: unique where the heading alone is not. */
  path: string;
  /** Character offsets into the page's text: from the heading line to the end of its span. */
  start: number;
  end: number;
}

/** The docs/ folder of the installed package (beside dist/ in the tarball, or of the source tree). */
export function docsDir(): string {
  return join(findPackageRoot(), 'docs');
}

export function readDocPages(dir: string = docsDir()): DocPage[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => {
      const text = readFileSync(join(dir, file), 'utf8');
      const title = /^# (.+)$/m.exec(text)?.[1]?.trim() ?? file;
      return { name: file.slice(0, -'.md'.length), title, summary: summaryOf(text), text };
    });
}

/** The first paragraph after the title, joined into one line. */
function summaryOf(text: string): string {
  const afterTitle = text.replace(/^[\s\S]*?^# .*$/m, '');
  const paragraph = afterTitle.trim().split(/\n\s*\n/)[0] ?? '';
  return paragraph.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * Splits a page at its `##` to `####` headings (outside fenced code). The text before the first
 * such heading is a section headed by the page title.
 */
export function sectionsOf(page: DocPage): DocSection[] {
  const sections: DocSection[] = [];
  let heading = page.title;
  let lines: string[] = [];
  let inFence = false;
  const flush = () => {
    const text = lines.join('\n').trim();
    if (text !== '' || sections.length > 0) {
      sections.push({ id: `${page.name}#${sections.length}`, page: page.name, heading, text });
    }
    lines = [];
  };
  for (const line of page.text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const match = inFence ? null : /^#{2,4} (.+)$/.exec(line);
    if (match) {
      flush();
      heading = match[1]!.trim();
    } else if (!/^# /.test(line) || inFence) {
      lines.push(line);
    }
  }
  flush();
  return sections;
}

/** The page's `##` to `####` headings (outside fenced code), in order, each with its span. */
export function outlineOf(page: DocPage): DocHeading[] {
  const headings: DocHeading[] = [];
  const parents: DocHeading[] = [];
  let offset = 0;
  let inFence = false;
  for (const line of page.text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const match = inFence ? null : /^(#{2,4}) (.+)$/.exec(line);
    if (match) {
      const level = match[1]!.length;
      for (const open of headings) if (open.level >= level && open.end === -1) open.end = offset;
      while (parents.length > 0 && parents.at(-1)!.level >= level) parents.pop();
      const heading = match[2]!.trim();
      const path = [...parents.map((p) => p.heading), heading].join(' > ');
      const entry = { level, heading, path, start: offset, end: -1 };
      headings.push(entry);
      parents.push(entry);
    }
    offset += line.length + 1;
  }
  for (const open of headings) if (open.end === -1) open.end = page.text.length;
  return headings;
}
