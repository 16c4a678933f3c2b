/** Each refusal of the domain, as the merchant contract answers it (shared/http/errors.ts). */
import { describe, expect, it } from 'vitest';
import { AlreadyUsed, Conflict, Gone, Held, Invalid, NotAuthentic, NotFound, TooLarge, Unavailable } from '../../shared/domain/kernel/errors.js';
import { ApiError } from '../../shared/errors.js';
import { apiErrorOf } from '../../shared/http/errors.js';

describe('a domain refusal as an answer', () => {
  it.each([
    [new NotFound('Invoice'), 404, 'not_found', 'Invoice not found'],
    [new Conflict('Invoice is already paid'), 409, 'conflict', 'Invoice is already paid'],
    [new AlreadyUsed('This UTR was already used for another payment'), 409, 'db_unique_violation', 'This UTR was already used for another payment'],
    [new Gone('Invoice is canceled'), 410, 'gone', 'Invoice is canceled'],
    [new Held('Payouts are held'), 423, 'locked', 'Payouts are held'],
    [new Unavailable('No current exchange rate'), 503, 'service_unavailable', 'No current exchange rate'],
    [new TooLarge('The receipt exceeds 2097152 bytes'), 413, 'payload_too_large', 'The receipt exceeds 2097152 bytes'],
    [new NotAuthentic('The event is not signed by this provider'), 401, 'unauthorized', 'The event is not signed by this provider'],
  ])('%s is %i %s', (error, status, code, message) => {
    expect(apiErrorOf(error)).toMatchObject({ status, code, items: [{ code, message }] });
  });

  it('gives an invalid request a 422 item per problem, each naming its field, in order', () => {
    const answer = apiErrorOf(
      new Invalid([
        { field: 'amount', message: 'amount is too small' },
        { field: 'customerEmail', message: 'customerEmail is not an email' },
      ]),
    );
    expect(answer).toMatchObject({
      status: 422,
      items: [
        { code: 'unprocessable_content', field: 'amount', message: 'amount is too small' },
        { code: 'unprocessable_content', field: 'customerEmail', message: 'customerEmail is not an email' },
      ],
    });
  });

  it('passes an answer the HTTP layer made itself through, and gives a fault none (it is a 500)', () => {
    const own = new ApiError('bad_request', 'Request body must be a JSON object');
    expect(apiErrorOf(own)).toBe(own);
    expect(apiErrorOf(new Error('boom'))).toBeUndefined();
    expect(apiErrorOf('a string')).toBeUndefined();
  });
});
