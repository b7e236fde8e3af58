#!/usr/bin/env bash
# Installs what the test suite needs beyond Rust, on Debian: qpdf (structure checks of stamped
# PDFs), poppler-utils (pdftotext, pdfinfo, pdftoppm, pdfimages, pdfsig), Python's aiosmtpd (the
# real SMTP server that envelope-core/tests/mail_smtp.rs and envelope-server/tests/smtp send to),
# chromium + chromium-driver (envelope-server/tests/browser drives the signing page), faketime
# (envelope-server/tests/durability/retention.rs runs the real binary with its clock moved ahead)
# and pyHanko with its CLI (the second, independent validator of sealed PDFs), certomancer (the
# test PKI: OCSP, CRLs, a TSA); from PyPI too, for
# the OpenAPI tests (envelope-server/tests/openapi): schemathesis, openapi-python-client (and the
# ruff it formats with, both at the exact versions clients/generate.sh pins) and
# openapi-spec-validator, prometheus-client (its text parser reads the /metrics scrape of
# envelope-server/tests/durability/metrics.rs), reportlab and pypdf (choice fields), and moto's
# standalone S3 server (moto_server: envelope-core/tests/store_s3.rs, the durability test with
# PDFs in S3, the scale-out load figures); and the C toolchain that the build itself needs (cc
# for SQLite's bundled build, make for jemalloc's, the server's allocator). Safe to run again:
# it only installs what is missing. Node.js and npm (Debian's, when the machine has none) and the
# TypeScript client's pinned generator and compiler (`npm ci` in clients/typescript, redone only
# when its package-lock.json changed) for the client library tests
# (envelope-server/tests/openapi/clients); axe-core, pinned the same way, for the accessibility
# test of the pages (envelope-server/tests/browser/accessibility.rs). fonts-noto-cjk: Noto Sans
# CJK, which the stamper and the audit trail draw Chinese, Japanese and Korean with when the
# machine has it (docs/FONTS.md, envelope-server/tests/http/scripts.rs). Needs root (or sudo)
# for the Debian packages.
set -euo pipefail

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

need=()
command -v cc >/dev/null 2>&1 || need+=(gcc libc6-dev)
command -v make >/dev/null 2>&1 || need+=(make)
command -v qpdf >/dev/null 2>&1 || need+=(qpdf)
if ! command -v pdftotext >/dev/null 2>&1 || ! command -v pdfsig >/dev/null 2>&1; then
  need+=(poppler-utils)
fi
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
# The package ships the faketime command and libfaketime, which the test preloads.
command -v faketime >/dev/null 2>&1 || need+=(faketime)
# The TypeScript client's generator needs Node.js 20.19 or later (Debian 13 has 20.19).
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
[ -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ] || need+=(fonts-noto-cjk)

if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

if ! python3 -c 'import aiosmtpd' >/dev/null 2>&1; then
  echo "installing: aiosmtpd (PyPI)"
  # A Debian system Python refuses pip installs (PEP 668); its own package is the same server.
  if ! python3 -m pip install --quiet aiosmtpd; then
    echo "pip refused; trying Debian's python3-aiosmtpd"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-aiosmtpd >/dev/null
  fi
fi
if ! command -v pyhanko >/dev/null 2>&1 || ! python3 -c 'import pyhanko' >/dev/null 2>&1; then
  echo "installing: pyhanko, pyhanko-cli (PyPI)"
  # No Debian package: pip, allowing a system Python that refuses by default (PEP 668).
  python3 -m pip install --quiet pyhanko pyhanko-cli \
    || python3 -m pip install --quiet --break-system-packages pyhanko pyhanko-cli
fi
# certomancer serves the test PKI of the long-term seals (testkit/src/pki.rs: OCSP, CRLs and an
# RFC 3161 TSA on 127.0.0.1; envelope-core/tests/revocation.rs). Its `animate` command needs the
# web-api extra (werkzeug). No Debian package: pip, like pyHanko above.
if ! command -v certomancer >/dev/null 2>&1 || ! python3 -c 'import werkzeug' >/dev/null 2>&1; then
  echo "installing: certomancer[web-api] (PyPI)"
  python3 -m pip install --quiet "certomancer[web-api]>=0.16,<1" \
    || python3 -m pip install --quiet --break-system-packages "certomancer[web-api]>=0.16,<1"
