/** Pieces every dashboard page is made of: the page answer, tables and listings, badges, facts, notices and page links. */
import { html, raw, type Html } from '../http/html.js';
import { dashboardDocument, dashboardUrl, type DashboardContext } from './document.js';
import type { DashboardAnswer } from './page.js';

export const page = (context: DashboardContext, title: string, main: Html, options: { status?: number; query?: Record<string, string> } = {}): DashboardAnswer => ({
  kind: 'page',
  page: dashboardDocument(context, { title, main, ...options }),
});

/**
 * A table's rows under its headings, or `empty` said in words when there are none; on a narrow
 * screen it scrolls sideways, and is focusable so that a keyboard scrolls it too.
 */
export const table = (headings: Html[], rows: Html[], empty: string): Html =>
  rows.length === 0 ? html`<p>${empty}</p>` : html`<div class="table-wrap" tabindex="0"><table><thead><tr>${headings}</tr></thead><tbody>${rows}</tbody></table></div>`;

export const th = (text: string, numeric = false): Html => html`<th scope="col"${numeric ? raw(' class="num"') : ''}>${text}</th>`;

/** A column of a listing: its heading, and whether its values are amounts or counts, aligned to the end. */
export interface Column {
  heading: string;
  numeric?: boolean;
  /** Its values speak for themselves (an id, a state, a date): a phone's card shows them without the heading, side by side. */
  brief?: boolean;
}

const cellClass = (column: Column | undefined): Html => {
  const names = [column?.numeric ? 'num' : '', column?.brief ? 'brief' : ''].filter(Boolean).join(' ');
  return raw(names ? ` class="${names}"` : '');
};

/**
 * A listing: a table on a wide screen; on a phone each row a card of its values, each under its
 * column's heading (the stylesheet shows a cell's `data-label`) but the brief ones, an empty
 * value left out.
 */
export function listing(columns: readonly Column[], rows: ReadonlyArray<ReadonlyArray<Html | string>>, empty: string): Html {
  if (rows.length === 0) return html`<p>${empty}</p>`;
  const headings = columns.map(({ heading, numeric }) => th(heading, numeric));
  const body = rows.map((cells) => html`<tr>${cells.map((cell, index) => html`<td data-label="${columns[index]?.heading ?? ''}"${cellClass(columns[index])}>${cell}</td>`)}</tr>`);
  return html`<div class="table-wrap cards" tabindex="0"><table><thead><tr>${headings}</tr></thead><tbody>${body}</tbody></table></div>`;
}

/**
 * How a badge looks, each with a shape of its own besides its colour: done (✓), under way (◷),
 * needs a look (!), ended without money (✕), nothing yet (○).
 */
export type Tone = 'done' | 'waiting' | 'attention' | 'ended' | 'none';

/** A state in words, coloured and shaped by its tone; it never breaks inside a word. */
export const badge = (text: string, tone: Tone): Html => html`<span class="badge ${tone}">${text}</span>`;

/** A link to a record, its id shortened to its first characters: whole in its name, for those who hear it, and in its tooltip. */
export const idLink = (context: DashboardContext, path: string, id: string): Html =>
  html`<a class="id" href="${dashboardUrl(context, path)}" aria-label="${context.t.text('list.open', { id })}" title="${id}">${id.slice(0, 8)}</a>`;

export const facts = (pairs: Array<[string, Html | string]>): Html => html`<dl class="facts">${pairs.map(([term, value]) => html`<dt>${term}</dt><dd>${value}</dd>`)}</dl>`;

export const notice = (text: Html | string): Html => html`<p class="notice" role="status">${text}</p>`;

/** Cursors in `before`: base64url text, which never holds a dot. */
const CURSOR_SEPARATOR = '.';

/** Where a listing is among its pages: the cursor of the page shown, and the cursors of the pages before it, oldest first (the first page has none). */
export interface PagePosition {
  cursor?: string;
  before: string[];
}

/** A listing's query as the API takes it (`cursor` included) and where the page is among its pages, from the page's query. */
export function pagePosition(query: Record<string, string>): { query: Record<string, string>; position: PagePosition } {
  const { before = '', ...rest } = query;
  return { query: rest, position: { cursor: rest.cursor, before: before.split(CURSOR_SEPARATOR).filter(Boolean) } };
}

/**
 * "Newer" and "Older" under a listing. The API's cursors only go to older pages, so each link
 * keeps the cursors of the pages before the one it opens: "Newer" opens the last of them.
 */
export function pageLinks(context: DashboardContext, pagePath: string, filters: Record<string, string>, position: PagePosition, nextCursor: string | null): Html {
  const { t } = context;
  const { cursor: _shown, ...kept } = filters;
  const linkTo = (cursor: string | undefined, before: string[], rel: 'prev' | 'next', key: 'list.newer' | 'list.next') =>
    html`<li><a href="${dashboardUrl(context, pagePath, { ...kept, cursor, before: before.join(CURSOR_SEPARATOR) })}" rel="${rel}">${t.text(key)}</a></li>`;
  const newer = position.cursor ? linkTo(position.before.at(-1), position.before.slice(0, -1), 'prev', 'list.newer') : '';
  const older = nextCursor ? linkTo(nextCursor, position.cursor ? [...position.before, position.cursor] : [], 'next', 'list.next') : '';
  if (!newer && !older) return html``;
  return html`<nav class="pager" aria-label="${t.text('list.pages')}"><ul>${newer}${older}</ul></nav>`;
}
