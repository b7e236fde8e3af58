#!/usr/bin/env bash
# Installs what the test suite needs beyond Rust, on Debian: qpdf (structure checks of stamped
# PDFs) and poppler-utils (pdftotext, pdfinfo, pdftoppm). Safe to run again: it only installs
# what is missing. Needs root (or sudo).
set -euo pipefail

need=()
command -v qpdf >/dev/null 2>&1 || need+=(qpdf)
command -v pdftotext >/dev/null 2>&1 || need+=(poppler-utils)

if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "installing: ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
echo "test tools present: $(command -v qpdf) $(command -v pdftotext)"
