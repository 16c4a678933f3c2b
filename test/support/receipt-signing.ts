/**
 * Transaction receipts as the gateway signs them (compact JWS, ES256, `kid` the key's RFC 7638
 * thumbprint), with P-256 keys made here, and the JWKS that publishes them: what the verifier's
 * tests check, made without the gateway.
 */
import { type CryptoKey, calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

export interface ReceiptKey {
  kid: string;
  privateKey: CryptoKey;
  /** The public key as the JWKS lists it. */
  jwk: JWK;
}

export async function receiptKey(): Promise<ReceiptKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const exported = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(exported);
  return { kid, privateKey, jwk: { ...exported, kid, alg: 'ES256', use: 'sig' } };
}

export const jwksOf = (...keys: ReceiptKey[]): { keys: JWK[] } => ({ keys: keys.map((key) => key.jwk) });

export const signReceipt = (payload: Record<string, unknown>, key: ReceiptKey): Promise<string> => new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' }).sign(key.privateKey);

/** The JWS with its payload replaced by `payload` and its signature kept: a tampered receipt. */
export function withPayload(jws: string, payload: Record<string, unknown>): string {
  const [header, , signature] = jws.split('.');
  return `${header}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`;
}

interface ReceiptParts {
  iss?: string;
  transaction: Record<string, unknown>;
  evidence: Record<string, unknown>;
  missing?: string[];
}

/** A receipt's payload around a transaction and its evidence, as the gateway writes one. */
export function receiptPayload({ iss = 'http://gateway.test', transaction, evidence, missing = [] }: ReceiptParts): Record<string, unknown> {
  const id = String(transaction.id ?? '0b6d4a5e-3c1f-4a53-9a4e-6d8f2f0c1a11');
  return {
    iss,
    sub: id,
    iat: Math.floor(Date.now() / 1000),
    transaction: {
      id,
      invoiceId: '5f0e2c9a-7b8d-4e1f-a2c3-d4e5f6a7b8c9',
      type: 'deposit',
      status: 'confirmed',
      customerId: 'cust-42',
      orderId: 'order-1',
      ...transaction,
    },
    evidence,
    missing,
    entries: [{ id: 'e1', type: 'deposit', amount: String(transaction.amount) }],
    callbacks: [{ webhookId: `${id}:confirmed`, status: 'delivered' }],
  };
}
