//! The PDF engine: reading and validating documents, finding their fields, stamping the signed
//! copy as an incremental update, the signature page, the audit trail, the place of the PAdES
//! seal (the signature field and the `/ByteRange`; the CMS itself comes from [`crate::seal`]),
//! and its long-term data (the DSS and document timestamps, `pdf/ltv.rs`).
//!
//! This module knows nothing of envelopes, stores or HTTP: it takes bytes and plain values and
//! gives bytes back. The service calls it from a blocking task (it is CPU-bound). Every read is
//! bounded by a per-document work budget ([`PdfLimits`], `pdf/budget.rs`): hostile input gets
//! [`PdfError::TooComplex`] naming the limit, quickly, instead of a stalled core.
//!
//! It must never modify the original bytes: a signed copy is always `original ++ update`.

use crate::field::{Field, PlacedField};

pub use attachment::{AttachmentError, AttachmentLimits, AttachmentType, normalize_attachment};
pub use budget::{Limit, PdfLimits};
pub use fonts::{SIGNATURE_FONT, Undrawable, check_char, check_drawable, keep_drawable};
pub use image::{DrawingError, DrawingLimits, normalize_drawing};
// PAdES B-LT / B-LTA (extensions E10): the service wires these into completion and the sweep.
#[cfg_attr(not(feature = "internals"), allow(unused_imports))]
pub use ltv::{
    DOC_TIMESTAMP_CAPACITY, EmbeddedSignature, ValidationData, dss_update,
    prepare_document_timestamp, prepare_document_timestamp_hashed, signatures,
    stored_validation_data, vri_key,
};
pub use options::{OptionsProblem, check_option, check_options};
pub use seal::{PreparedSeal, SealSpec, SealedUpdate};

mod acroform;
mod attachment;
mod audit;
mod budget;
mod discover;
mod draw;
mod embed;
mod filter;
mod fontinfo;
mod fonts;
mod image;
mod lexer;
mod ltv;
mod metrics;
mod object;
mod options;
mod pages;
mod reader;
mod redact;
mod room;
mod seal;
pub(crate) mod shape;
mod stamp;
mod text;
mod writer;
mod xref;

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
    /// The CMS does not fit the room reserved for it in `/Contents`.
    #[error("the signature needs {needed} bytes but {reserved} were reserved")]
    SealTooLarge { needed: usize, reserved: usize },
    /// Reading the document would cost more than a limit of [`PdfLimits`] allows.
    #[error("{0}")]
    TooComplex(Limit),
}

/// The size of a page as displayed (after `/Rotate`), in points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageSize {
    /// Width of the page, in points.
    pub width: f64,
    /// Height of the page, in points.
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
///
/// Reads lazily: the xref chain, the catalog, the page tree, each page's content and fonts, and
/// the AcroForm; never the images or other objects.
#[cfg_attr(not(feature = "internals"), allow(dead_code))] // used by tests and benches
pub fn inspect(bytes: &[u8], limits: &PdfLimits) -> Result<PdfInfo, PdfError> {
    inspect_after(bytes, limits, std::collections::HashSet::new())
}

/// [`inspect`] for a document after others (extensions E5): the keys in `taken` are the
/// earlier documents', and a key repeated here is numbered on (`Client_signature_2`).
pub fn inspect_after(
    bytes: &[u8],
    limits: &PdfLimits,
    taken: std::collections::HashSet<String>,
) -> Result<PdfInfo, PdfError> {
    let mut doc = reader::Document::open(bytes, limits)?;
    let claimed = pages::claimed_count(&mut doc)?;
    if claimed > i64::from(limits.max_pages) {
        let pages = u32::try_from(claimed).unwrap_or(u32::MAX);
        return Err(PdfError::TooManyPages {
            pages,
            max: limits.max_pages,
        });
    }
    let pages = walk_pages(&mut doc, limits)?;
    let mut fields = Vec::new();
    let mut extractor = text::Extractor::new(&mut doc);
    for (i, page) in pages.iter().enumerate() {
        extractor.glyphs.clear();
        let content = page_content(extractor.doc(), page)?;
        extractor.run(&content, page.resources.as_deref())?;
        for tag in discover::find_tags(&extractor.glyphs) {
            fields.push(discover::tag_field(&tag, i as u32 + 1, page));
        }
    }
    for f in acroform::form_fields(&mut doc, &pages)? {
        if let Some(pf) = acroform::form_field(&f, &pages) {
            fields.push(pf);
        }
    }
    Ok(PdfInfo {
        page_count: pages.len() as u32,
        pages: pages.iter().map(|p| p.geometry.size()).collect(),
        fields: discover::order_and_name_after(fields, taken),
    })
}

