//! Signatures that look like signatures: a text tag's signature is drawn at least as tall as the
//! line of text around it, grown into the free space above the tag, and never over the page's
//! words. Measured in the signed copy with `pdftotext -bbox` (poppler: a missing tool fails the
//! test), on the README's contract and on a tag in a tight table.

use envelope_testkit::pdf::{self as support, Builder, Layout, PageSpec, document, helv_text};

use envelope_core::field::FieldType;
use envelope_core::pdf::{
    FieldStamp, PdfLimits, SignedBy, StampRequest, StampValue, inspect, stamp,
};

/// Every signature and initials tag signed with `name` in its "Signed by" frame.
fn sign(pdf: &[u8], name: &str) -> Vec<u8> {
    let info = inspect(pdf, &PdfLimits::default()).expect("inspect");
    let fields = info
        .fields
        .iter()
        .map(|f| {
            let marked = matches!(f.field.kind, FieldType::Signature | FieldType::Initials);
            FieldStamp {
                field: f.clone(),
                value: marked.then(|| StampValue::Typed(name.to_string())),
                signed_by: marked.then(|| SignedBy {
                    name: name.to_string(),
                    reference: "3f2a9c1e".into(),
                }),
            }
        })
        .collect();
    let signed = stamp(
        pdf,
        &StampRequest {
            page_mark: None,
            fields,
            signature_page: None,
        },
    )
    .expect("stamp");
    support::qpdf_check(&signed);
    signed
}

#[derive(Debug, Clone, PartialEq)]
struct Word {
    text: String,
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Word {
    fn height(&self) -> f64 {
        self.y1 - self.y0
    }

    fn overlaps(&self, o: &Word) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }
}

/// Word boxes from `pdftotext -bbox` (top-left origin; every page is one here).
fn words(pdf: &[u8]) -> Vec<Word> {
    support::words(pdf)
        .into_iter()
        .map(|(text, x0, y0, x1, y1)| Word {
            text,
            x0,
            y0,
            x1,
            y1,
        })
        .collect()
}

/// The tallest drawing of `word` in the signed copy (the signature, not the frame's small
/// "Signed by" label), checked against the line it sits on and the page's own words.
fn check_signature(original: &[u8], signed: &[u8], word: &str, line_word: &str) -> Word {
    let before = words(original);
    let after = words(signed);
    let signature = after
        .iter()
        .filter(|w| w.text == word)
        .max_by(|a, b| a.height().total_cmp(&b.height()))
        .unwrap_or_else(|| panic!("no '{word}' in the signed copy: {after:?}"))
        .clone();
    let line = before
        .iter()
        .find(|w| w.text == line_word)
        .unwrap_or_else(|| panic!("no '{line_word}' in the original"));
    assert!(
        signature.height() >= line.height(),
        "the signature ({signature:?}) is shorter than its line ({line:?})"
    );
    for w in before.iter().filter(|w| !w.text.contains("{{")) {
        assert!(
            !signature.overlaps(w),
            "the signature {signature:?} covers the page's word {w:?}"
        );
    }
    signature
}

#[test]
fn the_readme_contract_gets_a_signature_taller_than_its_line() {
    let original = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/contract.pdf"
    ))
    .unwrap();
    let signed = sign(&original, "Ada Lovelace");
    if std::env::var_os("ENVELOPE_UPDATE_SCREENSHOTS").is_some() {
        // docs/PDF.md shows the signature line of the signed copy, at 150 dpi.
        let png = std::env::var("ENVELOPE_SIGNATURE_PNG").unwrap_or_else(|_| {
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../docs/screenshots/signature-size.png"
            )
            .into()
        });
        let dir = tempfile::tempdir().unwrap();
        let pdf = dir.path().join("signed.pdf");
        std::fs::write(&pdf, &signed).unwrap();
        let out = std::process::Command::new("pdftoppm")
            .args(["-png", "-singlefile", "-f", "1", "-l", "1", "-r", "150"])
            .args(["-x", "125", "-y", "290", "-W", "560", "-H", "160"])
            .arg(&pdf)
            .arg(png.trim_end_matches(".png"))
            .status()
            .unwrap();
        assert!(out.success());
    }
    let signature = check_signature(&original, &signed, "Lovelace", "signature:");
    // "Client signature:" is a 10-point line; free space above lets the signature be about two
    // lines tall inside its frame.
    assert!(signature.height() >= 15.0, "{signature:?}");
}

#[test]
fn a_tag_in_a_tight_table_cell_stays_in_its_cell() {
    // A table with 10-point text in rows 13 points apart: a signature cell with text right
    // above it, a date cell right beside it, a row right under it.
    let mut content = String::new();
    let rows = [
        (700.0, ["Party", "Name", "Date"]),
        (687.0, ["Client", "{{signature:Client}}", "2027-03-10"]),
        (674.0, ["Provider", "Grace Hopper", "2027-03-11"]),
    ];
    for (y, cells) in rows {
        for (x, cell) in [72.0, 140.0, 245.0].into_iter().zip(cells) {
            content.push_str(&helv_text(10.0, x, y, cell));
        }
    }
    content.push_str(&helv_text(10.0, 140.0, 713.0, "Signatures of the parties"));
    let original = document(
        &mut Builder::new(),
        &[PageSpec::letter(content)],
        "",
        Layout::Classic,
    );
    let signed = sign(&original, "Ada Lovelace");
    check_signature(&original, &signed, "Lovelace", "Client");
}
