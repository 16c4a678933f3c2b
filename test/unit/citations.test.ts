/**
 * The code cites only its own repository: every `docs/….md#anchor` a source file names is a
 * document of the repository with that heading (as GitHub makes anchors of headings) or explicit
 * anchor, and nothing cites documents a clone does not have.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SOURCE_FOLDERS = ['shared', 'functions', 'infra', 'demo-provider', 'bench', 'test'];

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs|js)$/.test(entry.name) ? [path] : [];
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped but hyphens, spaces to hyphens. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

const anchorsOf = (document: string): Set<string> => {
  const text = readFileSync(join(ROOT, document), 'utf8');
  const headings = [...text.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => slug(heading!));
  const explicit = [...text.matchAll(/<a id="([^"]+)"/g)].map(([, id]) => id!);
  return new Set([...headings, ...explicit]);
};

const files = SOURCE_FOLDERS.flatMap(sourceFiles).filter((file) => file !== relative(ROOT, fileURLToPath(import.meta.url)));
const citations = files.flatMap((file) =>
  [...readFileSync(join(ROOT, file), 'utf8').matchAll(/\bdocs\/([\w-]+\.md)(?:#([\w-]+))?/g)].map(([, document, anchor]) => ({ file, document: `docs/${document}`, anchor })),
);

describe("the code's citations", () => {
  it('cite documents of the repository, at anchors they have', () => {
    const anchors = new Map<string, Set<string>>();
    const broken = citations.filter(({ document, anchor }) => {
      try {
        if (!anchors.has(document)) anchors.set(document, anchorsOf(document));
      } catch {
        return true;
      }
      return anchor !== undefined && !anchors.get(document)!.has(anchor);
    });
    expect(citations.length).toBeGreaterThan(100);
    expect(broken.map(({ file, document, anchor }) => `${file}: ${document}${anchor ? `#${anchor}` : ''}`)).toEqual([]);
  });

  it('name no document outside the repository', () => {
    const outside = files.filter((file) => /\bdecisions(\.md| \d+\b)|DESIGN\.md|merchant-api\.md/.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(outside).toEqual([]);
  });
});
