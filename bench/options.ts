/** Command-line options of the benchmarks. */

/** `--name`'s value as a number above 0 (a whole one when `integer`), or an error naming the option. */
export function positiveOption(name: string, text: string, integer = false): number {
  const value = Number(text);
  if (!(value > 0) || (integer && !Number.isInteger(value))) throw new Error(`--${name} must be a positive ${integer ? 'integer' : 'number'}`);
  return value;
}
