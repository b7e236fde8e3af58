/**
 * Quick start: a template from a PDF, an envelope from it for the template's two roles, every
 * signature made by the test helper (test keys only), and the signed PDF downloaded.
 *
 *   npm ci && npm run build && npm run build:test
 *   ENVELOPE_URL=http://127.0.0.1:8080 ENVELOPE_API_KEY=sk_test_... \
 *     node build-test/examples/quickstart.js ../../examples/contract.pdf signed.pdf
 *
 * `examples/contract.pdf` (at the top of the repository) has text tags for a `Client` and a
 * `Provider` and a sender data field `start_date`.
 */

import { readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

import {
  type Client,
  type Envelope,
  completeTestEnvelope,
  createEnvelope,
  createEnvelopeClient,
  createTemplate,
  downloadFile,
  getEnvelopeFile,
} from 'envelope-client';

/** What {@link quickstart} made. */
export interface QuickstartResult {
  envelope: Envelope;
  signed: Uint8Array;
}

/** The whole walk, from the PDF's bytes to the signed copy's. */
export async function quickstart(client: Client, pdf: Uint8Array): Promise<QuickstartResult> {
  const { data: template } = await createTemplate({
    client,
    body: {
      name: 'Services agreement',
      file_name: 'contract.pdf',
      file_base64: Buffer.from(pdf).toString('base64'),
    },
  });
  console.log(`template ${template.id}: roles ${template.roles.join(', ')}`);

  const { data: sent } = await createEnvelope({
    client,
    body: {
      template: template.id,
      signers: {
        Client: { name: 'Zoë Client', email: 'zoe@example.com' },
        Provider: { name: 'Paul Provider', email: 'paul@example.com' },
      },
      data: { start_date: '2027-01-01' },
    },
  });
  console.log(`envelope ${sent.id}: ${sent.status}`);

  const { data: envelope } = await completeTestEnvelope({ client, path: { id: sent.id } });
  console.log(`envelope ${envelope.id}: ${envelope.status}`);

  // A file link is valid for 5 minutes; its token is the secret (no API key needed).
  const { data: link } = await getEnvelopeFile({
    client,
    path: { id: envelope.id, kind: 'signed' },
  });
  const token = new URL(link.url).pathname.split('/').pop()!;
  const { data: file } = await downloadFile({ client, path: { token } });
  const signed = new Uint8Array(await file.arrayBuffer());
  console.log(`signed PDF: ${signed.length} bytes`);
  return { envelope, signed };
}

async function main(): Promise<void> {
  const [pdfPath = '../../examples/contract.pdf', outPath = 'signed.pdf'] = process.argv.slice(2);
  const client = createEnvelopeClient({
    baseUrl: process.env.ENVELOPE_URL ?? 'http://127.0.0.1:8080',
    apiKey: process.env.ENVELOPE_API_KEY ?? '',
  });
  const { signed } = await quickstart(client, await readFile(pdfPath));
  await writeFile(outPath, signed);
  console.log(`written to ${outPath}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
