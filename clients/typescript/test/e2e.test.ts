/**
 * The client against a running server (envelope-server/tests/openapi/clients starts one and sets
 * ENVELOPE_URL, ENVELOPE_API_KEY and ENVELOPE_TEST_PDF; without them this test is skipped): the
 * quick start (template, envelope, completion, download), then the `envelope.completed`
 * delivery, verified by the example receiver with the endpoint's secret, and a tampered copy of
 * it refused.
 */

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';

import {
  type Event,
  SIGNATURE_HEADER,
  createEnvelopeClient,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getEnvelope,
  signWebhookPayload,
} from 'envelope-client';

import { quickstart } from '../examples/quickstart.js';
import { webhookReceiver } from '../examples/webhook-receiver.js';

const { ENVELOPE_URL: baseUrl, ENVELOPE_API_KEY: apiKey, ENVELOPE_TEST_PDF: pdfPath } = process.env;

test('template, envelope, completion, download and a verified webhook', {
  skip: !(baseUrl && apiKey && pdfPath) && 'ENVELOPE_URL, ENVELOPE_API_KEY and ENVELOPE_TEST_PDF are not set',
}, async () => {
  const client = createEnvelopeClient({ baseUrl: baseUrl!, apiKey: apiKey! });
  const pdf = await readFile(pdfPath!);

  let secret = '';
  const events: Event[] = [];
  const receiver = webhookReceiver({ secret: () => secret, onEvent: (e) => events.push(e) });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const { data: endpoint } = await createWebhookEndpoint({
    client,
    body: { url: hookUrl, events: ['envelope.completed'] },
  });
  secret = endpoint.secret;
  try {
    const { envelope, signed } = await quickstart(client, pdf);
    assert.equal(envelope.status, 'completed');
    assert.ok(Buffer.from(signed.subarray(0, 5)).toString() === '%PDF-', 'a PDF');
    assert.ok(
      Buffer.from(signed.subarray(0, pdf.length)).equals(pdf),
      'the signed copy keeps the original bytes as its prefix',
    );
    assert.ok(signed.length > pdf.length);
    const { data: again } = await getEnvelope({ client, path: { id: envelope.id } });
    assert.equal(again.status, 'completed');

    // Other clients' envelopes may complete on the same account meanwhile: wait for ours.
    const ours = (e: Event) =>
      e.type === 'envelope.completed' && (e.data.object as { id?: string }).id === envelope.id;
    const deadline = Date.now() + 60_000;
    while (!events.some(ours)) {
      assert.ok(Date.now() < deadline, `no verified envelope.completed for ${envelope.id}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const event = events.find(ours)!;
    console.log(`verified webhook: ${event.type} ${event.id}`);

    // The same delivery, signed, with one byte of its body changed: refused, not handed on.
    const body = JSON.stringify(event);
    const now = Math.floor(Date.now() / 1000);
    const header = `t=${now},v1=${signWebhookPayload(secret, now, body)}`;
    const send = (b: string, h: string) =>
      fetch(hookUrl, { method: 'POST', body: b, headers: { [SIGNATURE_HEADER]: h } });
    const count = events.length;
    const genuine = await send(body, header);
    assert.equal(genuine.status, 200, 'the receiver takes a correctly signed body');
    const tampered = await send(body.replace(envelope.id, `${envelope.id}x`), header);
    assert.equal(tampered.status, 400);
    assert.equal(await tampered.text(), 'no_match');
    const replayed = await send(body, `t=${now - 3600},v1=${signWebhookPayload(secret, now - 3600, body)}`);
    assert.equal(await replayed.text(), 'timestamp_out_of_tolerance');
    const unsigned = await send(body, '');
    assert.equal(await unsigned.text(), 'malformed');
    assert.equal(events.length, count + 1, 'only the genuine one was handed on');
  } finally {
    await deleteWebhookEndpoint({ client, path: { id: endpoint.id } });
    receiver.close();
  }
});
