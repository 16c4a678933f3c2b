/**
 * Credentials that clients put in a URL's query string (`?x-api-key=gw_…`, `?token=…`) never reach
 * a log: every log line the gateway writes, locally and in AWS, passes its text through here.
 */

/** A parameter name that looks like a credential, alone or as the last part of a longer name (`x-api-key`, `access_token`). */
const CREDENTIAL_NAME = /(^|[-_.])(api[-_]?key|key|token|secret|password|passwd|pwd|pass|auth|authorization|signature|sig|session|session[-_]?id|credentials?|otp)$/i;

/** `?name=value` and `&name=value` pairs of a query string, anywhere in a text. */
const QUERY_PAIR = /([?&])([^=&#\s]+)=([^&#\s]*)/g;

export const REDACTED = '[redacted]';

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

export const isCredentialName = (name: string): boolean => CREDENTIAL_NAME.test(decodedName(name));

/** The text with the value of every credential-like query parameter replaced by `[redacted]`. */
export function redactQueryCredentials(text: string): string {
  if (!text.includes('?')) return text;
  return text.replace(QUERY_PAIR, (pair, separator: string, name: string) => (isCredentialName(name) ? `${separator}${name}=${REDACTED}` : pair));
}

/** For `JSON.stringify` (the functions' logger): every string value redacted as above. */
export const redactingJsonReplacer = (_key: string, value: unknown): unknown => (typeof value === 'string' ? redactQueryCredentials(value) : value);
