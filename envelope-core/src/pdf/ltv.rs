//! Long-term validation in the file (PAdES B-LT and B-LTA): the Document Security Store (`/DSS`
//! in the catalog: the certificates, OCSP responses and CRLs a validator needs, and a `/VRI`
//! entry per signature), and the document timestamp (`/DocTimeStamp`, RFC 3161 over the whole
//! file). Each is one more incremental update, so every earlier version of the file stays a byte
//! prefix of the next.
//!
//! Like `pdf/seal.rs`, this module knows no cryptography and no network: it takes the validation
//! material as DER bytes someone else fetched, and the document timestamp's token from whoever
//! asked the authority (the digest to ask for is [`PreparedSeal::digest`]). It hashes with SHA-1
//! only to name `/VRI` entries, as the format wants. It must never rewrite a byte of the file it
//! is given: its answers are updates to write after it.

use std::collections::HashSet;

use sha1::{Digest, Sha1};

use super::PdfError;
use super::acroform;
use super::object::{Dict, ObjRef, Object, Stream};
use super::pages;
use super::reader::Document;
use super::seal::{self, BYTE_RANGE_WIDTH, Placeholder, PreparedSeal};
use super::writer::Update;

/// Validation material for the DSS, each item the DER of one object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValidationData {
    /// DER `Certificate`s: the signing chains (sealing certificate and TSA), roots included or
    /// not, as the caller likes.
    pub certs: Vec<Vec<u8>>,
    /// DER `OCSPResponse`s (the whole response, status and all, as RFC 6960 sends it).
    pub ocsps: Vec<Vec<u8>>,
    /// DER `CertificateList`s.
    pub crls: Vec<Vec<u8>>,
}

impl ValidationData {
    /// True when there is nothing to store.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))] // used by tests
    pub fn is_empty(&self) -> bool {
        self.certs.is_empty() && self.ocsps.is_empty() && self.crls.is_empty()
    }
}

/// Bytes to reserve for a document timestamp's token when the caller has no better figure: the
/// same room the seal keeps for a signature timestamp (a token carries the TSA's certificates).
pub const DOC_TIMESTAMP_CAPACITY: usize = 16 * 1024;

/// The DSS's arrays and the matching keys of a `/VRI` entry.
const KINDS: [(&[u8], &[u8]); 3] = [(b"Certs", b"Cert"), (b"OCSPs", b"OCSP"), (b"CRLs", b"CRL")];

