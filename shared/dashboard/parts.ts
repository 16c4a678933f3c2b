/** Pieces every dashboard page is made of: the page answer, tables, facts and notices. */
import { html, raw, type Html } from '../http/html.js';
import { dashboardDocument, type DashboardContext } from './document.js';
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

export const facts = (pairs: Array<[string, Html | string]>): Html => html`<dl class="facts">${pairs.map(([term, value]) => html`<dt>${term}</dt><dd>${value}</dd>`)}</dl>`;

export const notice = (text: Html | string): Html => html`<p class="notice" role="status">${text}</p>`;
