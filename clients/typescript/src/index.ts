/**
 * The Envelope Signing Service API from TypeScript: one function per operation and a type for
 * every schema, generated from docs/openapi.json into `./generated` (by ../generate.sh, never
 * edited by hand), plus what a generator cannot know: a client set up with an API key
 * ({@link createEnvelopeClient}) and the webhook signature verifier (`./webhooks`).
 *
 * ```ts
 * import { createEnvelopeClient, createEnvelope } from 'envelope-client';
 * const client = createEnvelopeClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'sk_test_...' });
 * const { data: envelope } = await createEnvelope({ client, body: { template: 'tpl_...', signers } });
 * ```
 *
 * Runtime dependencies: none (the global `fetch` of Node 18+ and browsers).
 *
 * @module
 */

import { type Client, createClient, createConfig } from './generated/client/index.js';
import type { ClientOptions } from './generated/index.js';

export * from './generated/index.js';
export {
  type Client,
  type Config,
  createClient,
  createConfig,
  formDataBodySerializer,
} from './generated/client/index.js';
export * from './webhooks.js';

/** What {@link createEnvelopeClient} needs. */
export interface EnvelopeClientOptions {
  /** Where the server is, such as `https://sign.example.com` (no `/v1`). */
  baseUrl: string;
  /** An API key, `sk_test_...` or `sk_live_...`: the key's mode is the data's mode. */
  apiKey: string;
  /** A `fetch` to use instead of the global one (a proxy agent, a test double). */
  fetch?: typeof fetch;
}

/**
 * A client for `baseUrl` that sends `apiKey` as `Authorization: Bearer ...` to every operation
 * that needs a key. Pass it as `client` to the operation functions. Failed calls throw the
 * API's error object (`{ object: 'error', status, type, code, param, message, request_id }`).
 */
export function createEnvelopeClient(options: EnvelopeClientOptions): Client {
  return createClient(
    createConfig<ClientOptions>({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      auth: options.apiKey,
      throwOnError: true,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    }),
  );
}