/// The incremental update that puts `data` into the document's DSS: it creates `/DSS` in the
/// catalog, or extends the one an earlier update wrote. Entries already there are kept; an item
/// whose bytes the DSS already holds (or that `data` repeats) is not stored again. Every
/// signature of the document (seals and document timestamps alike) without a `/VRI` entry gets
/// one, keyed by [`vri_key`], that lists every stream of the DSS: the material is not sorted by
/// signature, which PAdES allows and validators accept (pyHanko reads the whole DSS; Adobe finds
/// each signature's entry). Existing `/VRI` entries are left as they are: a later revision that
/// changes one is taken for tampering (pyHanko's diff analysis).
///
/// Returns the update alone (the new file is `pdf ++ update`), or an empty vector when the DSS
/// already holds everything and every signature has its entry: no revision is added for
/// nothing. A document whose catalog is not an indirect object is refused
/// ([`PdfError::Invalid`]); one whose catalog lies in an object stream gets a new version of the
/// catalog in the update, as any changed object does.
pub fn dss_update(pdf: &[u8], data: &ValidationData) -> Result<Vec<u8>, PdfError> {
    let mut doc = Document::load(pdf)?;
    let root = root(&doc)?;
    let pages = pages::pages(&mut doc, None)?;
    let signatures = signatures_in(&mut doc, &pages)?;
    let mut up = Update::new(&doc);
    let mut catalog = up.current(&mut doc, root)?;
    let (dss_ref, mut dss) = match catalog.get(b"DSS").cloned() {
        Some(Object::Ref(r)) => (
            Some(r),
            doc.dict(Some(&Object::Ref(r)))?.unwrap_or_default(),
        ),
        Some(Object::Dict(d)) => (None, d),
        _ => (None, Dict::new()),
    };
    let mut changed = false;
    let mut all: [Vec<Object>; 3] = Default::default();
    for ((key, _), (items, out)) in KINDS.iter().zip(
        [&data.certs, &data.ocsps, &data.crls]
            .into_iter()
            .zip(&mut all),
    ) {
        let mut refs = array(&mut doc, dss.get(key))?;
        let mut held: HashSet<Vec<u8>> = HashSet::new();
        for r in &refs {
            held.insert(doc.stream_bytes(r)?);
        }
        for item in items {
            if held.insert(item.clone()) {
                let r = up.add(Object::Stream(Stream {
                    dict: Dict::new(),
                    data: item.clone(),
                }));
                refs.push(Object::Ref(r));
                changed = true;
            }
        }
        if !refs.is_empty() {
            dss.set(key, Object::Array(refs.clone()));
        }
        *out = refs;
    }
    let mut vri = doc.dict(dss.get(b"VRI"))?.unwrap_or_default();
    for sig in &signatures {
        let key = vri_key(&sig.contents);
        // An entry an earlier revision wrote is never changed: validators (pyHanko's diff
        // analysis) take a modified or deleted VRI entry for tampering.
        if vri.get(key.as_bytes()).is_some() {
            continue;
        }
        let mut entry = Dict::new();
        for ((_, vri_key), refs) in KINDS.iter().zip(&all) {
            if !refs.is_empty() {
                entry.set(vri_key, Object::Array(refs.clone()));
            }
        }
        vri.set(key.as_bytes(), Object::Dict(entry));
        changed = true;
    }
    if !changed {
        return Ok(Vec::new());
    }
    if vri.iter().next().is_some() {
        dss.set(b"VRI", Object::Dict(vri));
    }
    match dss_ref {
        Some(r) => up.replace(r, Object::Dict(dss)),
        None => {
            let mut typed = Dict::new().with(b"Type", Object::name(b"DSS"));
            for (k, v) in dss.iter().filter(|(k, _)| *k != b"Type") {
                typed.set(k, v.clone());
            }
            let r = up.add(Object::Dict(typed));
            catalog.set(b"DSS", Object::Ref(r));
            up.replace(root, Object::Dict(catalog));
        }
    }
    Ok(up.write_update(&doc))
}

/// What the document's DSS holds now (empty lists when it has none): what renewal adds to, and
/// where it finds the issuers of a new timestamp's certificates.
pub fn stored_validation_data(pdf: &[u8]) -> Result<ValidationData, PdfError> {
    let mut doc = Document::load(pdf)?;
    let root = root(&doc)?;
    let catalog = doc.dict(Some(&Object::Ref(root)))?.unwrap_or_default();
    let Some(dss) = doc.dict(catalog.get(b"DSS"))? else {
        return Ok(ValidationData::default());
    };
    let mut out = ValidationData::default();
    for ((key, _), list) in KINDS
        .iter()
        .zip([&mut out.certs, &mut out.ocsps, &mut out.crls])
    {
        for r in array(&mut doc, dss.get(key))? {
            list.push(doc.stream_bytes(&r)?);
        }
    }
    Ok(out)
}

/// Prepares the incremental update that adds a document timestamp: an invisible signature field
/// on the first page (`DocTimeStamp1`, or the next free `DocTimeStampN`), in the AcroForm
/// (created when there is none; `/SigFlags 3`), whose value is a `/DocTimeStamp` dictionary with
/// `/SubFilter /ETSI.RFC3161`, a `/ByteRange` over the whole file and `capacity` bytes of room
/// in `/Contents`. Ask a timestamp authority for a token whose message imprint is
/// [`PreparedSeal::digest`] (SHA-256 of the byte range), then [`PreparedSeal::fill`] it with the
/// token (the DER `ContentInfo`) and write the update after `pdf`.
#[cfg_attr(not(feature = "internals"), allow(dead_code))] // used by tests and benches
pub fn prepare_document_timestamp(pdf: &[u8], capacity: usize) -> Result<PreparedSeal, PdfError> {
    timestamp_field(pdf, None, capacity)
}

