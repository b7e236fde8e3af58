//! Mutations of the test corpus (the valid documents `support` builds): byte edits as in
//! pdf_robustness.rs, plus edits that know PDF syntax: a number token replaced by a hostile one,
//! a keyword spoiled, a hostile snippet injected, a slice duplicated, the tail cut.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::Index;

use crate::support::graph::write::num_str;
use crate::support::graph::{Num, num};
use crate::support::*;

/// Snippets that reach the reader's bounds when put anywhere in a file.
const SNIPPETS: &[&str] = &[
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    "<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<",
    " 1 0 R ",
    " 4294967295 65535 R ",
    "/Length 1 0 R",
    "/Prev 0",
    "/Kids [1 0 R 1 0 R 1 0 R]",
    "/XObject <</X0 1 0 R>>",
    "{{signature:A}}",
    "{{attachment:A}}",
    "/Names <</EmbeddedFiles <</Kids [1 0 R 1 0 R]>>>>",
    "q q q q q q q q",
    "endstream",
    "stream\n",
    "endobj",
    "trailer <</Root 1 0 R>>",
    "xref\n0 4294967295\n",
    "beginbfrange <0000> <FFFF> <0041> endbfrange",
];

const KEYWORDS: &[&str] = &[
    "obj",
    "endobj",
    "stream",
    "endstream",
    "xref",
    "trailer",
    "startxref",
    " R",
    "/Root",
    "/Pages",
    "/Kids",
    "/Contents",
    "/Length",
    "/Filter",
    "/Prev",
    "/Type",
];

/// One edit.
#[derive(Debug, Clone)]
pub enum Edit {
    /// 0: overwrite, 1: insert, 2: delete.
    Byte(Index, u8, u8),
    /// The n-th run of digits replaced.
    Number(Index, Num),
    /// The n-th occurrence of a keyword spoiled (its last byte changed).
    Keyword(usize, Index),
    Snippet(usize, Index),
    /// `len` bytes from one place copied to another.
    Duplicate(Index, Index, u16),
    Truncate(Index),
}

/// A corpus document and the edits applied to it in order.
#[derive(Debug, Clone)]
pub struct Mutation {
    pub seed: usize,
    pub edits: Vec<Edit>,
}

/// The valid documents the mutations start from.
pub fn corpus() -> Vec<Vec<u8>> {
    let contract = libreoffice_contract(Layout::Classic);
    let mut b = Builder::new();
    let tagged = document(
        &mut b,
        &[
            PageSpec::letter(helv_text(10.0, 72.0, 700.0, "{{signature:A}} {{data:k}}")),
            PageSpec::letter(helv_text(
                10.0,
                72.0,
                600.0,
                "{{text:B:name}} {{checkbox:B}}",
            )),
        ],
        "",
        Layout::XrefStream { objstm: false },
    );
    // A file to take signers' attachments (extensions E14): an attachment tag, and embedded
    // files of its own whose name tree the stamper reads back and extends.
    let mut b = Builder::new();
    let spec = b.add("<</Type /Filespec /F (own.txt) /EF <</F 1 0 R>>>>");
    let tree = b.add(format!(
        "<</Kids [<</Names [(own.txt) {spec} 0 R] /Limits [(own.txt) (own.txt)]>>]>>"
    ));
    let with_files = document(
        &mut b,
        &[PageSpec::letter(helv_text(
            10.0,
            72.0,
            700.0,
            "{{signature:A}} {{attachment:A}}",
        ))],
        &format!("/Names <</EmbeddedFiles {tree} 0 R>>"),
        Layout::Classic,
    );
    let updated = append_update(
        &contract,
        &[(
            999,
            b"<</Type /Font /Subtype /Type1 /BaseFont /Helvetica>>".to_vec(),
        )],
        root_of(&contract),
    );
    vec![
        contract,
        libreoffice_contract(Layout::XrefStream { objstm: true }),
        form_pdf(0),
        form_pdf(90),
        tagged,
        updated,
        shift_offsets(&form_pdf(0)),
        with_files,
    ]
}

