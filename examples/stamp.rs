//! `cargo run -p envelope-core --example stamp -- IN.pdf OUT.pdf`
//!
//! Discovers the fields of IN.pdf, fills every one with a sample value (a typed signature in
//! signature fields), adds a signature page when the document has no signature field, writes the
//! signed copy to OUT.pdf and says what it did.

use std::process::ExitCode;

use envelope_core::field::FieldType;
use envelope_core::pdf::{
    FieldStamp, PdfLimits, SignatureBlock, StampRequest, StampValue, inspect, stamp,
};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let [_, input, output] = args.as_slice() else {
        eprintln!("usage: stamp IN.pdf OUT.pdf");
        return ExitCode::from(2);
    };
    match run(input, output) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("stamp: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(input: &str, output: &str) -> Result<(), String> {
    let original = std::fs::read(input).map_err(|e| format!("cannot read {input}: {e}"))?;
    let info = inspect(&original, &PdfLimits::default()).map_err(|e| format!("{input}: {e}"))?;
    println!(
        "{input}: {} pages, {} fields",
        info.page_count,
        info.fields.len()
    );
    let mut fields = Vec::new();
    for f in &info.fields {
        let who = f.field.role.clone().unwrap_or_else(|| "Sender".into());
        let value = match f.field.kind {
            FieldType::Signature => StampValue::Typed(format!("{who} Signer")),
            FieldType::Initials => StampValue::Typed(who.chars().take(2).collect()),
            FieldType::Date => StampValue::Text("2024-05-01".into()),
            FieldType::Text => StampValue::Text(format!("Sample {}", f.field.key)),
            FieldType::Checkbox => StampValue::Checkbox(true),
        };
        println!(
            "  page {} ({:.1}, {:.1}, {:.1} x {:.1}) {} {:?} <- {:?}",
            f.field.page,
            f.field.x,
            f.field.y,
            f.field.width,
            f.field.height,
            f.field.key,
            f.field.kind,
            value
        );
        fields.push(FieldStamp {
            field: f.clone(),
            value: Some(value),
        });
    }
    let has_signature = info
        .fields
        .iter()
        .any(|f| f.field.kind == FieldType::Signature);
    let signature_page = (!has_signature).then(|| {
        println!("  no signature field: adding a signature page");
        vec![SignatureBlock {
            role: "Signer".into(),
            name: "Sample Signer".into(),
            email: "signer@example.com".into(),
            signature: StampValue::Typed("Sample Signer".into()),
            signed_at: "2024-05-01 12:00 UTC".into(),
        }]
    });
    let signed = stamp(
        &original,
        &StampRequest {
            fields,
            signature_page,
        },
    )
    .map_err(|e| format!("{input}: {e}"))?;
    std::fs::write(output, &signed).map_err(|e| format!("cannot write {output}: {e}"))?;
    println!(
        "wrote {output}: {} bytes ({} original + {} appended)",
        signed.len(),
        original.len(),
        signed.len() - original.len()
    );
    Ok(())
}