/// [`prepare_document_timestamp`] with `hashed`, a SHA-256 that has consumed `pdf` and nothing
/// else (kept from the update before, [`super::SealedUpdate::hash_state`]): the file is not
/// hashed again. A state that does not describe `pdf` gives a digest that no token will match.
pub fn prepare_document_timestamp_hashed(
    pdf: &[u8],
    hashed: sha2::Sha256,
    capacity: usize,
) -> Result<PreparedSeal, PdfError> {
    timestamp_field(pdf, Some(hashed), capacity)
}

fn timestamp_field(
    pdf: &[u8],
    hashed: Option<sha2::Sha256>,
    capacity: usize,
) -> Result<PreparedSeal, PdfError> {
    seal::beside_the_hash(pdf, hashed, || {
        let mut doc = Document::load(pdf)?;
        root(&doc)?;
        let pages = pages::pages(&mut doc, None)?;
        let up = Update::new(&doc);
        seal::place(&mut doc, &pages, up, timestamp_dictionary(capacity), |i| {
            format!("DocTimeStamp{i}")
        })
    })
}

/// `<</Type /DocTimeStamp ... /ByteRange [slot] /Contents <zeros>>>`.
fn timestamp_dictionary(capacity: usize) -> Placeholder {
    let mut body =
        b"<</Type /DocTimeStamp /Filter /Adobe.PPKLite /SubFilter /ETSI.RFC3161 /ByteRange "
            .to_vec();
    let range_at = body.len();
    body.resize(body.len() + BYTE_RANGE_WIDTH, b' ');
    body.extend_from_slice(b" /Contents <");
    let hex_at = body.len();
    body.resize(body.len() + capacity * 2, b'0');
    body.extend_from_slice(b">>>");
    Placeholder {
        body,
        range_at,
        hex_at,
        hex_len: capacity * 2,
    }
}

/// A filled signature of a document, as [`signatures`] finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddedSignature {
    /// The field's fully qualified name (`Seal`, `DocTimeStamp1`).
    pub field: String,
    /// A document timestamp (`/Type /DocTimeStamp` or `/SubFilter /ETSI.RFC3161`) rather than a
    /// signature.
    pub doc_timestamp: bool,
    /// The `/Contents` string as the file holds it: the DER, then the zeros that pad the room.
    pub contents: Vec<u8>,
}

impl EmbeddedSignature {
    /// The DER of the CMS (`ContentInfo`) without the padding: `contents` cut at the length its
    /// outer tag gives, or all of `contents` when that cannot be read.
    pub fn der(&self) -> &[u8] {
        der_len(&self.contents)
            .and_then(|n| self.contents.get(..n))
            .unwrap_or(&self.contents)
    }
}

/// Every filled signature field of `pdf` (a `/Sig` field whose value has `/Contents` with a
/// non-zero byte), in form order: what the DSS's `/VRI` is keyed by, and where a renewal finds
/// the newest document timestamp.
pub fn signatures(pdf: &[u8]) -> Result<Vec<EmbeddedSignature>, PdfError> {
    let mut doc = Document::load(pdf)?;
    let pages = pages::pages(&mut doc, None)?;
    signatures_in(&mut doc, &pages)
}

fn signatures_in(
    doc: &mut Document<'_>,
    pages: &[pages::Page],
) -> Result<Vec<EmbeddedSignature>, PdfError> {
    let mut out = Vec::new();
    for f in acroform::form_fields(doc, pages)? {
        if f.ft != b"Sig" {
            continue;
        }
        let field = doc.get(f.id)?;
        let Some(v) = doc.dict(field.as_dict().and_then(|d| d.get(b"V")))? else {
            continue;
        };
        let Some(contents) = v.get(b"Contents").and_then(Object::as_str) else {
            continue;
        };
        if contents.iter().all(|&b| b == 0) {
            continue;
        }
        out.push(EmbeddedSignature {
            field: f.name,
            doc_timestamp: v.name(b"Type") == Some(b"DocTimeStamp")
                || v.name(b"SubFilter") == Some(b"ETSI.RFC3161"),
            contents: contents.to_vec(),
        });
    }
    Ok(out)
}

