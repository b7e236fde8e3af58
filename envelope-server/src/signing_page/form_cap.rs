//! The largest form post a signing page can make, computed from what its fields can hold.
//!
//! A post larger than this cannot come from the page, so it is refused while it streams,
//! before it is held. The figures follow the core's checks on signer values (a drawing is a PNG
//! of at most 512 KiB, typed marks at most 200 characters, text at most 1 000, a decline reason
//! at most 1 000) and the worst case of `application/x-www-form-urlencoded`: every byte
//! percent-encoded as three.

use envelope_core::field::FieldType;
use envelope_core::service::SigningSession;

/// Percent-encoding writes a byte as at most three.
const ENCODED: usize = 3;
/// The largest drawing the core accepts (512 KiB of PNG): the core's own constant, so the cap
/// follows it.
const DRAWING_BYTES: usize = envelope_core::service::DrawingLimits::SUBMITTED.max_bytes;
/// `data:image/png;base64,` + base64 of the largest drawing.
const DRAWING_TEXT: usize = 22 + DRAWING_BYTES.div_ceil(3) * 4;
/// Characters of a typed mark and of a text field, at most four UTF-8 bytes each.
const TYPED_BYTES: usize = 200 * 4;
const TEXT_BYTES: usize = 1000 * 4;
/// Names, the form token, the consent box, the modes and the page's own fields.
const FIXED: usize = 16 * 1024;

/// One signature or initials field: the mode, the typed text and the drawing all travel.
pub const PER_MARK: usize = ENCODED * (DRAWING_TEXT + TYPED_BYTES) + 256;
/// One text, check box, choice (options are at most 200 characters) or number field.
pub const PER_FIELD: usize = ENCODED * TEXT_BYTES + 256;
/// The decline form: the form token and a reason.
pub const DECLINE: usize = FIXED + ENCODED * TEXT_BYTES;
/// The code step's forms (enter a code, send a new one): the form token and a code of at most
/// 32 characters; well under the fixed allowance.
pub const CODE: usize = 4 * 1024;

/// The cap of the signing form of `session`: 2 MiB and a little per mark it can draw.
pub fn sign(session: &SigningSession) -> usize {
    let marks = session
        .fields
        .iter()
        .filter(|f| matches!(f.kind, FieldType::Signature | FieldType::Initials))
        .count()
        + usize::from(session.signature_page);
    let others = session.fields.len() + usize::from(session.signature_page) - marks;
    FIXED + marks * PER_MARK + others * PER_FIELD
}

/// The most bytes a signer's files can add to the form (extensions E14): per `attachment`
/// field, the core's largest file and its part's headers. Such a form is multipart, whose
/// parts are not percent-encoded.
pub fn files(session: &SigningSession) -> usize {
    let per_file = envelope_core::service::AttachmentLimits::SUBMITTED.max_bytes + 4 * 1024;
    session
        .fields
        .iter()
        .filter(|f| f.kind == FieldType::Attachment)
        .count()
        * per_file
}

// A drawing at the core's limit fits even fully percent-encoded: 512 KiB of PNG is 699 052
// base64 characters, every one as %XX 2 097 156 bytes; the decline form stays small.
const _: () = assert!(DRAWING_TEXT == 22 + 699_052);
const _: () = assert!(PER_MARK >= 3 * DRAWING_TEXT + 3 * TYPED_BYTES);
const _: () = assert!(DECLINE < 64 * 1024);
