//! What an envelope GET costs above the network and the database:
//! `cargo bench -p envelope-core --bench records`.
//!
//! The record is the one the load bench stores (`benches/load.rs`: a one-page contract sent to
//! one signer, two placed fields, one email sent), kept in `benches/data/envelope-record.json`
//! and written back in today's stored form before it is measured. Three steps, each timed
//! alone: decoding the stored JSON (what the SQLite and PostgreSQL stores do per read), making
//! the wire envelope and serializing it (the answer), and encoding the record (every write).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use envelope_core::model::EnvelopeRecord;

fn stored_record() -> String {
    let fixture = include_str!("data/envelope-record.json");
    let rec: EnvelopeRecord = serde_json::from_str(fixture).expect("the fixture is a record");
    serde_json::to_string(&rec).expect("a record serializes")
}

fn records(c: &mut Criterion) {
    let stored = stored_record();
    let rec: EnvelopeRecord = serde_json::from_str(&stored).unwrap();
    let mut g = c.benchmark_group("envelope record");
    g.bench_function("decode the stored JSON", |b| {
        b.iter(|| serde_json::from_str::<EnvelopeRecord>(black_box(&stored)).unwrap())
    });
    g.bench_function("view and serialize the answer", |b| {
        b.iter(|| serde_json::to_vec(&black_box(&rec).view()).unwrap())
    });
    g.bench_function("encode the stored JSON", |b| {
        b.iter(|| serde_json::to_string(black_box(&rec)).unwrap())
    });
    g.finish();
}

criterion_group!(benches, records);
criterion_main!(benches);
