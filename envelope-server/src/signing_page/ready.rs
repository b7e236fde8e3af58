//! The page of a link that can sign: the document, the signer's fields in document order, the
//! consent line, Sign, and Decline with a reason.
//!
//! Works without script (typed signatures, native `required` checks); the script adds drawing
//! and the checks of drawings. Every field has a visible label tied to its control.

use std::fmt::Write as _;

use envelope_core::field::{Field, FieldType};
use envelope_core::model::SignerValue;
use envelope_core::service::{SignInput, SigningSession};

use super::html::esc;

/// What a Ready page needs beyond the session.
#[derive(Debug)]
pub struct ReadyPage<'a> {
    pub session: &'a SigningSession,
    pub token: &'a str,
    /// Relative path from the page's URL to the server root.
    pub root: &'a str,
    pub sign_csrf: String,
    pub decline_csrf: String,
    /// A problem with the last post, shown above the form.
    pub error: Option<String>,
    /// The values of the last post, kept when it is shown again.
    pub previous: Option<&'a SignInput>,
}

/// A readable label: `agree_terms` -> `Agree terms`; signatures, initials and dates by their
/// type, numbered when there are several.
pub fn field_label(fields: &[Field], index: usize) -> String {
    let f = &fields[index];
    let type_label = match f.kind {
        FieldType::Signature => Some("Signature"),
        FieldType::Initials => Some("Initials"),
        FieldType::Date => Some("Date"),
        _ => None,
    };
    match type_label {
        Some(label) => {
            let same: Vec<usize> = (0..fields.len())
                .filter(|&i| fields[i].kind == f.kind)
                .collect();
            match same.iter().position(|&i| i == index) {
                Some(n) if same.len() > 1 => format!("{label} {}", n + 1),
                _ => label.to_string(),
            }
        }
        None => {
            let words = f.key.replace(['_', '-', '.'], " ");
            let mut chars = words.trim().chars();
            match chars.next() {
                Some(c) => c.to_uppercase().chain(chars).collect(),
                None => f.key.clone(),
            }
        }
    }
}

fn required_mark(f: &Field) -> &'static str {
    if f.required {
        r#" <span class="req">(required)</span>"#
    } else {
        r#" <span class="opt">(optional)</span>"#
    }
}

fn previous_text(prev: Option<&SignInput>, key: &str) -> String {
    match prev.and_then(|p| p.values.get(key)) {
        Some(SignerValue::Text(t) | SignerValue::Typed(t)) => esc(t),
        _ => String::new(),
    }
}

/// A signature or initials block to render.
struct Mark<'a> {
    id: &'a str,
    /// HTML, already escaped.
    legend: &'a str,
    /// Form names of the mode, the typed text and the drawing.
    names: (&'a str, &'a str, &'a str),
    required: bool,
    /// The typed value to show (escaped).
    typed: &'a str,
    hint: &'a str,
    initials: bool,
}

/// A signature or initials block: Type or Draw, each with its own labelled control.
fn mark_block(out: &mut String, m: Mark<'_>) {
    let Mark {
        id,
        legend,
        names: (mode, typed_name, drawn_name),
        required,
        typed,
        hint,
        initials,
    } = m;
    let req = if required { " required" } else { "" };
    let _ = write!(
        out,
        r#"<fieldset class="field mark" id="{id}" data-signature data-required="{required}">
<legend>{legend}</legend>
<p class="hint" id="{id}-hint">{hint}</p>
<div class="modes">
<label class="mode"><input type="radio" name="{mode}" value="type" checked> Type</label>
<label class="mode"><input type="radio" name="{mode}" value="draw"> Draw</label>
</div>
<div class="pane" data-pane="type">
<label for="{id}-typed">{typed_label}</label>
<input type="text" id="{id}-typed" name="{typed_name}" class="typed" maxlength="200" autocomplete="off" value="{typed}" aria-describedby="{id}-hint"{req}>
</div>
<div class="pane" data-pane="draw" hidden>
<p class="hint" id="{id}-draw-hint">Draw with a mouse, a finger or a pen. Prefer the keyboard? Choose Type.</p>
<canvas class="pad" id="{id}-pad" width="600" height="200" role="img" aria-label="{legend}: drawing area" aria-describedby="{id}-draw-hint"></canvas>
<input type="hidden" name="{drawn_name}" class="drawn">
<div class="pad-actions"><button type="button" class="secondary clear">Clear drawing</button></div>
</div>
<p class="field-error" id="{id}-error" role="alert" hidden></p>
</fieldset>
"#,
        mode = esc(mode),
        typed_name = esc(typed_name),
        drawn_name = esc(drawn_name),
        legend = legend, // already escaped by the caller
        typed_label = if initials {
            "Type your initials"
        } else {
            "Type your full name as your signature"
        },
    );
}

