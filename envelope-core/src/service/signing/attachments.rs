//! Signers' files for `attachment` fields (extensions E14): checked on arrival, stored as blobs,
//! embedded in the signed copy at completion.
//!
//! A file is read under the hostile-input budgets in the PDF pool (`pdf::normalize_attachment`:
//! a PDF parsed by the engine's reader, an image decoded and re-encoded), then described
//! ([`AttachedFile`]: blob key, name, size, SHA-256, type) for the record, which never holds its
//! bytes. The bytes are stored under a key derived from the envelope, the field and their
//! SHA-256, so a retried signature writes the same blob again rather than a second one; they
//! are written before the record that names them (invariant 7), and only once every other
//! check of the submission passed. They count towards the account's stored bytes as the
//! envelope's documents do (`EnvelopeRecord::held_files`; never refused for the quota, like a
//! completion), and retention deletes them with them.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use super::SigningService;
use super::values::ValueProblem;
use crate::error::{Error, Result};
use crate::field::FieldType;
use crate::model::{AttachedFile, EnvelopeRecord, StoredFile};
use crate::pdf;

/// A file a signer gives an `attachment` field, as it was sent.
#[derive(Clone, Default)]
pub struct AttachmentUpload {
    /// The file's name as the signer's device gave it; cleaned before it is kept (drawable
    /// characters, no folders, the extension of what the bytes are).
    pub file_name: String,
    /// The file's bytes: a PDF, PNG or JPEG of at most 10 MB. What they are decides the type,
    /// whatever the name or a declared media type says.
    pub bytes: bytes::Bytes,
}

impl AttachmentUpload {
    /// A file named `file_name` with these bytes.
    pub fn new(file_name: impl Into<String>, bytes: impl Into<bytes::Bytes>) -> AttachmentUpload {
        AttachmentUpload {
            file_name: file_name.into(),
            bytes: bytes.into(),
        }
    }
}

impl std::fmt::Debug for AttachmentUpload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AttachmentUpload")
            .field("file_name", &self.file_name)
            .field("bytes", &self.bytes.len())
            .finish()
    }
}

/// A file checked and described, its bytes not stored yet.
pub(in crate::service) struct Prepared {
    pub key: String,
    pub file: AttachedFile,
    pub bytes: bytes::Bytes,
}

/// Why `bytes` would be refused as an attachment, from a cheap look (size, type): for a page
/// that explains a refusal in the signer's language without reading the file again. A file
/// of an accepted type that was refused is called unreadable.
pub fn attachment_problem(bytes: &[u8]) -> ValueProblem {
    let limits = pdf::AttachmentLimits::SUBMITTED;
    ValueProblem::Attachment(if bytes.len() > limits.max_bytes {
        pdf::AttachmentError::TooManyBytes {
            max: limits.max_bytes,
        }
    } else if bytes.is_empty() {
        pdf::AttachmentError::Empty
    } else {
        match pdf::AttachmentType::sniff(bytes) {
            None => pdf::AttachmentError::NotAcceptedType,
            Some(pdf::AttachmentType::Pdf) => pdf::AttachmentError::UnreadablePdf,
            Some(t) => pdf::AttachmentError::UnreadableImage(t),
        }
    })
}

