//! The seal's place in the file: an invisible `/Sig` field on page 1, its signature dictionary with
//! a `/ByteRange` and a `/Contents` placeholder, then — once the signer has signed the digest of
//! the two ranges — the CMS written into `/Contents` in place.
//!
//! This module knows no cryptography: it reserves room, hashes the ranges and copies the CMS
//! bytes it is given. It must never move a byte of the file after the digest is taken: filling
//! only overwrites the hex digits of the placeholder, and a CMS larger than the room is an error,
//! never a rewrite.

use std::fmt::Write as _;
use std::ops::Range;

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};

use super::PdfError;
use super::acroform;
use super::object::{Dict, ObjRef, Object, text_string};
use super::pages::{self, Page};
use super::reader::Document;
use super::writer::Update;

/// What the signature dictionary says and how much room it reserves.
#[derive(Debug, Clone)]
pub struct SealSpec {
    /// `/Name`: who seals (the service's name).
    pub name: String,
    /// `/Reason`.
    pub reason: String,
    /// `/M`: the claimed signing time (PAdES puts it here, not in a CMS attribute).
    pub signing_time: DateTime<Utc>,
    /// Bytes reserved for the DER CMS (`/Contents` holds twice as many hex digits).
    pub capacity: usize,
}

/// A document's seal, prepared: the incremental update that holds the seal's placeholders, and
/// the SHA-256 state of the original it follows. Hash [`Self::digest`], sign, then [`Self::fill`].
///
/// It holds the update alone, never a copy of the original: the signed file is
/// `original ++ update`, and the original was hashed where it lies when the seal was prepared.
/// Both hashes the seal needs start with the whole original (the first `/ByteRange` range begins
/// at 0 and `/Contents` is in the update), so the original is read once for the two.
#[derive(Clone)]
pub struct PreparedSeal {
    /// SHA-256 fed with the original's bytes, and nothing else yet.
    original: Sha256,
    /// The original's length: offsets in the file (`/ByteRange`) count from its start.
    base: usize,
    /// The update, with zeros in `/Contents` until [`Self::fill`].
    update: Vec<u8>,
    /// The hex digits of `/Contents` in `update`, without the angle brackets.
    hex: Range<usize>,
}

impl std::fmt::Debug for PreparedSeal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedSeal")
            .field("base", &self.base)
            .field("update", &self.update.len())
            .field("hex", &self.hex)
            .finish_non_exhaustive()
    }
}

/// A sealed update: the bytes to write after the original, and the SHA-256 of the whole signed
/// file, continued from the original's hash state (no second pass over the original).
#[derive(Debug, Clone)]
pub struct SealedUpdate {
    /// The bytes that follow the original, with the CMS in `/Contents`.
    pub update: Vec<u8>,
    /// SHA-256 of `original ++ update`: the signed file's, as a record describes it.
    pub sha256: [u8; 32],
    /// The original's length.
    base: usize,
    /// SHA-256 fed with `original ++ update`, not finished: what a further update continues.
    state: Sha256,
}

impl SealedUpdate {
    /// A SHA-256 that has consumed `original ++ update` and nothing else: a further incremental
    /// update (the DSS and document timestamp of PAdES B-LT and B-LTA) continues it instead of
    /// hashing the file again.
    pub fn hash_state(&self) -> Sha256 {
        self.state.clone()
    }

    /// `original ++ update`: the signed file in one buffer, for documents kept whole (the audit
    /// trail) and tests. `original` must be the bytes the seal was prepared on; one of another
    /// length is refused.
    pub fn into_whole(self, original: &[u8]) -> Result<Vec<u8>, PdfError> {
        if original.len() != self.base {
            return Err(PdfError::Invalid(format!(
                "the seal follows {} bytes, not {}",
                self.base,
                original.len()
            )));
        }
        let mut whole = Vec::with_capacity(original.len() + self.update.len());
        whole.extend_from_slice(original);
        whole.extend_from_slice(&self.update);
        Ok(whole)
    }
}

