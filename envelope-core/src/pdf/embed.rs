//! Files embedded in the signed copy (extensions E14): each signer's attachment becomes an
//! embedded file stream and a file specification, listed in the catalog's `/Names`
//! `/EmbeddedFiles` name tree, in the same incremental update as the stamps (so the seal,
//! applied after, covers them). PDF readers list them as attachments (`qpdf
//! --list-attachments`, pypdf's `attachments`, a viewer's paper-clip panel).
//!
//! The original's own embedded files stay listed: their entries are read (bounded) and the new
//! tree holds both, as one leaf sorted by name. A tree that cannot be read within those bounds
//! stays whole as the first kid of the new root, beside a leaf of the new files. The original's
//! bytes are never changed: only the catalog (or its `/Names` dictionary) gets a new version.

use super::object::{Dict, ObjRef, Object, Stream, text_string};
use super::reader::Document;
use super::writer::Update;
use super::{EmbeddedFile, PdfError};

/// Most entries of an original's name tree read back; a larger tree is kept as a kid.
const MAX_OLD_ENTRIES: usize = 4096;
/// Deepest name tree read back.
const MAX_DEPTH: usize = 16;

/// Adds `files` to the document's embedded files in `up`.
pub(super) fn embed_files(
    doc: &mut Document<'_>,
    up: &mut Update,
    files: &[&EmbeddedFile],
) -> Result<(), PdfError> {
    if files.is_empty() {
        return Ok(());
    }
    let root = doc
        .xref
        .trailer
        .get(b"Root")
        .and_then(Object::as_ref)
        .ok_or_else(|| PdfError::Invalid("the catalog is not an indirect object".into()))?;
    let mut catalog = up.current(doc, root)?;
    let (names_ref, mut names) = match catalog.get(b"Names").cloned() {
        Some(Object::Ref(r)) => (Some(r), up.current(doc, r)?),
        Some(Object::Dict(d)) => (None, d),
        _ => (None, Dict::new()),
    };
    // The original's entries, or its tree whole when it cannot be read back.
    let old = match names.get(b"EmbeddedFiles").cloned() {
        None => Ok(Vec::new()),
        Some(tree) => {
            let mut out = Vec::new();
            match leaf_entries(doc, &tree, 0, &mut out) {
                Ok(()) if out.len() <= MAX_OLD_ENTRIES => Ok(out),
                _ => Err(tree),
            }
        }
    };
    let mut taken: Vec<Vec<u8>> = match &old {
        Ok(entries) => entries.iter().map(|(k, _)| k.clone()).collect(),
        Err(_) => Vec::new(),
    };
    let mut new = Vec::with_capacity(files.len());
    for f in files {
        let key = unique_key(&f.key, &taken);
        taken.push(key.clone());
        new.push((key, Object::Ref(file_spec(up, f))));
    }
    let tree = match old {
        Ok(mut entries) => {
            entries.extend(new);
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Dict::new().with(b"Names", flatten(entries))
        }
        Err(old_tree) => {
            new.sort_by(|a, b| a.0.cmp(&b.0));
            let limits = Object::Array(vec![
                Object::Str(new[0].0.clone()),
                Object::Str(new[new.len() - 1].0.clone()),
            ]);
            let leaf = up.add(Object::Dict(
                Dict::new()
                    .with(b"Names", flatten(new))
                    .with(b"Limits", limits),
            ));
            let old_kid = match old_tree {
                Object::Ref(r) => r,
                direct => up.add(direct),
            };
            Dict::new().with(
                b"Kids",
                Object::Array(vec![Object::Ref(old_kid), Object::Ref(leaf)]),
            )
        }
    };
    let tree = up.add(Object::Dict(tree));
    names.set(b"EmbeddedFiles", Object::Ref(tree));
    match names_ref {
        Some(r) => up.replace(r, Object::Dict(names)),
        None => {
            catalog.set(b"Names", Object::Dict(names));
            up.replace(root, Object::Dict(catalog));
        }
    }
    Ok(())
}

/// `[key1 value1 key2 value2 ...]`.
fn flatten(entries: Vec<(Vec<u8>, Object)>) -> Object {
    let mut a = Vec::with_capacity(entries.len() * 2);
    for (k, v) in entries {
        a.push(Object::Str(k));
        a.push(v);
    }
    Object::Array(a)
}

/// The leaf entries of the name tree at `node`, in tree order.
fn leaf_entries(
    doc: &mut Document<'_>,
    node: &Object,
    depth: usize,
    out: &mut Vec<(Vec<u8>, Object)>,
) -> Result<(), PdfError> {
    if depth > MAX_DEPTH || out.len() > MAX_OLD_ENTRIES {
        return Err(PdfError::Invalid("name tree too large".into()));
    }
    let Object::Dict(d) = doc.resolve(node)? else {
        return Err(PdfError::Invalid(
            "a name tree node is not a dictionary".into(),
        ));
    };
    if let Some(names) = d.get(b"Names") {
        let names = doc.resolve(names)?;
        let a = names
            .as_array()
            .ok_or_else(|| PdfError::Invalid("/Names is not an array".into()))?;
        for pair in a.chunks_exact(2) {
            let key = pair[0]
                .as_str()
                .ok_or_else(|| PdfError::Invalid("a name tree key is not a string".into()))?;
            out.push((key.to_vec(), pair[1].clone()));
        }
    }
    if let Some(kids) = d.get(b"Kids") {
        let kids = doc.resolve(kids)?;
        let kids = kids
            .as_array()
            .ok_or_else(|| PdfError::Invalid("/Kids is not an array".into()))?
            .to_vec();
        for kid in &kids {
            leaf_entries(doc, kid, depth + 1, out)?;
        }
    }
    Ok(())
}