impl SigningService {
    /// Checks signer `i`'s files in `uploads` (each key one of their `attachment` fields) and
    /// describes them; stores nothing. The files count towards the account's storage quota
    /// once stored, but never refuse a signature for it: a signer's signature must not fail
    /// for the sender's storage (as completions, docs/OPERATIONS.md "Storage quotas"), and an
    /// envelope's sender decides how many files it asks for (at most
    /// [`MAX_ATTACHMENT_FIELDS`](crate::field::MAX_ATTACHMENT_FIELDS) of 10 MB).
    pub(in crate::service) async fn prepare_attachments(
        &self,
        rec: &EnvelopeRecord,
        i: usize,
        uploads: &BTreeMap<String, AttachmentUpload>,
    ) -> Result<Vec<Prepared>> {
        let role = &rec.signers[i].signer.role;
        for key in uploads.keys() {
            let field =
                rec.fields.iter().map(|f| &f.field).find(|f| {
                    &f.key == key && f.role.as_ref() == Some(role) && !f.is_sender_field()
                });
            match field {
                None => {
                    return Err(Error::ParameterUnknown {
                        param: format!("values.{}", super::values::shown_key(key)),
                    });
                }
                Some(f) if f.kind != FieldType::Attachment => {
                    return Err(Error::invalid(
                        format!("values.{key}"),
                        "takes no file: only attachment fields do",
                    ));
                }
                Some(_) => {}
            }
        }
        let list: Vec<(String, AttachmentUpload)> = uploads
            .iter()
            .map(|(k, u)| (k.clone(), u.clone()))
            .collect();
        let checked = self
            .blocking("attachment", move || {
                let limits = pdf::AttachmentLimits::SUBMITTED;
                let pdf_limits = pdf::PdfLimits::default();
                list.into_iter()
                    .map(|(k, u)| {
                        let checked = pdf::normalize_attachment(&u.bytes, &limits, &pdf_limits);
                        (k, u.file_name, checked)
                    })
                    .collect::<Vec<_>>()
            })
            .await?;
        let mut out = Vec::with_capacity(checked.len());
        for (key, given_name, checked) in checked {
            let (kind, bytes) = checked.map_err(|e| {
                Error::invalid(format!("values.{key}"), ValueProblem::Attachment(e))
            })?;
            out.push(describe(rec, key, &given_name, kind, bytes.into()));
        }
        Ok(out)
    }

    /// Stores the prepared files' bytes (before the record that names them).
    pub(in crate::service) async fn store_attachments(&self, prepared: &[&Prepared]) -> Result<()> {
        for p in prepared {
            self.inner
                .blobs
                .put(&p.file.file.blob, p.bytes.clone(), self.now())
                .await?;
        }
        Ok(())
    }

    /// The test helper's file for signer `i`'s required `attachment` fields: a small PNG of
    /// the service's own, through the same checks, stored.
    pub(in crate::service) async fn sample_attachments(
        &self,
        rec: &EnvelopeRecord,
        i: usize,
    ) -> Result<BTreeMap<String, AttachedFile>> {
        let role = &rec.signers[i].signer.role;
        let uploads: BTreeMap<String, AttachmentUpload> = rec
            .fields
            .iter()
            .map(|f| &f.field)
            .filter(|f| f.kind == FieldType::Attachment && f.required)
            .filter(|f| f.role.as_ref() == Some(role) && !f.is_sender_field())
            .map(|f| {
                let upload = AttachmentUpload::new("test-attachment.png", sample_png());
                (f.key.clone(), upload)
            })
            .collect();
        if uploads.is_empty() {
            return Ok(BTreeMap::new());
        }
        let prepared = self.prepare_attachments(rec, i, &uploads).await?;
        self.store_attachments(&prepared.iter().collect::<Vec<_>>())
            .await?;
        Ok(prepared.into_iter().map(|p| (p.key, p.file)).collect())
    }

    /// Puts the files of document `document`'s attachment fields into `request` (their values
    /// are the files' names until then), read from the blob store.
    pub(in crate::service) async fn embed_attachments(
        &self,
        rec: &EnvelopeRecord,
        request: &mut pdf::StampRequest,
    ) -> Result<()> {
        for fs in &mut request.fields {
            let f = &fs.field.field;
            if f.kind != FieldType::Attachment || fs.value.is_none() {
                continue;
            }
            let Some((i, _, a)) = rec.attached_files().find(|(_, k, _)| *k == f.key) else {
                continue;
            };
            let bytes = self.read_file(&a.file).await?.ok_or_else(|| {
                Error::Internal(format!("the attachment of {} is missing", f.key))
            })?;
            let s = &rec.signers[i].signer;
            fs.value = Some(pdf::StampValue::Attachment(pdf::EmbeddedFile {
                key: format!("{} - {}", f.key, a.file.file_name),
                file_name: a.file.file_name.clone(),
                mime: a.content_type.clone(),
                description: format!(
                    "Field {} ({}), given by {} <{}>; SHA-256 {}",
                    f.key, s.role, s.name, s.email, a.file.sha256
                ),
                bytes,
            }));
        }
        Ok(())
    }
}

