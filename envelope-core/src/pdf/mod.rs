//! The PDF engine: reading and validating documents, finding their fields, stamping the signed
//! copy as an incremental update, the signature page, and the audit trail.
//!
//! This module knows nothing of envelopes, stores or HTTP: it takes bytes and plain values and
//! gives bytes back. The service calls it from a blocking task (it is CPU-bound).
//!
//! It must never modify the original bytes: a signed copy is always `original ++ update`.

use crate::field::{Field, PlacedField};

mod audit;

/// Limits that [`inspect`] enforces.
#[derive(Debug, Clone, Copy)]
pub struct PdfLimits {
    /// Most pages a document may have (200 by the spec).
    pub max_pages: u32,
}

impl Default for PdfLimits {
    fn default() -> Self {
        PdfLimits { max_pages: 200 }
    }
}

/// Why a document was refused or could not be processed.
#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    /// Not a PDF, truncated, or corrupt beyond recovery. The reason is for humans.
    #[error("not a readable PDF: {0}")]
    Invalid(String),
    /// The document is encrypted (even with an empty user password).
    #[error("the PDF is encrypted")]
    Encrypted,
    /// More pages than [`PdfLimits::max_pages`].
    #[error("the PDF has {pages} pages; at most {max} are allowed")]
    TooManyPages { pages: u32, max: u32 },
    /// A stamp value could not be used (for example a drawn signature that is not a PNG).
    #[error("invalid stamp value for field {key}: {reason}")]
    InvalidValue { key: String, reason: String },
}

/// The size of a page as displayed (after `/Rotate`), in points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageSize {
    pub width: f64,
    pub height: f64,
}

/// What [`inspect`] learns about a document.
#[derive(Debug, Clone)]
pub struct PdfInfo {
    pub page_count: u32,
    /// One entry per page, in page order.
    pub pages: Vec<PageSize>,
    /// Fields found from text tags and AcroForm fields, in document order (page, then top to
    /// bottom, then left to right), keys made unique as decisions.md says.
    pub fields: Vec<PlacedField>,
}

/// Opens and validates a PDF, counts its pages and discovers its fields.
pub fn inspect(bytes: &[u8], limits: &PdfLimits) -> Result<PdfInfo, PdfError> {
    let _ = (bytes, limits);
    todo!("PDF engine")
}

/// A value to put into one field of the signed copy.
#[derive(Debug, Clone, PartialEq)]
pub enum StampValue {
    /// A typed signature or initials: drawn in a built-in script-like font.
    Typed(String),
    /// A drawn signature or initials: PNG bytes (with alpha).
    Drawn(Vec<u8>),
    /// Text and dates (already formatted).
    Text(String),
    Checkbox(bool),
}

/// One field and its value.
#[derive(Debug, Clone)]
pub struct FieldStamp {
    pub field: PlacedField,
    /// `None` leaves an optional field empty (a tag box is still painted over).
    pub value: Option<StampValue>,
}

/// One signer's block on the appended signature page.
#[derive(Debug, Clone)]
pub struct SignatureBlock {
    pub role: String,
    pub name: String,
    pub email: String,
    pub signature: StampValue,
    /// Already formatted for display (UTC).
    pub signed_at: String,
}

/// What to stamp into the signed copy.
#[derive(Debug, Clone, Default)]
pub struct StampRequest {
    pub fields: Vec<FieldStamp>,
    /// When set, one page is appended with a block per signer.
    pub signature_page: Option<Vec<SignatureBlock>>,
}

/// Produces the signed copy: `original` followed by one incremental update.
pub fn stamp(original: &[u8], request: &StampRequest) -> Result<Vec<u8>, PdfError> {
    let _ = (original, request);
    todo!("PDF engine")
}

/// The content of the audit trail document.
#[derive(Debug, Clone)]
pub struct AuditTrail {
    pub service_name: String,
    pub envelope_id: String,
    pub envelope_name: String,
    pub livemode: bool,
    pub status: String,
    pub created_at: String,
    pub sent_at: Option<String>,
    pub completed_at: Option<String>,
    pub signers: Vec<AuditSigner>,
    /// Every step in time order.
    pub events: Vec<AuditEvent>,
    /// Lowercase hex.
    pub original_sha256: String,
    pub signed_sha256: String,
    pub generated_at: String,
}

/// A signer as the audit trail lists it. Times are formatted strings, `None` when not reached.
#[derive(Debug, Clone)]
pub struct AuditSigner {
    pub id: String,
    pub role: String,
    pub name: String,
    pub email: String,
    pub ip_address: Option<String>,
    pub user_agent: Option<String>,
    pub created_at: String,
    pub sent_at: Option<String>,
    pub viewed_at: Option<String>,
    pub signed_at: Option<String>,
    pub declined_at: Option<String>,
    pub completed_at: Option<String>,
}

/// One row of the audit trail's event table.
#[derive(Debug, Clone)]
pub struct AuditEvent {
    pub at: String,
    pub what: String,
    pub who: String,
    pub detail: String,
}

/// Renders the audit trail PDF.
pub fn audit_trail(trail: &AuditTrail) -> Result<Vec<u8>, PdfError> {
    audit::render(trail)
}

/// Checks explicit fields against the document's pages: `page` within 1..=page_count, the box
/// inside the page, positive sizes. Returns the index of the first bad field and why.
pub fn check_fields(fields: &[Field], pages: &[PageSize]) -> Result<(), (usize, String)> {
    for (i, f) in fields.iter().enumerate() {
        let Some(page) = (f.page as usize).checked_sub(1).and_then(|p| pages.get(p)) else {
            return Err((i, format!("page {} does not exist", f.page)));
        };
        let finite = [f.x, f.y, f.width, f.height].iter().all(|v| v.is_finite());
        if !finite || f.width <= 0.0 || f.height <= 0.0 {
            return Err((i, "width and height must be positive numbers".into()));
        }
        if f.x < 0.0
            || f.y < 0.0
            || f.x + f.width > page.width + 0.01
            || f.y + f.height > page.height + 0.01
        {
            return Err((
                i,
                format!(
                    "the box is outside page {} ({} x {} points)",
                    f.page, page.width, page.height
                ),
            ));
        }
    }
    Ok(())
}
