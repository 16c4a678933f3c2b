/** The merchant's own account of this container: its settings and callback secret. */
import { config } from '../../shared/config.js';
import { MerchantAccount } from '../../shared/domain/merchants/index.js';
import { nonPublicUrlProblem } from '../../shared/outbound/address-guard.js';
import { merchantStore } from './merchants.js';

const { stage, callbackGuard } = config();

export const merchantAccount = new MerchantAccount({
  merchants: merchantStore,
  stage,
  // The delivery checks every connection too; refusing the URL here tells the merchant at once.
  callbackUrlGuard: callbackGuard.targets === 'public' ? (url) => nonPublicUrlProblem(url) : undefined,
  clock: () => new Date(),
});
