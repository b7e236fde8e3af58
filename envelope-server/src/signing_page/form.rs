//! The form post of a signing page, read into the core's [`SignInput`].
//!
//! Names: `text:<key>` for text, number, radio and select fields (the chosen option's text),
//! `check:<key>` for check boxes; `mode:<key>` (`type` or
//! `draw`), `typed:<key>` and `drawn:<key>` for signatures and initials; `page_mode`,
//! `page_typed`, `page_drawn` for the appended signature page; `consent`, `csrf`, `reason`;
//! `code` on the code step; `file:<key>` for the file of an `attachment` field (extensions
//! E14), in a `multipart/form-data` post (the form's encoding when the signer has one).
//! Which keys exist, which are required and what a value may be is the core's business: this
//! only translates names into values.

use std::collections::BTreeMap;

use bytes::Bytes;
use envelope_core::model::SignerValue;
use envelope_core::service::{AttachmentUpload, SignInput};

use crate::body::multipart;

/// A form post, read.
#[derive(Debug, Default)]
pub struct FormPost {
    pub csrf: String,
    pub consent: bool,
    pub reason: Option<String>,
    /// The identity code of the code step (extensions E2).
    pub code: Option<String>,
    pub input: SignInput,
}

/// A drawn signature is sent as a `data:image/png;base64,` URL or bare base64.
fn drawing(v: &str) -> Option<SignerValue> {
    let b64 = v.strip_prefix("data:image/png;base64,").unwrap_or(v).trim();
    (!b64.is_empty()).then(|| SignerValue::Drawn(b64.to_string()))
}

/// A signature: the drawing when the signer chose to draw, the typed text otherwise.
fn mark(mode: Option<&str>, typed: Option<&str>, drawn: Option<&str>) -> Option<SignerValue> {
    match mode {
        Some("draw") => drawn.and_then(drawing),
        _ => typed
            .filter(|t| !t.trim().is_empty())
            .map(|t| SignerValue::Typed(t.to_string())),
    }
}

/// Reads an `application/x-www-form-urlencoded` body. Later duplicates of a name win, as in
/// most form readers; names outside the scheme are ignored.
pub fn parse(body: &[u8]) -> FormPost {
    from_pairs(
        url::form_urlencoded::parse(body).map(|(n, v)| (n.into_owned(), v.into_owned())),
        Vec::new(),
    )
}

/// Reads a `multipart/form-data` body: text parts as [`parse`] reads its pairs, and the files
/// of `file:<key>` parts (a file input left empty sends an empty part: no file). The message
/// of a malformed body is plain words.
pub fn parse_multipart(body: &Bytes, boundary: &str) -> Result<FormPost, String> {
    let mut pairs = Vec::new();
    let mut files = Vec::new();
    for part in multipart::parts(body, boundary)? {
        let Some(name) = part.name else { continue };
        match (name.strip_prefix("file:"), part.file_name) {
            (Some(key), Some(file_name)) => {
                if !part.data.is_empty() {
                    let upload = AttachmentUpload::new(file_name, part.data);
                    files.push((key.to_string(), upload));
                }
            }
            _ => pairs.push((name, String::from_utf8_lossy(&part.data).into_owned())),
        }
    }
    Ok(from_pairs(pairs.into_iter(), files))
}

