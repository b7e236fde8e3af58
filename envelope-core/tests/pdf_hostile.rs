//! Each class of hostile PDF from issue 11 gets a generated file and must be answered quickly:
//! either read successfully or refused with the budget's limit (`PdfError::TooComplex`) naming
//! the specific limit. Tests run on debug builds, so the heavy classes use smaller files with
//! proportionally smaller limits, and the deadline is raised so that a counter, not the clock,
//! must be what stops the work. The full-size files and their release-build figures are in
//! docs/ROBUSTNESS.md (`examples/hostile.rs`).

use envelope_testkit::pdf as support;

use std::io::Read;
use std::time::Duration;

use envelope_core::pdf::{
    Limit, PdfError, PdfInfo, PdfLimits, SignatureBlock, StampRequest, StampValue, inspect, stamp,
};
use support::hostile::*;

/// Default limits, with a deadline no debug build reaches: the counters must trip first.
fn counters_only() -> PdfLimits {
    PdfLimits {
        deadline: Duration::from_secs(600),
        ..PdfLimits::default()
    }
}

fn limit_of(r: Result<PdfInfo, PdfError>) -> Limit {
    match r {
        Err(PdfError::TooComplex(l)) => l,
        Err(e) => panic!("expected a budget limit, got the error: {e}"),
        Ok(i) => panic!("expected a budget limit, got {} pages", i.page_count),
    }
}

/// Inspects, then stamps a signature page: both must succeed.
fn reads(bytes: &[u8]) -> PdfInfo {
    let info = inspect(bytes, &counters_only()).unwrap_or_else(|e| panic!("inspect: {e}"));
    let request = StampRequest {
        page_mark: None,
        fields: Vec::new(),
        signature_page: Some(vec![SignatureBlock {
            role: "Client".into(),
            name: "A".into(),
            email: "a@example.com".into(),
            signature: StampValue::Typed("A".into()),
            signed_at: "2024-05-01 10:00 UTC".into(),
        }]),
    };
    let signed = stamp(bytes, &request).unwrap_or_else(|e| panic!("stamp: {e}"));
    assert!(signed.starts_with(bytes));
    info
}

#[test]
fn a_form_drawing_itself_is_read_once() {
    let pdf = self_drawing_form();
    assert!(pdf.len() < 1024, "{} bytes", pdf.len());
    let info = reads(&pdf);
    assert_eq!(info.page_count, 1);
}

#[test]
fn fan_out_forms_stop_at_the_glyph_limit() {
    let limits = PdfLimits {
        max_glyphs: 100_000,
        ..counters_only()
    };
    let pdf = fan_out_forms(8, 20, "{{text:A}} and more");
    assert_eq!(limit_of(inspect(&pdf, &limits)), Limit::Glyphs(100_000));
    // A small fan-out is read, and each of its 3 x 3 copies of the tag is a field.
    let info = reads(&fan_out_forms(2, 3, "{{text:A}}"));
    assert_eq!(info.fields.len(), 9);
}

#[test]
fn forms_nested_too_deep_stop_at_the_nesting_limit() {
    assert_eq!(
        limit_of(inspect(&deep_forms(200), &counters_only())),
        Limit::Nesting(64)
    );
    assert_eq!(reads(&deep_forms(30)).page_count, 1);
}

#[test]
fn huge_kids_with_large_inherited_resources() {
    // Shared, not cloned per kid: 100,000 kids under 20,000 inherited fonts read at once.
    assert_eq!(reads(&huge_kids(100_000, 20_000)).page_count, 1);
    let limits = PdfLimits {
        max_objects: 100_000,
        ..counters_only()
    };
    assert_eq!(
        limit_of(inspect(&huge_kids(150_000, 1000), &limits)),
        Limit::Objects(100_000)
    );
}

#[test]
fn a_deep_page_tree_stops_at_the_nesting_limit() {
    assert_eq!(
        limit_of(inspect(&deep_page_tree(500), &counters_only())),
        Limit::Nesting(64)
    );
    assert_eq!(reads(&deep_page_tree(40)).page_count, 1);
}

#[test]
fn xref_streams_claiming_millions_of_entries_stop_at_the_map_limit() {
    assert_eq!(
        limit_of(inspect(&xref_stream_rows(3_000_000), &counters_only())),
        Limit::MapEntries(1_000_000)
    );
}

