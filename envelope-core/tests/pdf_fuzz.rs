//! Structure-aware fuzzing of the PDF reader on stable Rust: hostile object graphs
//! (`support::graph`) and mutations of the test corpus go through `inspect` and, when that
//! succeeds, `stamp` of every discovered field. Each case runs on a worker thread with a
//! generous deadline: this is a hang detector, not a timing assertion.
//!
//! CI runs a bounded number of cases from a fixed seed. A longer campaign:
//! `PDF_FUZZ_CASES=20000 PDF_FUZZ_SEED=random cargo test --release -p envelope-core --test pdf_fuzz`
//! (docs/ROBUSTNESS.md, "Fuzzing", lists every knob). A failing case is written to
//! `target/tmp/pdf_fuzz/` as a `.pdf` with a `.txt` describing it.

use envelope_testkit::pdf as support;

#[path = "pdf_fuzz/harness.rs"]
mod harness;
#[path = "pdf_fuzz/mutation.rs"]
mod mutation;

use harness::Campaign;
use support::graph::graph;

/// Cases per campaign in CI (debug build, two cores): together well under a minute.
const GRAPH_CASES: u32 = 400;
const MUTATION_CASES: u32 = 800;
const PICTURE_CASES: u32 = 300;

#[test]
fn hostile_object_graphs_finish_without_panic() {
    let campaign = Campaign::new("graph", GRAPH_CASES);
    let scale = campaign.scale();
    campaign.run(graph(scale), |g| g.to_pdf(), |g| format!("{g:#?}"));
}

#[test]
fn mutated_corpus_documents_finish_without_panic() {
    let corpus = mutation::corpus();
    Campaign::new("mutation", MUTATION_CASES).run(
        mutation::mutations(corpus.len()),
        |m| m.apply(&corpus),
        |m| format!("{m:#?}"),
    );
}

/// Signers' pictures with byte edits (extensions E14): the attachment check (decode, re-encode)
/// returns on each, in plain words, and keeps only what it accepts again.
#[test]
fn mutated_pictures_as_attachments_finish_without_panic() {
    let pictures = mutation::pictures();
    Campaign::new("pictures", PICTURE_CASES).run(
        mutation::mutations(pictures.len()),
        |m| m.apply(&pictures),
        |m| format!("{m:#?}"),
    );
}

/// The minimal inputs earlier campaigns found (tests/pdf_fuzz/seeds/, README there).
#[test]
fn saved_seeds_finish_without_panic() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pdf_fuzz/seeds");
    Campaign::new("seeds", 0).replay(&dir);
}