/// `key`, or `key (2)`, `key (3)`... when an entry has it already.
fn unique_key(key: &str, taken: &[Vec<u8>]) -> Vec<u8> {
    let mut candidate = text_string(key);
    let mut n = 2;
    while taken.contains(&candidate) {
        candidate = text_string(&format!("{key} ({n})"));
        n += 1;
    }
    candidate
}

/// The embedded file stream and its file specification; the specification's reference.
fn file_spec(up: &mut Update, f: &EmbeddedFile) -> ObjRef {
    let params = Dict::new().with(b"Size", Object::Int(f.bytes.len() as i64));
    let stream = up.add(Object::Stream(Stream {
        dict: Dict::new()
            .with(b"Type", Object::name(b"EmbeddedFile"))
            .with(b"Subtype", Object::name(f.mime.as_bytes()))
            .with(b"Params", params),
        data: f.bytes.to_vec(),
    }));
    let ef = Dict::new()
        .with(b"F", Object::Ref(stream))
        .with(b"UF", Object::Ref(stream));
    up.add(Object::Dict(
        Dict::new()
            .with(b"Type", Object::name(b"Filespec"))
            .with(b"F", Object::Str(ascii_name(&f.file_name).into_bytes()))
            .with(b"UF", Object::Str(text_string(&f.file_name)))
            .with(b"Desc", Object::Str(text_string(&f.description)))
            .with(b"EF", ef)
            .with(b"AFRelationship", Object::name(b"Supplement")),
    ))
}

/// The file name for readers of `/F` (PDF 1.x): ASCII, other characters as `_`.
fn ascii_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testpdf::*;
    use super::super::{FieldStamp, StampRequest, StampValue};
    use super::*;

    fn file(key: &str) -> EmbeddedFile {
        EmbeddedFile {
            key: key.into(),
            file_name: "pièce.png".into(),
            mime: "image/png".into(),
            description: "Field id (Client)".into(),
            bytes: bytes::Bytes::from_static(b"\x89PNG\r\n\x1a\nbytes"),
        }
    }

    /// The embedded files of `pdf`: each entry's name and its stream's bytes.
    fn listed(pdf: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut doc = Document::load(pdf).expect("reads");
        let catalog = doc.catalog().expect("catalog");
        let names = doc.dict(catalog.get(b"Names")).unwrap().expect("/Names");
        let tree = names.get(b"EmbeddedFiles").cloned().expect("the tree");
        let mut entries = Vec::new();
        leaf_entries(&mut doc, &tree, 0, &mut entries).expect("a readable tree");
        entries
            .into_iter()
            .map(|(k, spec)| {
                let spec = doc.dict(Some(&spec)).unwrap().expect("a file spec");
                let ef = doc.dict(spec.get(b"EF")).unwrap().expect("/EF");
                let data = doc.stream_bytes(ef.get(b"F").expect("/F")).expect("data");
                (k, data)
            })
            .collect()
    }

    fn stamped(original: &[u8], files: Vec<EmbeddedFile>) -> Vec<u8> {
        let info = super::super::inspect(original, &Default::default()).expect("inspects");
        let mut fields: Vec<FieldStamp> = Vec::new();
        for (f, file) in info.fields.into_iter().zip(files) {
            fields.push(FieldStamp {
                field: f,
                value: Some(StampValue::Attachment(file)),
                signed_by: None,
            });
        }
        super::super::stamp(
            original,
            &StampRequest {
                fields,
                signature_page: None,
                page_mark: None,
            },
        )
        .expect("stamps")
    }

    #[test]
    fn files_join_the_originals_own_and_names_stay_unique() {
        let mut b = Builder::new();
        let own = b.stream("/Type /EmbeddedFile", b"own bytes");
        let spec = b.add(format!(
            "<</Type /Filespec /F (a - own.txt) /EF <</F {own} 0 R>>>>"
        ));
        let kid = b.add(format!(
            "<</Names [(a - own.txt) {spec} 0 R] /Limits [(a - own.txt) (a - own.txt)]>>"
        ));
        let tree = b.add(format!("<</Kids [{kid} 0 R]>>"));
        let pdf = document(
            &mut b,
            &[PageSpec::letter(helv_text(
                10.0,
                72.0,
                700.0,
                "{{attachment:A}} {{attachment:A}}",
            ))],
            &format!("/Names <</EmbeddedFiles {tree} 0 R>>"),
            Layout::Classic,
        );
        let out = stamped(&pdf, vec![file("a - own.txt"), file("b - pièce.png")]);
        assert!(out.starts_with(&pdf), "the original is kept byte for byte");
        let got = listed(&out);
        let names: Vec<String> = got
            .iter()
            .map(|(k, _)| super::super::object::decode_text_string(k))
            .collect();
        assert_eq!(names, ["a - own.txt", "a - own.txt (2)", "b - pièce.png"]);
        assert_eq!(got[0].1, b"own bytes");
        assert_eq!(got[1].1, b"\x89PNG\r\n\x1a\nbytes");
    }

    #[test]
    fn a_document_without_names_gets_them() {
        let mut b = Builder::new();
        let pdf = document(
            &mut b,
            &[PageSpec::letter(helv_text(
                10.0,
                72.0,
                700.0,
                "{{attachment:A}}",
            ))],
            "",
            Layout::XrefStream { objstm: true },
        );
        let out = stamped(&pdf, vec![file("k - pièce.png")]);
        assert_eq!(listed(&out).len(), 1);
    }
}