/// Width of the `/ByteRange` slot: `[0 a b c]` with 10-digit numbers, padded with spaces.
pub(crate) const BYTE_RANGE_WIDTH: usize = 36;
/// Name of the seal's form field (made unique against existing fields).
const FIELD_NAME: &str = "Seal";

impl PreparedSeal {
    /// `[0, a, b, len - b]` in the whole file: everything but `/Contents`' `<...>`.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))] // used by tests and benches
    pub fn byte_range(&self) -> [usize; 4] {
        let a = self.base + self.hex.start - 1;
        let b = self.base + self.hex.end + 1;
        [0, a, b, self.base + self.update.len() - b]
    }

    /// The update with the placeholder (zeros in `/Contents`); the file is `original ++ update`.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))] // used by tests and benches
    pub fn update(&self) -> &[u8] {
        &self.update
    }

    /// SHA-256 of the two ranges: what the CMS signs (its message-digest attribute). The
    /// original's part was hashed by `prepare`; this adds the update's bytes around
    /// `/Contents`.
    pub fn digest(&self) -> [u8; 32] {
        let mut h = self.original.clone();
        h.update(&self.update[..self.hex.start - 1]);
        h.update(&self.update[self.hex.end + 1..]);
        h.finalize().into()
    }

    /// Bytes of CMS the placeholder holds.
    pub fn capacity(&self) -> usize {
        self.hex.len() / 2
    }

    /// Writes `cms` (DER) into `/Contents`, zero-padded, and returns the sealed update with the
    /// whole file's SHA-256.
    pub fn fill(mut self, cms: &[u8]) -> Result<SealedUpdate, PdfError> {
        if cms.len() > self.capacity() {
            return Err(PdfError::SealTooLarge {
                needed: cms.len(),
                reserved: self.capacity(),
            });
        }
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        let slot = &mut self.update[self.hex.clone()];
        for (pair, b) in slot.chunks_exact_mut(2).zip(cms) {
            pair[0] = HEX[usize::from(b >> 4)];
            pair[1] = HEX[usize::from(b & 15)];
        }
        let mut whole = self.original;
        whole.update(&self.update);
        Ok(SealedUpdate {
            update: self.update,
            sha256: whole.clone().finalize().into(),
            base: self.base,
            state: whole,
        })
    }
}

/// Appends an update holding only the seal's field to `pdf` (for documents made elsewhere, such
/// as the audit trail).
pub fn prepare_existing(pdf: &[u8], spec: &SealSpec) -> Result<PreparedSeal, PdfError> {
    beside_the_hash(pdf, None, || {
        let mut doc = Document::load(pdf)?;
        let pages = pages::pages(&mut doc, None)?;
        let up = Update::new(&doc);
        prepare(&mut doc, &pages, up, spec)
    })
}

/// From this size on, the original is hashed on a thread of its own while `work` reads it and
/// builds the update (below it, a thread costs more than it saves).
const HASH_BESIDE_FROM: usize = 1 << 20;

/// Runs `work` (reading `original` and writing the seal's update) and the one SHA-256 pass over
/// `original` side by side. The two are independent, and the hash is the seal's floor: on the
/// 24 MB bench document it is 17 ms of the 21 that stamping and sealing take in a row, so run
/// beside it the rest costs almost nothing (docs/PERFORMANCE.md). Where no thread can be started,
/// the hash runs after `work`, as it would anyway.
///
/// `hashed`: a SHA-256 that has already consumed `original` and nothing else (kept since the
/// original was stored, [`crate::pdf::stamp_for_seal_hashed`]); then nothing hashes the original
/// and only `work` runs.
pub(crate) fn beside_the_hash(
    original: &[u8],
    hashed: Option<Sha256>,
    work: impl FnOnce() -> Result<Unhashed, PdfError>,
) -> Result<PreparedSeal, PdfError> {
    if let Some(hashed) = hashed {
        return Ok(work()?.hashed(hashed));
    }
    let hash = || {
        let mut h = Sha256::new();
        h.update(original);
        h
    };
    if original.len() < HASH_BESIDE_FROM {
        return Ok(work()?.hashed(hash()));
    }
    std::thread::scope(|s| {
        match std::thread::Builder::new()
            .name("seal-hash".into())
            .spawn_scoped(s, hash)
        {
            Ok(hashing) => {
                let unhashed = work();
                let h = hashing
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                Ok(unhashed?.hashed(h))
            }
            Err(_) => Ok(work()?.hashed(hash())),
        }
    })
}

