import { describe, expect, it } from 'vitest';
import { Invalid } from '../../shared/domain/kernel/errors.js';
import { ApiError } from '../../shared/errors.js';
import { parseJsonBody } from '../../shared/http/json-body.js';
import { JsonNumber } from '../../shared/domain/kernel/money.js';

const refusal = (text: string) => {
  try {
    parseJsonBody(text);
  } catch (error) {
    return error;
  }
  throw new Error(`${text.slice(0, 40)} was accepted`);
};

describe('JSON request bodies', () => {
  it('keep numbers as their exact text', () => {
    expect(parseJsonBody('{"amount":4.99999999999999999999}')).toEqual({ amount: new JsonNumber('4.99999999999999999999') });
  });

  it('refuse a repeated key with a 400', () => {
    expect(refusal('{"a":1,"a":2}')).toMatchObject({ status: 400, message: 'Request body is not valid JSON: a property appears twice' });
  });

  it('refuse nesting past 64 levels with a 400, arrays and objects alike, and take 64', () => {
    const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(() => parseJsonBody(objects(64))).not.toThrow();
    for (const text of [objects(65), arrays(66), objects(5_000), arrays(100_000)]) {
      const error = refusal(text);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 400, message: 'Request body is nested too deeply' });
    }
  });

  it('refuse a lone surrogate with a 422 on its field', () => {
    expect(refusal('{"name":"\\ud800"}')).toBeInstanceOf(Invalid);
  });
});
