//! Stamping end to end: every kind of input document, every kind of value, checked with qpdf and
//! poppler (both must be installed: the install step of .ci/run does it).

use envelope_testkit::pdf as support;

use envelope_core::field::{Field, FieldSource, FieldType, PlacedField};
use envelope_core::pdf::{
    EmbeddedFile, FieldStamp, PdfError, PdfInfo, PdfLimits, SignatureBlock, StampRequest,
    StampValue, inspect, stamp, stamp_update,
};
use support::*;

/// Fills every field with a value of its kind.
fn fill(info: &PdfInfo, name: &str) -> StampRequest {
    let fields = info
        .fields
        .iter()
        .map(|f| {
            let value = match f.field.kind {
                FieldType::Signature | FieldType::Initials => StampValue::Typed(name.to_string()),
                FieldType::Date => StampValue::Text("2024-05-01".into()),
                FieldType::Text => StampValue::Text(format!("{name} text")),
                FieldType::Checkbox => StampValue::Checkbox(true),
                FieldType::Radio | FieldType::Select => StampValue::Text(
                    f.field
                        .options
                        .as_ref()
                        .and_then(|o| o.first().cloned())
                        .unwrap_or_default(),
                ),
                FieldType::Number => StampValue::Text("42".into()),
                // A signer's file (extensions E14): embedded, its name drawn in the box.
                FieldType::Attachment => StampValue::Attachment(EmbeddedFile {
                    key: format!("{} - id.pdf", f.field.key),
                    file_name: "id.pdf".into(),
                    mime: "application/pdf".into(),
                    description: "Attachment".into(),
                    bytes: bytes::Bytes::from_static(b"%PDF-1.7 id"),
                }),
            };
            FieldStamp {
                field: f.clone(),
                signed_by: None,
                value: Some(value),
            }
        })
        .collect();
    StampRequest {
        page_mark: None,
        fields,
        signature_page: None,
    }
}

/// The checks every signed copy must pass.
fn check_signed(original: &[u8], signed: &[u8]) -> String {
    assert!(signed.len() > original.len());
    assert_eq!(
        &signed[..original.len()],
        original,
        "the original must be a byte-exact prefix"
    );
    qpdf_check(signed);
    let text = pdftotext(signed);
    assert!(!text.contains("{{"), "a tag is still visible:\n{text}");
    text
}

#[test]
fn stamps_libreoffice_like_contracts_in_every_layout() {
    for layout in [
        Layout::Classic,
        Layout::XrefStream { objstm: false },
        Layout::XrefStream { objstm: true },
    ] {
        let pdf = libreoffice_contract(layout);
        let info = inspect(&pdf, &PdfLimits::default()).expect("inspect");
        let signed = stamp(&pdf, &fill(&info, "Zoë Ångström")).expect("stamp");
        let text = check_signed(&pdf, &signed);
        assert!(text.contains("Zoë Ångström"), "{layout:?}: {text}");
        assert!(
            text.contains("2024-05-01") && text.contains("Service agreement"),
            "{text}"
        );
        // The xref section matches the original's kind.
        let tail = String::from_utf8_lossy(&signed[pdf.len()..]).into_owned();
        assert_eq!(
            tail.contains("/Type /XRef"),
            layout != Layout::Classic,
            "{layout:?}"
        );
        assert!(tail.contains("/Prev"));
        assert_eq!(
            inspect(&signed, &PdfLimits::default())
                .map(|i| i.page_count)
                .ok(),
            Some(1)
        );
    }
}

#[test]
fn non_latin_names_keep_their_characters() {
    let pdf = libreoffice_contract(Layout::Classic);
    let info = inspect(&pdf, &PdfLimits::default()).expect("inspect");
    for name in ["Łukasz Żółć", "Дмитрий", "李雷", "Zoë Ångström"] {
        let signed = stamp(&pdf, &fill(&info, name)).expect("stamp");
        let text = check_signed(&pdf, &signed);
        assert!(text.contains(name), "{name} missing from:\n{text}");
        let tail = &signed[pdf.len()..];
        let has = |s: &[u8]| tail.windows(s.len()).any(|w| w == s);
        // Typed values in Kristi when it has every character (Latin-1), else, like text outside
        // WinAnsi, in DejaVu Sans.
        let latin1 = name == "Zoë Ångström";
        assert_eq!(has(b"+Kristi"), latin1, "{name}: Kristi");
        assert_eq!(
            has(b"+DejaVuSans"),
            !latin1,
            "{name}: DejaVu only outside WinAnsi"
        );
    }
}

