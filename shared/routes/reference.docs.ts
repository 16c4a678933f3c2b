/** The OpenAPI description of the reference's routes: the document itself and its readable page, with their examples (shared/routes/route-doc.ts). */
import type { RouteDocs } from './route-doc.js';
import type { REFERENCE_FUNCTIONS } from './reference.js';

export const openApiDocumentExample = { openapi: '3.0.3', info: { title: 'Payment Gateway Merchant API', version: '2' } };

export const docsPageExample = '<!doctype html>\n<html lang="en">…</html>';

export const REFERENCE_DOCS: RouteDocs<typeof REFERENCE_FUNCTIONS> = {
  'get-openapi': {
    summary: 'This document',
    description: 'The OpenAPI 3.0 description of the merchant API.',
    tag: 'Reference',
    produces: 'application/json',
    responseExample: openApiDocumentExample,
    success: 'The OpenAPI document',
    errors: {},
  },
  'get-docs': {
    summary: 'Readable API reference',
    description: 'A self-contained HTML rendering of this document.',
    tag: 'Reference',
    produces: 'text/html',
    responseExample: docsPageExample,
    success: 'The reference page',
    errors: {},
  },
};