/// A seal's update, written, waiting for the original's hash (see [`beside_the_hash`]).
pub(crate) struct Unhashed {
    base: usize,
    update: Vec<u8>,
    hex: Range<usize>,
}

impl Unhashed {
    /// `original`: a SHA-256 fed with the original's bytes and nothing else.
    fn hashed(self, original: Sha256) -> PreparedSeal {
        PreparedSeal {
            original,
            base: self.base,
            update: self.update,
            hex: self.hex,
        }
    }
}

/// Adds the seal's field, widget and signature dictionary to `up`, writes it and patches the
/// `/ByteRange` to the final positions. The original (`doc`'s bytes) is hashed by the caller,
/// [`beside_the_hash`].
pub(crate) fn prepare(
    doc: &mut Document<'_>,
    pages: &[Page],
    up: Update,
    spec: &SealSpec,
) -> Result<Unhashed, PdfError> {
    let (body, range_at, hex_at) = signature_dictionary(spec);
    let placeholder = Placeholder {
        body,
        range_at,
        hex_at,
        hex_len: spec.capacity * 2,
    };
    place(doc, pages, up, placeholder, |i| match i {
        1 => FIELD_NAME.to_string(),
        i => format!("{FIELD_NAME}_{i}"),
    })
}

/// A signature dictionary's body, written, with the places of its `/ByteRange` slot and of the
/// first hex digit of `/Contents` inside it.
pub(crate) struct Placeholder {
    pub body: Vec<u8>,
    pub range_at: usize,
    pub hex_at: usize,
    /// Hex digits of `/Contents` (twice the bytes reserved).
    pub hex_len: usize,
}

/// Adds an invisible signature field on the first page whose value is `placeholder`, named by
/// the first of `name(1)`, `name(2)`, ... that no field of the form has, then writes the update
/// and patches `/ByteRange` to the final positions. The seal and the document timestamp
/// (`pdf/ltv.rs`) are both placed this way.
pub(crate) fn place(
    doc: &mut Document<'_>,
    pages: &[Page],
    mut up: Update,
    placeholder: Placeholder,
    name: impl Fn(usize) -> String,
) -> Result<Unhashed, PdfError> {
    let page = pages
        .first()
        .ok_or_else(|| PdfError::Invalid("the document has no page to hold the seal".into()))?;
    let Placeholder {
        body,
        range_at,
        hex_at,
        hex_len,
    } = placeholder;
    let sig = up.add_raw(body);
    let name = unique_name(doc, pages, name)?;
    let field = up.add(Object::Dict(
        Dict::new()
            .with(b"FT", Object::name(b"Sig"))
            .with(b"T", Object::Str(text_string(&name)))
            .with(b"V", sig)
            .with(b"Type", Object::name(b"Annot"))
            .with(b"Subtype", Object::name(b"Widget"))
            .with(b"Rect", Object::Array(vec![Object::Int(0); 4]))
            // Print + Locked: an invisible widget that nobody moves.
            .with(b"F", 132i64)
            .with(b"P", page.id),
    ));
    add_annotation(doc, &mut up, page.id, field)?;
    add_to_form(doc, &mut up, field)?;

    // The update alone: the original stays where the caller keeps it, uncopied.
    let base = doc.bytes.len();
    let written = up.write_update_located(doc);
    let start = written.bodies[&sig.num] - base;
    let mut update = written.bytes;
    let hex = start + hex_at..start + hex_at + hex_len;
    let (a, b) = (base + hex.start - 1, base + hex.end + 1);
    let range = format!("[0 {a} {b} {}]", base + update.len() - b);
    if range.len() > BYTE_RANGE_WIDTH {
        return Err(PdfError::Invalid(
            "the document is too large to seal".into(),
        ));
    }
    let slot = &mut update[start + range_at..start + range_at + BYTE_RANGE_WIDTH];
    slot.fill(b' ');
    slot[..range.len()].copy_from_slice(range.as_bytes());
    Ok(Unhashed { base, update, hex })
}