/// Pictures as phones and scanners send them, for the attachment check (extensions E14): a
/// PNG with alpha, a gray PNG, a JPEG; each a few kilobytes, so that byte edits reach headers,
/// chunk lengths and Huffman tables alike.
pub fn pictures() -> Vec<Vec<u8>> {
    use image::{DynamicImage, ImageFormat};
    let encode = |img: DynamicImage, format: ImageFormat| {
        let mut out = Vec::new();
        img.write_to(&mut std::io::Cursor::new(&mut out), format)
            .expect("a picture in memory encodes");
        out
    };
    let rgba = image::RgbaImage::from_fn(40, 24, |x, y| {
        image::Rgba([x as u8 * 6, y as u8 * 9, 80, 200])
    });
    let gray = image::GrayImage::from_fn(33, 17, |x, y| image::Luma([(x * y) as u8]));
    let rgb = image::RgbImage::from_fn(48, 32, |x, y| image::Rgb([x as u8 * 5, 120, y as u8 * 7]));
    vec![
        encode(DynamicImage::ImageRgba8(rgba), ImageFormat::Png),
        encode(DynamicImage::ImageLuma8(gray), ImageFormat::Png),
        encode(DynamicImage::ImageRgb8(rgb), ImageFormat::Jpeg),
    ]
}

/// The catalog's object number in a file the builder wrote (its `/Root` entry).
fn root_of(bytes: &[u8]) -> u32 {
    let at = bytes.windows(5).rposition(|w| w == b"/Root").unwrap_or(0);
    let s = String::from_utf8_lossy(&bytes[at + 5..(at + 20).min(bytes.len())]).into_owned();
    s.split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1)
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<Index>(), any::<u8>(), 0u8..3).prop_map(|(i, b, k)| Edit::Byte(i, b, k)),
        4 => (any::<Index>(), num()).prop_map(|(i, n)| Edit::Number(i, n)),
        2 => (0..KEYWORDS.len(), any::<Index>()).prop_map(|(k, i)| Edit::Keyword(k, i)),
        2 => (0..SNIPPETS.len(), any::<Index>()).prop_map(|(s, i)| Edit::Snippet(s, i)),
        1 => (any::<Index>(), any::<Index>(), any::<u16>()).prop_map(|(a, b, n)| Edit::Duplicate(a, b, n)),
        1 => any::<Index>().prop_map(Edit::Truncate),
    ]
}

pub fn mutations(corpus_len: usize) -> impl Strategy<Value = Mutation> {
    (0..corpus_len, vec(edit(), 1..6)).prop_map(|(seed, edits)| Mutation { seed, edits })
}

fn occurrences(bytes: &[u8], needle: &[u8]) -> Vec<usize> {
    bytes
        .windows(needle.len())
        .enumerate()
        .filter(|(_, w)| *w == needle)
        .map(|(i, _)| i)
        .collect()
}

/// Start and end of every run of ASCII digits.
fn digit_runs(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            runs.push((start, i));
        } else {
            i += 1;
        }
    }
    runs
}

impl Mutation {
    pub fn apply(&self, corpus: &[Vec<u8>]) -> Vec<u8> {
        let mut bytes = corpus[self.seed].clone();
        for e in &self.edits {
            match e {
                Edit::Byte(at, byte, kind) => {
                    let i = at.index(bytes.len().max(1));
                    match (kind, i < bytes.len()) {
                        (0, true) => bytes[i] = *byte,
                        (2, true) => {
                            bytes.remove(i);
                        }
                        _ => bytes.insert(i.min(bytes.len()), *byte),
                    }
                }
                Edit::Number(which, n) => {
                    let runs = digit_runs(&bytes);
                    if !runs.is_empty() {
                        let (s, e) = runs[which.index(runs.len())];
                        bytes.splice(s..e, num_str(n).into_bytes());
                    }
                }
                Edit::Keyword(k, which) => {
                    let found = occurrences(&bytes, KEYWORDS[*k].as_bytes());
                    if !found.is_empty() {
                        let at = found[which.index(found.len())] + KEYWORDS[*k].len() - 1;
                        bytes[at] = b'_';
                    }
                }
                Edit::Snippet(s, at) => {
                    let i = at.index(bytes.len() + 1);
                    bytes.splice(i..i, SNIPPETS[*s].bytes());
                }
                Edit::Duplicate(from, to, len) => {
                    let from = from.index(bytes.len().max(1));
                    let end = (from + usize::from(*len)).min(bytes.len());
                    let piece = bytes.get(from..end).unwrap_or_default().to_vec();
                    let to = to.index(bytes.len() + 1);
                    bytes.splice(to..to, piece);
                }
                Edit::Truncate(at) => bytes.truncate(at.index(bytes.len() + 1)),
            }
        }
        bytes
    }
}
