import { readFile } from 'node:fs/promises';
import type { z } from 'zod';

/** A JSON file the runtime wrote, checked against its schema; undefined when it does not exist. */
export async function readJsonFile<S extends z.ZodType>(file: string, schema: S, whenInvalid: string): Promise<z.output<S> | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new Error(`${file} ${whenInvalid}`);
  return parsed.data;
}
