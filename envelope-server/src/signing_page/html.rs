//! HTML text: escaping and the shared page layout.
//!
//! Every value that did not come from this crate's own literals goes through [`esc`], in text
//! and in attribute values alike (attributes are always double-quoted).

use std::fmt::Write as _;

use envelope_core::i18n::{self, Lang, Msg};

/// Escapes text for HTML element content and double-quoted attribute values (the core's one
/// escaper, which the catalogues and the emails use too).
pub fn esc(s: &str) -> String {
    envelope_core::i18n::escape_html(s).into_owned()
}

/// What the page tells an embedding window when it loads (`window.parent.postMessage`).
#[derive(Debug, Clone)]
pub struct PageEvent {
    /// `envelope.signed` or `envelope.declined`.
    pub kind: &'static str,
    pub envelope: String,
    pub signer: String,
}

/// The frame of every page. `root` is the relative path from the page's URL back to the
/// server's root (`../` for `/sign/{token}`), so that a signing host with a path prefix works.
pub fn layout(
    lang: Lang,
    service: &str,
    title: &str,
    root: &str,
    event: Option<&PageEvent>,
    body: &str,
) -> String {
    let mut data = String::new();
    if let Some(e) = event {
        let _ = write!(
            data,
            r#" data-event="{}" data-envelope="{}" data-signer="{}""#,
            esc(e.kind),
            esc(&e.envelope),
            esc(&e.signer)
        );
    }
    format!(
        r##"<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>{title} · {service}</title>
<link rel="stylesheet" href="{root}assets/signing.css">
<script src="{root}assets/signing.js" defer></script>
</head>
<body>
<a class="skip" href="#main">{skip}</a>
<header class="bar"><span class="brand">{service}</span></header>
<main id="main" tabindex="-1"{data}>
{body}
</main>
</body>
</html>
"##,
        lang = lang.code(),
        skip = i18n::html(lang, Msg::PageSkip, &[]),
        title = esc(title),
        service = esc(service),
        root = esc(root),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_text_and_attributes() {
        assert_eq!(
            esc(r#"<script>alert("x" & 'y')</script>"#),
            "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;"
        );
        assert_eq!(esc("Zoë"), "Zoë");
    }

    #[test]
    fn layout_escapes_what_it_is_given() {
        let event = PageEvent {
            kind: "envelope.signed",
            envelope: "env_\"1".into(),
            signer: "sgn_<1>".into(),
        };
        let page = layout(
            Lang::En,
            "Acme <Sign>",
            "A \"title\"",
            "../",
            Some(&event),
            "<p>ok</p>",
        );
        assert!(page.contains("<title>A &quot;title&quot; · Acme &lt;Sign&gt;</title>"));
        assert!(page.contains(r#"data-envelope="env_&quot;1""#));
        assert!(page.contains(r#"data-signer="sgn_&lt;1&gt;""#));
        assert!(page.contains("<p>ok</p>"));
        assert!(page.contains("<html lang=\"en\">"));
        let de = layout(Lang::De, "Acme", "x", "../", None, "");
        assert!(de.contains("<html lang=\"de\">") && de.contains(">Zum Inhalt springen</a>"));
        assert!(!page.contains("<style") && !page.contains("<script>"));
    }
}
