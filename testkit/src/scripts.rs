//! Names in every script, and how to find them in `pdftotext`'s output: shared by the stamper's,
//! the audit trail's and the HTTP suite's tests of text set in every script (docs/FONTS.md).

/// A name per script (thirteen, from Latin to Thai, one mixing two directions), as typed: the tests of the stamper, the audit
/// trail and the HTTP suite read each back from the PDFs.
pub const NAMES: [(&str, &str); 13] = [
    ("Latin", "Zoë Ångström-Øyen"),
    ("Latin Extended", "Łukasz Żółć"),
    ("Vietnamese", "Nguyễn Thị Minh Khai"),
    ("Greek", "Ελένη Παπαδοπούλου"),
    ("Cyrillic", "Дмитрий Шостакович"),
    ("Chinese", "李明华"),
    ("Japanese", "山田 さくら カタカナ"),
    ("Korean", "김민준"),
    ("Arabic", "محمد عبد الله"),
    ("Hebrew", "שרה כהן"),
    ("Devanagari", "प्रिया शर्मा"),
    ("Thai", "สมชาย ใจดี"),
    ("Arabic and Latin", "Layla ليلى Haddad"),
];

/// How many times `extracted` (pdftotext's output) holds `name` as typed. poppler wraps a
/// right-to-left run of a left-to-right line in embedding marks (U+202B ... U+202C) and moves the
/// space after the run inside it: the marks are dropped, whitespace runs count as one space, and
/// for a name that mixes directions, spaces are not compared.
pub fn times_read(extracted: &str, name: &str) -> usize {
    let unmarked: String = extracted
        .chars()
        .filter(|c| !matches!(u32::from(*c), 0x200E | 0x200F | 0x202A..=0x202E | 0x2066..=0x2069))
        .collect();
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let rtl = |c: char| matches!(u32::from(c), 0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF);
    let mixed = name.chars().any(rtl) && name.chars().any(|c| c.is_alphabetic() && !rtl(c));
    if mixed {
        let bare = |s: &str| s.split_whitespace().collect::<String>();
        bare(&unmarked).matches(&bare(name)).count()
    } else {
        squash(&unmarked).matches(&squash(name)).count()
    }
}