/// The displayed size of every page, in order: the page tree only, no content is read. The
/// walk stops one page past `limits.max_pages` ([`PdfError::TooManyPages`]).
pub fn page_sizes(bytes: &[u8], limits: &PdfLimits) -> Result<Vec<PageSize>, PdfError> {
    let mut doc = reader::Document::open(bytes, limits)?;
    let pages = walk_pages(&mut doc, limits)?;
    Ok(pages.iter().map(|p| p.geometry.size()).collect())
}

/// The page tree's pages, in order, within `limits.max_pages`. The walk stops one page past the
/// limit: a lying /Count must not buy a huge walk.
fn walk_pages(
    doc: &mut reader::Document<'_>,
    limits: &PdfLimits,
) -> Result<Vec<pages::Page>, PdfError> {
    let pages = pages::pages(doc, Some(limits.max_pages as usize + 1))?;
    if pages.len() > limits.max_pages as usize {
        let pages = u32::try_from(pages.len()).unwrap_or(u32::MAX);
        return Err(PdfError::TooManyPages {
            pages,
            max: limits.max_pages,
        });
    }
    Ok(pages)
}

/// The decoded content of a page (its `/Contents` streams joined).
pub(crate) fn page_content(
    doc: &mut reader::Document<'_>,
    page: &pages::Page,
) -> Result<Vec<u8>, PdfError> {
    let Some(c) = page.dict.get(b"Contents") else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    match doc.resolve(c)? {
        object::Object::Array(parts) => {
            for p in parts.iter().take(10_000) {
                out.extend(doc.stream_bytes(p)?);
                out.push(b'\n');
                if out.len() > doc.max_stream_bytes() {
                    return Err(doc.stream_limit_passed());
                }
            }
        }
        other => out = doc.stream_bytes(&other)?,
    }
    Ok(out)
}

/// A user-space rectangle as the API's box `(x, y, width, height)`: displayed, top-left origin,
/// rounded to hundredths of a point.
fn geometry_box(g: &pages::Geometry, rect: [f64; 4]) -> (f64, f64, f64, f64) {
    let (x, y, w, h) = g.rect_display_point(rect);
    let r = |v: f64| (v * 100.0).round() / 100.0;
    (r(x), r(y), r(w), r(h))
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
    /// A signer's file (extensions E14): its name is drawn in the box and the file is embedded
    /// in the document ([`EmbeddedFile`]).
    Attachment(EmbeddedFile),
}

/// A file embedded in the signed copy: listed in the catalog's `/EmbeddedFiles` name tree.
#[derive(Debug, Clone, PartialEq)]
pub struct EmbeddedFile {
    /// The entry's name in the name tree (made unique against the document's own entries).
    pub key: String,
    /// The file's name, as readers offer to save it.
    pub file_name: String,
    /// Its media type (`/Subtype`): `application/pdf`, `image/png` or `image/jpeg`.
    pub mime: String,
    /// What readers show beside it (`/Desc`).
    pub description: String,
    /// The file's bytes.
    pub bytes: bytes::Bytes,
}

/// One field and its value.
#[derive(Debug, Clone)]
pub struct FieldStamp {
    pub field: PlacedField,
    /// `None` leaves an optional field empty (a tag box is still painted over).
    pub value: Option<StampValue>,
    /// Who signed, for a signature field: its typed or drawn value is then drawn in a
    /// "Signed by" frame when the box is large enough. `None` draws the value alone.
    pub signed_by: Option<SignedBy>,
}

/// The signer named by a signature field's "Signed by" frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedBy {
    /// Shown after "Signed by:" (left out when it does not fit the box).
    pub name: String,
    /// A short reference to the signer, shown under the signature (the service gives the start
    /// of the signer's ID, which the audit trail lists in full).
    pub reference: String,
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
    /// When set, this line is drawn across the top of every page, the signature page included
    /// (the service sets [`TEST_MODE_MARK`] on test-mode envelopes). It is part of the same
    /// update as the values, so a sealed copy shows it under its seal.
    pub page_mark: Option<String>,
}

/// The mark on every page of a test-mode signed copy: a test key's document can never pass for
/// a signed contract, whoever reads it and whatever its seal says.
pub const TEST_MODE_MARK: &str = "TEST MODE - not a valid signature";

