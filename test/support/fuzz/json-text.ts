/**
 * JSON as a client may write it, not as JSON.stringify would: numbers kept as the exact text
 * sent (exponents, 30-digit decimals, -0), objects as lists of entries (so a key can appear twice,
 * `__proto__` included), and strings that need not be well-formed Unicode.
 */
export interface JsonNumberText {
  kind: 'number';
  text: string;
}

export interface JsonEntries {
  kind: 'object';
  entries: Array<[string, JsonTree]>;
}

export type JsonTree = string | boolean | null | JsonNumberText | JsonEntries | JsonTree[];

export const numberText = (text: string): JsonNumberText => ({ kind: 'number', text });
export const objectOf = (entries: Array<[string, JsonTree]>): JsonEntries => ({ kind: 'object', entries });

const isNumber = (tree: JsonTree): tree is JsonNumberText => typeof tree === 'object' && tree !== null && !Array.isArray(tree) && tree.kind === 'number';
export const isObject = (tree: JsonTree): tree is JsonEntries => typeof tree === 'object' && tree !== null && !Array.isArray(tree) && tree.kind === 'object';

/** The body text; iterative, so that a deeply nested tree does not exhaust the stack. */
export function jsonText(tree: JsonTree): string {
  const parts: string[] = [];
  const pending: Array<JsonTree | { close: string } | { raw: string }> = [tree];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (typeof next === 'object' && next !== null && 'close' in next) {
      parts.push(next.close);
    } else if (typeof next === 'object' && next !== null && 'raw' in next) {
      parts.push(next.raw);
    } else if (typeof next === 'string') {
      parts.push(JSON.stringify(next));
    } else if (next === null || typeof next === 'boolean') {
      parts.push(String(next));
    } else if (isNumber(next)) {
      parts.push(next.text);
    } else if (Array.isArray(next)) {
      parts.push('[');
      pending.push({ close: ']' });
      for (let i = next.length - 1; i >= 0; i--) {
        pending.push(next[i]!);
        if (i > 0) pending.push({ raw: ',' });
      }
    } else {
      parts.push('{');
      pending.push({ close: '}' });
      for (let i = next.entries.length - 1; i >= 0; i--) {
        const [key, value] = next.entries[i]!;
        pending.push(value);
        pending.push({ raw: `${JSON.stringify(key)}:` });
        if (i > 0) pending.push({ raw: ',' });
      }
    }
  }
  return parts.join('');
}

/** The same tree as `application/x-www-form-urlencoded`: top-level entries, values as text. */
export function formText(tree: JsonTree): string {
  const entries = isObject(tree) ? tree.entries : [['value', tree] as [string, JsonTree]];
  const valueText = (value: JsonTree): string => (typeof value === 'string' ? value : isNumber(value) ? value.text : jsonText(value));
  return entries.map(([key, value]) => `${encodeURIComponent(key.toWellFormed())}=${encodeURIComponent(valueText(value).toWellFormed())}`).join('&');
}
