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