#[test]
fn full_range_cmaps_stop_at_the_map_limit() {
    assert_eq!(
        limit_of(inspect(&cmap_full_ranges(1000), &counters_only())),
        Limit::MapEntries(1_000_000)
    );
    // A few full ranges are fine.
    assert_eq!(reads(&cmap_full_ranges(3)).page_count, 1);
}

#[test]
fn many_streams_near_the_cap_stop_at_the_total() {
    let limits = PdfLimits {
        max_stream_bytes: 1 << 20,
        max_decoded_bytes: 16 << 20,
        ..counters_only()
    };
    let near_cap = (1 << 20) - 4096;
    assert_eq!(
        limit_of(inspect(&many_deflate_streams(40, near_cap), &limits)),
        Limit::DecodedBytes(16 << 20)
    );
    assert_eq!(
        limit_of(inspect(&many_deflate_streams(1, 2 << 20), &limits)),
        Limit::StreamBytes(1 << 20)
    );
    assert_eq!(
        inspect(&many_deflate_streams(10, near_cap), &limits)
            .map(|i| i.page_count)
            .ok(),
        Some(10)
    );
}

#[test]
fn a_flood_of_operators_stops_at_the_operation_limit() {
    let limits = PdfLimits {
        max_content_ops: 100_000,
        ..counters_only()
    };
    assert_eq!(
        limit_of(inspect(&operator_flood(1 << 20), &limits)),
        Limit::ContentOps(100_000)
    );
    assert_eq!(reads(&operator_flood(100_000)).page_count, 1);
}

#[test]
fn a_dictionary_with_too_many_keys_stops_at_the_object_limit() {
    let limits = PdfLimits {
        max_objects: 100_000,
        ..counters_only()
    };
    assert_eq!(
        limit_of(inspect(&dict_with_keys(200_000), &limits)),
        Limit::Objects(100_000)
    );
    // Hash-indexed: 50,000 keys read at once with the default limits.
    assert_eq!(reads(&dict_with_keys(50_000)).page_count, 1);
}

#[test]
fn streams_that_never_end_are_scanned_once() {
    let info = reads(&endless_streams(20_000));
    assert_eq!(
        info.fields.len(),
        1,
        "the signature tag of the readable page"
    );
}

#[test]
fn long_runs_of_braces_are_scanned_linearly() {
    let info = reads(&brace_run(200_000));
    assert!(info.fields.is_empty());
}

#[test]
fn deep_nesting_stops_at_the_nesting_limit() {
    for (name, pdf) in [
        ("catalog", deep_arrays(100_000)),
        ("content", deep_content(100_000)),
    ] {
        assert_eq!(
            limit_of(inspect(&pdf, &counters_only())),
            Limit::Nesting(64),
            "{name}"
        );
    }
    assert_eq!(reads(&deep_arrays(60)).page_count, 1);
}

#[test]
fn prev_loops_are_followed_once() {
    let info = reads(&prev_loops());
    assert_eq!(info.fields.len(), 1);
}

#[test]
fn the_deadline_stops_what_the_counters_allow() {
    let limits = PdfLimits {
        deadline: Duration::ZERO,
        ..PdfLimits::default()
    };
    assert!(matches!(
        limit_of(inspect(&endless_streams(5_000), &limits)),
        Limit::Deadline(_)
    ));
}

#[test]
fn every_limit_is_named_in_plain_words() {
    let e = inspect(&deep_forms(200), &counters_only()).expect_err("too deep");
    let m = e.to_string();
    assert!(m.contains("64 deep") && m.contains("too complex"), "{m}");
    assert!(!m.contains("Nesting") && !m.contains('{'), "{m}");
}

#[test]
fn repeated_byte_streams_inflate_to_what_they_claim() {
    for (byte, n) in [
        (0u8, 0usize),
        (0, 1),
        (b' ', 258),
        (b' ', 259),
        (0xFF, 1000),
        (7, 70_001),
    ] {
        let z = zlib_of_repeated(byte, n);
        let mut out = Vec::new();
        flate2::read::ZlibDecoder::new(&z[..])
            .read_to_end(&mut out)
            .expect("valid zlib with a correct checksum");
        assert_eq!(out, vec![byte; n], "{byte} x {n}");
    }
}
