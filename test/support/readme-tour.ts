/**
 * The README's tour as data: its shell blocks in order, each with the JSON answer the README shows
 * after it, and a matcher that holds an answer to what the README claims of it.
 */

export interface TourStep {
  /** The shell text, as the README writes it. */
  shell: string;
  /** The JSON the README shows right after the block, if any: what the answer must contain. */
  expected?: unknown;
  /** A block the README says to run in a second terminal: it runs in the background until the end. */
  background: boolean;
}

const FENCE = /^```(\w*)\n([\s\S]*?)^```\n/gm;

/** The blocks of the section whose heading is `heading` (up to the next `## ` heading). */
export function tourSteps(readme: string, heading: string): TourStep[] {
  const start = readme.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const rest = readme.slice(start + heading.length + 2);
  const end = rest.search(/^## /m);
  const section = end < 0 ? rest : rest.slice(0, end);

  const steps: TourStep[] = [];
  let previousEnd = -1;
  for (const match of section.matchAll(FENCE)) {
    const [whole, language, body] = match;
    const index = match.index!;
    if (language === 'sh') {
      steps.push({ shell: body!, background: /^#.*second terminal/i.test(body!.trimStart()) });
    } else if (language === 'json') {
      // A JSON block belongs to the shell block it directly follows.
      const last = steps.at(-1);
      if (!last || section.slice(previousEnd, index).trim() !== '' || last.expected !== undefined) {
        throw new Error(`A JSON block of the tour follows no shell block:\n${body}`);
      }
      last.expected = JSON.parse(body!);
    }
    previousEnd = index + whole!.length;
  }
  return steps;
}

/**
 * Where `actual` breaks what `expected` claims, or undefined when it keeps it: objects must have
 * every property shown (more are allowed: the README abridges), arrays at least the items shown,
 * in order, and a string with `…` stands for any text in its place.
 */
export function mismatch(expected: unknown, actual: unknown, path = '$'): string | undefined {
  if (typeof expected === 'string' && expected.includes('…')) {
    if (typeof actual !== 'string') return `${path}: expected a string like ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
    const parts = expected.split('…');
    const pattern = new RegExp(`^${parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*')}$`);
    return pattern.test(actual) ? undefined : `${path}: ${JSON.stringify(actual)} is not like ${JSON.stringify(expected)}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length < expected.length) return `${path}: expected at least ${expected.length} items, got ${JSON.stringify(actual)}`;
    for (const [i, item] of expected.entries()) {
      const problem = mismatch(item, actual[i], `${path}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return `${path}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      if (!Object.hasOwn(actual, key)) return `${path}.${key}: missing`;
      const problem = mismatch(value, (actual as Record<string, unknown>)[key], `${path}.${key}`);
      if (problem) return problem;
    }
    return undefined;
  }
  return Object.is(expected, actual) ? undefined : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}
