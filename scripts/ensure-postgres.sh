#!/usr/bin/env bash
# Makes sure the local PostgreSQL server the store tests use is running (127.0.0.1:5432, trust
# authentication, database `test`), and prints the URL to export as ENVELOPE_TEST_DATABASE_URL.
# Without a server the PostgreSQL tests skip with a message; they never fail for its absence.
set -uo pipefail

url="${ENVELOPE_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
if command -v pg_isready >/dev/null 2>&1 && ! pg_isready -q -h 127.0.0.1 -p 5432; then
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start >/dev/null 2>&1 || true
    for _ in $(seq 1 20); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 0.5; done
  fi
fi
if command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h 127.0.0.1 -p 5432; then
  echo "$url"
fi
