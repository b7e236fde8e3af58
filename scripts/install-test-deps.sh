#!/usr/bin/env bash
# Installs what the test suite needs beyond Rust, on Debian: qpdf (structure checks of stamped
# PDFs), poppler-utils (pdftotext, pdfinfo, pdftoppm, pdfimages), Python's aiosmtpd (the real
# SMTP server that envelope-core/tests/mail_smtp.rs and envelope-server/tests/smtp send to), and
# chromium + chromium-driver (envelope-server/tests/browser drives the signing page). Safe to run again: it only installs
# what is missing. Needs root (or sudo) for the Debian packages.
set -euo pipefail

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

need=()
command -v qpdf >/dev/null 2>&1 || need+=(qpdf)
command -v pdftotext >/dev/null 2>&1 || need+=(poppler-utils)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)

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
echo "test tools present: $(command -v qpdf) $(command -v pdftotext) $(command -v chromedriver)" \
  "aiosmtpd $(python3 -c 'import aiosmtpd; print(aiosmtpd.__version__)')"
