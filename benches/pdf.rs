//! PDF engine benchmarks: `cargo bench -p envelope-core --bench pdf`.
//!
//! Inputs are generated deterministically by the test builder. The SHA-256 baseline over the
//! same 24 MB shows the target ratios in one run: stamping <= 3x hashing, and stamping plus
//! sealing <= 1.2x hashing, from the original's kept SHA-256 state (the cold path, which hashes
//! the original once, beside it).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use envelope_core::model::Sha256State;
use envelope_core::pdf::{
    self, FieldStamp, PdfInfo, PdfLimits, PreparedSeal, SealSpec, StampRequest, StampValue,
    inspect, stamp,
};
use envelope_core::seal::{LocalSealer, Sealer, SigningIdentity};
use sha2::{Digest, Sha256};

use envelope_testkit::pdf as support;

/// Ten fields (repeating the document's own fields), each with a value.
fn ten_fields(info: &PdfInfo) -> StampRequest {
    let fields = info
        .fields
        .iter()
        .cycle()
        .take(10)
        .map(|f| FieldStamp {
            field: f.clone(),
            signed_by: None,
            value: Some(StampValue::Typed("Zoë Ångström".into())),
        })
        .collect();
    StampRequest {
        page_mark: None,
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
        page_mark: None,
        fields: spread
            .into_iter()
            .map(|f| FieldStamp {
                field: f,
                signed_by: None,
                value: Some(StampValue::Typed("Zoë Ångström".into())),
            })
            .collect(),
        signature_page: None,
    };
    group.bench_function("stamp_10_fields", |b| {
        b.iter(|| stamp(black_box(&big), &big_req).expect("stamp"))
    });

    let sealer = LocalSealer::new(
        SigningIdentity::generate_development("Bench")
            .expect("identity")
            .identity,
    );
    let spec = SealSpec {
        name: "Envelope".into(),
        reason: "Signed by all parties via Envelope".into(),
        signing_time: chrono::Utc::now(),
        capacity: sealer.capacity(),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    // Yields the sealed update (what completion stores and the example writes after the
    // original), not the whole file: nothing copies the 24 MB.
    let seal = |prepared: PreparedSeal| {
        let digest = prepared.digest();
        let cms = rt.block_on(sealer.sign(digest)).expect("sign");
        prepared.fill(&cms).expect("fill")
    };
    // The cold path (an original stored without a kept state): the stamps and the seal's field
    // in one update, the original hashed beside it, then sign.
    group.bench_function("stamp_10_fields_and_seal", |b| {
        b.iter(|| seal(pdf::stamp_for_seal(black_box(&big), &big_req, &spec).expect("stamp")))
    });
    // What finalize does for an original stored with its SHA-256 state (issue 31): the state is
    // read back from its record form and checked (length, and the digest it finishes to) in
    // every iteration, then only the update is hashed.
    let (big_sha, big_state) = Sha256State::of(&big);
    group.bench_function("stamp_10_fields_and_seal_from_kept_state", |b| {
        b.iter(|| {
            let hashed = big_state
                .resume(big.len() as u64, &big_sha)
                .expect("the state resumes");
            seal(
                pdf::stamp_for_seal_hashed(black_box(&big), hashed, &big_req, &spec)
                    .expect("stamp"),
            )
        })
    });
    // The seal alone on a finished document (as for the audit trail).
    group.bench_function("seal_only", |b| {
        b.iter(|| seal(pdf::prepare_seal(black_box(&big), &spec).expect("prepare")))
    });
    group.finish();
}

/// Ten signers with non-Latin names and long user agents, and 60 events.
fn sample_trail() -> envelope_core::pdf::AuditTrail {
    use envelope_core::pdf::{AuditEvent, AuditSigner, AuditTrail};
    let t = |m: usize| format!("2025-03-01 09:{:02}:00 UTC", m % 60);
    let ua = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.60 Safari/537.36";
    let signers: Vec<AuditSigner> = (0..10)
        .map(|i| AuditSigner {
            id: format!("sgn_{i:024}"),
            role: "signer".into(),
            name: format!("Łukasz Żółć Дмитрий {i}"),
            email: format!("signer{i}@example.com"),
            locale: None,
            ip_address: Some(format!("203.0.113.{i}")),
            user_agent: Some(ua.into()),
            created_at: t(i),
            sent_at: Some(t(i + 1)),
            viewed_at: Some(t(i + 2)),
            signed_at: Some(t(i + 3)),
            declined_at: None,
            completed_at: Some(t(i + 4)),
            signature: Some(StampValue::Typed(format!("Signer {i}"))),
            reach: Vec::new(),
            kind: None,
            hosted_by: None,
        })
        .collect();
    let events = (0..60)
        .map(|i| AuditEvent {
            at: t(i),
            what: "Signed".into(),
            who: format!("signer{}@example.com", i % 10),
            detail: ua.into(),
        })
        .collect();
    AuditTrail {
        service_name: "Envelope".into(),
        envelope_id: "env_01HZX3Q5P8W9K2M4N6R7T8V9W0".into(),
        envelope_name: "Master services agreement".into(),
        livemode: true,
        status: "completed".into(),
        created_at: t(0),
        sent_at: Some(t(1)),
        completed_at: Some(t(59)),
        signers,
        cc: vec![],
        events,
        original_sha256: "ab".repeat(32),
        signed_sha256: "cd".repeat(32),
        documents: vec![],
        signing_certificate_sha256: Some("ef".repeat(32)),
        seal_levels: None,
        generated_at: "2025-03-01T10:00:00Z".into(),
    }
}

fn audit_trail_bench(c: &mut Criterion) {
    let trail = sample_trail();
    c.bench_function("audit_trail/10_signers_60_events", |b| {
        b.iter(|| envelope_core::pdf::audit_trail(std::hint::black_box(&trail)).unwrap())
    });
}

/// Text in every script (docs/FONTS.md): a typed signature stamped ten times on the contract in
/// each script's face (bidi, face choice, shaping, subsetting, `/ToUnicode` and `/ActualText`),
/// and an audit trail of thirteen signers, one per script. The sizes of the outputs are printed
/// once (what each script's embedded subsets add).
fn scripts_bench(c: &mut Criterion) {
    use envelope_core::pdf::{AuditSigner, audit_trail};
    use envelope_testkit::scripts::NAMES;
    let contract = support::libreoffice_contract(support::Layout::Classic);
    let info = inspect(&contract, &PdfLimits::default()).expect("inspect");
    let mut group = c.benchmark_group("scripts");
    for (script, name) in NAMES {
        let mut req = ten_fields(&info);
        for f in &mut req.fields {
            f.value = Some(StampValue::Typed(name.to_string()));
        }
        let out = stamp(&contract, &req).expect("stamp");
        eprintln!(
            "scripts: {script}: the stamped update is {} bytes",
            out.len() - contract.len()
        );
        if matches!(script, "Latin" | "Arabic" | "Devanagari" | "Chinese") {
            group.bench_function(format!("stamp_10_typed/{script}"), |b| {
                b.iter(|| stamp(black_box(&contract), &req).expect("stamp"))
            });
        }
    }
    let mut trail = sample_trail();
    let first = trail.signers[0].clone();
    trail.signers = NAMES
        .iter()
        .map(|(_, name)| AuditSigner {
            name: name.to_string(),
            signature: Some(StampValue::Typed(name.to_string())),
            ..first.clone()
        })
        .collect();
    eprintln!(
        "scripts: the audit trail of 13 signers is {} bytes",
        audit_trail(&trail).unwrap().len()
    );
    group.bench_function("audit_trail/13_signers_13_scripts", |b| {
        b.iter(|| audit_trail(black_box(&trail)).unwrap())
    });
    group.finish();
}

/// Pictures of pages for the signing page (issue 18): the first page of the one-page contract
/// and of the 200-page document, drawn in this process (`render_page`, what the server's worker
/// runs). With `ENVELOPE_BENCH_DUMP=<dir>` both PDFs are also written there, so that the worker's
/// whole cost (start, read, draw, PNG) and its peak memory can be measured with
/// `/usr/bin/time -v target/release/envelope-server render-page 1 10 1073741824 < <dir>/big.pdf`
/// (docs/SIGNING.md, "Pages as pictures"). Needs the `render` feature (a default one).
#[cfg(feature = "render")]
fn render_bench(c: &mut Criterion) {
    use envelope_core::render::render_page;
    let contract = support::libreoffice_contract(support::Layout::Classic);
    let big = support::big_document(200, 120_000);
    if let Ok(dir) = std::env::var("ENVELOPE_BENCH_DUMP") {
        let dir = std::path::Path::new(&dir);
        std::fs::create_dir_all(dir).expect("dump dir");
        std::fs::write(dir.join("contract.pdf"), &contract).expect("dump");
        std::fs::write(dir.join("big.pdf"), &big).expect("dump");
    }
    let mut group = c.benchmark_group("render");
    group.sample_size(10);
    group.bench_function("contract_1_page", |b| {
        b.iter(|| render_page(black_box(&contract), 1).expect("render"))
    });
    group.bench_function("big_200_pages_first_page", |b| {
        b.iter(|| render_page(black_box(&big), 1).expect("render"))
    });
    group.finish();
}

/// Without the `render` feature there is nothing to draw with.
#[cfg(not(feature = "render"))]
fn render_bench(_: &mut Criterion) {}

criterion_group!(pdf, benches, audit_trail_bench, scripts_bench, render_bench);
criterion_main!(pdf);
