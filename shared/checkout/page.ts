/**
 * What a checkout page shows and for whom it is rendered: the types that the page
 * (../checkout-page.ts) and the markup of its steps (./steps/) share.
 */
import type { CancelReason, DetailProblem, DirectOpenField } from '../domain/invoicing/index.js';
import type { PaymentChains } from '../domain/chains/index.js';
import type { PaymentInstructions } from '../domain/providers/index.js';
import type { Stage } from '../stage.js';
import type { LanguageChoice } from './language.js';

/** Why the UTR form was sent back: the API's format rule, or a UTR another payment used. */
export type UtrProblem = 'invalid' | 'used';

/** What a page shows below the invoice summary. */
export type CheckoutPage =
  /** `network`: the one the customer chose (`?network=`), as asked; one the invoice is not payable on chooses nothing. */
  | { kind: 'crypto'; network?: string }
  | { kind: 'details'; fields: readonly DirectOpenField[]; values: Record<string, string>; problems: DetailProblem[] }
  | { kind: 'completed' }
  | { kind: 'closed'; reason: CancelReason }
  /** INR: the customer picks the provider among those that can serve the invoice (docs/provider-protocol.md). */
  | { kind: 'providers'; providers: ReadonlyArray<{ id: string; name: string }> }
  /** P2P: the provider's instructions, then the transaction-information form. */
  | { kind: 'instructions'; instructions: PaymentInstructions; value: string; problem?: UtrProblem }
  /** The provider did not answer: nothing happened, and the customer may try again. */
  | { kind: 'unavailable' }
  /** The payment is with the provider; its decision is awaited. `continueUrl`: the provider's page, for a customer who came back unpaid. */
  | { kind: 'waiting'; continueUrl?: string }
  /**
   * On to the provider's page by a refresh rather than a redirect: a customer who got here from
   * the checkout's form would otherwise be held by the form's policy (form-action), which admits
   * no redirect to an origin it does not name.
   */
  | { kind: 'handoff'; url: string };

/** Where and for whom a page is rendered. */
export interface PageContext {
  publicBaseUrl: string;
  stage: Stage;
  /** Chain ids and token contracts of the networks, for the QR codes and wallet links. */
  chains: PaymentChains;
  language: LanguageChoice;
}