/// The signature dictionary's body and the offsets, inside it, of the `/ByteRange` slot and of
/// the first hex digit of `/Contents`.
fn signature_dictionary(spec: &SealSpec) -> (Vec<u8>, usize, usize) {
    let mut body = b"<</Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached".to_vec();
    body.extend_from_slice(b" /Name ");
    Object::Str(text_string(&spec.name)).write(&mut body);
    body.extend_from_slice(b" /Reason ");
    Object::Str(text_string(&spec.reason)).write(&mut body);
    body.extend_from_slice(b" /M ");
    Object::Str(pdf_date(spec.signing_time).into_bytes()).write(&mut body);
    body.extend_from_slice(b" /ByteRange ");
    let range_at = body.len();
    body.resize(body.len() + BYTE_RANGE_WIDTH, b' ');
    body.extend_from_slice(b" /Contents <");
    let hex_at = body.len();
    body.resize(body.len() + spec.capacity * 2, b'0');
    body.extend_from_slice(b">>>");
    (body, range_at, hex_at)
}

/// `D:YYYYMMDDHHmmSS+00'00'`.
fn pdf_date(t: DateTime<Utc>) -> String {
    let mut s = String::new();
    let _ = write!(s, "D:{}+00'00'", t.format("%Y%m%d%H%M%S"));
    s
}

/// The first of `name(1)`, `name(2)`, ... that is not a field of the form (nor the parent of
/// one): `Seal`, or `Seal_2`, ... for the seal.
fn unique_name(
    doc: &mut Document<'_>,
    pages: &[Page],
    name: impl Fn(usize) -> String,
) -> Result<String, PdfError> {
    let existing: Vec<String> = acroform::form_fields(doc, pages)?
        .into_iter()
        .map(|f| f.name)
        .collect();
    let taken = |n: &str| {
        existing
            .iter()
            .any(|e| e == n || e.starts_with(&format!("{n}.")))
    };
    (1..=existing.len() + 1)
        .map(name)
        .find(|n| !taken(n))
        .ok_or_else(|| PdfError::Invalid("no free name for the signature field".into()))
}

/// Appends `annot` to the page's `/Annots` (made a direct array in the new version of the page).
fn add_annotation(
    doc: &mut Document<'_>,
    up: &mut Update,
    page: ObjRef,
    annot: ObjRef,
) -> Result<(), PdfError> {
    let mut dict = up.current(doc, page)?;
    let mut annots = match dict.get(b"Annots") {
        Some(a) => doc
            .resolve(a)?
            .as_array()
            .map(<[Object]>::to_vec)
            .unwrap_or_default(),
        None => Vec::new(),
    };
    annots.push(Object::Ref(annot));
    dict.set(b"Annots", Object::Array(annots));
    up.replace(page, Object::Dict(dict));
    Ok(())
}

