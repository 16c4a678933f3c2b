/** Amounts as the API writes them: at the currency's precision, trailing zeros kept ("25.000000 USDT", "1250.00 INR"). */
import { Decimal, decimalsOf, formatAmount } from '../domain/kernel/index.js';

export const amountAsWritten = (amount: Decimal | string, currency: string): string => `${formatAmount(new Decimal(amount), decimalsOf(currency))} ${currency}`;
