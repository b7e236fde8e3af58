//! The security of the signing pages: form tokens, the origin check of form posts, and the
//! headers every page carries (Content-Security-Policy and friends).
//!
//! Why these choices (docs/SIGNING.md explains them for operators):
//! - Pages keep no session and set no cookie. An embedded page runs in a cross-site iframe,
//!   where browsers withhold `SameSite` cookies and increasingly all third-party cookies, so a
//!   cookie-based (double-submit) defence would break embedding.
//! - Instead every form carries `HMAC-SHA256(page secret, action + signing token)`: proof that
//!   the post comes from a page this server rendered for this very link and action, checked in
//!   constant time. And a post whose `Origin` (or `Sec-Fetch-Site`) says it comes from another
//!   site is refused before anything else: that is what stops cross-site form posts.
//!   (`Sec-Fetch-Site` carries the check, since under `Referrer-Policy: no-referrer` browsers
//!   send `Origin: null` with form posts.)
//!
//! This module must never log or echo a token or the secret.

use std::fmt;

use base64::Engine;
use hmac::{Hmac, KeyInit, Mac};
use hyper::HeaderMap;
use hyper::header::{self, HeaderName, HeaderValue};
use sha2::Sha256;

/// The key of the form tokens. Redacted in `Debug`.
#[derive(Clone)]
pub struct PageSecret(Vec<u8>);

impl PageSecret {
    /// A fresh random secret (256 bits from the core's CSPRNG).
    pub fn random() -> PageSecret {
        PageSecret(envelope_core::ids::random_base62(43).into_bytes())
    }

    /// A secret from stored bytes; `None` when they are too short to be one (under 32 bytes).
    pub fn from_bytes(bytes: &[u8]) -> Option<PageSecret> {
        let trimmed = bytes.trim_ascii();
        (trimmed.len() >= 32).then(|| PageSecret(trimmed.to_vec()))
    }

    /// The bytes to store (printable: base62).
    pub fn to_stored(&self) -> &[u8] {
        &self.0
    }

    fn mac(&self, action: Action, token: &str) -> Hmac<Sha256> {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0)
            .expect("HMAC takes keys of any length");
        mac.update(b"envelope.signing-page.form.v1\n");
        mac.update(action.as_str().as_bytes());
        mac.update(b"\n");
        mac.update(token.as_bytes());
        mac
    }

    /// The form token of `action` on the page of `token`.
    pub fn form_token(&self, action: Action, token: &str) -> String {
        let tag = self.mac(action, token).finalize().into_bytes();
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(tag)
    }

    /// Whether `given` is the form token of `action` on the page of `token` (constant time).
    pub fn verify(&self, action: Action, token: &str, given: &str) -> bool {
        let Ok(tag) = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(given) else {
            return false;
        };
        self.mac(action, token).verify_slice(&tag).is_ok()
    }
}

impl fmt::Debug for PageSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PageSecret([redacted])")
    }
}

/// The form posts of the pages; a token of one is no good for another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Signing.
    Sign,
    /// Declining.
    Decline,
    /// Entering the identity code (extensions E2).
    Verify,
    /// Asking for a new emailed code.
    SendCode,
}

impl Action {
    fn as_str(self) -> &'static str {
        match self {
            Action::Sign => "sign",
            Action::Decline => "decline",
            Action::Verify => "verify",
            Action::SendCode => "send-code",
        }
    }
}

/// Who may frame the signing pages: the sources of CSP `frame-ancestors`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameAncestors(Vec<String>);

impl FrameAncestors {
    /// `'none'`: no site may frame the pages (the default).
    pub fn none() -> FrameAncestors {
        FrameAncestors(vec!["'none'".into()])
    }

    /// Parses a space-separated list of CSP sources (`https://app.example.com`,
    /// `https://*.example.com`, `'self'`, `'none'`). Refuses anything that could end the
    /// directive or the header (`;`, `,`, quotes out of place, control characters), and
    /// `'none'` beside other sources.
    pub fn parse(s: &str) -> Result<FrameAncestors, String> {
        if s.chars().any(|c| c.is_control() && c != ' ' && c != '\t') {
            return Err(
                "frame ancestors: line breaks and control characters are not allowed".into(),
            );
        }
        let sources: Vec<String> = s.split_ascii_whitespace().map(str::to_string).collect();
        if sources.is_empty() {
            return Err("frame ancestors: give 'none' or at least one source".into());
        }
        for src in &sources {
            let keyword = matches!(src.as_str(), "'none'" | "'self'");
            let plain = src.bytes().all(|b| {
                b.is_ascii_alphanumeric() || b"-._~:/*[]%".contains(&b) // scheme, host, port, path
            });
            if !keyword && !plain {
                return Err(format!(
                    "frame ancestors: `{}` is not a CSP source (like https://app.example.com or 'self')",
                    src.escape_default()
                ));
            }
        }
        if sources.len() > 1 && sources.iter().any(|s| s == "'none'") {
            return Err("frame ancestors: 'none' cannot be combined with other sources".into());
        }
        Ok(FrameAncestors(sources))
    }

