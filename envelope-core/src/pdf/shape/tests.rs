use super::*;

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
        library().cjk_file.is_some(),
        "Noto Sans CJK is not installed: scripts/install-test-deps.sh installs it"
    );
    let line = set("李明 Li", Style::Regular);
    assert_eq!(faces(&line), ["NotoSansCJKsc-Regular", "DejaVuSans"]);
    assert_eq!(texts(&line).concat(), "李明 Li");
}

#[test]
fn bold_text_falls_back_to_a_regular_face_rather_than_a_box() {
    let lib = library();
    let regular = lib.face(lib.dejavu(false).unwrap());
    let c = (0x100u32..0x10000)
        .filter_map(char::from_u32)
        .find(|&c| {
            !extends(c)
                && regular.glyph(c).is_some()
                && lib.bold.iter().all(|&f| lib.face(f).glyph(c).is_none())
        })
        .expect("a character only the regular face has");
    let line = set(&c.to_string(), Style::Bold);
    assert_eq!(faces(&line), ["DejaVuSans"], "{c:?}");
    assert_ne!(line.glyphs[0].gid, 0);
}

#[test]
fn every_cluster_keeps_its_text_and_no_glyph_is_lost() {
    for (script, name) in envelope_testkit::scripts::NAMES {
        for style in [Style::Regular, Style::Bold, Style::Script] {
            let line = set(name, style);
            // Every character is in exactly one cluster.
            let total: usize = line.clusters.iter().map(|c| c.text.chars().count()).sum();
            assert_eq!(total, name.chars().count(), "{script} {style:?}");
            let covered: usize = line.clusters.iter().map(|c| c.glyphs.len()).sum();
            assert_eq!(covered, line.glyphs.len(), "{script} {style:?}");
            assert!(
                line.glyphs.iter().all(|g| g.gid != 0),
                "{script} {style:?}: .notdef"
            );
        }
    }
}

/// Characters from the scripts the faces cover, the marks and joiners that attach to them, and
/// characters none covers, in any order.
fn any_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let pieces = prop_oneof![
        any::<char>(),
        proptest::char::range('\u{0600}', '\u{06FF}'),
        proptest::char::range('\u{0590}', '\u{05FF}'),
        proptest::char::range('\u{0900}', '\u{097F}'),
        proptest::char::range('\u{0E00}', '\u{0E7F}'),
        proptest::char::range('\u{4E00}', '\u{4FFF}'),
        proptest::char::range('\u{AC00}', '\u{ACFF}'),
        proptest::char::range('\u{0300}', '\u{036F}'),
        Just('\u{200C}'),
        Just('\u{200D}'),
        Just(' '),
        proptest::char::range('a', 'z'),
    ];
    proptest::collection::vec(pieces, 0..120).prop_map(|v| v.into_iter().collect())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Whatever the text, setting it ends, every character is in exactly one cluster, every
    /// glyph in one cluster, and the line's width is the sum of its advances (finite).
    #[test]
    fn any_text_is_set_whole(text in any_text()) {
        for style in [Style::Regular, Style::Bold, Style::Script] {
            let line = set(&text, style);
            let chars: usize = line.clusters.iter().map(|c| c.text.chars().count()).sum();
            proptest::prop_assert_eq!(chars, text.chars().count());
            let glyphs: usize = line.clusters.iter().map(|c| c.glyphs.len()).sum();
            proptest::prop_assert_eq!(glyphs, line.glyphs.len());
            proptest::prop_assert!(line.width.is_finite());
            let mut texts = GlyphTexts::default();
            for c in &line.clusters {
                let codes: Vec<_> = line.glyphs[c.glyphs.clone()].iter().map(|g| (g.face, g.gid)).collect();
                texts.record(c, &codes);
            }
        }
    }
}

#[test]
fn noto_sans_cjk_is_read_by_the_first_cjk_character_only() {
    let file = library()
        .cjk_file
        .clone()
        .expect("Noto Sans CJK is not installed: scripts/install-test-deps.sh installs it");
    // A library of its own, so that what other tests drew does not count.
    let lib = Library::load(&[file.parent().unwrap().to_path_buf()]);
    let read = |lib: &Library| lib.cjk[0].as_ref().unwrap().face.get().is_some();
    assert!(!read(&lib), "read at start");
    assert!(!lib.covers('\u{1F680}'), "an emoji is in no face");
    assert!(lib.covers('Ж') && lib.covers('ש'));
    assert!(
        !read(&lib),
        "read for characters other faces have, or that are not CJK"
    );
    assert!(lib.covers('李'));
    assert!(read(&lib));
}

/// The longest text values a signer may send (`values::MAX_TEXT`, 1,000 characters) in the
/// shapes that cost the most to set: a new piece at every character (scripts and directions
/// alternating, so bidi runs, faces and shaping calls are as many as the characters), and one
/// cluster of a base with 999 marks. Both are set whole, each character in one cluster.
#[test]
fn the_longest_hostile_values_are_set_whole() {
    let alternating: String = "aبकש李ก".chars().cycle().take(1000).collect();
    let marks: String = std::iter::once('a')
        .chain(std::iter::repeat_n('\u{0301}', 999))
        .collect();
    for text in [alternating, marks] {
        let line = set(&text, Style::Regular);
        let chars: usize = line.clusters.iter().map(|c| c.text.chars().count()).sum();
        assert_eq!(chars, 1000);
        assert!(line.width.is_finite() && line.width > 0.0);
    }
}
