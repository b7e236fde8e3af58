//! The form post of a signing page, read into the core's [`SignInput`].
//!
//! Names: `text:<key>` for text, number, radio and select fields (the chosen option's text),
//! `check:<key>` for check boxes; `mode:<key>` (`type` or
//! `draw`), `typed:<key>` and `drawn:<key>` for signatures and initials; `page_mode`,
//! `page_typed`, `page_drawn` for the appended signature page; `consent`, `csrf`, `reason`;
//! `code` on the code step.
//! Which keys exist, which are required and what a value may be is the core's business: this
//! only translates names into values.

use std::collections::BTreeMap;

use envelope_core::model::SignerValue;
use envelope_core::service::SignInput;

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
    let mut post = FormPost::default();
    let mut modes: BTreeMap<String, String> = BTreeMap::new();
    let mut typed: BTreeMap<String, String> = BTreeMap::new();
    let mut drawn: BTreeMap<String, String> = BTreeMap::new();
    let mut page: [Option<String>; 3] = Default::default();
    for (name, value) in url::form_urlencoded::parse(body) {
        let value = value.into_owned();
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
            _ => match &*name {
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
    fn empty_marks_are_left_out_for_the_core_to_judge() {
        let p = parse(b"mode%3As=draw&drawn%3As=&typed%3As=typed+but+drawing+chosen&consent=no");
        assert!(p.input.values.is_empty());
        assert!(!p.consent);
        let p = parse(b"typed%3As=++&reason=+");
        assert!(p.input.values.is_empty());
        assert_eq!(p.reason, None);
    }
}