/// The `/VRI` key of a signature whose `/Contents` string is `contents`: the uppercase hex SHA-1
/// of the string's bytes as the file holds them, zero padding included. That is what pyHanko
/// (`DocumentSecurityStore.sig_content_identifier`) and the EU DSS library compute, so the key
/// names the signature for them and for Adobe alike; the DER alone would name nothing.
pub fn vri_key(contents: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    Sha1::digest(contents)
        .iter()
        .flat_map(|b| [HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]])
        .map(char::from)
        .collect()
}

/// The length of the DER element at the start of `b` (tag, length and content), if its length
/// octets can be read (definite form, at most 4 length bytes).
fn der_len(b: &[u8]) -> Option<usize> {
    let first = *b.get(1)?;
    if first < 0x80 {
        return Some(2 + usize::from(first));
    }
    let n = usize::from(first & 0x7F);
    if n == 0 || n > 4 {
        return None;
    }
    let len = b
        .get(2..2 + n)?
        .iter()
        .fold(0usize, |acc, &x| (acc << 8) | usize::from(x));
    (2 + n).checked_add(len)
}

/// The catalog's reference: an update can only rewrite an indirect catalog.
fn root(doc: &Document<'_>) -> Result<ObjRef, PdfError> {
    doc.xref
        .trailer
        .get(b"Root")
        .and_then(Object::as_ref)
        .ok_or_else(|| PdfError::Invalid("the catalog is not an indirect object".into()))
}

