//! The audit trail document: an A4 PDF listing the envelope, every signer, every event and the
//! SHA-256 digests of the original and signed documents (decisions.md).
//!
//! Layout is done here by hand on top of printpdf's page operations: printpdf (built without its
//! `text_layout` feature) neither wraps nor paginates. Text is set by
//! [`shape`](super::shape) (bidi, per-cluster face choice, HarfBuzz shaping) and measured as set;
//! every value is wrapped inside its column; words wider than a column are broken between
//! clusters. Page breaks repeat the event table's header row.
//!
//! Fonts: the faces of `shape` (DejaVu Sans and its bold, Noto Sans for Arabic, Hebrew,
//! Devanagari and Thai, Noto Sans CJK when the machine has it; docs/FONTS.md), each subset by the
//! `subsetter` crate to the glyphs drawn and embedded as an Identity-H CID font. The content
//! streams carry the subsets' glyph ids (printpdf `GlyphIds`), positioned where the shaper put
//! them; a cluster's text reaches extraction through the `/ToUnicode` map when its one glyph
//! explains it, and through an `/ActualText` span otherwise (`shape::GlyphTexts`), so names in
//! every script, right to left included, are extracted as typed.
//!
//! Each signer's entry shows their signature as it was stamped: a typed one in Kristi (the
//! stamper's [`SIGNATURE_FONT`](super::SIGNATURE_FONT), sized by the stamper's rule
//! [`fit_size`](super::draw::fit_size); in the regular faces when Kristi lacks one of its
//! characters), a drawn one as an image XObject made by `pdf/image.rs` and scaled into the box
//! keeping its proportions.
//!
//! Characters no face has (private-use ones, or CJK on a machine without Noto Sans CJK) are
//! never drawn as a wrong or invisible glyph: each run of them is shown as its code points,
//! `[U+E000 U+E001]`, and the document then ends with a note that says so.
//!
//! Determinism: the same [`AuditTrail`] gives the same bytes. Font resource names are fixed,
//! the document dates come from `generated_at`, and the trailer `/ID` (which printpdf fills

mod finish;
mod fonts;
mod layout;
mod sections;

use printpdf::{
    Mm, ParsedFont, PdfDocument, PdfFont, PdfPage, PdfParseErrorSeverity, PdfSaveOptions, XObject,
};

use self::finish::{drop_pdfx_claim, set_document_id};
use self::fonts::{font_id, forget_widths, subset_tag};
use self::layout::Writer;
use super::{AuditTrail, PdfError};

