//! The builder page's HTML: the frame the script fills (palette, pages, side panel) and the
//! notices of links that cannot open.
//!
//! The words the script needs travel in one `<script type="application/json">` element (the
//! CSP allows no inline script; a JSON data block is not run). Every value that did not come
//! from this crate's literals is escaped: [`esc`] in HTML, [`json_block`] in the data block.

use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use envelope_core::field::FieldType;
use envelope_core::i18n::{self, Arg, Lang, Msg};
use envelope_core::service::{BuilderSession, BuilderTarget};

fn esc(s: &str) -> String {
    i18n::escape_html(s).into_owned()
}

/// The field types of the palette, in its order, with their words.
pub const TYPES: [(FieldType, Msg); 9] = [
    (FieldType::Signature, Msg::BuilderTypeSignature),
    (FieldType::Initials, Msg::BuilderTypeInitials),
    (FieldType::Date, Msg::BuilderTypeDate),
    (FieldType::Text, Msg::BuilderTypeText),
    (FieldType::Checkbox, Msg::BuilderTypeCheckbox),
    (FieldType::Number, Msg::BuilderTypeNumber),
    (FieldType::Radio, Msg::BuilderTypeRadio),
    (FieldType::Select, Msg::BuilderTypeSelect),
    (FieldType::Attachment, Msg::BuilderTypeAttachment),
];

/// What the page is rendered from.
pub struct BuilderPage<'a> {
    pub lang: Lang,
    pub service: &'a str,
    /// Relative path from the page's URL to the server root (`../` for `/build/{token}`).
    pub root: &'a str,
    pub session: &'a BuilderSession,
}

