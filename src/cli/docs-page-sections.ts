/**
 * What `get-doc-page` answers: a page whole when it is short, otherwise its table of contents,
 * and then one section by name, so no answer runs past PAGE_CHARACTER_LIMIT (docs/cli.md, "The
 * documentation server").
 */
import { outlineOf, type DocHeading, type DocPage } from './docs-pages.js';

/** The most characters one `get-doc-page` answer holds (about 7,500 tokens). */
export const PAGE_CHARACTER_LIMIT = 30_000;

export interface PageAnswer {
  text: string;
  isError?: true;
}

/** `page` whole, its contents, or its section named `section` (a heading or a `A > B` path). */
export function pageAnswer(page: DocPage, section?: string): PageAnswer {
  const outline = outlineOf(page);
  if (section === undefined) {
    if (page.text.length <= PAGE_CHARACTER_LIMIT || outline.length === 0) return { text: cut(page.text, page) };
    const lead = page.text.slice(0, outline[0]!.start).trim();
    return {
      text: `${lead.length <= PAGE_CHARACTER_LIMIT / 4 ? lead : `# ${page.title}\n\n${page.summary}`}\n\n${contents(page, outline)}`,
    };
  }
  const wanted = normalized(section);
  const found =
    outline.find((h) => normalized(h.path) === wanted) ?? outline.find((h) => normalized(h.heading) === wanted);
  if (!found) {
    return {
      isError: true,
      text: `No section "${section}" in the page "${page.name}". Its sections: ${outline.map((h) => h.path).join('; ')}`,
    };
  }
  const text = page.text.slice(found.start, found.end).trimEnd();
  if (text.length <= PAGE_CHARACTER_LIMIT) return { text };
  const inner = outline.filter((h) => h.start > found.start && h.end <= found.end);
  if (inner.length === 0) return { text: cut(text, page) };
  const intro = page.text.slice(found.start, inner[0]!.start).trimEnd();
  return { text: `${cut(intro, page)}\n\n${contents(page, inner)}` };
}

/** The headings of `outline` as an indented list with their sizes, and how to ask for one. */
function contents(page: DocPage, outline: DocHeading[]): string {
  const top = Math.min(...outline.map((h) => h.level));
  const counts = new Map<string, number>();
  for (const h of outline) counts.set(h.heading, (counts.get(h.heading) ?? 0) + 1);
  const lines = outline.map((h) => {
    const name = counts.get(h.heading) === 1 ? h.heading : h.path;
    return `${'  '.repeat(h.level - top)}- ${name} (${(h.end - h.start).toLocaleString('en-US')} characters)`;
  });
  return [
    `This part of the page "${page.name}" is longer than the ${PAGE_CHARACTER_LIMIT.toLocaleString('en-US')} characters get-doc-page returns at once.`,
    `Ask for one section by its heading: get-doc-page { "name": "${page.name}", "section": "<heading>" }.`,
    '',
    'Sections:',
    ...lines,
  ].join('\n');
}

/** `text` cut at the limit on a line boundary, saying so; unchanged when it fits. */
function cut(text: string, page: DocPage): string {
  if (text.length <= PAGE_CHARACTER_LIMIT) return text;
  const end = text.lastIndexOf('\n', PAGE_CHARACTER_LIMIT - 200);
  const kept = text.slice(0, end > 0 ? end : PAGE_CHARACTER_LIMIT - 200);
  return `${kept}\n\n[cut: ${kept.length.toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} characters; the whole text is in docs/${page.name}.md of the installed package]`;
}

function normalized(heading: string): string {
  return heading
    .replace(/^#+\s*/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}