#[test]
fn embedded_font_is_a_subset() {
    let pdf = libreoffice_contract(Layout::Classic);
    let info = inspect(&pdf, &PdfLimits::default()).expect("inspect");
    let signed = stamp(&pdf, &fill(&info, "Дмитрий")).expect("stamp");
    let added = signed.len() - pdf.len();
    assert!(
        added < 60_000,
        "the update adds {added} bytes; DejaVuSans.ttf alone is 750 kB"
    );
}

#[test]
fn signature_page_is_appended() {
    let pdf = libreoffice_contract(Layout::XrefStream { objstm: true });
    let blocks = vec![
        SignatureBlock {
            role: "Client".into(),
            name: "Дмитрий Петров".into(),
            email: "d@example.com".into(),
            signature: StampValue::Typed("Дмитрий Петров".into()),
            signed_at: "2024-05-01 10:00 UTC".into(),
        },
        SignatureBlock {
            role: "Provider".into(),
            name: "Ada Lovelace".into(),
            email: "ada@example.com".into(),
            signature: StampValue::Drawn(sample_png()),
            signed_at: "2024-05-02 11:00 UTC".into(),
        },
    ];
    let req = StampRequest {
        page_mark: None,
        fields: Vec::new(),
        signature_page: Some(blocks),
    };
    let signed = stamp(&pdf, &req).expect("stamp");
    qpdf_check(&signed);
    assert_eq!(&signed[..pdf.len()], &pdf[..]);
    let info = inspect(&signed, &PdfLimits::default()).expect("inspect signed");
    assert_eq!(info.page_count, 2);
    assert_eq!(info.pages[1], info.pages[0]);
    let text = pdftotext(&signed);
    for want in [
        "Signatures",
        "Дмитрий Петров",
        "ada@example.com",
        "2024-05-02 11:00 UTC",
        "Provider",
    ] {
        assert!(text.contains(want), "{want} missing:\n{text}");
    }
    assert!(String::from_utf8_lossy(&signed[pdf.len()..]).contains("/SMask"));
}

/// The text pdftotext finds on page `n` (from 1).
fn page_text(bytes: &[u8], n: usize) -> String {
    let page = n.to_string();
    let args = ["-enc", "UTF-8", "-f", &page, "-l", &page];
    let (out, ok) = run_tool("pdftotext", &args, bytes, Some("-"));
    assert!(ok, "pdftotext failed: {out}");
    out
}

#[test]
fn the_page_mark_is_on_every_page_whatever_its_shape_and_on_the_signature_page() {
    let mark = envelope_core::pdf::TEST_MODE_MARK;
    // Letter, Letter turned by /Rotate 90, landscape A4 with a shifted origin, a small card,
    // then a page whose own text reaches the top edge.
    let pages = [
        PageSpec::letter(helv_text(12.0, 72.0, 700.0, "First page")),
        PageSpec {
            rotate: 90,
            ..PageSpec::letter(helv_text(12.0, 72.0, 400.0, "Turned page"))
        },
        PageSpec {
            media: [100.0, 50.0, 942.0, 645.0],
            ..PageSpec::letter(helv_text(12.0, 150.0, 300.0, "Landscape page"))
        },
        PageSpec {
            media: [0.0, 0.0, 252.0, 144.0],
            ..PageSpec::letter(helv_text(8.0, 10.0, 60.0, "Card"))
        },
        PageSpec::letter(helv_text(12.0, 72.0, 784.0, "Top edge text")),
    ];
    let pdf = document(&mut Builder::new(), &pages, "", Layout::Classic);
    let block = SignatureBlock {
        role: "Client".into(),
        name: "Ada Lovelace".into(),
        email: "ada@example.com".into(),
        signature: StampValue::Typed("Ada Lovelace".into()),
        signed_at: "2024-05-01 10:00 UTC".into(),
    };
    let req = StampRequest {
        fields: Vec::new(),
        signature_page: Some(vec![block]),
        page_mark: Some(mark.into()),
    };
    let signed = stamp(&pdf, &req).expect("stamp");
    check_signed(&pdf, &signed);
    let count = inspect(&signed, &PdfLimits::default()).unwrap().page_count as usize;
    assert_eq!(count, pages.len() + 1);
    for n in 1..=count {
        let text = page_text(&signed, n);
        assert_eq!(text.matches(mark).count(), 1, "page {n}:\n{text}");
    }
    // The pages' own text is still there, the mark beside it.
    let all = pdftotext(&signed);
    for own in [
        "First page",
        "Turned page",
        "Landscape page",
        "Card",
        "Top edge text",
    ] {
        assert!(all.contains(own), "{own} missing:\n{all}");
    }
    assert!(all.contains("Signatures"));

    // Without a mark, nothing of it.
    let plain = stamp(
        &pdf,
        &StampRequest {
            page_mark: None,
            ..req
        },
    )
    .expect("stamp");
    assert!(!pdftotext(&plain).contains("TEST MODE"));
}

