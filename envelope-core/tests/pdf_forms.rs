//! AcroForm fields: discovery rules and filled values with appearances.

use envelope_testkit::pdf as support;

use envelope_core::field::{FieldSource, FieldType};
use envelope_core::pdf::{FieldStamp, PdfLimits, StampRequest, StampValue, inspect, stamp};
use support::*;

#[test]
fn discovers_form_fields_with_the_naming_rules() {
    let info = inspect(&form_pdf(0), &PdfLimits::default()).expect("inspect");
    let got: Vec<(&str, FieldType, Option<&str>, &str, bool)> = info
        .fields
        .iter()
        .map(|f| {
            (
                f.field.key.as_str(),
                f.field.kind,
                f.field.role.as_deref(),
                f.field.filled_by.as_str(),
                f.field.required,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("name", FieldType::Text, Some("Client"), "Client", true),
            (
                "agree",
                FieldType::Checkbox,
                Some("Client"),
                "Client",
                false
            ),
            (
                "Client_signature",
                FieldType::Signature,
                Some("Client"),
                "Client",
                true
            ),
            ("company", FieldType::Text, None, "sender", false),
            (
                "title",
                FieldType::Text,
                Some("Provider"),
                "Provider",
                false
            ),
        ]
    );
    let name = &info.fields[0];
    assert_eq!(
        name.source,
        FieldSource::Form {
            name: "Client.name".into()
        }
    );
    assert_eq!(
        (
            name.field.x,
            name.field.y,
            name.field.width,
            name.field.height
        ),
        (72.0, 72.0, 200.0, 20.0)
    );
    assert_eq!(
        info.fields[4].source,
        FieldSource::Form {
            name: "Provider.title".into()
        }
    );
}

#[test]
fn fills_form_fields_with_values_and_appearances() {
    for rotate in [0, 90] {
        let pdf = form_pdf(rotate);
        let info = inspect(&pdf, &PdfLimits::default()).expect("inspect");
        let value = |k: FieldType, key: &str| match (k, key) {
            (FieldType::Checkbox, _) => StampValue::Checkbox(true),
            (FieldType::Signature, _) => StampValue::Typed("Łukasz Żółć".into()),
            (_, "company") => StampValue::Text("Acme GmbH".into()),
            _ => StampValue::Text("Ada Lovelace".into()),
        };
        let fields = info
            .fields
            .iter()
            .map(|f| FieldStamp {
                field: f.clone(),
                signed_by: None,
                value: Some(value(f.field.kind, &f.field.key)),
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
        assert_eq!(&signed[..pdf.len()], &pdf[..]);
        qpdf_check(&signed);
        let tail = String::from_utf8_lossy(&signed[pdf.len()..]).into_owned();
        assert!(
            tail.contains("/V (Ada Lovelace)") && tail.contains("/V (Acme GmbH)"),
            "{tail}"
        );
        assert!(
            tail.contains("/AS /On") && tail.contains("/V /On"),
            "checkbox on-state"
        );
        assert_eq!(
            tail.matches("/AP <</N").count(),
            5,
            "every widget gets an appearance"
        );
        // Appearances are drawn: rendering them shows the text (poppler draws widget appearances).
        let (out, ok) = run_tool("pdftotext", &[], &flatten(&signed), Some("-"));
        assert!(ok);
        for want in ["Ada Lovelace", "Acme GmbH", "Łukasz Żółć"] {
            assert!(
                out.contains(want),
                "rotate {rotate}: {want} missing from\n{out}"
            );
        }
    }
}

/// qpdf's annotation flattening turns appearances into page content, which pdftotext reads.
fn flatten(pdf: &[u8]) -> Vec<u8> {
    transform("qpdf", &["--flatten-annotations=all"], pdf)
}