/// Adds `field` to the AcroForm's `/Fields` (creating the form when there is none) and sets
/// `/SigFlags 3` (signatures exist, append only). Existing fields are kept.
fn add_to_form(doc: &mut Document<'_>, up: &mut Update, field: ObjRef) -> Result<(), PdfError> {
    let root = doc
        .xref
        .trailer
        .get(b"Root")
        .and_then(Object::as_ref)
        .ok_or_else(|| PdfError::Invalid("the catalog is not an indirect object".into()))?;
    let mut catalog = up.current(doc, root)?;
    let (form_ref, mut form) = match catalog.get(b"AcroForm").cloned() {
        Some(Object::Ref(r)) => (Some(r), up.current(doc, r)?),
        Some(Object::Dict(d)) => (None, d),
        _ => (None, Dict::new()),
    };
    let mut fields = match form.get(b"Fields") {
        Some(f) => doc
            .resolve(f)?
            .as_array()
            .map(<[Object]>::to_vec)
            .unwrap_or_default(),
        None => Vec::new(),
    };
    fields.push(Object::Ref(field));
    form.set(b"Fields", Object::Array(fields));
    let flags = match form.get(b"SigFlags") {
        Some(f) => doc.resolve(f)?.as_i64().unwrap_or(0),
        None => 0,
    };
    form.set(b"SigFlags", Object::Int(flags | 3));
    match form_ref {
        Some(r) => up.replace(r, Object::Dict(form)),
        None => {
            catalog.set(b"AcroForm", Object::Dict(form));
            up.replace(root, Object::Dict(catalog));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testpdf::*;
    use super::*;

    fn spec() -> SealSpec {
        SealSpec {
            name: "Envelope".into(),
            reason: "Signed by all parties via Envelope".into(),
            signing_time: DateTime::from_timestamp(1_700_000_000, 0).unwrap_or_default(),
            capacity: 64,
        }
    }

    #[test]
    fn byte_range_covers_everything_but_the_contents() {
        for layout in [Layout::Classic, Layout::XrefStream { objstm: true }] {
            let pdf = libreoffice_contract(layout);
            let prepared = prepare_existing(&pdf, &spec()).expect("prepare");
            let bytes = &[&pdf[..], prepared.update()].concat()[..];
            let [zero, a, b, c] = prepared.byte_range();
            assert_eq!((zero, b + c), (0, bytes.len()));
            assert_eq!(bytes[a], b'<');
            assert_eq!(bytes[b - 1], b'>');
            assert_eq!(b - a, 2 + 128);
            let text = String::from_utf8_lossy(bytes);
            assert!(
                text.contains(&format!("/ByteRange [0 {a} {b} {c}]")),
                "{layout:?}"
            );
            assert!(text.contains("/M (D:20231114221320+00'00')"));
            let mut ranges = Sha256::new();
            ranges.update(&bytes[..a]);
            ranges.update(&bytes[b..]);
            assert_eq!(prepared.digest(), <[u8; 32]>::from(ranges.finalize()));
            let sealed = prepared.clone().fill(&[0xAB; 3]).expect("fill");
            let digest = sealed.sha256;
            let sealed = sealed.into_whole(&pdf).expect("whole");
            assert_eq!(&sealed[a..a + 8], b"<ABABAB0");
            assert_eq!(sealed.len(), bytes.len());
            assert_eq!(<[u8; 32]>::from(Sha256::digest(&sealed)), digest);
            assert!(matches!(
                prepared.fill(&[0; 65]),
                Err(PdfError::SealTooLarge { needed: 65, .. })
            ));
        }
    }

    /// A stamp request that types `name` into every field `pdf`'s discovery finds.
    fn typed_in_every_field(pdf: &[u8], name: &str) -> super::super::StampRequest {
        let info =
            super::super::inspect(pdf, &super::super::PdfLimits::default()).expect("inspect");
        super::super::StampRequest {
            page_mark: None,
            fields: info
                .fields
                .into_iter()
                .map(|field| super::super::FieldStamp {
                    field,
                    signed_by: None,
                    value: Some(super::super::StampValue::Typed(name.into())),
                })
                .collect(),
            signature_page: None,
        }
    }

    /// Past [`HASH_BESIDE_FROM`] the original is hashed on another thread while the update is
    /// built: the digest still covers exactly the `/ByteRange`, and the file's SHA-256 is that of
    /// the sealed file, for the seal alone and for stamps and seal in one update.
    #[test]
    fn a_large_original_hashed_beside_the_update_gives_the_same_hashes() {
        use envelope_testkit::textpdf;
        let pdf = textpdf::padded(&textpdf::client_contract(), 3 << 20, 7);
        assert!(pdf.len() > HASH_BESIDE_FROM);
        let request = typed_in_every_field(&pdf, "Ada");
        for prepared in [
            prepare_existing(&pdf, &spec()).expect("prepare"),
            super::super::stamp::stamp_for_seal(&pdf, None, &request, &spec()).expect("stamp"),
        ] {
            let [_, a, b, _] = prepared.byte_range();
            let digest = prepared.digest();
            let sealed = prepared.fill(&[0xCD; 40]).expect("fill");
            let sha = sealed.sha256;
            let file = sealed.into_whole(&pdf).expect("whole");
            assert_eq!(&file[..pdf.len()], &pdf[..]);
            let mut ranges = Sha256::new();
            ranges.update(&file[..a]);
            ranges.update(&file[b..]);
            assert_eq!(digest, <[u8; 32]>::from(ranges.finalize()));
            assert_eq!(<[u8; 32]>::from(Sha256::digest(&file)), sha);
        }
    }

    /// An original's SHA-256 state kept from before (`hashed`) gives the very seal that hashing
    /// it here gives: the same update, the same `/ByteRange` digest, and the plain SHA-256 of the
    /// sealed file, for originals ending just before, on and just after 64-byte blocks, small and
    /// past [`HASH_BESIDE_FROM`].
    #[test]
    fn a_kept_hash_state_seals_as_hashing_the_original_does() {
        use envelope_testkit::textpdf;
        let contract = textpdf::client_contract();
        for size in [2_000, HASH_BESIDE_FROM + 10] {
            let base = textpdf::padded(&contract, size, 3).len();
            for want in [63, 0, 1, 56] {
                let pdf = textpdf::padded(&contract, size + (want + 64 - base % 64) % 64, 3);
                assert_eq!(pdf.len() % 64, want);
                let request = typed_in_every_field(&pdf, "Ada");
                let cold = super::super::stamp::stamp_for_seal(&pdf, None, &request, &spec())
                    .expect("stamp");
                let kept = super::super::stamp::stamp_for_seal(
                    &pdf,
                    Some(Sha256::new_with_prefix(&pdf)),
                    &request,
                    &spec(),
                )
                .expect("stamp");
                assert_eq!(kept.update(), cold.update(), "{size} {want}");
                for prepared in [cold, kept] {
                    let [_, a, b, _] = prepared.byte_range();
                    let digest = prepared.digest();
                    let sealed = prepared.fill(&[0xEF; 50]).expect("fill");
                    let sha = sealed.sha256;
                    let file = sealed.into_whole(&pdf).expect("whole");
                    let ranges = Sha256::new_with_prefix(&file[..a]).chain_update(&file[b..]);
                    assert_eq!(digest, <[u8; 32]>::from(ranges.finalize()));
                    assert_eq!(<[u8; 32]>::from(Sha256::digest(&file)), sha);
                }
            }
        }
    }

    /// Digest and filled file of `prepared` (a CMS of 200 bytes counting up), as hex SHA-256s.
    fn sealed(original: &[u8], prepared: PreparedSeal) -> (String, String) {
        let hex = |d: &[u8]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
        let digest = prepared.digest();
        let cms: Vec<u8> = (0..200u8).collect();
        let sealed = prepared.fill(&cms).expect("fill");
        let streamed = sealed.sha256;
        let file = sealed.into_whole(original).expect("whole");
        assert_eq!(<[u8; 32]>::from(Sha256::digest(&file)), streamed);
        (hex(&digest), hex(&streamed))
    }

    /// Pins the sealed bytes, as the seal made them when it still built and hashed the whole
    /// file in one buffer: keeping only the update must not move a byte. Stamping changes
    /// (fonts, layout) legitimately change the stamped case; its constants are then renewed.
    #[test]
    fn sealed_bytes_match_those_of_the_whole_file_build() {
        let spec = SealSpec {
            capacity: 300,
            ..spec()
        };
        let classic = libreoffice_contract(Layout::Classic);
        let stream = libreoffice_contract(Layout::XrefStream { objstm: true });
        let request = typed_in_every_field(&classic, "Zoë Ångström");
        let got = [
            sealed(
                &classic,
                prepare_existing(&classic, &spec).expect("prepare"),
            ),
            sealed(&stream, prepare_existing(&stream, &spec).expect("prepare")),
            sealed(
                &classic,
                super::super::stamp::stamp_for_seal(&classic, None, &request, &spec)
                    .expect("stamp"),
            ),
        ];
        // (digest of the ranges, SHA-256 of the sealed file), measured on the whole-file build;
        // the stamped one again when signature tags grew into free space (`pdf/room.rs`), and
        // when text came to be set by `pdf/shape` (glyph codes, subsetter's font programs).
        let want = [
            (
                "5329a3a6d7e5a3a9f36821a1fe4d7ba0c63b51300478cbe0ea3dcbc1623b5b91",
                "7e2f622d695a3c1ec9995d4f5723cde2a0b3a531c4db485b9fc09481a3ada71d",
            ),
            (
                "9ee4bf0be425d3f7e9648fd8854efb04be187862920443210491f51657ccb26d",
                "fabe1224f462d6130b29584b379f568ec60407d119a008a3de6a2bb1835b0d06",
            ),
            (
                "9c36924dd312ee12f11073f059a581ee23382a000e5bdbca2e3e7cf3b66899e0",
                "17737be3e665753c59bc35a1f0a1acf6efe7aa1aa5c049c219ec448bb0c653bc",
            ),
        ];
        let got: Vec<(&str, &str)> = got.iter().map(|(d, f)| (d.as_str(), f.as_str())).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn the_field_joins_an_existing_form_and_page_annotations() {
        let mut b = Builder::new();
        let existing =
            b.add("<</FT /Tx /T (Seal) /Type /Annot /Subtype /Widget /Rect [72 700 272 720]>>");
        let mut page = PageSpec::letter(helv_text(12.0, 72.0, 740.0, "A form."));
        page.extra = format!("/Annots [{existing} 0 R]");
        let pdf = document(
            &mut b,
            &[page],
            &format!("/AcroForm <</Fields [{existing} 0 R] /SigFlags 0>>"),
            Layout::Classic,
        );
        let prepared = prepare_existing(&pdf, &spec()).expect("prepare");
        let whole = [&pdf[..], prepared.update()].concat();
        let mut doc = Document::load(&whole).expect("reload");
        let pages = pages::pages(&mut doc, None).expect("pages");
        let fields = acroform::form_fields(&mut doc, &pages).expect("fields");
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["Seal", "Seal_2"]);
        assert_eq!(fields[1].ft, b"Sig");
        assert_eq!(
            pages[0]
                .dict
                .get(b"Annots")
                .and_then(Object::as_array)
                .map(<[Object]>::len),
            Some(2)
        );
        let form = doc.catalog().expect("catalog");
        let form = form
            .get(b"AcroForm")
            .and_then(Object::as_dict)
            .cloned()
            .unwrap_or_default();
        assert_eq!(form.get(b"SigFlags"), Some(&Object::Int(3)));
    }
}
