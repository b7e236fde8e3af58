/**
 * The verifier against the cases of ../../webhook-vectors.json, which envelope-core's own
 * implementation is checked on too (envelope-server/tests/openapi/clients/vectors.rs).
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import {
  WebhookSignatureError,
  constructWebhookEvent,
  signWebhookPayload,
  verifyWebhookSignature,
  webhookSignatureHeader,
} from 'envelope-client';

interface Vectors {
  signatures: { name: string; secret: string; timestamp: number; body: string; signature: string }[];
  verifications: {
    name: string;
    secret: string;
    body: string;
    header: string;
    tolerance: number;
    now: number;
    result: 'ok' | 'malformed' | 'timestamp_out_of_tolerance' | 'no_match';
  }[];
}

const vectors: Vectors = JSON.parse(
  readFileSync(new URL('../../../webhook-vectors.json', import.meta.url), 'utf8'),
);

function outcome(run: () => void): string {
  try {
    run();
    return 'ok';
  } catch (e) {
    assert.ok(e instanceof WebhookSignatureError, `not a WebhookSignatureError: ${e}`);
    return e.reason;
  }
}

test('signatures are the known answers', () => {
  assert.ok(vectors.signatures.length > 0);
  for (const v of vectors.signatures) {
    assert.equal(signWebhookPayload(v.secret, v.timestamp, v.body), v.signature, v.name);
    assert.equal(
      signWebhookPayload(v.secret, v.timestamp, new TextEncoder().encode(v.body)),
      v.signature,
      `${v.name} (bytes)`,
    );
  }
});

test('every verification case gives its result', () => {
  assert.ok(vectors.verifications.length > 10);
  for (const v of vectors.verifications) {
    const got = outcome(() =>
      verifyWebhookSignature(v.body, v.header, v.secret, {
        toleranceSeconds: v.tolerance,
        now: v.now,
      }),
    );
    assert.equal(got, v.result, v.name);
  }
});

test('a header made here verifies, with both secrets of a rotation', () => {
  const body = '{"id":"evt_1","type":"envelope.completed"}';
  const header = webhookSignatureHeader(['whsec_new', 'whsec_old'], 1_700_000_000, body);
  for (const secret of ['whsec_new', 'whsec_old']) {
    const event = constructWebhookEvent(body, header, secret, { now: 1_700_000_060 });
    assert.equal(event.type, 'envelope.completed');
  }
  assert.equal(outcome(() => constructWebhookEvent(body, header, 'whsec_x', { now: 1_700_000_060 })), 'no_match');
});

test('the default tolerance is five minutes of the system clock', () => {
  const body = '{}';
  const now = Math.floor(Date.now() / 1000);
  assert.equal(outcome(() => verifyWebhookSignature(body, webhookSignatureHeader(['s'], now - 250, body), 's')), 'ok');
  assert.equal(
    outcome(() => verifyWebhookSignature(body, webhookSignatureHeader(['s'], now - 400, body), 's')),
    'timestamp_out_of_tolerance',
  );
});