/// The array `o` is or refers to (empty when it is neither).
fn array(doc: &mut Document<'_>, o: Option<&Object>) -> Result<Vec<Object>, PdfError> {
    Ok(match o {
        Some(o) => doc
            .resolve(o)?
            .as_array()
            .map(<[Object]>::to_vec)
            .unwrap_or_default(),
        None => Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::testpdf::*;
    use super::*;

    fn data() -> ValidationData {
        ValidationData {
            certs: vec![
                b"cert one".to_vec(),
                b"cert two".to_vec(),
                b"cert one".to_vec(),
            ],
            ocsps: vec![b"an ocsp".to_vec()],
            crls: vec![],
        }
    }

    /// A document with one filled signature field (the seal's layout, a fake CMS).
    fn signed(layout: Layout) -> Vec<u8> {
        let pdf = libreoffice_contract(layout);
        let spec = seal::SealSpec {
            name: "Envelope".into(),
            reason: "test".into(),
            signing_time: chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap(),
            capacity: 64,
        };
        let prepared = seal::prepare_existing(&pdf, &spec).expect("prepare");
        let mut cms = vec![0x30, 0x05, 1, 2, 3, 4, 5];
        cms.resize(10, 0);
        prepared
            .fill(&cms)
            .expect("fill")
            .into_whole(&pdf)
            .expect("whole")
    }

    fn dss_of(pdf: &[u8]) -> (Dict, Document<'_>) {
        let mut doc = Document::load(pdf).expect("load");
        let catalog = doc.catalog().expect("catalog");
        let dss = doc.dict(catalog.get(b"DSS")).expect("dss").expect("a DSS");
        (dss, doc)
    }

    fn streams(doc: &mut Document<'_>, dss: &Dict, key: &[u8]) -> Vec<Vec<u8>> {
        array(doc, dss.get(key))
            .expect("array")
            .iter()
            .map(|r| doc.stream_bytes(r).expect("stream"))
            .collect()
    }

    #[test]
    fn the_dss_is_created_then_extended_without_repeats() {
        for layout in [Layout::Classic, Layout::XrefStream { objstm: true }] {
            let pdf = signed(layout);
            let sig = signatures(&pdf).expect("signatures");
            assert_eq!(sig.len(), 1);
            assert_eq!(sig[0].der(), [0x30, 0x05, 1, 2, 3, 4, 5]);
            assert_eq!(sig[0].contents.len(), 64);
            let first = [&pdf[..], &dss_update(&pdf, &data()).expect("dss")].concat();
            let (dss, mut doc) = dss_of(&first);
            assert_eq!(dss.name(b"Type"), Some(&b"DSS"[..]));
            assert_eq!(
                streams(&mut doc, &dss, b"Certs"),
                [b"cert one".to_vec(), b"cert two".to_vec()]
            );
            assert_eq!(streams(&mut doc, &dss, b"OCSPs"), [b"an ocsp".to_vec()]);
            assert_eq!(dss.get(b"CRLs"), None);
            let vri = doc.dict(dss.get(b"VRI")).unwrap().unwrap();
            let entry = doc
                .dict(vri.get(vri_key(&sig[0].contents).as_bytes()))
                .unwrap()
                .expect("the seal's VRI entry");
            assert_eq!(entry.get(b"Cert"), dss.get(b"Certs"));

            // The same again adds nothing; more material extends.
            assert!(dss_update(&first, &data()).expect("again").is_empty());
            let more = ValidationData {
                certs: vec![b"cert two".to_vec(), b"cert three".to_vec()],
                ocsps: vec![],
                crls: vec![b"a crl".to_vec()],
            };
            let second = [&first[..], &dss_update(&first, &more).expect("more")].concat();
            let (dss, mut doc) = dss_of(&second);
            assert_eq!(
                streams(&mut doc, &dss, b"Certs"),
                [
                    b"cert one".to_vec(),
                    b"cert two".to_vec(),
                    b"cert three".to_vec()
                ],
                "{layout:?}"
            );
            assert_eq!(streams(&mut doc, &dss, b"OCSPs"), [b"an ocsp".to_vec()]);
            assert_eq!(streams(&mut doc, &dss, b"CRLs"), [b"a crl".to_vec()]);
            // The seal's entry is the first update's, untouched: validators take a changed
            // VRI entry for tampering.
            let vri = doc.dict(dss.get(b"VRI")).unwrap().unwrap();
            let entry = doc
                .dict(vri.get(vri_key(&sig[0].contents).as_bytes()))
                .unwrap()
                .unwrap();
            assert_eq!(entry.get(b"CRL"), None);
            let Some(Object::Array(listed)) = entry.get(b"Cert") else {
                panic!("the seal's entry lists its certificates");
            };
            assert_eq!(listed.len(), 2, "{layout:?}");
        }
    }

    #[test]
    fn document_timestamps_get_fields_of_their_own() {
        let pdf = libreoffice_contract(Layout::Classic);
        let mut file = pdf.clone();
        for want in ["DocTimeStamp1", "DocTimeStamp2"] {
            let prepared = prepare_document_timestamp(&file, 32).expect("prepare");
            let text = String::from_utf8_lossy(prepared.update()).into_owned();
            assert!(text.contains("/Type /DocTimeStamp /Filter /Adobe.PPKLite"));
            assert!(text.contains("/SubFilter /ETSI.RFC3161"));
            file = prepared
                .fill(&[0x30, 0x01, 0x00])
                .expect("fill")
                .into_whole(&file)
                .expect("whole");
            let sigs = signatures(&file).expect("signatures");
            let last = sigs.last().expect("one");
            assert_eq!((last.field.as_str(), last.doc_timestamp), (want, true));
        }
        assert!(file.starts_with(&pdf));
    }

    #[test]
    fn vri_keys_hash_the_padded_contents() {
        // SHA-1("abc"), FIPS 180-2's example.
        assert_eq!(vri_key(b"abc"), "A9993E364706816ABA3E25717850C26C9CD0D89D");
        assert_eq!(der_len(&[0x30, 0x82, 0x01, 0x00]), Some(260));
        assert_eq!(der_len(&[0x30, 0x80]), None);
        assert_eq!(der_len(&[0x30]), None);
    }

    #[test]
    fn what_is_not_a_pdf_is_refused_clearly() {
        let pdf = libreoffice_contract(Layout::Classic);
        for bad in [&b"not a pdf"[..], &pdf[..pdf.len() / 2]] {
            for r in [
                dss_update(bad, &data()).err(),
                prepare_document_timestamp(bad, 32).err(),
                signatures(bad).err(),
            ] {
                assert!(matches!(r, Some(PdfError::Invalid(_))), "{r:?}");
            }
        }
    }
}
