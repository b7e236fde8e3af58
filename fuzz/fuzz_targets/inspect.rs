//! `cargo +nightly fuzz run inspect`: the reader, discovery and stamping on arbitrary bytes must
//! return, never panic; so must the check of a signer's attachment (extensions E14) on the same
//! bytes.
#![no_main]

use envelope_core::pdf::{
    AttachmentLimits, FieldStamp, PdfLimits, StampRequest, StampValue, inspect,
    normalize_attachment, stamp,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = normalize_attachment(data, &AttachmentLimits::SUBMITTED, &PdfLimits::default());
    if let Ok(info) = inspect(data, &PdfLimits::default()) {
        let fields = info
            .fields
            .iter()
            .map(|f| FieldStamp { field: f.clone(), value: Some(StampValue::Text("x".into())), signed_by: None })
            .collect();
        let _ = stamp(data, &StampRequest { fields, signature_page: None, page_mark: None });
    }
});