    /// Whether no site may frame the pages (`'none'`, the default).
    pub fn is_none(&self) -> bool {
        self.0.len() == 1 && self.0[0] == "'none'"
    }

    /// The sources, space-separated.
    pub fn as_sources(&self) -> String {
        self.0.join(" ")
    }

    /// Sources for the document frame inside a page: the page itself plus whoever may frame it
    /// (`frame-ancestors` is checked against every ancestor).
    fn with_self(&self) -> String {
        if self.is_none() {
            "'self'".into()
        } else if self.0.iter().any(|s| s == "'self'") {
            self.as_sources()
        } else {
            format!("'self' {}", self.as_sources())
        }
    }
}

impl Default for FrameAncestors {
    fn default() -> Self {
        FrameAncestors::none()
    }
}

const REFERRER_POLICY: HeaderName = HeaderName::from_static("referrer-policy");
const CORP: HeaderName = HeaderName::from_static("cross-origin-resource-policy");

fn value(s: &str) -> HeaderValue {
    // Sources are checked by `FrameAncestors::parse`; a failure here would be a bug, and the
    // strictest policy is the safe answer.
    HeaderValue::from_str(s).unwrap_or_else(|_| HeaderValue::from_static("default-src 'none'"))
}

/// Headers of an HTML page: a strict CSP (no inline script or style, nothing from other hosts,
/// forms post only here), no caching, no Referer (the URL holds the token).
pub fn page_headers(ancestors: &FrameAncestors) -> Vec<(HeaderName, HeaderValue)> {
    html_headers(
        "img-src 'self' data:; frame-src 'self'; form-action 'self'",
        ancestors,
    )
}