/// The line under the title of a test-mode audit trail ([`AuditTrail::livemode`] false).
pub const TEST_MODE_NOTICE: &str = "Test mode: not legally binding";

/// Produces the signed copy: `original` followed by one incremental update.
///
/// Reads only what it changes (the stamped pages, their resources, the form fields, the page
/// tree root), so its cost follows the number of fields, not the size of the document.
#[cfg_attr(not(feature = "internals"), allow(dead_code))] // tests, benches and examples
pub fn stamp(original: &[u8], request: &StampRequest) -> Result<Vec<u8>, PdfError> {
    stamp::stamp(original, request)
}

/// [`stamp`] without the copy of `original`: only the update, which a caller keeps after the
/// original it already has (the signed copy is `original ++ update`, byte for byte what
/// [`stamp`] returns).
pub fn stamp_update(original: &[u8], request: &StampRequest) -> Result<Vec<u8>, PdfError> {
    stamp::stamp_update(original, request)
}

/// Like [`stamp`], with the seal's invisible `/Sig` field and its signature dictionary added in the
/// same incremental update (so validators see nothing changed after the signature). The result
/// holds that update alone, with placeholders, and the original's hash (its one pass over
/// `original`): sign [`PreparedSeal::digest`], then [`PreparedSeal::fill`], and write
/// [`SealedUpdate::update`] after `original`.
pub fn stamp_for_seal(
    original: &[u8],
    request: &StampRequest,
    spec: &SealSpec,
) -> Result<PreparedSeal, PdfError> {
    stamp::stamp_for_seal(original, None, request, spec)
}

/// [`stamp_for_seal`] for an original whose SHA-256 state was kept when it was stored:
/// `hashed` has consumed exactly `original` and nothing else, so nothing hashes the original
/// again and the seal's two hashes feed only the update. A state of other bytes makes a seal that
/// does not validate and a wrong file digest: the caller checks it first
/// (`StoredFile::resumed_sha256` checks length and digest).
pub fn stamp_for_seal_hashed(
    original: &[u8],
    hashed: sha2::Sha256,
    request: &StampRequest,
    spec: &SealSpec,
) -> Result<PreparedSeal, PdfError> {
    stamp::stamp_for_seal(original, Some(hashed), request, spec)
}

/// Prepares an incremental update holding only the seal's field for a finished document (the
/// audit trail), read with the engine's own reader; [`SealedUpdate::into_whole`] joins them.
pub fn prepare_seal(pdf: &[u8], spec: &SealSpec) -> Result<PreparedSeal, PdfError> {
    seal::prepare_existing(pdf, spec)
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
    /// Carbon-copy recipients: `(ID, name, email)`. The section is left out when there are none.
    pub cc: Vec<(String, String, String)>,
    /// Every step in time order.
    pub events: Vec<AuditEvent>,
    /// Lowercase hex.
    pub original_sha256: String,
    pub signed_sha256: String,
    /// Every document of an envelope of several (extensions E5), in order; empty for one
    /// document, whose trail shows only the two digests above.
    pub documents: Vec<AuditDocument>,
    /// Lowercase hex SHA-256 of the certificate that seals the signed copy and the audit trail
    /// (`None` when the documents are not sealed).
    pub signing_certificate_sha256: Option<String>,
    /// When the documents are sealed: the level the service is set up to reach and the level
    /// each signed document reached, in order (`PAdES B-T`, ...; extensions E10).
    pub seal_levels: Option<SealLevels>,
    pub generated_at: String,
}

/// The seal levels the audit trail states (extensions E10), as names for people.
#[derive(Debug, Clone)]
pub struct SealLevels {
    /// The level the service is set up to reach.
    pub target: String,
    /// The level each signed document reached at completion, in document order.
    pub documents: Vec<String>,
}

/// One document of an envelope of several, as the audit trail lists it (extensions E5).
#[derive(Debug, Clone)]
pub struct AuditDocument {
    pub name: String,
    /// Lowercase hex.
    pub original_sha256: String,
    pub signed_sha256: String,
}

