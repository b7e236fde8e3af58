//! PDF engine benchmarks: `cargo bench -p envelope-core --bench pdf`.
//!
//! Inputs are generated deterministically by the test builder. The SHA-256 baseline over the
//! same 24 MB shows the target ratio (stamping <= 3x hashing) in one run.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use envelope_core::pdf::{
    FieldStamp, PdfInfo, PdfLimits, StampRequest, StampValue, inspect, stamp,
};
use sha2::{Digest, Sha256};

#[path = "../envelope-core/tests/support/mod.rs"]
mod support;

/// Ten fields (repeating the document's own fields), each with a value.
fn ten_fields(info: &PdfInfo) -> StampRequest {
    let fields = info
        .fields
        .iter()
        .cycle()
        .take(10)
        .map(|f| FieldStamp {
            field: f.clone(),
            value: Some(StampValue::Typed("Zoë Ångström".into())),
        })
        .collect();
    StampRequest {
        fields,
        signature_page: None,
    }
}

fn benches(c: &mut Criterion) {
    let contract = support::libreoffice_contract(support::Layout::Classic);
    c.bench_function("discover/libreoffice_contract_1_page", |b| {
        b.iter(|| inspect(black_box(&contract), &PdfLimits::default()).expect("inspect"))
    });

    let small_info = inspect(&contract, &PdfLimits::default()).expect("inspect");
    let small_req = ten_fields(&small_info);
    c.bench_function("stamp/10_fields_1_page", |b| {
        b.iter(|| stamp(black_box(&contract), &small_req).expect("stamp"))
    });

    let big = support::big_document(200, 120_000);
    eprintln!("big document: {} bytes, 200 pages", big.len());
    let mut group = c.benchmark_group("big_200_pages");
    group.sample_size(20);
    group.bench_function("sha256_baseline", |b| {
        b.iter(|| Sha256::digest(black_box(&big)))
    });
    group.bench_function("discover", |b| {
        b.iter(|| inspect(black_box(&big), &PdfLimits::default()).expect("inspect"))
    });
    let big_info = inspect(&big, &PdfLimits::default()).expect("inspect");
    // Ten fields spread over the document (pages 1, 21, 41, ...).
    let spread: Vec<_> = big_info
        .fields
        .iter()
        .step_by(20)
        .take(10)
        .cloned()
        .collect();
    let big_req = StampRequest {
        fields: spread
            .into_iter()
            .map(|f| FieldStamp {
                field: f,
                value: Some(StampValue::Typed("Zoë Ångström".into())),
            })
            .collect(),
        signature_page: None,
    };
    group.bench_function("stamp_10_fields", |b| {
        b.iter(|| stamp(black_box(&big), &big_req).expect("stamp"))
    });
    group.finish();

    // ---- audit trail bench: added by the audit-trail engineer (pdf/audit.rs) ----
}

criterion_group!(pdf, benches);
criterion_main!(pdf);