/// JSON for a `<script type="application/json">` element: `<`, `>` and `&` written as JSON
/// escapes, so that no `</script>` or `<!--` can end or change the element. They occur only
/// inside strings, where the escapes mean the same characters.
pub fn json_block(v: &Value) -> String {
    let s = v.to_string();
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            // Line separators end a line in old script parsers.
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The words of the script, by the names it uses. Placeholders (`{number}`, `{field}`, ...)
/// are filled in by the script.
fn words(lang: Lang) -> Value {
    let t = |msg| Value::String(i18n::text(lang, msg, &[]));
    let with = |msg, args: &[(&str, Arg<'_>)]| Value::String(i18n::text(lang, msg, args));
    let mut m = Map::new();
    for (kind, msg) in TYPES {
        m.insert(format!("type_{}", kind.as_str()), t(msg));
    }
    let plain = [
        ("sender", Msg::BuilderSender),
        ("locked", Msg::BuilderLocked),
        ("page_unavailable", Msg::BuilderPageUnavailable),
        ("signer_name", Msg::BuilderSignerName),
        ("signer_email", Msg::BuilderSignerEmail),
        ("save", Msg::BuilderSave),
        ("saving", Msg::BuilderSaving),
        ("saved", Msg::BuilderSaved),
        ("send", Msg::BuilderSend),
        ("sending", Msg::BuilderSending),
        ("sent", Msg::BuilderSent),
        ("unsaved", Msg::BuilderUnsaved),
        ("loading", Msg::BuilderLoading),
        ("not_saved", Msg::BuilderNotSaved),
        ("not_sent", Msg::BuilderNotSent),
        ("load_failed", Msg::BuilderLoadFailed),
        ("offline", Msg::BuilderOffline),
        ("conflict", Msg::BuilderConflict),
        ("reload", Msg::BuilderReload),
        ("link_expired", Msg::BuilderLinkExpired),
        ("deleted", Msg::BuilderDeleted),
    ];
    for (name, msg) in plain {
        m.insert(name.into(), t(msg));
    }
    let number = ("number", Arg::Text("{number}"));
    m.insert(
        "document".into(),
        with(
            Msg::BuilderDocument,
            &[number, ("name", Arg::Text("{name}"))],
        ),
    );
    m.insert(
        "page".into(),
        with(
            Msg::PagePicture,
            &[
                ("page", Arg::Text("{page}")),
                ("count", Arg::Text("{count}")),
                ("document", Arg::Text("{document}")),
            ],
        ),
    );
    m.insert(
        "role_numbered".into(),
        with(Msg::BuilderRoleNumbered, &[number]),
    );
    m.insert(
        "signer_numbered".into(),
        with(Msg::BuilderSignerNumbered, &[number]),
    );
    m.insert(
        "added".into(),
        with(Msg::BuilderAdded, &[("field", Arg::Text("{field}"))]),
    );
    m.insert(
        "title".into(),
        with(Msg::BuilderTitle, &[("name", Arg::Text("{name}"))]),
    );
    Value::Object(m)
}

/// The page of an open link.
pub fn render(p: &BuilderPage<'_>) -> String {
    let lang = p.lang;
    let h = |msg| i18n::html(lang, msg, &[]);
    let s = p.session;
    let draft = matches!(s.target, BuilderTarget::Envelope(_));
    let data = json!({
        "kind": s.target.kind(),
        "id": s.target.id(),
        "api": format!("{}v1/", p.root),
        "livemode": s.livemode,
        "lang": lang.code(),
        "words": words(lang),
    });

    let mut palette = String::new();
    for (kind, msg) in TYPES {
        let _ = write!(
            palette,
            r#"<li><button type="button" class="type type-{k}" data-type="{k}" aria-describedby="palette-hint">{label}</button></li>"#,
            k = kind.as_str(),
            label = h(msg),
        );
    }
    let mut type_options = String::new();
    for (kind, msg) in TYPES {
        let _ = write!(
            type_options,
            r#"<option value="{}">{}</option>"#,
            kind.as_str(),
            h(msg)
        );
    }
    let back = match &s.return_url {
        Some(url) => format!(
            r#"<a class="return" id="return" href="{}" target="_top">{}</a>"#,
            esc(url),
            h(Msg::BuilderReturn)
        ),
        None => String::new(),
    };
    let send = if draft {
        format!(
            r#"<button type="button" class="primary" id="send">{}</button>"#,
            h(Msg::BuilderSend)
        )
    } else {
        String::new()
    };
    let (who, people, add) = if draft {
        (
            Msg::BuilderLabelSigner,
            Msg::BuilderSigners,
            Msg::BuilderAddSigner,
        )
    } else {
        (
            Msg::BuilderLabelRole,
            Msg::BuilderRoles,
            Msg::BuilderAddRole,
        )
    };
    let body = format!(
        r##"<header class="b-head">
<div class="b-title"><span class="brand">{service}</span><h1 id="b-name">{loading}</h1></div>
<div class="b-actions">{back}<button type="button" class="primary" id="save">{save}</button>{send}</div>
<p id="b-status" class="b-status" role="status" aria-live="polite"></p>
<div id="b-error" class="b-error" role="alert" hidden><p id="b-error-text"></p><button type="button" class="secondary" id="reload" hidden>{reload}</button></div>
</header>
<div class="b-body">
<section class="palette" aria-labelledby="palette-title">
<h2 id="palette-title">{palette_title}</h2>
<p class="hint" id="palette-hint">{palette_hint}</p>
<ul class="types">{palette}</ul>
<p class="hint" id="keys-hint">{keys_hint}</p>
</section>
<main id="pages" class="pages" tabindex="-1" aria-label="{pages}" aria-describedby="keys-hint"></main>
<aside class="panel">
<section aria-labelledby="field-title">
<h2 id="field-title">{field_title}</h2>
<p id="field-none" class="hint">{field_none}</p>
<div id="field-form" class="field-form" hidden>
<p id="f-locked" class="hint" hidden>{locked}</p>
<label for="f-type">{label_type}</label>
<select id="f-type">{type_options}</select>
<label for="f-role">{label_who}</label>
<select id="f-role"></select>
<label for="f-key">{label_key}</label>
<input type="text" id="f-key" autocomplete="off" spellcheck="false">
<label for="f-label">{label_label}</label>
<input type="text" id="f-label" autocomplete="off" maxlength="100">
<div class="check"><input type="checkbox" id="f-required"><label for="f-required">{label_required}</label></div>
<div id="f-options-row" hidden><label for="f-options">{label_options}</label>
<textarea id="f-options" rows="4"></textarea></div>
<div class="box">
<div><label for="f-x">{label_x}</label><input type="number" id="f-x" step="1" min="0"></div>
<div><label for="f-y">{label_y}</label><input type="number" id="f-y" step="1" min="0"></div>
<div><label for="f-width">{label_width}</label><input type="number" id="f-width" step="1" min="1"></div>
<div><label for="f-height">{label_height}</label><input type="number" id="f-height" step="1" min="1"></div>
</div>
<button type="button" class="danger" id="f-delete">{delete}</button>
</div>
</section>
<section aria-labelledby="people-title">
<h2 id="people-title">{people}</h2>
<ol id="people" class="people"></ol>
<p id="f-locked-role" class="hint" hidden>{locked}</p>
<button type="button" class="secondary" id="add-person">{add}</button>
</section>
</aside>
</div>
"##,
        service = esc(p.service),
        loading = h(Msg::BuilderLoading),
        save = h(Msg::BuilderSave),
        reload = h(Msg::BuilderReload),
        palette_title = h(Msg::BuilderPalette),
        palette_hint = h(Msg::BuilderPaletteHint),
        keys_hint = h(Msg::BuilderKeysHint),
        pages = h(Msg::BuilderPages),
        field_title = h(Msg::BuilderField),
        field_none = h(Msg::BuilderFieldNone),
        locked = h(Msg::BuilderLocked),
        label_type = h(Msg::BuilderLabelType),
        label_who = h(who),
        label_key = h(Msg::BuilderLabelKey),
        label_label = h(Msg::BuilderLabelLabel),
        label_required = h(Msg::BuilderLabelRequired),
        label_options = h(Msg::BuilderLabelOptions),
        label_x = h(Msg::BuilderLabelX),
        label_y = h(Msg::BuilderLabelY),
        label_width = h(Msg::BuilderLabelWidth),
        label_height = h(Msg::BuilderLabelHeight),
        delete = h(Msg::BuilderDelete),
        people = h(people),
        add = h(add),
    );
    let title = i18n::text(lang, Msg::BuilderTitle, &[("name", Arg::Text("…"))]);
    let head = format!(
        r#"<link rel="stylesheet" href="{root}assets/builder.css">
<script src="{root}assets/builder.js" defer></script>
<script type="application/json" id="builder-data">{data}</script>"#,
        root = esc(p.root),
        data = json_block(&data),
    );
    document(lang, p.service, &title, &head, "builder", &body)
}

/// The page of a link that cannot open (unknown, expired, a failure): a heading and a
/// sentence, in the look of the signing pages' notices. `title`, `heading` and `text` are
/// plain text.
pub fn notice(
    lang: Lang,
    service: &str,
    root: &str,
    title: &str,
    heading: &str,
    text: &str,
) -> String {
    let head = format!(
        r#"<link rel="stylesheet" href="{}assets/signing.css">"#,
        esc(root)
    );
    let body = format!(
        r#"<header class="bar"><span class="brand">{service}</span></header>
<main id="main" tabindex="-1">
<section class="notice notice-stop" aria-labelledby="notice-title">
<h1 id="notice-title">{heading}</h1>
<p>{text}</p>
</section>
</main>
"#,
        service = esc(service),
        heading = esc(heading),
        text = esc(text),
    );
    document(lang, service, title, &head, "", &body)
}

fn document(lang: Lang, service: &str, title: &str, head: &str, class: &str, body: &str) -> String {
    let skip = if class == "builder" {
        format!(
            r##"<a class="skip" href="#pages">{}</a>"##,
            i18n::html(lang, Msg::PageSkip, &[])
        )
    } else {
        String::new()
    };
    format!(
        r#"<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>{title} · {service}</title>
{head}
</head>
<body class="{class}">
{skip}
{body}</body>
</html>
"#,
        lang = lang.code(),
        title = esc(title),
        service = esc(service),
        class = esc(class),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_block_cannot_end_its_element() {
        let v = json!({"a": "</script><!-- & \u{2028}"});
        let s = json_block(&v);
        assert!(
            !s.contains('<') && !s.contains('>') && !s.contains('&'),
            "{s}"
        );
        let back: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn every_language_has_every_word_with_its_placeholders() {
        for lang in Lang::ALL {
            let w = words(lang);
            for (kind, _) in TYPES {
                assert!(w[format!("type_{}", kind.as_str())].is_string());
            }
            assert!(w["added"].as_str().unwrap().contains("{field}"));
            assert!(w["role_numbered"].as_str().unwrap().contains("{number}"));
            assert!(w["page"].as_str().unwrap().contains("{page}"));
            assert!(w["document"].as_str().unwrap().contains("{name}"));
        }
    }

    fn session(target: BuilderTarget, return_url: Option<&str>) -> BuilderSession {
        BuilderSession {
            target,
            locale: None,
            return_url: return_url.map(str::to_string),
            expires_at: envelope_core::Timestamp::parse("2027-03-15T10:30:00.000Z").unwrap(),
            livemode: false,
        }
    }

    #[test]
    fn the_page_gives_every_control_a_name_and_runs_no_inline_script() {
        let s = session(
            BuilderTarget::Template("tmpl_abc".parse().unwrap()),
            Some("https://app.example.com/t?a=1&b=\"2\""),
        );
        let html = render(&BuilderPage {
            lang: Lang::Fr,
            service: "Acme",
            root: "../",
            session: &s,
        });
        assert!(html.contains("<html lang=\"fr\">"));
        assert!(html.contains(r#"<script src="../assets/builder.js" defer></script>"#));
        assert_eq!(
            html.matches("<script").count(),
            2,
            "the script file and the data block"
        );
        let start = html.find(r#"id="builder-data">"#).unwrap() + 18;
        let end = start + html[start..].find("</script>").unwrap();
        let data: Value = serde_json::from_str(&html[start..end]).unwrap();
        assert_eq!(data["kind"], "template");
        assert_eq!(data["id"], "tmpl_abc");
        assert_eq!(data["api"], "../v1/");
        assert_eq!(data["words"]["type_checkbox"], "Case à cocher");
        // Every form control has a label; the palette has every type; no Send on a template.
        for id in [
            "f-type",
            "f-role",
            "f-key",
            "f-required",
            "f-options",
            "f-x",
            "f-y",
            "f-width",
            "f-height",
        ] {
            assert!(html.contains(&format!(r#"<label for="{id}">"#)), "{id}");
        }
        for (kind, _) in TYPES {
            assert!(html.contains(&format!(r#"data-type="{}""#, kind.as_str())));
        }
        assert!(!html.contains(r#"id="send""#));
        assert!(html.contains(r#"href="https://app.example.com/t?a=1&amp;b=&quot;2&quot;""#));
        assert!(html.contains(r#"role="status" aria-live="polite""#));

        let d = session(BuilderTarget::Envelope("env_abc".parse().unwrap()), None);
        let html = render(&BuilderPage {
            lang: Lang::En,
            service: "Acme",
            root: "../",
            session: &d,
        });
        assert!(html.contains(r#"<button type="button" class="primary" id="send">Send</button>"#));
        assert!(html.contains(r#"<label for="f-role">Signer</label>"#));
        assert!(!html.contains(r#"id="return""#));
    }

    #[test]
    fn the_notice_escapes_what_it_is_given() {
        let html = notice(Lang::De, "Acme <Sign>", "../", "T", "<b>", "x & y");
        assert!(html.contains("<html lang=\"de\">"));
        assert!(html.contains("&lt;b&gt;") && html.contains("x &amp; y"));
        assert!(html.contains("Acme &lt;Sign&gt;"));
        assert!(!html.contains("<script"));
    }
}
