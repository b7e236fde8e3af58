//! The finishing of printpdf's bytes: the PDF/X claim it always writes is blanked and the
//! trailer's pseudo-random `/ID` becomes a digest of the document, both in place.

use sha2::{Digest, Sha256};

use crate::pdf::PdfError;

/// printpdf always writes `/GTS_PDFXVersion()` (and an empty `/Identifier()`) into the
/// document information dictionary, which readers take as a claim of PDF/X conformance that
/// this document does not make. Both entries are overwritten with spaces (valid whitespace in a
/// dictionary, and the same length, so the cross-reference offsets stay valid).
pub(super) fn drop_pdfx_claim(bytes: &mut [u8]) {
    for entry in [&b"/GTS_PDFXVersion()"[..], &b"/Identifier()"[..]] {
        if let Some(at) = find_last(bytes, entry) {
            bytes[at..at + entry.len()].fill(b' ');
        }
    }
}

/// Replaces the trailer's `/ID` strings, which printpdf fills with pseudo-random characters,
/// with the first 16 bytes (as 32 hex digits) of the SHA-256 of the document with that ID
/// blanked. The replacement has the same length, so the cross-reference offsets stay valid.
pub(super) fn set_document_id(bytes: &mut [u8]) -> Result<(), PdfError> {
    let trailer = find_last(bytes, b"trailer")
        .ok_or_else(|| PdfError::Invalid("audit trail: no trailer written".into()))?;
    let id = find_last(&bytes[trailer..], b"/ID")
        .map(|i| trailer + i)
        .ok_or_else(|| PdfError::Invalid("audit trail: no /ID in the trailer".into()))?;
    // `/ID[(…)(…)]`, maybe with whitespace: locate both literal strings.
    let mut spans = Vec::new();
    let mut i = id + 3;
    while spans.len() < 2 && i < bytes.len() {
        match bytes[i] {
            b'(' => {
                let start = i + 1;
                let end = bytes[start..]
                    .iter()
                    .position(|&b| b == b')' || b == b'\\')
                    .map(|p| start + p)
                    .ok_or_else(|| PdfError::Invalid("audit trail: bad /ID".into()))?;
                if bytes[end] != b')' {
                    return Err(PdfError::Invalid("audit trail: escaped /ID".into()));
                }
                spans.push(start..end);
                i = end + 1;
            }
            b'[' | b' ' | b'\n' | b'\r' => i += 1,
            _ => break,
        }
    }
    if spans.len() != 2 {
        return Err(PdfError::Invalid("audit trail: bad /ID".into()));
    }
    for span in &spans {
        bytes[span.clone()].fill(b'0');
    }
    let digest = Sha256::digest(&*bytes);
    let hex: Vec<u8> = digest
        .iter()
        .flat_map(|b| format!("{b:02x}").into_bytes())
        .collect();
    for span in spans {
        let n = span.len().min(hex.len());
        bytes[span.start..span.start + n].copy_from_slice(&hex[..n]);
    }
    Ok(())
}

fn find_last(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}