/// Renders the audit trail. See the module documentation.
pub(super) fn render(trail: &AuditTrail) -> Result<Vec<u8>, PdfError> {
    let generated = chrono::DateTime::parse_from_rfc3339(&trail.generated_at).map_err(|e| {
        PdfError::InvalidValue {
            key: "generated_at".into(),
            reason: format!("not an RFC 3339 time: {e}"),
        }
    })?;
    let generated =
        printpdf::OffsetDateTime::from_unix_timestamp(generated.timestamp()).map_err(|e| {
            PdfError::InvalidValue {
                key: "generated_at".into(),
                reason: e.to_string(),
            }
        })?;

    forget_widths();
    let mut w = Writer::new();
    w.title(trail);
    w.envelope(trail);
    w.signers(trail)?;
    w.copies(trail);
    w.events(trail);
    w.integrity(trail);
    if w.replaced {
        w.paragraph(
            "Note: characters that the embedded fonts cannot display (for example private-use \
             characters) are shown as their Unicode code points in square brackets, such as \
             [U+E000].",
        );
    }
    w.footers(trail);

    let mut doc = PdfDocument::new(&format!("Audit trail — {}", trail.envelope_name));
    let info = &mut doc.metadata.info;
    info.creation_date = generated;
    info.modification_date = generated;
    info.metadata_date = generated;
    info.author = trail.service_name.clone();
    info.creator = trail.service_name.clone();
    info.producer = "envelope-core".into();
    info.subject = format!("Audit trail of envelope {}", trail.envelope_id);

    for (&face, remapper) in &w.used {
        let lib = crate::pdf::shape::library();
        let file = lib.face(face);
        let bytes = subsetter::subset(file.data, file.index, remapper).map_err(|e| {
            PdfError::Invalid(format!("audit trail: cannot subset {}: {e}", file.name))
        })?;
        let mut warnings = Vec::new();
        let mut parsed = ParsedFont::from_bytes(&bytes, 0, &mut warnings).ok_or_else(|| {
            PdfError::Invalid(format!("audit trail: subset of {} unreadable", file.name))
        })?;
        parsed.font_name = Some(format!("{}+{}", subset_tag(face, remapper), file.name));
        doc.resources
            .fonts
            .map
            .insert(font_id(face), PdfFont::new(parsed));
    }
    for (id, image) in std::mem::take(&mut w.images) {
        doc.resources
            .xobjects
            .map
            .insert(id, XObject::External(image));
    }
    doc.pages = w
        .pages
        .into_iter()
        .map(|ops| PdfPage::new(Mm(210.0), Mm(297.0), ops))
        .collect();

    let mut warnings = Vec::new();
    let opts = PdfSaveOptions {
        subset_fonts: false,
        image_optimization: None,
        ..PdfSaveOptions::default()
    };
    let mut bytes = doc.save(&opts, &mut warnings);
    if let Some(e) = warnings
        .iter()
        .find(|m| m.severity == PdfParseErrorSeverity::Error)
    {
        return Err(PdfError::Invalid(format!(
            "audit trail rendering failed: {}",
            e.msg
        )));
    }
    drop_pdfx_claim(&mut bytes);
    set_document_id(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};
    use std::process::Command;

    use super::fonts::Style;
    use super::layout::{MARGIN_X, PAGE_H, PAGE_W};
    use super::*;
    use crate::pdf::{AuditEvent, AuditSigner, StampValue, audit_trail};

    const NAMES: [&str; 10] = [
        "Łukasz Żółć",
        "Дмитрий Шостакович",
        "李雷 \u{E000}",
        "Ελένη Παπαδοπούλου",
        "Zoë Ångström-Øyen",
        "José María Müller-Lüdenscheidt",
        "Søren Kierkegaard Bartholomew Fitzgerald-Montgomery Vanderbilt-Rothschild the Third",
        "Ana Đorđević",
        "Ngô Bảo Châu",
        "O'Brien, Siobhán",
    ];

    /// How a name is expected to read in the extracted text (a private-use character, which
    /// no face draws, is shown as its code point).
    fn shown(name: &str) -> String {
        name.replace('\u{E000}', "[U+E000]")
    }

    fn sample() -> AuditTrail {
        let t = |m: u32| format!("2025-03-01T{:02}:{:02}:{:02}Z", 9 + m / 60, m % 60, m % 7);
        let signers: Vec<AuditSigner> = NAMES
            .iter()
            .enumerate()
            .map(|(i, name)| AuditSigner {
                id: format!("sgn_{:024x}", 0xabc0_0000u64 + i as u64),
                role: if i % 3 == 0 { "approver" } else { "signer" }.into(),
                name: name.to_string(),
                email: format!("signer.number-{i}@very-long-subdomain.example-company.co.uk"),
                locale: (i % 5 == 1).then(|| "pt-BR".to_string()),
                ip_address: Some(if i % 2 == 0 {
                    format!("203.0.113.{}", 10 + i)
                } else {
                    format!("2001:db8:85a3:0:0:8a2e:370:{:x}", 0x7330 + i)
                }),
                user_agent: Some(format!(
                    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like \
                     Gecko) Chrome/124.0.6367.{i} Safari/537.36 Edg/124.0.2478.{i} \
                     SomeEmbeddedWebView/1.{i};ExtraTokenWithoutAnySpacesAtAllThatIsVeryLongIndeed{i}"
                )),
                created_at: t(i as u32),
                sent_at: Some(t(i as u32 + 1)),
                viewed_at: (i % 4 != 3).then(|| t(i as u32 + 10)),
                signed_at: (i % 4 < 2).then(|| t(i as u32 + 20)),
                declined_at: (i % 4 == 2).then(|| t(i as u32 + 21)),
                completed_at: (i % 4 < 2).then(|| t(i as u32 + 30)),
                // Typed (in Kristi or, for names it lacks, DejaVu) and drawn signatures.
                signature: match i % 4 {
                    0 => Some(StampValue::Typed(name.to_string())),
                    1 => Some(StampValue::Drawn(stroke_png())),
                    _ => None,
                },
                reach: vec![(
                    "Signing links".into(),
                    "1 emailed, 0 issued through the API".into(),
                )],
                kind: None,
                hosted_by: None,
            })
            .collect();
        let mut events = Vec::new();
        for (i, s) in signers.iter().enumerate() {
            for (k, what) in [
                "sent",
                "viewed",
                "signed",
                "declined",
                "completed",
                "reminded",
            ]
            .iter()
            .enumerate()
            {
                events.push(AuditEvent {
                    at: t((i * 6 + k) as u32),
                    what: format!("signer.{what}"),
                    who: format!("{} <{}>", s.name, s.email),
                    detail: format!(
                        "ip {} — {}",
                        s.ip_address.as_deref().unwrap_or("-"),
                        s.user_agent.as_deref().unwrap_or("-")
                    ),
                });
            }
        }
        AuditTrail {
            service_name: "Envelope Signing Service (staging)".into(),
            envelope_id: "env_01HZX3Q5P8W9K2M4N6R7T8V9W0".into(),
            envelope_name: "Master services agreement — Łódź office, 2025 renewal".into(),
            livemode: false,
            status: "completed".into(),
            created_at: t(0),
            sent_at: Some(t(1)),
            completed_at: None,
            signers,
            cc: vec![(
                "rcp_8Jq2".into(),
                "Carla Copy".into(),
                "carla@example.org".into(),
            )],
            events,
            original_sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
                .into(),
            signed_sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
                .into(),
            documents: Vec::new(),
            signing_certificate_sha256: Some(
                "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8".into(),
            ),
            seal_levels: None,
            generated_at: "2025-03-01T12:30:00+01:00".into(),
        }
    }

    /// Runs a PDF tool; a missing tool fails the test (never a silent pass).
    fn run(tool: &str, args: &[&str]) -> std::process::Output {
        match Command::new(tool).args(args).output() {
            Ok(out) => out,
            Err(e) => panic!(
                "cannot run `{tool}` ({e}): install poppler-utils and qpdf with the project's \
                 .ci/run install step (apt-get install poppler-utils qpdf)"
            ),
        }
    }

    fn write(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        (dir, path)
    }

    fn text(path: &Path, extra: &[&str]) -> String {
        let p = path.to_str().unwrap();
        let mut args = extra.to_vec();
        args.extend([p, "-"]);
        let out = run("pdftotext", &args);
        assert!(out.status.success(), "pdftotext failed: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    fn squash(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    fn page_count(path: &Path) -> usize {
        let out = run("pdfinfo", &[path.to_str().unwrap()]);
        assert!(out.status.success(), "pdfinfo failed: {out:?}");
        let info = String::from_utf8_lossy(&out.stdout).to_string();
        info.lines()
            .find_map(|l| l.strip_prefix("Pages:"))
            .map(|n| n.trim().parse().unwrap())
            .expect("pdfinfo prints Pages:")
    }

    /// Names in every script the faces cover, with their typed signatures: each is extracted
    /// in logical order (`pdftotext`), as the signer typed it, and the document passes qpdf.
    #[test]
    fn names_in_every_script_read_back_as_typed() {
        let names = envelope_testkit::scripts::NAMES;
        let mut trail = sample();
        trail.signers.truncate(1);
        let first = trail.signers[0].clone();
        trail.signers = names
            .iter()
            .map(|(_, name)| AuditSigner {
                name: name.to_string(),
                signature: Some(StampValue::Typed(name.to_string())),
                signed_at: first.signed_at.clone(),
                ..first.clone()
            })
            .collect();
        let bytes = audit_trail(&trail).unwrap();
        let (_dir, path) = write("scripts.pdf", &bytes);
        let all = text(&path, &[]);
        for (script, name) in names {
            // The name row, the signer heading and the typed signature.
            let n = envelope_testkit::scripts::times_read(&all, name);
            assert!(n >= 3, "{script}: {name:?} found {n} times in:\n{all}");
        }
        let out = run("qpdf", &["--check", path.to_str().unwrap()]);
        assert!(out.status.success(), "{out:?}");
    }

    #[test]
    fn lists_every_signer_value_hash_and_page_number() {
        let trail = sample();
        let bytes = audit_trail(&trail).unwrap();
        let (_dir, path) = write("audit.pdf", &bytes);
        let pages = page_count(&path);
        assert!(pages >= 3, "expected several pages, got {pages}");
        let raw = text(&path, &[]);
        let all = squash(&raw);
        for needle in [
            "Audit trail",
            "Envelope Signing Service (staging)",
            "Document integrity",
        ] {
            assert!(all.contains(needle), "missing {needle:?}");
        }
        assert!(all.contains(&trail.envelope_id));
        for needle in [
            "Copies sent to (1)",
            "Carla Copy",
            "carla@example.org",
            "rcp_8Jq2",
        ] {
            assert!(all.contains(needle), "missing {needle:?}");
        }
        assert!(all.contains("Master services agreement — Łódź office, 2025 renewal"));
        for s in &trail.signers {
            for needle in [
                shown(&s.name),
                s.email.clone(),
                s.ip_address.clone().unwrap(),
            ] {
                assert!(all.contains(&needle), "missing {needle:?}");
            }
            // The user agent is wrapped; its words are all there, in order.
            let ua = s.user_agent.as_deref().unwrap();
            let no_space: String = all.split_whitespace().collect();
            assert!(no_space.contains(&ua.split_whitespace().collect::<String>()));
        }
        // A locale row for exactly the signers that have one (extensions E4).
        let with_locale = trail.signers.iter().filter(|s| s.locale.is_some()).count();
        assert!(with_locale > 0);
        assert_eq!(all.matches("Locale").count(), with_locale, "{all}");
        assert_eq!(all.matches("pt-BR").count(), with_locale);
        // Digests are never wrapped: each is on one line, whole.
        let cert = trail.signing_certificate_sha256.as_ref().unwrap();
        for hash in [&trail.original_sha256, &trail.signed_sha256, cert] {
            assert!(raw.lines().any(|l| l.trim() == hash), "missing {hash}");
        }
        for n in 1..=pages {
            assert!(all.contains(&format!("Page {n} of {pages}")), "no page {n}");
        }
        assert!(
            all.contains("Events (continued)"),
            "event header not repeated"
        );
        assert!(
            all.contains("are shown as their Unicode code points"),
            "no note on replaced characters"
        );
        // Not-reached steps are shown as a dash.
        let layout = squash(&text(&path, &["-layout"]));
        assert!(layout.contains("Declined —"));
        assert!(layout.contains("Completed —"));
    }

    #[test]
    fn a_test_trail_says_so_on_its_first_page_only_and_a_live_one_not_at_all() {
        for livemode in [false, true] {
            let trail = AuditTrail {
                livemode,
                ..sample()
            };
            let (_dir, path) = write("audit.pdf", &audit_trail(&trail).unwrap());
            let first = squash(&text(&path, &["-f", "1", "-l", "1"]));
            let all = squash(&text(&path, &[]));
            let notice = crate::pdf::TEST_MODE_NOTICE;
            assert_eq!(
                first.contains(notice),
                !livemode,
                "livemode {livemode}: {first}"
            );
            assert_eq!(all.matches(notice).count(), usize::from(!livemode));
            assert_inside_margins(&path);
        }
    }

    /// Every word pdftotext finds lies inside the left/right margins and on the page.
    /// Returns how many words there were.
    fn assert_inside_margins(path: &Path) -> usize {
        let html = text(path, &["-bbox"]);
        let attr = |tag: &str, name: &str| -> f32 {
            let key = format!(" {name}=\"");
            let start = tag.find(&key).unwrap() + key.len();
            let end = start + tag[start..].find('"').unwrap();
            tag[start..end].parse().unwrap()
        };
        let (mut width, mut height, mut words) = (0.0, 0.0, 0);
        for line in html.lines().map(str::trim) {
            if line.starts_with("<page ") {
                width = attr(line, "width");
                height = attr(line, "height");
                assert!((width - PAGE_W).abs() < 1.0 && (height - PAGE_H).abs() < 1.0);
            } else if line.starts_with("<word ") {
                words += 1;
                let (x0, x1) = (attr(line, "xMin"), attr(line, "xMax"));
                let (y0, y1) = (attr(line, "yMin"), attr(line, "yMax"));
                assert!(
                    x0 >= MARGIN_X - 0.5 && x1 <= width - MARGIN_X + 0.5,
                    "word outside the margins: {line}"
                );
                assert!(y0 >= 0.0 && y1 <= height, "word off the page: {line}");
            }
        }
        words
    }

    #[test]
    fn every_word_stays_inside_the_margins() {
        let bytes = audit_trail(&sample()).unwrap();
        let (_dir, path) = write("audit.pdf", &bytes);
        let words = assert_inside_margins(&path);
        assert!(words > 1000, "only {words} words extracted");
    }

    #[test]
    fn a_row_taller_than_a_page_continues_on_the_next() {
        let mut trail = sample();
        trail.events.truncate(3);
        trail.events[1].detail = (0..2500).map(|i| format!("w{i} ")).collect();
        let bytes = audit_trail(&trail).unwrap();
        let (_dir, path) = write("tall.pdf", &bytes);
        assert_inside_margins(&path);
        let all = squash(&text(&path, &[]));
        assert!(all.contains("w0 w1 w2") && all.contains("w2498 w2499"));
        assert!(all.contains("Events (continued)"));
        let out = run("qpdf", &["--check", path.to_str().unwrap()]);
        assert!(out.status.success(), "{out:?}");
    }

    #[test]
    fn passes_qpdf_check_and_embeds_subset_fonts() {
        let bytes = audit_trail(&sample()).unwrap();
        let (_dir, path) = write("audit.pdf", &bytes);
        let out = run("qpdf", &["--check", path.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "qpdf --check: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let out = run("pdffonts", &[path.to_str().unwrap()]);
        let fonts = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(fonts.contains("+DejaVuSans "), "{fonts}");
        assert!(fonts.contains("+DejaVuSans-Bold "), "{fonts}");
        for line in fonts.lines().skip(2) {
            assert!(
                line.contains(" yes yes "),
                "font not embedded+subset: {line}"
            );
        }
        let info = run("pdfinfo", &[path.to_str().unwrap()]);
        let info = String::from_utf8_lossy(&info.stdout).to_string();
        assert!(!info.contains("PDF/X"), "claims PDF/X: {info}");
        // The whole fonts are 1.4 MB; the subsets keep this small.
        assert!(bytes.len() < 250_000, "{} bytes", bytes.len());
    }

    #[test]
    fn same_input_gives_same_bytes() {
        let trail = sample();
        let a = audit_trail(&trail).unwrap();
        let b = audit_trail(&trail).unwrap();
        assert!(a == b, "two renders differ");
        // Dates come from generated_at (12:30+01:00 is 11:30 UTC), not 1970 nor the clock.
        let s = String::from_utf8_lossy(&a);
        assert!(s.contains("D:20250301113000"), "creation date not set");
        let mut other = trail.clone();
        other.status = "voided".into();
        let c = audit_trail(&other).unwrap();
        let id = |b: &[u8]| {
            let s = String::from_utf8_lossy(b).to_string();
            let at = s.rfind("/ID").unwrap();
            s[at..at + 72].to_string()
        };
        assert_ne!(id(&a), id(&c), "document ID does not depend on the content");
    }

    #[test]
    fn rejects_a_generated_at_that_is_not_rfc3339() {
        let mut trail = sample();
        trail.generated_at = "yesterday".into();
        assert!(matches!(
            audit_trail(&trail),
            Err(PdfError::InvalidValue { key, .. }) if key == "generated_at"
        ));
    }

    #[test]
    fn an_empty_trail_still_renders() {
        let mut trail = sample();
        trail.signers.clear();
        trail.events.clear();
        trail.service_name.clear();
        let bytes = audit_trail(&trail).unwrap();
        let (_dir, path) = write("empty.pdf", &bytes);
        let all = squash(&text(&path, &[]));
        assert!(all.contains("No events recorded."));
        assert!(all.contains("Page 1 of 1"));
    }

    /// A 60x20 RGBA drawing: a blue stroke on transparency.
    fn stroke_png() -> Vec<u8> {
        let (w, h) = (60u32, 20u32);
        let mut data = vec![0u8; (w * h * 4) as usize];
        for x in 0..w {
            let y = 4 + (x / 5) % 12;
            let p = ((y * w + x) * 4) as usize;
            data[p..p + 4].copy_from_slice(&[10, 30, 110, 255]);
        }
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().unwrap();
        writer.write_image_data(&data).unwrap();
        writer.finish().unwrap();
        out
    }

    #[test]
    fn shows_each_signature_as_stamped() {
        let trail = sample();
        let bytes = audit_trail(&trail).unwrap();
        let (_dir, path) = write("signatures.pdf", &bytes);
        let p = path.to_str().unwrap();
        // The three drawn signatures (signers 2, 6 and 10), each with its alpha as a soft mask.
        let out = run("pdfimages", &["-list", p]);
        assert!(out.status.success(), "pdfimages: {out:?}");
        let list = String::from_utf8_lossy(&out.stdout).to_string();
        let rows: Vec<&str> = list.lines().skip(2).collect();
        let column = |l: &str, n: usize| l.split_whitespace().nth(n).map(str::to_string);
        let kinds: Vec<String> = rows.iter().filter_map(|l| column(l, 2)).collect();
        assert_eq!(kinds.iter().filter(|k| *k == "image").count(), 3, "{list}");
        assert_eq!(kinds.iter().filter(|k| *k == "smask").count(), 3, "{list}");
        assert!(
            rows.iter().all(|l| column(l, 3).as_deref() == Some("60")),
            "{list}"
        );
        // Typed ones: in a Kristi subset when it has every character ("Zoë Ångström-Øyen"),
        // in DejaVu Sans otherwise ("Łukasz Żółć", "Ngô Bảo Châu"); all extractable.
        let out = run("pdffonts", &[p]);
        let fonts = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(fonts.contains("+Kristi "), "{fonts}");
        let all = squash(&text(&path, &[]));
        assert_eq!(all.matches("Signature ").count(), 6, "{all}");
        let mut unsigned = trail.clone();
        unsigned.signers.iter_mut().for_each(|s| s.signature = None);
        let (_dir2, path2) = write("unsigned.pdf", &audit_trail(&unsigned).unwrap());
        let without = squash(&text(&path2, &[]));
        for name in ["Zoë Ångström-Øyen", "Łukasz Żółć", "Ngô Bảo Châu"] {
            let (n, m) = (all.matches(name).count(), without.matches(name).count());
            assert_eq!(n, m + 1, "{name} is extracted once more with its signature");
        }
        assert_inside_margins(&path);
        let out = run("qpdf", &["--check", p]);
        assert!(out.status.success(), "{out:?}");
    }

    #[test]
    fn kristi_is_embedded_only_for_a_typed_signature() {
        let mut trail = sample();
        for s in &mut trail.signers {
            s.signature = None;
        }
        let bytes = audit_trail(&trail).unwrap();
        let (_dir, path) = write("unsigned.pdf", &bytes);
        let out = run("pdffonts", &[path.to_str().unwrap()]);
        let fonts = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(!fonts.contains("Kristi"), "{fonts}");
        let out = run("pdfimages", &["-list", path.to_str().unwrap()]);
        assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
    }

    #[test]
    fn wrap_keeps_lines_within_width_and_loses_nothing() {
        let face = super::fonts::face(Style::Regular);
        let long = format!("short {} words then {}", "x".repeat(300), "y ".repeat(50));
        for max in [20.0, 57.5, 200.0] {
            let lines = face.wrap(&long, 9.0, max);
            for l in &lines {
                assert!(face.width(l, 9.0) <= max + 0.01, "{l:?} wider than {max}");
            }
            let joined: String = lines.concat().split_whitespace().collect();
            assert_eq!(joined, long.split_whitespace().collect::<String>());
        }
        assert_eq!(face.wrap("", 9.0, 100.0), vec![String::new()]);
    }

    #[test]
    fn characters_the_font_lacks_become_code_points() {
        let face = super::fonts::face(Style::Regular);
        assert_eq!(
            face.displayable("Łukasz Żółć"),
            ("Łukasz Żółć".into(), false)
        );
        assert_eq!(face.displayable("Дмитрий"), ("Дмитрий".into(), false));
        assert_eq!(
            face.displayable("李雷 Li\tLei"),
            ("李雷 Li Lei".into(), false)
        );
        assert_eq!(
            face.displayable("\u{E000}\u{E001} x"),
            ("[U+E000 U+E001] x".into(), true)
        );
        assert_eq!(face.displayable("a\u{0}b"), ("a[U+0000]b".into(), true));
    }
}
