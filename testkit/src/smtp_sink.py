"""An aiosmtpd handler for envelope-core/tests/mail_smtp.rs: stores every message it receives.

Run as `python3 -m aiosmtpd -n -l 127.0.0.1:<port> -c smtp_sink.Sink <out dir>` with this
directory on PYTHONPATH. For each message it writes `<n>.eml` (the DATA exactly as received)
and then `<n>.json` (the SMTP envelope and the client's address), each through a temporary
name and a rename, so that a `.json` file means its message is complete.
"""

import itertools
import json
import os


class Sink:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.counter = itertools.count(1)
        os.makedirs(out_dir, exist_ok=True)

    @classmethod
    def from_cli(cls, parser, *args):
        if len(args) != 1:
            parser.error("smtp_sink.Sink takes one argument: the output directory")
        return cls(args[0])

    def _write(self, name, data):
        tmp = os.path.join(self.out_dir, "." + name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(data)
        os.rename(tmp, os.path.join(self.out_dir, name))

    async def handle_DATA(self, server, session, envelope):
        n = next(self.counter)
        self._write(f"{n:04}.eml", envelope.original_content)
        meta = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "peer": list(session.peer) if session.peer else None,
            "helo": session.host_name,
        }
        self._write(f"{n:04}.json", json.dumps(meta).encode())
        return "250 Message accepted for delivery"