/// A signer as the audit trail lists it. Times are formatted strings, `None` when not reached.
#[derive(Debug, Clone)]
pub struct AuditSigner {
    pub id: String,
    pub role: String,
    pub name: String,
    pub email: String,
    /// The signer's locale (extensions E4); the row is left out when there is none, so trails
    /// of signers without one are unchanged.
    pub locale: Option<String>,
    pub ip_address: Option<String>,
    pub user_agent: Option<String>,
    pub created_at: String,
    pub sent_at: Option<String>,
    pub viewed_at: Option<String>,
    pub signed_at: Option<String>,
    pub declined_at: Option<String>,
    pub completed_at: Option<String>,
    /// The signature as it was stamped ([`StampValue::Typed`] or [`StampValue::Drawn`]; other
    /// values are not shown), drawn beside the signer's entry. `None` for a signer who did not
    /// sign.
    pub signature: Option<StampValue>,
    /// Rows about how the signer was reached (extensions E8): the links issued, and the kind
    /// of link they acted through. Shown after the timestamps; empty adds nothing.
    pub reach: Vec<(String, String)>,
    /// What the recipient did (extensions E13): `None` for a signer (the trail is unchanged),
    /// `Some(SignerKind::Approver | SignerKind::Viewer)` adds a "Kind" row and names the
    /// "Signed" row after what they did.
    pub kind: Option<crate::model::SignerKind>,
    /// The host of an in-person signing (extensions E13), as "Name <email>".
    pub hosted_by: Option<String>,
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

#[cfg(test)]
pub(crate) use envelope_testkit::pdf as testpdf;

#[cfg(test)]
mod tests {
    use super::testpdf::*;
    use super::*;
    use crate::field::{FieldSource, FieldType};

    fn keys(info: &PdfInfo) -> Vec<&str> {
        info.fields.iter().map(|f| f.field.key.as_str()).collect()
    }

    #[test]
    fn discovers_libreoffice_like_tags_in_every_layout() {
        for layout in [
            Layout::Classic,
            Layout::XrefStream { objstm: false },
            Layout::XrefStream { objstm: true },
        ] {
            let pdf = libreoffice_contract(layout);
            let info = inspect(&pdf, &PdfLimits::default()).expect("inspect");
            assert_eq!(info.page_count, 1);
            assert_eq!(
                info.pages[0],
                PageSize {
                    width: 612.0,
                    height: 792.0
                }
            );
            assert_eq!(
                keys(&info),
                [
                    "Client_signature",
                    "Provider_signature",
                    "Client_date",
                    "company",
                    "Client_initials",
                    "agree"
                ],
                "{layout:?}"
            );
            let sig = &info.fields[0].field;
            assert_eq!(
                (
                    sig.kind,
                    sig.role.as_deref(),
                    sig.filled_by.as_str(),
                    sig.required
                ),
                (FieldType::Signature, Some("Client"), "Client", true)
            );
            assert_eq!(info.fields[0].source, FieldSource::Tag);
            // The tag starts after "Client: " on the baseline y=600 (top-left origin: 792-600).
            assert!(
                sig.x > 72.0 + 11.0 * 0.5 * 6.0 && sig.x < 140.0,
                "x = {}",
                sig.x
            );
            assert!(
                sig.y < 192.0 && sig.y + sig.height > 192.0,
                "y = {} h = {}",
                sig.y,
                sig.height
            );
            let data = &info.fields[3].field;
            assert_eq!(
                (
                    data.kind,
                    data.role.as_deref(),
                    data.filled_by.as_str(),
                    data.required
                ),
                (FieldType::Text, None, "sender", true)
            );
            assert!(!info.fields[5].field.required, "a checkbox tag is optional");
        }
    }

    #[test]
    fn winansi_tags_split_across_operators_repeat_with_numbered_keys() {
        let mut c = helv_text(10.0, 72.0, 700.0, "{{signature:Client}}");
        c.push_str("BT /F1 10 Tf 72 650 Td ({{sig) Tj (nature:) Tj (Client}}) Tj ET\n");
        c.push_str("BT /F1 10 Tf 72 600 Td [({{sig) 120 (natu) -40 (re:Cli) (ent}})] TJ ET\n");
        c.push_str(&helv_text(
            10.0,
            72.0,
            550.0,
            "{{foo:Client}} {{signature:Client:final}}",
        ));
        let mut b = Builder::new();
        let pdf = document(&mut b, &[PageSpec::letter(c)], "", Layout::Classic);
        let info = inspect(&pdf, &PdfLimits::default()).expect("inspect");
        assert_eq!(
            keys(&info),
            [
                "Client_signature",
                "Client_signature_2",
                "Client_signature_3",
                "final"
            ]
        );
        // Helvetica widths: "{{signature:Client}}" at 10 pt is 82.83 pt wide.
        let w = info.fields[0].field.width;
        assert!((w - 82.83).abs() < 0.01, "width {w}");
    }

