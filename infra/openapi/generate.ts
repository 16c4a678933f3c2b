/** `npm run openapi`: writes the files made from the OpenAPI documents (infra/openapi/generated-files.ts). */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { generatedFiles } from './generated-files.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

for (const [path, contents] of Object.entries(await generatedFiles())) {
  await writeFile(`${ROOT}${path}`, contents);
  console.log(`wrote ${path}`);
}
