/**
 * The detail view's error history: one item per failed attempt, its time and message, and the
 * stack trace of the handler's error, when one was kept, folded in a <details> element.
 */
import type { ErrorHistoryEntry } from '../../types.js';
import { el, fmtDate, NONE, type Json } from './dom.js';

/** One entry of `errorHistory` as a list item; every value is written as text. */
export function errorItem(entry: Json<ErrorHistoryEntry>): HTMLLIElement {
  const item = el('li');
  item.append(el('span', fmtDate(entry.timestamp) ?? NONE, 'when'), el('div', entry.message));
  if (typeof entry.stack === 'string' && entry.stack !== '') {
    const details = el('details', null, 'stack');
    details.append(el('summary', 'Stack trace'), el('pre', entry.stack));
    item.append(details);
  }
  return item;
}