    #[test]
    fn rotated_pages_and_shifted_origins_use_displayed_coordinates() {
        for rotate in [0, 90, 180, 270] {
            let mut p = PageSpec::letter(helv_text(10.0, 110.0, 220.0, "{{text:A}}"));
            p.media = [100.0, 200.0, 712.0, 992.0];
            p.rotate = rotate;
            let mut b = Builder::new();
            let pdf = document(&mut b, &[p], "", Layout::Classic);
            let info = inspect(&pdf, &PdfLimits::default()).expect("inspect");
            let f = &info.fields[0].field;
            let size = info.pages[0];
            // In user space the tag's baseline starts 10 pt right of and 20 pt above the corner.
            let (x, y) = match rotate {
                0 => (10.0, size.height - 20.0),
                90 => (20.0, 10.0),
                180 => (size.width - 10.0, 20.0),
                _ => (size.width - 20.0, size.height - 10.0),
            };
            let inside = |px: f64, py: f64| {
                px >= f.x - 3.0
                    && px <= f.x + f.width + 3.0
                    && py >= f.y - 3.0
                    && py <= f.y + f.height + 3.0
            };
            assert!(
                inside(x, y),
                "rotate {rotate}: {f:?} should touch ({x},{y})"
            );
            if rotate % 180 == 90 {
                assert_eq!(
                    size,
                    PageSize {
                        width: 792.0,
                        height: 612.0
                    }
                );
                assert!(
                    f.height > f.width,
                    "a horizontal tag shows vertical on a rotated page"
                );
            }
        }
    }

    #[test]
    fn refuses_what_is_not_a_readable_pdf() {
        let good = libreoffice_contract(Layout::Classic);
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("empty", Vec::new()),
            ("text", b"hello, this is not a PDF".to_vec()),
            ("truncated", good[..good.len() / 2].to_vec()),
            ("header only", b"%PDF-1.7\n".to_vec()),
        ];
        for (name, bytes) in cases {
            assert!(
                matches!(
                    inspect(&bytes, &PdfLimits::default()),
                    Err(PdfError::Invalid(_))
                ),
                "{name}"
            );
        }
    }

    #[test]
    fn refuses_encrypted_files() {
        let good = libreoffice_contract(Layout::Classic);
        let s = String::from_utf8_lossy(&good)
            .replace("/Size", "/Encrypt <</Filter /Standard /V 2 /R 3>> /Size");
        assert!(matches!(
            inspect(s.as_bytes(), &PdfLimits::default()),
            Err(PdfError::Encrypted)
        ));
    }

    #[test]
    fn refuses_too_many_pages() {
        let pages: Vec<PageSpec> = (0..201).map(|_| PageSpec::letter("")).collect();
        let mut b = Builder::new();
        let pdf = document(&mut b, &pages, "", Layout::Classic);
        assert!(matches!(
            inspect(&pdf, &PdfLimits::default()),
            Err(PdfError::TooManyPages {
                pages: 201,
                max: 200
            })
        ));
        assert_eq!(
            inspect(
                &pdf,
                &PdfLimits {
                    max_pages: 201,
                    ..PdfLimits::default()
                }
            )
            .map(|i| i.page_count)
            .ok(),
            Some(201)
        );
    }

    #[test]
    fn recovers_damaged_offsets_and_reads_prior_updates() {
        let good = libreoffice_contract(Layout::Classic);
        let shifted = shift_offsets(&good);
        assert_eq!(
            inspect(&shifted, &PdfLimits::default())
                .map(|i| i.fields.len())
                .ok(),
            Some(6)
        );
        // An update that replaces the page content: the newest version wins.
        let info = inspect(&good, &PdfLimits::default()).expect("inspect");
        assert_eq!(info.fields.len(), 6);
    }

    #[test]
    fn page_tree_loops_do_not_hang() {
        let mut b = Builder::new();
        let pages = b.reserve();
        let page = b.add(format!(
            "<</Type /Page /Parent {pages} 0 R /MediaBox [0 0 100 100]>>"
        ));
        b.set(
            pages,
            format!("<</Type /Pages /Kids [{pages} 0 R {page} 0 R {pages} 0 R] /Count 3>>"),
        );
        let root = b.add(format!("<</Type /Catalog /Pages {pages} 0 R>>"));
        let pdf = b.finish(root, Layout::Classic);
        assert_eq!(
            inspect(&pdf, &PdfLimits::default())
                .map(|i| i.page_count)
                .ok(),
            Some(1)
        );
    }
}