fn field_html(out: &mut String, p: &ReadyPage<'_>, index: usize) {
    let fields = &p.session.fields;
    let f = &fields[index];
    let id = format!("f{index}");
    let label = esc(&field_label(fields, index));
    let page_hint = format!("On page {} of the document.", f.page);
    match f.kind {
        FieldType::Signature | FieldType::Initials => {
            let legend = format!("{label}{}", required_mark(f));
            let names = (
                format!("mode:{}", f.key),
                format!("typed:{}", f.key),
                format!("drawn:{}", f.key),
            );
            mark_block(
                out,
                Mark {
                    id: &id,
                    legend: &legend,
                    names: (&names.0, &names.1, &names.2),
                    required: f.required,
                    typed: &previous_text(p.previous, &f.key),
                    hint: &page_hint,
                    initials: f.kind == FieldType::Initials,
                },
            );
        }
        FieldType::Date => {
            let _ = write!(
                out,
                r#"<div class="field">
<label for="{id}">{label}</label>
<input type="text" id="{id}" value="{date}" readonly aria-describedby="{id}-hint">
<p class="hint" id="{id}-hint">Filled in automatically with the date you sign. {page_hint}</p>
</div>
"#,
                date = esc(&p.session.signing_date),
            );
        }
        FieldType::Text => {
            let _ = write!(
                out,
                r#"<div class="field">
<label for="{id}">{label}{req_mark}</label>
<input type="text" id="{id}" name="{name}" maxlength="1000" value="{value}" aria-describedby="{id}-hint"{req}>
<p class="hint" id="{id}-hint">{page_hint}</p>
</div>
"#,
                req_mark = required_mark(f),
                name = esc(&format!("text:{}", f.key)),
                value = previous_text(p.previous, &f.key),
                req = if f.required { " required" } else { "" },
            );
        }
        FieldType::Checkbox => {
            let checked = matches!(
                p.previous.and_then(|x| x.values.get(&f.key)),
                Some(SignerValue::Checkbox(true))
            );
            let _ = write!(
                out,
                r#"<div class="field check">
<input type="checkbox" id="{id}" name="{name}" value="on" aria-describedby="{id}-hint"{checked}{req}>
<label for="{id}">{label}{req_mark}</label>
<p class="hint" id="{id}-hint">{page_hint}</p>
</div>
"#,
                name = esc(&format!("check:{}", f.key)),
                checked = if checked { " checked" } else { "" },
                req = if f.required { " required" } else { "" },
                req_mark = required_mark(f),
            );
        }
    }
}

/// The body of a Ready page.
pub fn render(p: &ReadyPage<'_>) -> String {
    let s = p.session;
    let env = &s.envelope;
    let signer = &env.signers[s.signer];
    let base = format!("{}sign/{}", p.root, esc(p.token));
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<h1>{name}</h1>
<p class="lead">Hello {signer}, please review the document and sign below.</p>
"#,
        name = esc(&env.name),
        signer = esc(&signer.name),
    );
    if let Some(m) = s.message.as_deref().filter(|m| !m.trim().is_empty()) {
        let _ = writeln!(
            out,
            r#"<figure class="message"><figcaption>Message from the sender</figcaption><blockquote>{}</blockquote></figure>"#,
            esc(m)
        );
    }
    let _ = write!(
        out,
        r#"<section class="document" aria-labelledby="doc-title">
<h2 id="doc-title">Document</h2>
<iframe class="doc" src="{base}/document" title="Document to sign: {name}"></iframe>
<p><a href="{base}/document" target="_blank" rel="noopener noreferrer">Open the document in a new tab</a></p>
</section>
<section class="signing" aria-labelledby="fields-title">
<h2 id="fields-title">Your fields</h2>
"#,
        name = esc(&env.name),
    );
    if let Some(e) = &p.error {
        let _ = writeln!(
            out,
            r#"<div class="alert" role="alert" id="form-error"><p>{}</p></div>"#,
            esc(e)
        );
    }
    let _ = write!(
        out,
        r#"<form method="post" action="{base}" id="sign-form" accept-charset="utf-8">
<input type="hidden" name="csrf" value="{csrf}">
"#,
        csrf = esc(&p.sign_csrf),
    );
    for i in 0..s.fields.len() {
        field_html(&mut out, p, i);
    }
    if s.signature_page {
        let typed = match p.previous.and_then(|x| x.signature.as_ref()) {
            Some(SignerValue::Typed(t)) => esc(t),
            _ => String::new(),
        };
        mark_block(
            &mut out,
            Mark {
                id: "page-signature",
                legend: r#"Signature <span class="req">(required)</span>"#,
                names: ("page_mode", "page_typed", "page_drawn"),
                required: true,
                typed: &typed,
                hint: "Placed on a signature page added at the end of the document.",
                initials: false,
            },
        );
    }
    let _ = write!(
        out,
        r#"<div class="field check consent">
<input type="checkbox" id="consent" name="consent" value="yes" aria-describedby="consent-hint" required>
<label for="consent">I agree to sign electronically <span class="req">(required)</span></label>
<p class="hint" id="consent-hint">My electronic signature on this document is as binding as a handwritten one.</p>
</div>
<p class="form-error" id="sign-error" role="alert" hidden></p>
<div class="actions"><button type="submit" class="primary" id="sign-button">Sign</button></div>
</form>
<details class="decline" id="decline">
<summary>Decline to sign</summary>
<form method="post" action="{base}/decline" id="decline-form" accept-charset="utf-8">
<input type="hidden" name="csrf" value="{csrf}">
<label for="reason">Reason, shown to the sender <span class="opt">(optional)</span></label>
<textarea id="reason" name="reason" rows="3" maxlength="1000"></textarea>
<p class="hint">Declining cancels the envelope for everyone. This cannot be undone.</p>
<div class="actions"><button type="submit" class="danger" id="decline-button">Decline</button></div>
</form>
</details>
</section>
"#,
        csrf = esc(&p.decline_csrf),
    );
    out
}
