/**
 * A webhook receiver: verifies each delivery's `Service-Signature` on the raw body with the
 * endpoint's secret, answers 400 (and ignores the event) when it does not hold, 200 otherwise.
 *
 *   ENVELOPE_WEBHOOK_SECRET=whsec_... PORT=4000 node build-test/examples/webhook-receiver.js
 *
 * Register `http://<host>:4000/` as an endpoint (`createWebhookEndpoint`); its answer carries
 * the secret, shown once.
 */

import { type IncomingMessage, type Server, createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

import { type Event, SIGNATURE_HEADER, WebhookSignatureError, constructWebhookEvent } from 'envelope-client';

/** Options of {@link webhookReceiver}. */
export interface ReceiverOptions {
  /** The endpoint's secret, or a function giving it (known only once the endpoint exists). */
  secret: string | (() => string);
  /** Called with each event whose signature holds. */
  onEvent: (event: Event) => void;
}

async function rawBody(req: IncomingMessage): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** An HTTP server (not yet listening) that verifies and hands on deliveries. */
export function webhookReceiver(options: ReceiverOptions): Server {
  return createServer((req, res) => {
    rawBody(req).then(
      (body) => {
        const secret = typeof options.secret === 'function' ? options.secret() : options.secret;
        const header = req.headers[SIGNATURE_HEADER.toLowerCase()];
        let event: Event;
        try {
          event = constructWebhookEvent(body, typeof header === 'string' ? header : '', secret);
        } catch (e) {
          if (!(e instanceof WebhookSignatureError)) {
            throw e;
          }
          res.writeHead(400, { 'content-type': 'text/plain' }).end(e.reason);
          return;
        }
        options.onEvent(event);
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      },
      () => res.writeHead(400).end(),
    );
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = Number(process.env.PORT ?? 4000);
  webhookReceiver({
    secret: process.env.ENVELOPE_WEBHOOK_SECRET ?? '',
    onEvent: (event) => console.log(`${event.type} ${event.id}`),
  }).listen(port, () => console.log(`listening on ${port}`));
}
