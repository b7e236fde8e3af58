//! Hostile input: the reader, `inspect` and `stamp` must return errors, never panic or hang, on
//! arbitrary and mutated bytes, and on crafted bombs (deep nesting, huge lengths, inflating
//! streams, reference loops).

use envelope_testkit::pdf as support;

use envelope_core::pdf::{
    FieldStamp, Limit, PdfError, PdfLimits, StampRequest, StampValue, inspect, stamp,
};
use proptest::prelude::*;
use support::*;

fn exercise(bytes: &[u8]) {
    if let Ok(info) = inspect(bytes, &PdfLimits::default()) {
        let fields = info
            .fields
            .iter()
            .map(|f| FieldStamp {
                field: f.clone(),
                signed_by: None,
                value: Some(StampValue::Text("x".into())),
            })
            .collect();
        let _ = stamp(
            bytes,
            &StampRequest {
                page_mark: None,
                fields,
                signature_page: None,
            },
        );
    }
}

fn seeds() -> Vec<Vec<u8>> {
    vec![
        libreoffice_contract(Layout::Classic),
        libreoffice_contract(Layout::XrefStream { objstm: true }),
        {
            let mut b = Builder::new();
            document(
                &mut b,
                &[PageSpec::letter(helv_text(
                    10.0,
                    72.0,
                    700.0,
                    "{{signature:A}} {{data:k}}",
                ))],
                "",
                Layout::Classic,
            )
        },
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let mut bytes = b"%PDF-1.7\n".to_vec();
        bytes.extend(tail);
        exercise(&bytes);
    }

    #[test]
    fn mutated_documents_never_panic(
        seed in 0usize..3,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..12),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut bytes = seeds()[seed].clone();
        for (at, byte, kind) in edits {
            let i = at.index(bytes.len());
            match kind {
                0 => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                _ => { bytes.remove(i); }
            }
        }
        exercise(&bytes);
        let keep = cut.index(bytes.len());
        exercise(&bytes[..keep]);
    }
}

#[test]
fn crafted_bombs_are_refused_or_bounded() {
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    // Deep nesting in the catalog and in page content.
    let mut b = Builder::new();
    let deep = format!(
        "<</Type /Catalog /X {}1{}>>",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let root = b.add(deep);
    cases.push(("deep catalog", b.finish(root, Layout::Classic)));
    let mut b = Builder::new();
    let content = format!(
        "{}BT /F1 10 Tf ({{{{text:A}}}}) Tj ET",
        "q ".repeat(100_000)
    );
    cases.push((
        "deep q",
        document(&mut b, &[PageSpec::letter(content)], "", Layout::Classic),
    ));
    // Page content that inflates past the cap: one 1 MB stream listed 80 times.
    let mut b = Builder::new();
    let spaces = vec![b' '; 1 << 20];
    let c = b.stream("/Filter /FlateDecode", &zlib(&spaces));
    let pages = b.reserve();
    let parts = format!("{c} 0 R ").repeat(80);
    let page = b.add(format!(
        "<</Type /Page /Parent {pages} 0 R /Contents [{parts}] /MediaBox [0 0 10 10]>>"
    ));
    b.set(
        pages,
        format!("<</Type /Pages /Kids [{page} 0 R] /Count 1>>"),
    );
    let root = b.add(format!("<</Type /Catalog /Pages {pages} 0 R>>"));
    cases.push(("inflation", b.finish(root, Layout::Classic)));
    // A /Length far past the end, and a /Count that lies.
    let mut b = Builder::new();
    let c = b.add("<</Length 999999999999>>\nstream\nBT ET\nendstream");
    let pages = b.reserve();
    let page = b.add(format!(
        "<</Type /Page /Parent {pages} 0 R /Contents {c} 0 R>>"
    ));
    b.set(
        pages,
        format!("<</Type /Pages /Kids [{page} 0 R] /Count 99999999999>>"),
    );
    let root = b.add(format!("<</Type /Catalog /Pages {pages} 0 R>>"));
    cases.push(("huge length and count", b.finish(root, Layout::Classic)));
    // Self-referencing /Length and /Prev loops.
    let mut b = Builder::new();
    let c = b.reserve();
    b.set(c, format!("<</Length {c} 0 R>>\nstream\nBT ET\nendstream"));
    let pages = b.reserve();
    let page = b.add(format!(
        "<</Type /Page /Parent {pages} 0 R /Contents {c} 0 R>>"
    ));
    b.set(
        pages,
        format!("<</Type /Pages /Kids [{page} 0 R] /Count 1>>"),
    );
    let root = b.add(format!("<</Type /Catalog /Pages {pages} 0 R>>"));
    let mut looped = b.finish(root, Layout::Classic);
    let start = last_startxref(&looped);
    let text = String::from_utf8_lossy(&looped).replace("/Size", &format!("/Prev {start} /Size"));
    looped = text.into_bytes();
    cases.push(("loops", looped));
    // Debug builds are slow: a long deadline makes sure a counter is what stops each case.
    let limits = PdfLimits {
        deadline: std::time::Duration::from_secs(600),
        ..PdfLimits::default()
    };
    for (name, bytes) in cases {
        let r = inspect(&bytes, &limits);
        // Any typed outcome is fine; the point is returning at all, without a panic.
        println!("{name}: {:?}", r.as_ref().map(|i| i.page_count));
        if name == "inflation" {
            assert!(
                matches!(r, Err(PdfError::TooComplex(Limit::StreamBytes(_)))),
                "80 MB of page content is over the 64 MB cap: {r:?}"
            );
        }
        exercise(&bytes);
    }
}
