import { merchantSettingsRequestSchema, missingScopeMessage } from '../shared/domain/merchants/index.js';
import { ApiError } from '../shared/errors.js';
import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { merchantAccount } from './commons/merchant-account.js';

export const handler = httpHandler(routeByName('update-merchant'), { body: merchantSettingsRequestSchema }, async ({ body, merchantId, scopes }) => {
  // The payouts' approval threshold guards money leaving: only a key that may pay out, which only an owner makes, changes it (docs/merchant-guide.md#key-scopes).
  if (body.payoutApprovalAboveUsd !== undefined && !scopes.includes('payouts')) throw new ApiError('forbidden', missingScopeMessage('payouts'));
  return { data: await merchantAccount.update(merchantId, body) };
});
