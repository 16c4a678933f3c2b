/**
 * The report files of the local runtime, served where their links point (as S3 serves a
 * presigned link in AWS): a link that holds streams the file; any other is a 403 with S3's
 * plain answer, the gateway's envelope being for the API.
 */
import { pipeline } from 'node:stream/promises';
import { LOCAL_REPORT_PATH, openLinkedReport, REPORT_CONTENT_TYPE, REPORT_LINK_KEY_PURPOSE } from '../../shared/store/report-files.js';
import { KeyFileDataKeySource } from '../../shared/vault/key-sources.js';
import type { FileServer } from './api-gateway.js';

export function reportFileServer(paths: { keyFile: string; reportsDirectory: string }): FileServer {
  const keys = new KeyFileDataKeySource(paths.keyFile);
  return {
    serves: (method, target) => (method === 'GET' || method === 'HEAD') && target.startsWith(LOCAL_REPORT_PATH),
    async answer(target, response) {
      const file = await openLinkedReport(paths.reportsDirectory, await keys.derivedKey(REPORT_LINK_KEY_PURPOSE), target, new Date());
      if (!file) {
        response.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end('Access denied: the link is not valid, or has expired\n');
        return 403;
      }
      response.writeHead(200, {
        'content-type': REPORT_CONTENT_TYPE,
        'content-length': String(file.bytes),
        'content-disposition': `attachment; filename="${file.name}"`,
        'cache-control': 'private, no-store',
      });
      if (response.req.method === 'HEAD') {
        file.stream.destroy();
        response.end();
      } else {
        await pipeline(file.stream, response);
      }
      return 200;
    },
  };
}