fn from_pairs(
    pairs: impl Iterator<Item = (String, String)>,
    files: Vec<(String, AttachmentUpload)>,
) -> FormPost {
    let mut post = FormPost::default();
    post.input.attachments.extend(files);
    let mut modes: BTreeMap<String, String> = BTreeMap::new();
    let mut typed: BTreeMap<String, String> = BTreeMap::new();
    let mut drawn: BTreeMap<String, String> = BTreeMap::new();
    let mut page: [Option<String>; 3] = Default::default();
    for (name, value) in pairs {
        match name.split_once(':') {
            Some(("text", key)) => {
                post.input
                    .values
                    .insert(key.to_string(), SignerValue::Text(value));
            }
            Some(("check", key)) => {
                post.input
                    .values
                    .insert(key.to_string(), SignerValue::Checkbox(!value.is_empty()));
            }
            Some(("mode", key)) => drop(modes.insert(key.to_string(), value)),
            Some(("typed", key)) => drop(typed.insert(key.to_string(), value)),
            Some(("drawn", key)) => drop(drawn.insert(key.to_string(), value)),
            _ => match name.as_str() {
                "csrf" => post.csrf = value,
                "code" => post.code = Some(value),
                "consent" => {
                    post.consent = value == "yes";
                    post.input.consent = post.consent;
                }
                "reason" => post.reason = Some(value).filter(|r| !r.trim().is_empty()),
                "page_mode" => page[0] = Some(value),
                "page_typed" => page[1] = Some(value),
                "page_drawn" => page[2] = Some(value),
                _ => {}
            },
        }
    }
    let keys: std::collections::BTreeSet<&String> = modes
        .keys()
        .chain(typed.keys())
        .chain(drawn.keys())
        .collect();
    for key in keys {
        let v = mark(
            modes.get(key).map(String::as_str),
            typed.get(key).map(String::as_str),
            drawn.get(key).map(String::as_str),
        );
        if let Some(v) = v {
            post.input.values.insert(key.clone(), v);
        }
    }
    post.input.signature = mark(page[0].as_deref(), page[1].as_deref(), page[2].as_deref());
    post
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_values() {
        let body = "csrf=abc&consent=yes&text%3Acompany=Zo%C3%AB%27s+Bakery&check%3Aterms=on\
                    &mode%3AClient_signature=draw&typed%3AClient_signature=&drawn%3AClient_signature=\
                    data%3Aimage%2Fpng%3Bbase64%2CiVBORw0KGgo%3D\
                    &mode%3AClient_initials=type&typed%3AClient_initials=ZC&drawn%3AClient_initials=\
                    &page_mode=type&page_typed=Zo%C3%AB+Client&other=ignored";
        let p = parse(body.as_bytes());
        assert_eq!(p.csrf, "abc");
        assert!(p.consent);
        assert_eq!(p.reason, None);
        let v = &p.input.values;
        assert_eq!(v["company"], SignerValue::Text("Zoë's Bakery".into()));
        assert_eq!(v["terms"], SignerValue::Checkbox(true));
        assert_eq!(
            v["Client_signature"],
            SignerValue::Drawn("iVBORw0KGgo=".into())
        );
        assert_eq!(v["Client_initials"], SignerValue::Typed("ZC".into()));
        assert_eq!(v.len(), 4);
        assert_eq!(
            p.input.signature,
            Some(SignerValue::Typed("Zoë Client".into()))
        );
    }

    #[test]
    fn multipart_posts_carry_files() {
        let body = Bytes::from_static(
            b"--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nabc\r\n\
              --XyZ\r\nContent-Disposition: form-data; name=\"text:company\"\r\n\r\nZo\xc3\xab\r\n\
              --XyZ\r\nContent-Disposition: form-data; name=\"file:id\"; filename=\"id.png\"\r\n\
              Content-Type: image/png\r\n\r\nPNGDATA\r\n\
              --XyZ\r\nContent-Disposition: form-data; name=\"file:other\"; filename=\"\"\r\n\
              Content-Type: application/octet-stream\r\n\r\n\r\n\
              --XyZ\r\nContent-Disposition: form-data; name=\"consent\"\r\n\r\nyes\r\n--XyZ--\r\n",
        );
        let p = parse_multipart(&body, "XyZ").unwrap();
        assert_eq!(p.csrf, "abc");
        assert!(p.consent);
        assert_eq!(p.input.values["company"], SignerValue::Text("Zoë".into()));
        let files = &p.input.attachments;
        assert_eq!(files.len(), 1, "an empty file input sends no file");
        assert_eq!(files["id"].file_name, "id.png");
        assert_eq!(&files["id"].bytes[..], b"PNGDATA");
        assert!(parse_multipart(&Bytes::from_static(b"junk"), "XyZ").is_err());
    }

    #[test]
    fn empty_marks_are_left_out_for_the_core_to_judge() {
        let p = parse(b"mode%3As=draw&drawn%3As=&typed%3As=typed+but+drawing+chosen&consent=no");
        assert!(p.input.values.is_empty());
        assert!(!p.consent);
        let p = parse(b"typed%3As=++&reason=+");
        assert!(p.input.values.is_empty());
        assert_eq!(p.reason, None);
    }
}