/// The headers of every HTML page with `sources`, the page's own CSP directives beside the
/// shared ones (no inline script or style, nothing from other hosts, no plugins, no `<base>`).
fn html_headers(sources: &str, ancestors: &FrameAncestors) -> Vec<(HeaderName, HeaderValue)> {
    let csp = format!(
        "default-src 'none'; script-src 'self'; style-src 'self'; font-src 'self'; \
         object-src 'none'; base-uri 'none'; {sources}; frame-ancestors {}",
        ancestors.as_sources()
    );
    let mut h = vec![
        (header::CONTENT_SECURITY_POLICY, value(&csp)),
        (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        (REFERRER_POLICY, HeaderValue::from_static("no-referrer")),
    ];
    if ancestors.is_none() {
        // For browsers that predate frame-ancestors.
        h.push((header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")));
    }
    h
}

/// Headers of the builder page (extensions E11): those of [`page_headers`], with the two
/// things its script needs: `connect-src 'self'` for its calls to the API on this server, and
/// `img-src blob:` for the page pictures it fetches with the link's token. Nothing else is
/// loosened; it frames nothing and posts no form.
pub fn builder_page_headers(ancestors: &FrameAncestors) -> Vec<(HeaderName, HeaderValue)> {
    html_headers(
        "img-src 'self' blob: data:; connect-src 'self'; frame-src 'none'; form-action 'none'",
        ancestors,
    )
}

/// Headers of the document shown inside a page: framable by the page (and whoever may frame
/// the page), nothing else.
pub fn document_headers(ancestors: &FrameAncestors) -> Vec<(HeaderName, HeaderValue)> {
    let csp = format!(
        "default-src 'none'; frame-ancestors {}",
        ancestors.with_self()
    );
    vec![
        (header::CONTENT_SECURITY_POLICY, value(&csp)),
        (REFERRER_POLICY, HeaderValue::from_static("no-referrer")),
        (CORP, HeaderValue::from_static("same-origin")),
    ]
}

/// Headers of the static script and style sheet.
pub fn asset_headers() -> Vec<(HeaderName, HeaderValue)> {
    vec![
        (
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=3600"),
        ),
        (CORP, HeaderValue::from_static("same-origin")),
    ]
}

/// Whether a form post may come from where its headers say it comes from.
///
/// - `Sec-Fetch-Site` (sent by every current browser) must be `same-origin` (or `none`, a
///   navigation the user started).
/// - A real `Origin` must be this server, as the client reached it (`Host`) or as links name
///   it (`signing_origin`). Pages send `Referrer-Policy: no-referrer`, under which browsers send
///   `Origin: null` with form posts, so `null` says nothing and is left to the other checks.
///
/// A client that sends neither header (an old browser, not a browser) passes here; it still
/// needs the page's form token.
pub fn same_origin_post(headers: &HeaderMap, host: Option<&str>, signing_origin: &str) -> bool {
    if let Some(site) = headers.get("sec-fetch-site")
        && !matches!(site.to_str(), Ok("same-origin" | "none"))
    {
        return false;
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    if origin == "null" || origin.eq_ignore_ascii_case(signing_origin) {
        return true;
    }
    let authority = origin
        .strip_prefix("https://")
        .or_else(|| origin.strip_prefix("http://"));
    matches!((authority, host), (Some(a), Some(h)) if a.eq_ignore_ascii_case(h))
}

/// `scheme://host[:port]` of a base URL (the signing host).
pub fn origin_of(base_url: &str) -> String {
    url::Url::parse(base_url)
        .map(|u| u.origin().ascii_serialization())
        .unwrap_or_default()
}

/// Settings of the signing pages.
#[derive(Debug, Clone)]
pub struct PageSettings {
    /// Who may frame the pages (CSP `frame-ancestors`); `'none'` by default.
    pub frame_ancestors: FrameAncestors,
    /// Key of the pages' form tokens. Pages rendered under another secret cannot post.
    pub secret: PageSecret,
}

impl Default for PageSettings {
    fn default() -> Self {
        PageSettings {
            frame_ancestors: FrameAncestors::none(),
            secret: PageSecret::random(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_tokens_are_bound_to_link_action_and_secret() {
        let s = PageSecret::from_bytes(&[7u8; 32]).unwrap();
        let t = s.form_token(Action::Sign, "tok1");
        assert!(s.verify(Action::Sign, "tok1", &t));
        assert!(!s.verify(Action::Decline, "tok1", &t));
        assert!(!s.verify(Action::Sign, "tok2", &t));
        assert!(!PageSecret::random().verify(Action::Sign, "tok1", &t));
        assert!(!s.verify(Action::Sign, "tok1", ""));
        assert!(!s.verify(Action::Sign, "tok1", "not base64!"));
        assert!(PageSecret::from_bytes(b"short").is_none());
        assert_eq!(format!("{s:?}"), "PageSecret([redacted])");
    }

    #[test]
    fn frame_ancestors_are_csp_sources_only() {
        let cases: &[(&str, Option<&str>)] = &[
            ("'none'", Some("'none'")),
            (
                "https://app.example.com  https://*.example.org",
                Some("https://app.example.com https://*.example.org"),
            ),
            (
                "'self' https://a.example:8443",
                Some("'self' https://a.example:8443"),
            ),
            ("", None),
            ("https://a.example; script-src *", None),
            ("https://a.example,https://b.example", None),
            ("'none' https://a.example", None),
            ("'unsafe-inline'", None),
            ("https://a.example\r\nX-Evil: 1", None),
        ];
        for (input, want) in cases {
            let got = FrameAncestors::parse(input).ok().map(|f| f.as_sources());
            assert_eq!(got.as_deref(), *want, "{input:?}");
        }
        let f = FrameAncestors::parse("https://app.example.com").unwrap();
        assert_eq!(f.with_self(), "'self' https://app.example.com");
        assert_eq!(FrameAncestors::none().with_self(), "'self'");
    }

    #[test]
    fn the_builder_page_may_call_the_api_and_show_fetched_pictures_only() {
        let f = FrameAncestors::parse("https://app.example.com").unwrap();
        let h = builder_page_headers(&f);
        let csp = h
            .iter()
            .find(|(k, _)| *k == header::CONTENT_SECURITY_POLICY)
            .map(|(_, v)| v.to_str().unwrap().to_string())
            .unwrap();
        for part in [
            "script-src 'self';",
            "connect-src 'self';",
            "img-src 'self' blob: data:;",
            "frame-ancestors https://app.example.com",
        ] {
            assert!(csp.contains(part), "{part} not in {csp}");
        }
        assert!(!csp.contains("unsafe"), "{csp}");
        assert!(!h.iter().any(|(k, _)| *k == header::X_FRAME_OPTIONS));
        let none = builder_page_headers(&FrameAncestors::none());
        assert!(none.iter().any(|(k, _)| *k == header::X_FRAME_OPTIONS));
        assert!(
            none.iter()
                .any(|(k, v)| *k == header::CACHE_CONTROL && v.as_bytes() == b"no-store")
        );
    }

    #[test]
    fn cross_site_posts_are_refused() {
        let h = |pairs: &[(&'static str, &'static str)]| {
            let mut m = HeaderMap::new();
            for (k, v) in pairs {
                m.insert(*k, HeaderValue::from_static(v));
            }
            m
        };
        let signing = "https://sign.example.com";
        let host = Some("sign.example.com");
        let cases: &[(&[(&str, &str)], bool)] = &[
            (&[("origin", "https://sign.example.com")], true),
            (&[("origin", "http://sign.example.com")], true), // behind a TLS proxy: Host matches
            (&[("origin", "https://evil.example")], false),
            (&[("origin", "null")], true), // no-referrer pages post with Origin: null
            (
                &[("origin", "null"), ("sec-fetch-site", "cross-site")],
                false,
            ),
            (
                &[("origin", "null"), ("sec-fetch-site", "same-origin")],
                true,
            ),
            (
                &[
                    ("origin", "https://evil.example"),
                    ("sec-fetch-site", "same-origin"),
                ],
                false,
            ),
            (&[("sec-fetch-site", "cross-site")], false),
            (&[("sec-fetch-site", "same-site")], false),
            (&[("sec-fetch-site", "same-origin")], true),
            (&[], true),
        ];
        for (headers, ok) in cases {
            assert_eq!(
                same_origin_post(&h(headers), host, signing),
                *ok,
                "{headers:?}"
            );
        }
        assert_eq!(origin_of("https://sign.example.com/base/"), signing);
    }
}
