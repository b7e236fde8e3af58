"""The client against a running server (envelope-server/tests/openapi/clients starts one and sets
ENVELOPE_URL, ENVELOPE_API_KEY and ENVELOPE_TEST_PDF; without them this test is skipped): the
quick start (template, envelope, completion, download), then the ``envelope.completed``
delivery, verified by the example receiver with the endpoint's secret, and a tampered copy of it
refused."""

import json
import os
import sys
import threading
import time
import unittest
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

from quickstart import quickstart  # noqa: E402
from webhook_receiver import WebhookReceiver  # noqa: E402

from envelope_client.api.envelopes import get_envelope  # noqa: E402
from envelope_client.api.webhook_endpoints import create_webhook_endpoint, delete_webhook_endpoint  # noqa: E402
from envelope_client.helpers import connect, unwrap  # noqa: E402
from envelope_client.models import CreateWebhookEndpointRequest  # noqa: E402
from envelope_client.webhooks import SIGNATURE_HEADER, sign  # noqa: E402

ENV = ("ENVELOPE_URL", "ENVELOPE_API_KEY", "ENVELOPE_TEST_PDF")


@unittest.skipUnless(all(os.environ.get(k) for k in ENV), f"{', '.join(ENV)} are not set")
class EndToEnd(unittest.TestCase):
    def test_template_envelope_completion_download_and_a_verified_webhook(self):
        client = connect(os.environ["ENVELOPE_URL"], os.environ["ENVELOPE_API_KEY"])
        pdf = Path(os.environ["ENVELOPE_TEST_PDF"]).read_bytes()

        events, lock = [], threading.Lock()

        def on_event(event):
            with lock:
                events.append(event)

        receiver = WebhookReceiver(("127.0.0.1", 0), "", on_event)
        threading.Thread(target=receiver.serve_forever, daemon=True).start()
        hook_url = f"http://127.0.0.1:{receiver.server_address[1]}/hooks"
        endpoint = unwrap(
            create_webhook_endpoint.sync(
                client=client,
                body=CreateWebhookEndpointRequest.from_dict({"url": hook_url, "events": ["envelope.completed"]}),
            )
        )
        receiver.secret = endpoint.secret
        try:
            envelope, signed = quickstart(client, pdf)
            self.assertEqual(envelope.status, "completed")
            self.assertTrue(signed.startswith(b"%PDF-"))
            self.assertTrue(signed.startswith(pdf), "the signed copy keeps the original bytes as its prefix")
            self.assertGreater(len(signed), len(pdf))
            self.assertEqual(unwrap(get_envelope.sync(envelope.id, client=client)).status, "completed")

            # Other clients' envelopes may complete on the same account meanwhile: wait for ours.
            def ours():
                with lock:
                    return next(
                        (e for e in events if e["type"] == "envelope.completed" and e["data"]["object"]["id"] == envelope.id),
                        None,
                    )

            deadline = time.monotonic() + 60
            while ours() is None:
                self.assertLess(time.monotonic(), deadline, f"no verified envelope.completed for {envelope.id}")
                time.sleep(0.1)
            event = ours()
            print(f"verified webhook: {event['type']} {event['id']}")

            # The same delivery, signed, with one byte of its body changed: refused, not handed on.
            body = json.dumps(event).encode()
            now = int(time.time())

            def send(data, header):
                return httpx.post(hook_url, content=data, headers={SIGNATURE_HEADER: header})

            with lock:
                count = len(events)
            self.assertEqual(send(body, f"t={now},v1={sign(endpoint.secret, now, body)}").status_code, 200)
            tampered = send(body.replace(envelope.id.encode(), envelope.id.encode() + b"x"), f"t={now},v1={sign(endpoint.secret, now, body)}")
            self.assertEqual((tampered.status_code, tampered.text), (400, "no_match"))
            old = now - 3600
            replayed = send(body, f"t={old},v1={sign(endpoint.secret, old, body)}")
            self.assertEqual((replayed.status_code, replayed.text), (400, "timestamp_out_of_tolerance"))
            unsigned = send(body, "")
            self.assertEqual((unsigned.status_code, unsigned.text), (400, "malformed"))
            with lock:
                self.assertEqual(len(events), count + 1, "only the genuine one was handed on")
        finally:
            delete_webhook_endpoint.sync(endpoint.id, client=client)
            receiver.shutdown()
            receiver.server_close()


if __name__ == "__main__":
    unittest.main()