fi
# Major versions pinned: their command lines and the generated client's API are what the tests
# call. pip, allowing a system Python that refuses by default (PEP 668), like pyHanko above.
py_need=()
command -v schemathesis >/dev/null 2>&1 || py_need+=("schemathesis>=4,<5")
# Exact versions: the committed Python client is what these make (clients/generate.sh checks).
[ "$(openapi-python-client --version 2>/dev/null | awk '{print $NF}')" = 0.29.1 ] ||
  py_need+=("openapi-python-client==0.29.1")
[ "$(ruff --version 2>/dev/null | awk '{print $NF}')" = 0.17.6 ] || py_need+=("ruff==0.17.6")
python3 -c 'import openapi_spec_validator' >/dev/null 2>&1 || py_need+=("openapi-spec-validator>=0.9,<0.10")
python3 -c 'import prometheus_client' >/dev/null 2>&1 || py_need+=("prometheus-client>=0.26,<1")
# reportlab draws the AcroForm (radio group, combo box) of envelope-server/tests/http/choices.rs
# at test time; pypdf reads the chosen values back from the signed copy.
python3 -c 'import reportlab' >/dev/null 2>&1 || py_need+=("reportlab>=4,<5")
python3 -c 'import pypdf' >/dev/null 2>&1 || py_need+=("pypdf>=5")
command -v moto_server >/dev/null 2>&1 || py_need+=("moto[server]>=5,<6")
if [ ${#py_need[@]} -gt 0 ]; then
  echo "installing: ${py_need[*]} (PyPI)"
  python3 -m pip install --quiet "${py_need[@]}" \
    || python3 -m pip install --quiet --break-system-packages "${py_need[@]}"
fi
# The TypeScript client's generator and compiler, at the versions of its package-lock.json; the
# copy of the lock file in node_modules says which install is there.
ts_client="$(cd "$(dirname "$0")/../clients/typescript" && pwd)"
if ! cmp -s "$ts_client/package-lock.json" "$ts_client/node_modules/.installed-package-lock.json"; then
  echo "installing: the TypeScript client's dev dependencies (npm ci)"
  (cd "$ts_client" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  cp "$ts_client/package-lock.json" "$ts_client/node_modules/.installed-package-lock.json"
fi
# axe-core, which envelope-server/tests/browser/accessibility.rs injects into the pages, at the
# exact version of its package-lock.json; redone only when the lock changed, as above.
axe_dir="$(cd "$(dirname "$0")/../envelope-server/tests/browser/axe" && pwd)"
if ! cmp -s "$axe_dir/package-lock.json" "$axe_dir/node_modules/.installed-package-lock.json"; then
  echo "installing: axe-core for the accessibility test (npm ci)"
  (cd "$axe_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  cp "$axe_dir/package-lock.json" "$axe_dir/node_modules/.installed-package-lock.json"
fi
echo "test tools present: $(command -v qpdf) $(command -v pdftotext) $(command -v chromedriver)" \
  "$(command -v faketime)" \
  "aiosmtpd $(python3 -c 'import aiosmtpd; print(aiosmtpd.__version__)')" \
  "$(python3 -m pip show pyhanko 2>/dev/null | grep -i '^version' | sed 's/Version: /pyhanko /')"
echo "OpenAPI and metrics tools: $(schemathesis --version 2>/dev/null)," \
  "$(openapi-python-client --version 2>/dev/null)," \
  "$(python3 -m pip show openapi-spec-validator prometheus-client 2>/dev/null | grep -i '^\(name\|version\)' | paste -sd' ')"
echo "client libraries: node $(node --version), npm $(npm --version)," \
  "openapi-ts $("$ts_client/node_modules/.bin/openapi-ts" --version 2>/dev/null)," \
  "tsc $("$ts_client/node_modules/.bin/tsc" --version 2>/dev/null | awk '{print $NF}')," \
  "ruff $(ruff --version 2>/dev/null | awk '{print $NF}')," \
  "axe-core $(node -p "require('$axe_dir/node_modules/axe-core/package.json').version" 2>/dev/null)"
echo "test PKI: $(command -v certomancer) $(certomancer --version 2>/dev/null)"
echo "S3 server: $(command -v moto_server) $(python3 -m pip show moto 2>/dev/null | grep -i '^version' | sed 's/Version: /moto /')"
