import { describe, expect, it, vi } from 'vitest';
import { logger } from '../../shared/observability/logger.js';
import { redactingJsonReplacer, redactQueryCredentials } from '../../shared/observability/redaction.js';

describe('credentials in query strings, in every log line', () => {
  it.each([
    ['/api/v2/merchant?x-api-key=gw_demo_abc', '/api/v2/merchant?x-api-key=[redacted]'],
    ['/x?limit=5&apiKey=k&cursor=c', '/x?limit=5&apiKey=[redacted]&cursor=c'],
    ['GET https://pay.example/cb?token=t&sig=s#frag 401', 'GET https://pay.example/cb?token=[redacted]&sig=[redacted]#frag 401'],
    ['/x?access_token=a&client_secret=b&password=c&session_id=d', '/x?access_token=[redacted]&client_secret=[redacted]&password=[redacted]&session_id=[redacted]'],
    ['/x?x%2Dapi%2Dkey=k', '/x?x%2Dapi%2Dkey=[redacted]'],
    ['/x?monkey=1&keyId=2&tokens=3', '/x?monkey=1&keyId=2&tokens=3'],
    ['no query here: key=value', 'no query here: key=value'],
  ])('%s', (text, expected) => {
    expect(redactQueryCredentials(text)).toBe(expected);
  });

  it("redacts every string of a structured line, as the functions' logger writes it", () => {
    const line = JSON.stringify({ message: 'Request failed', url: '/a?api_key=k', nested: { path: '/b?token=t' }, count: 3 }, redactingJsonReplacer);
    expect(JSON.parse(line)).toEqual({ message: 'Request failed', url: '/a?api_key=[redacted]', nested: { path: '/b?token=[redacted]' }, count: 3 });
  });

  it("is applied by the functions' logger", () => {
    const written: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => written.push(String(chunk)) > 0);
    try {
      logger.info('Request refused', { url: '/api/v2/merchant?x-api-key=gw_demo_secret' });
    } finally {
      write.mockRestore();
    }
    expect(written.join('')).toContain('"url":"/api/v2/merchant?x-api-key=[redacted]"');
    expect(written.join('')).not.toContain('gw_demo_secret');
  });
});