#[test]
fn a_bad_png_is_an_invalid_value() {
    let pdf = libreoffice_contract(Layout::Classic);
    let info = inspect(&pdf, &PdfLimits::default()).expect("inspect");
    let field = info.fields[0].clone();
    let req = StampRequest {
        page_mark: None,
        fields: vec![FieldStamp {
            field,
            signed_by: None,
            value: Some(StampValue::Drawn(b"not a png".to_vec())),
        }],
        signature_page: None,
    };
    assert!(
        matches!(stamp(&pdf, &req), Err(PdfError::InvalidValue { key, .. }) if key == "Client_signature")
    );
}

#[test]
fn empty_optional_values_still_hide_tags() {
    let pdf = libreoffice_contract(Layout::Classic);
    let info = inspect(&pdf, &PdfLimits::default()).expect("inspect");
    let fields = info
        .fields
        .iter()
        .map(|f| FieldStamp {
            field: f.clone(),
            signed_by: None,
            value: None,
        })
        .collect();
    let signed = stamp(
        &pdf,
        &StampRequest {
            page_mark: None,
            fields,
            signature_page: None,
        },
    )
    .expect("stamp");
    let text = check_signed(&pdf, &signed);
    assert!(
        text.contains("Client:") && text.contains("Company:"),
        "surrounding text stays:\n{text}"
    );
}

#[test]
fn rotated_pages_and_shifted_origins_place_stamps_in_the_box() {
    for rotate in [0, 90, 180, 270] {
        let mut page = PageSpec::letter(helv_text(10.0, 150.0, 300.0, "Body text {{text:Client}}"));
        page.media = [30.0, 40.0, 642.0, 832.0];
        page.rotate = rotate;
        let mut b = Builder::new();
        let pdf = document(&mut b, &[page], "", Layout::Classic);
        let info = inspect(&pdf, &PdfLimits::default()).expect("inspect");
        let explicit = PlacedField {
            field: Field {
                key: "box".into(),
                kind: FieldType::Text,
                role: None,
                filled_by: "sender".into(),
                required: false,
                page: 1,
                x: 100.0,
                y: 150.0,
                width: 200.0,
                height: 30.0,
                document: 1,
                options: None,
                label: None,
                condition: None,
                formula: None,
            },
            source: FieldSource::Explicit,
        };
        let mut fields = vec![FieldStamp {
            field: explicit,
            signed_by: None,
            value: Some(StampValue::Text("MARKER".into())),
        }];
        fields.push(FieldStamp {
            field: info.fields[0].clone(),
            signed_by: None,
            value: Some(StampValue::Text("TAGVALUE".into())),
        });
        let signed = stamp(
            &pdf,
            &StampRequest {
                page_mark: None,
                fields,
                signature_page: None,
            },
        )
        .expect("stamp");
        check_signed(&pdf, &signed);
        let ws = words(&signed);
        let marker = ws
            .iter()
            .find(|w| w.0 == "MARKER")
            .unwrap_or_else(|| panic!("rotate {rotate}: {ws:?}"));
        assert!(
            marker.1 >= 99.0 && marker.3 <= 301.0 && marker.2 >= 149.0 && marker.4 <= 181.0,
            "rotate {rotate}: {marker:?}"
        );
        let tag = &info.fields[0].field;
        let v = ws
            .iter()
            .find(|w| w.0 == "TAGVALUE")
            .unwrap_or_else(|| panic!("rotate {rotate}: {ws:?}"));
        let (cx, cy) = ((v.1 + v.3) / 2.0, (v.2 + v.4) / 2.0);
        assert!(
            cx >= tag.x - 1.0
                && cx <= tag.x + tag.width + 1.0
                && cy >= tag.y - 1.0
                && cy <= tag.y + tag.height + 1.0,
            "rotate {rotate}: {v:?} vs {tag:?}"
        );
        assert!(
            ws.iter().any(|w| w.0 == "Body"),
            "text before the tag stays"
        );
    }
}

