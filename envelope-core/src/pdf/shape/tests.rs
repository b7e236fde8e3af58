use super::*;

/// A name per script (the ten and more), as typed: the tests of the stamper, the audit
/// trail and the HTTP suite read each back from the PDFs.
pub(crate) const SCRIPT_NAMES: [(&str, &str); 13] = [
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
pub(crate) fn times_read(extracted: &str, name: &str) -> usize {
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

fn faces(line: &Line) -> Vec<String> {
    line.faces()
        .map(|f| library().face(f).name.clone())
        .collect()
}

/// The clusters' texts in visual order.
fn texts(line: &Line) -> Vec<&str> {
    line.clusters.iter().map(|c| c.text.as_str()).collect()
}

#[test]
fn latin_is_one_dejavu_run_in_order() {
    let line = set("Zoë Ångström", Style::Regular);
    assert_eq!(faces(&line), ["DejaVuSans"]);
    assert_eq!(texts(&line).concat(), "Zoë Ångström");
    assert!(line.width > 0.0);
}

#[test]
fn arabic_is_shaped_right_to_left_in_its_own_face() {
    let text = "محمد";
    let line = set(text, Style::Regular);
    assert_eq!(faces(&line), ["NotoSansArabic-Regular"]);
    // Visual order: the last letter comes first.
    assert_eq!(texts(&line), ["د", "م", "ح", "م"]);
    // Joined forms, not the isolated letters of the cmap.
    let face = library().face(line.glyphs[0].face);
    let isolated: Vec<u16> = text.chars().rev().filter_map(|c| face.glyph(c)).collect();
    let drawn: Vec<u16> = line.glyphs.iter().map(|g| g.gid).collect();
    assert_ne!(drawn, isolated);
}

#[test]
fn lam_alef_is_one_glyph_for_two_characters() {
    let line = set("لا", Style::Regular);
    assert_eq!(line.glyphs.len(), 1);
    assert_eq!(texts(&line), ["لا"]);
}

#[test]
fn mixed_line_keeps_the_latin_label_first() {
    let line = set("Signed by: שרה כהן", Style::Regular);
    assert_eq!(faces(&line), ["DejaVuSans", "NotoSansHebrew-Regular"]);
    let t = texts(&line).concat();
    assert!(t.starts_with("Signed by: "), "{t}");
    // The Hebrew words come out in visual order: the second word first.
    assert!(t.ends_with("ןהכ הרש") || t.contains("כהן"), "{t}");
}

#[test]
fn devanagari_vowel_sign_i_is_drawn_before_its_consonant_in_one_cluster() {
    let line = set("कि", Style::Regular);
    assert_eq!(faces(&line), ["NotoSansDevanagari-Regular"]);
    assert_eq!(line.clusters.len(), 1);
    assert_eq!(line.clusters[0].text, "कि");
    assert_eq!(line.glyphs.len(), 2);
}

#[test]
fn thai_uses_its_face() {
    let line = set("สมชาย", Style::Bold);
    assert_eq!(faces(&line), ["NotoSansThai-Bold"]);
    assert_eq!(texts(&line).concat(), "สมชาย");
}

#[test]
fn script_style_is_kristi_only_when_it_has_every_character() {
    let k = set("Jane Doe", Style::Script);
    assert_eq!(faces(&k), ["Kristi"]);
    assert!(!k.slant);
    let d = set("Łukasz", Style::Script);
    assert_eq!(faces(&d), ["DejaVuSans"]);
    assert!(d.slant);
    let a = set("علي", Style::Script);
    assert_eq!(faces(&a), ["NotoSansArabic-Regular"]);
    assert!(!a.slant);
}

#[test]
fn cjk_uses_noto_sans_cjk_when_installed() {
    assert!(
        library().has_cjk(),
        "Noto Sans CJK is not installed: scripts/install-test-deps.sh installs it"
    );
    let line = set("李明 Li", Style::Regular);
    assert_eq!(faces(&line), ["NotoSansCJKsc-Regular", "DejaVuSans"]);
    assert_eq!(texts(&line).concat(), "李明 Li");
}
