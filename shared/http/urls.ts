/** A URL with `query` added to (or replacing in) its query string. */
export function withQuery(url: string, query: Record<string, string>): string {
  const target = new URL(url);
  for (const [name, value] of Object.entries(query)) target.searchParams.set(name, value);
  return target.href;
}
