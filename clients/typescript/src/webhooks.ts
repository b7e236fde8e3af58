/**
 * Verifying the signature of a webhook delivery (docs/WEBHOOKS.md): the `Service-Signature`
 * header is `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, with a second `v1`
 * during a secret rotation. This is the same check as envelope-core's
 * `webhook::signature::verify`, case for case (`../webhook-vectors.json` holds the cases both
 * are tested on).
 *
 * Verify the raw body, before parsing it: a body parsed and serialized again is not the bytes
 * that were signed.
 *
 * @module
 */

import { createHmac, timingSafeEqual } from 'node:crypto';

import type { Event } from './generated/index.js';

/** The request header that carries the signature. */
export const SIGNATURE_HEADER = 'Service-Signature';

/** How far the header's timestamp may be from now by default: 5 minutes, either way. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Why a signature was refused, as envelope-core's `SignatureError` names it. */
export type WebhookSignatureFailure =
  /** No `t=` whole number, no `v1=` signature, or a part that is not `key=value`. */
  | 'malformed'
  /** The timestamp is further than the tolerance from now (a replayed or delayed request). */
  | 'timestamp_out_of_tolerance'
  /** No `v1=` signature is the HMAC of the body under the secret. */
  | 'no_match';

/** Thrown by {@link verifyWebhookSignature} when a delivery must not be trusted. */
export class WebhookSignatureError extends Error {
  /** Which check failed. */
  readonly reason: WebhookSignatureFailure;

  constructor(reason: WebhookSignatureFailure) {
    super(
      {
        malformed: 'the signature header is malformed',
        timestamp_out_of_tolerance: 'the timestamp is outside the tolerance',
        no_match: 'no signature matches',
      }[reason],
    );
    this.name = 'WebhookSignatureError';
    this.reason = reason;
  }
}

/** Options of {@link verifyWebhookSignature}. */
export interface VerifyOptions {
  /** Seconds the timestamp may be from `now`, either way; default 300. */
  toleranceSeconds?: number;
  /** The current time in Unix seconds; default the system clock. */
  now?: number;
}

/** A body as received: the raw bytes, or text (taken as its UTF-8 bytes). */
export type WebhookBody = Uint8Array | string;

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

function bytes(body: WebhookBody): Uint8Array {
  return typeof body === 'string' ? new TextEncoder().encode(body) : body;
}

/** The hex HMAC-SHA256 of `"<timestamp>.<body>"` under `secret` (the whole `whsec_...` text). */
export function signWebhookPayload(
  secret: string,
  timestamp: number | bigint,
  body: WebhookBody,
): string {
  return createHmac('sha256', secret)
    .update(`${BigInt(timestamp)}.`)
    .update(bytes(body))
    .digest('hex');
}

/**
 * A `Service-Signature` value for `body`, one `v1` per secret: what the service sends. Useful to
 * test a receiver.
 */
export function webhookSignatureHeader(
  secrets: string[],
  timestamp: number | bigint,
  body: WebhookBody,
): string {
  return [`t=${BigInt(timestamp)}`]
    .concat(secrets.map((s) => `v1=${signWebhookPayload(s, timestamp, body)}`))
    .join(',');
}

/**
 * Checks `header` (the `Service-Signature` value) for the raw `body` under the endpoint's
 * `secret`, and throws a {@link WebhookSignatureError} unless one of its `v1` signatures matches
 * and its timestamp is within the tolerance of now.
 */
export function verifyWebhookSignature(
  body: WebhookBody,
  header: string,
  secret: string,
  options: VerifyOptions = {},
): void {
  let timestamp: bigint | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const trimmed = part.trim();
    const eq = trimmed.indexOf('=');
    if (eq < 0) {
      throw new WebhookSignatureError('malformed');
    }
    const [key, value] = [trimmed.slice(0, eq), trimmed.slice(eq + 1)];
    if (key === 't') {
      // What Rust's `i64::from_str` takes: an optional sign and ASCII digits, in range.
      if (!/^[+-]?[0-9]+$/.test(value)) {
        throw new WebhookSignatureError('malformed');
      }
      timestamp = BigInt(value);
      if (timestamp < I64_MIN || timestamp > I64_MAX) {
        throw new WebhookSignatureError('malformed');
      }
    } else if (key === 'v1') {
      candidates.push(value);
    }
    // Other schemes are ignored, as Stripe's verifiers do.
  }
  if (timestamp === undefined || candidates.length === 0) {
    throw new WebhookSignatureError('malformed');
  }
  const tolerance = BigInt(Math.trunc(options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS));
  const now = BigInt(Math.floor(options.now ?? Date.now() / 1000));
  const age = now - timestamp;
  if ((age < 0n ? -age : age) > tolerance) {
    throw new WebhookSignatureError('timestamp_out_of_tolerance');
  }
  const expected = Buffer.from(signWebhookPayload(secret, timestamp, body));
  // Every candidate is compared in constant time; only its length (public: 64 hex digits for a
  // real signature) decides whether a comparison is made.
  let matched = false;
  for (const candidate of candidates) {
    const given = Buffer.from(candidate);
    if (given.length === expected.length && timingSafeEqual(given, expected)) {
      matched = true;
    }
  }
  if (!matched) {
    throw new WebhookSignatureError('no_match');
  }
}

/** {@link verifyWebhookSignature}, then the body parsed as the event it carries. */
export function constructWebhookEvent(
  body: WebhookBody,
  header: string,
  secret: string,
  options: VerifyOptions = {},
): Event {
  verifyWebhookSignature(body, header, secret, options);
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  return JSON.parse(text) as Event;
}
