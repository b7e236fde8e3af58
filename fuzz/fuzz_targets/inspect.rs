//! `cargo +nightly fuzz run inspect`: the reader, discovery and stamping on arbitrary bytes must
//! return, never panic.
#![no_main]

use envelope_core::pdf::{FieldStamp, PdfLimits, StampRequest, StampValue, inspect, stamp};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(info) = inspect(data, &PdfLimits::default()) {
        let fields = info
            .fields
            .iter()
            .map(|f| FieldStamp { field: f.clone(), value: Some(StampValue::Text("x".into())), signed_by: None })
            .collect();
        let _ = stamp(data, &StampRequest { fields, signature_page: None, page_mark: None });
    }
});
