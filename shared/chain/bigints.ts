/** The largest of some bigints: `Math.max` takes numbers only. */
export function largest(first: bigint, ...others: bigint[]): bigint {
  let found = first;
  for (const value of others) if (value > found) found = value;
  return found;
}
