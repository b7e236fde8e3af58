//! Signers' files for `attachment` fields (extensions E14): what the record keeps of each (the
//! bytes are a blob, like a document's) and what the API shows of it.

use serde::{Deserialize, Serialize};

use super::StoredFile;
use crate::ids::SignerId;

/// A signer's file as the record keeps it: a few hundred bytes, whatever the file's size
/// (records are read often; docs/STORAGE.md "Bytes per envelope"). It counts towards the
/// account's stored bytes and goes with the envelope's other files
/// ([`EnvelopeRecord::held_files`](super::EnvelopeRecord::held_files)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttachedFile {
    /// The stored bytes: blob key, the file's name (ending in its type's extension), size and
    /// SHA-256, all of the service's re-encoding for an image.
    pub file: StoredFile,
    /// `application/pdf`, `image/png` or `image/jpeg`: what the bytes are, not what was said.
    pub content_type: String,
}

/// A signer's file as the API shows it, in an envelope's `attachments`: what it is, never its
/// bytes (`GET /v1/envelopes/{id}/files/attachment?field=KEY` gives a link to them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttachmentView {
    /// The `attachment` field's key.
    pub field: String,
    /// The signer who gave it, `sgn_...`.
    pub signer: SignerId,
    /// The file's name.
    pub name: String,
    /// `application/pdf`, `image/png` or `image/jpeg`.
    pub content_type: String,
    /// Bytes of the stored file.
    pub size: u64,
    /// Lowercase hex SHA-256 of the stored file.
    pub sha256: String,
}
