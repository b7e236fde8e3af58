//! `cargo run -p envelope-core --example stamp -- IN.pdf OUT.pdf [--seal [--key KEY.pem --cert CHAIN.pem]]`
//!
//! Discovers the fields of IN.pdf, fills every one with a sample value (a typed signature in
//! signature fields), adds a signature page when the document has no signature field, writes the
//! signed copy to OUT.pdf and says what it did.
//!
//! With `--seal`, the stamps and a PAdES seal go into one incremental update, exactly as a
//! completed envelope's signed copy is made: sealed with the ECDSA P-256 key and chain given by
//! `--key` and `--cert` (PEM), or with a fresh self-signed development certificate. The one
//! SHA-256 pass over the original runs on its own thread from the start, beside discovery and
//! the write of the original (completion starts instead from the state kept at upload). This is
//! the whole-process figure that `benches/compare.py` puts beside pyHanko.

use std::io::Write as _;
use std::process::ExitCode;

use envelope_core::field::FieldType;
use envelope_core::pdf::{
    self, EmbeddedFile, FieldStamp, PdfLimits, SealSpec, SignatureBlock, StampRequest, StampValue,
    inspect,
};
use envelope_core::seal::{LocalSealer, Sealer, SigningIdentity};
use sha2::{Digest, Sha256};

const USAGE: &str = "usage: stamp IN.pdf OUT.pdf [--seal [--key KEY.pem --cert CHAIN.pem]]";

/// How the copy is sealed, from the command line.
enum Seal {
    None,
    Development,
    Pem { key: String, cert: String },
}

fn parse(args: &[String]) -> Option<(&str, &str, Seal)> {
    let [input, output, rest @ ..] = args else {
        return None;
    };
    let (mut seal, mut key, mut cert) = (false, None, None);
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seal" => seal = true,
            "--key" => key = Some(it.next()?.clone()),
            "--cert" => cert = Some(it.next()?.clone()),
            _ => return None,
        }
    }
    let seal = match (seal, key, cert) {
        (false, None, None) => Seal::None,
        (true, None, None) => Seal::Development,
        (true, Some(key), Some(cert)) => Seal::Pem { key, cert },
        _ => return None,
    };
    Some((input, output, seal))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((input, output, seal)) = parse(&args) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    match run(input, output, seal) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("stamp: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(input: &str, output: &str, seal: Seal) -> Result<(), String> {
    let original = std::fs::read(input).map_err(|e| format!("cannot read {input}: {e}"))?;
    // Sealing needs one SHA-256 of the original, and nothing before the seal needs it: it runs
    // on a thread of its own from the first moment, beside discovery, the stamps' preparation
    // and writing the original out (what completion gets from the record's kept state).
    // Written under a temporary name and renamed when whole: a failure leaves no partial OUT.
    let part = format!("{output}.part");
    let done = std::thread::scope(|s| -> Result<(), String> {
        let hashing = match seal {
            Seal::None => None,
            _ => Some(s.spawn(|| Sha256::new_with_prefix(&original))),
        };
        let request = discover_and_fill(input, &original)?;
        // The output starts with the original: written now, while the hash runs.
        let mut file =
            std::fs::File::create(&part).map_err(|e| format!("cannot write {part}: {e}"))?;
        file.write_all(&original)
            .map_err(|e| format!("cannot write {part}: {e}"))?;
        let hashed = || {
            hashing
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .ok_or("no hash")
        };
        let update = match seal {
            Seal::None => {
                pdf::stamp_update(&original, &request).map_err(|e| format!("{input}: {e}"))?
            }
            Seal::Development => {
                let identity = SigningIdentity::generate_development("envelope stamp example")
                    .map_err(|e| format!("development certificate: {e}"))?
                    .identity;
                sealed(&original, hashed()?, &request, &LocalSealer::new(identity))?
            }
            Seal::Pem { key, cert } => {
                let read = |p: &str| {
                    std::fs::read_to_string(p).map_err(|e| format!("cannot read {p}: {e}"))
                };
                let identity = SigningIdentity::from_pem(&read(&key)?, &read(&cert)?, None)
                    .map_err(|e| format!("{key}, {cert}: {e}"))?;
                sealed(&original, hashed()?, &request, &LocalSealer::new(identity))?
            }
        };
        file.write_all(&update)
            .map_err(|e| format!("cannot write {part}: {e}"))?;
        std::fs::rename(&part, output).map_err(|e| format!("cannot write {output}: {e}"))?;
        println!(
            "wrote {output}: {} bytes ({} original + {} appended)",
            original.len() + update.len(),
            original.len(),
            update.len()
        );
        Ok(())
    });
    if done.is_err() {
        let _ = std::fs::remove_file(&part);
    }
    done
}

/// Discovers the fields of `original`, prints them, and gives the stamp request that fills each
/// with a sample value (and a signature page when none is a signature field).
fn discover_and_fill(input: &str, original: &[u8]) -> Result<StampRequest, String> {
    let info = inspect(original, &PdfLimits::default()).map_err(|e| format!("{input}: {e}"))?;
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
            signed_by: None,
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
    Ok(StampRequest {
        page_mark: None,
        fields,
        signature_page,
    })
}

/// The stamps and the seal's field in one update, continuing `hashed` (a SHA-256 that has consumed
/// the original) over the update, and the signature over the ranges' digest: what completion
/// does for a signed copy. Returns the sealed update, to be written after the original.
fn sealed(
    original: &[u8],
    hashed: Sha256,
    request: &StampRequest,
    sealer: &LocalSealer,
) -> Result<Vec<u8>, String> {
    let spec = SealSpec {
        name: "Envelope".into(),
        reason: "Signed by all parties via Envelope".into(),
        signing_time: chrono::Utc::now(),
        capacity: sealer.capacity(),
    };
    let prepared =
        pdf::stamp_for_seal_hashed(original, hashed, request, &spec).map_err(|e| e.to_string())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| e.to_string())?;
    let cms = runtime
        .block_on(sealer.sign(prepared.digest()))
        .map_err(|e| format!("sealing: {e}"))?;
    let sealed = prepared.fill(&cms).map_err(|e| format!("sealing: {e}"))?;
    println!("  sealed by {}", sealer.certificate().subject);
    Ok(sealed.update)
}