/// `stamp_update` is the update alone: the original followed by it is byte for byte what `stamp`
/// returns, in every xref layout, after a damaged xref, and for a file without a final newline.
#[test]
fn the_update_alone_completes_the_original_to_the_signed_copy() {
    let classic = libreoffice_contract(Layout::Classic);
    let mut no_newline = classic.clone();
    while matches!(no_newline.last(), Some(b'\n' | b'\r')) {
        no_newline.pop();
    }
    let variants = [
        classic.clone(),
        libreoffice_contract(Layout::XrefStream { objstm: true }),
        shift_offsets(&classic),
        no_newline,
    ];
    for pdf in variants {
        let info = inspect(&pdf, &PdfLimits::default()).expect("inspect");
        let request = fill(&info, "Zoë Ångström");
        let whole = stamp(&pdf, &request).expect("stamp");
        let update = stamp_update(&pdf, &request).expect("stamp_update");
        assert_eq!(whole.len(), pdf.len() + update.len());
        assert_eq!(&whole[pdf.len()..], &update[..]);
        let mut joined = pdf.clone();
        joined.extend_from_slice(&update);
        check_signed(&pdf, &joined);
    }
}

#[test]
fn prior_updates_damaged_offsets_and_qpdf_variants_stamp_cleanly() {
    let base = libreoffice_contract(Layout::Classic);
    let updated = append_update(
        &base,
        &[(1, b"<</Producer (an earlier update)>>".to_vec())],
        root_of(&base),
    );
    let variants = vec![
        ("prior update", updated),
        ("damaged offsets", shift_offsets(&base)),
        (
            "qpdf linearized",
            transform("qpdf", &["--linearize"], &base),
        ),
        (
            "qpdf object streams",
            transform("qpdf", &["--object-streams=generate"], &base),
        ),
    ];
    for (name, pdf) in variants {
        let info = inspect(&pdf, &PdfLimits::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(info.fields.len(), 6, "{name}");
        let signed = stamp(&pdf, &fill(&info, "Ada")).unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = check_signed(&pdf, &signed);
        assert!(text.contains("Ada"), "{name}");
    }
}

#[test]
fn encrypted_files_are_refused_even_with_an_empty_password() {
    let base = libreoffice_contract(Layout::Classic);
    for args in [
        &["--encrypt", "", "", "256", "--"][..],
        &["--encrypt", "", "owner", "128", "--use-aes=y", "--"],
    ] {
        let enc = transform("qpdf", args, &base);
        assert!(
            matches!(
                inspect(&enc, &PdfLimits::default()),
                Err(PdfError::Encrypted)
            ),
            "{args:?}"
        );
        assert!(matches!(
            stamp(&enc, &StampRequest::default()),
            Err(PdfError::Encrypted)
        ));
    }
}

/// The catalog's object number in a builder file (for `append_update`).
fn root_of(pdf: &[u8]) -> u32 {
    let s = String::from_utf8_lossy(pdf);
    let at = s.rfind("/Root ").expect("root") + 6;
    s[at..]
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .expect("root number")
}

/// A small RGBA PNG.
fn sample_png() -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, 16, 8);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().expect("header");
        let mut data = vec![0u8; 16 * 8 * 4];
        for i in 0..8 {
            let p = (i * 16 + i * 2) * 4;
            data[p..p + 4].copy_from_slice(&[10, 20, 120, 255]);
        }
        w.write_image_data(&data).expect("data");
    }
    out
}