/// The record's description of a checked file, and its bytes.
fn describe(
    rec: &EnvelopeRecord,
    key: String,
    given_name: &str,
    kind: pdf::AttachmentType,
    bytes: bytes::Bytes,
) -> Prepared {
    let sha256 = crate::ids::hex(&Sha256::digest(&bytes));
    // Derived from what it is and where it belongs: the same submission again is the same
    // blob, and no two fields share one (each holds its own).
    let blob = {
        let mut h = Sha256::new();
        for part in [rec.id.as_str(), "\0", key.as_str(), "\0", sha256.as_str()] {
            h.update(part.as_bytes());
        }
        format!("att_{}", &crate::ids::hex(&h.finalize())[..40])
    };
    let file = AttachedFile {
        file: StoredFile {
            blob,
            file_name: stored_name(given_name, kind),
            size: bytes.len() as u64,
            sha256,
            delta: None,
            sha256_state: None,
        },
        content_type: kind.mime().into(),
    };
    Prepared { key, file, bytes }
}

/// The name a file is kept under: the last part of the given name, with only characters the
/// audit trail's fonts draw, at most 100 of them, ending in the extension of what it is.
pub(in crate::service) fn stored_name(given: &str, kind: pdf::AttachmentType) -> String {
    let base = given.rsplit(['/', '\\']).next().unwrap_or_default();
    let kept = pdf::keep_drawable(base, 100);
    let kept = kept.trim();
    let lower = kept.to_ascii_lowercase();
    let stem = [".pdf", ".png", ".jpg", ".jpeg"]
        .iter()
        .find(|ext| lower.ends_with(*ext))
        .map_or(kept, |ext| &kept[..kept.len() - ext.len()])
        .trim();
    let stem = if stem.is_empty() { "attachment" } else { stem };
    format!("{stem}.{}", kind.extension())
}

/// The test helper's picture: 96 x 64 pixels of a pale blue with a darker band.
fn sample_png() -> Vec<u8> {
    let img = image::RgbImage::from_fn(96, 64, |_, y| {
        if (24..40).contains(&y) {
            image::Rgb([70, 110, 160])
        } else {
            image::Rgb([220, 232, 245])
        }
    });
    let mut out = Vec::new();
    // Encoding a small picture in memory does not fail; an empty file would be refused by
    // the checks all the same.
    let _ = image::DynamicImage::ImageRgb8(img)
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_kept_drawable_with_the_extension_of_what_the_bytes_are() {
        use pdf::AttachmentType::{Jpeg, Pdf, Png};
        let cases = [
            ("passport.JPEG", Jpeg, "passport.jpg"),
            ("C:\\Users\\zoë\\id card.png", Png, "id card.png"),
            ("../../etc/passwd", Pdf, "passwd.pdf"),
            ("scan.png", Pdf, "scan.pdf"),
            ("", Png, "attachment.png"),
            ("\u{202E}gnp.exe", Png, "gnp.exe.png"),
            ("\u{1F680}.pdf", Pdf, "attachment.pdf"),
            ("李.pdf", Pdf, "李.pdf"),
        ];
        for (given, kind, want) in cases {
            assert_eq!(stored_name(given, kind), want, "{given:?}");
        }
        assert!(stored_name(&"a".repeat(500), Png).len() <= 104);
    }

    #[test]
    fn the_sample_is_accepted() {
        let limits = pdf::AttachmentLimits::SUBMITTED;
        let (kind, _) =
            pdf::normalize_attachment(&sample_png(), &limits, &pdf::PdfLimits::default()).unwrap();
        assert_eq!(kind, pdf::AttachmentType::Png);
    }
}
