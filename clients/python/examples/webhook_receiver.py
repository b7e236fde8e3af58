"""A webhook receiver: verifies each delivery's ``Service-Signature`` on the raw body with the
endpoint's secret, answers 400 (and ignores the event) when it does not hold, 200 otherwise.

    ENVELOPE_WEBHOOK_SECRET=whsec_... PORT=4000 python3 clients/python/examples/webhook_receiver.py

Register ``http://<host>:4000/`` as an endpoint (``create_webhook_endpoint``); its answer carries
the secret, shown once.
"""

from __future__ import annotations

import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from envelope_client.webhooks import SIGNATURE_HEADER, WebhookSignatureError, construct_event


class WebhookReceiver(ThreadingHTTPServer):
    """An HTTP server that hands each event whose signature holds to ``on_event``.

    ``secret`` may be set after the server starts (an endpoint's secret is known only once the
    endpoint exists, and the endpoint needs the server's address).
    """

    def __init__(self, address: tuple[str, int], secret: str, on_event: Callable[[dict[str, Any]], None]):
        super().__init__(address, _Handler)
        self.secret = secret
        self.on_event = on_event


class _Handler(BaseHTTPRequestHandler):
    server: WebhookReceiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            event = construct_event(body, self.headers.get(SIGNATURE_HEADER, ""), self.server.secret)
        except WebhookSignatureError as e:
            self._answer(400, e.reason)
            return
        self.server.on_event(event)
        self._answer(200, "ok")

    def _answer(self, status: int, text: str) -> None:
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the events are what matters


if __name__ == "__main__":
    port = int(os.environ.get("PORT", "4000"))
    server = WebhookReceiver(
        ("0.0.0.0", port),
        os.environ["ENVELOPE_WEBHOOK_SECRET"],
        lambda event: print(f"{event['type']} {event['id']}", flush=True),
    )
    print(f"listening on {port}", flush=True)
    server.serve_forever()
