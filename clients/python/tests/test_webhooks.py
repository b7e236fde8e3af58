"""The verifier against the cases of clients/webhook-vectors.json, which envelope-core's own
implementation is checked on too (envelope-server/tests/openapi/clients/vectors.rs)."""

import json
import time
import unittest
from pathlib import Path

from envelope_client.webhooks import (
    WebhookSignatureError,
    construct_event,
    sign,
    signature_header,
    verify,
)

VECTORS = json.loads((Path(__file__).resolve().parents[2] / "webhook-vectors.json").read_text("utf-8"))


def outcome(run) -> str:
    try:
        run()
    except WebhookSignatureError as e:
        return e.reason
    return "ok"


class Vectors(unittest.TestCase):
    def test_signatures_are_the_known_answers(self):
        self.assertTrue(VECTORS["signatures"])
        for v in VECTORS["signatures"]:
            self.assertEqual(sign(v["secret"], v["timestamp"], v["body"]), v["signature"], v["name"])
            self.assertEqual(sign(v["secret"], v["timestamp"], v["body"].encode()), v["signature"], v["name"])

    def test_every_verification_case_gives_its_result(self):
        self.assertGreater(len(VECTORS["verifications"]), 10)
        for v in VECTORS["verifications"]:
            got = outcome(lambda: verify(v["body"], v["header"], v["secret"], v["tolerance"], v["now"]))
            self.assertEqual(got, v["result"], v["name"])


class Verifier(unittest.TestCase):
    def test_a_header_made_here_verifies_with_both_secrets_of_a_rotation(self):
        body = b'{"id":"evt_1","type":"envelope.completed"}'
        header = signature_header(["whsec_new", "whsec_old"], 1_700_000_000, body)
        for secret in ("whsec_new", "whsec_old"):
            self.assertEqual(construct_event(body, header, secret, now=1_700_000_060)["type"], "envelope.completed")
        self.assertEqual(outcome(lambda: construct_event(body, header, "whsec_x", now=1_700_000_060)), "no_match")

    def test_the_default_tolerance_is_five_minutes_of_the_system_clock(self):
        body, now = b"{}", int(time.time())
        self.assertEqual(outcome(lambda: verify(body, signature_header(["s"], now - 250, body), "s")), "ok")
        self.assertEqual(
            outcome(lambda: verify(body, signature_header(["s"], now - 400, body), "s")),
            "timestamp_out_of_tolerance",
        )


if __name__ == "__main__":
    unittest.main()
