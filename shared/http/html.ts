/** HTML output helpers: every interpolated value goes through `escapeHtml`. */
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (value: unknown): string => String(value ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]!);

/** A tagged template that escapes its values; nest trusted fragments with `raw`. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export const raw = (text: string): Html => new Html(text);

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  const render = (value: unknown): string => (value instanceof Html ? value.text : Array.isArray(value) ? value.map(render).join('') : escapeHtml(value));
  return new Html(strings.reduce((out, part, i) => out + part + (i < values.length ? render(values[i]) : ''), ''));
}
