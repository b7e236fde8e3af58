//! The page of a link that can sign: the document, the signer's fields in document order, the
//! consent line, Sign, and Decline with a reason.
//!
//! Works without script (typed signatures, native `required` checks); the script adds drawing
//! and the checks of drawings. Every field has a visible label tied to its control.

use std::fmt::Write as _;

use envelope_core::field::{self, ConditionValue, Field, FieldType};
use envelope_core::i18n::{self, Arg, Lang, Msg};
use envelope_core::model::{SignerKind, SignerValue};
use envelope_core::service::{DocumentPages, SignInput, SigningSession};

use super::html::esc;

/// What a Ready page needs beyond the session.
#[derive(Debug)]
pub struct ReadyPage<'a> {
    pub session: &'a SigningSession,
    /// The documents' pages when the core draws them as pictures (issue 18); `None` frames the
    /// PDF instead.
    pub layout: Option<&'a [DocumentPages]>,
    pub token: &'a str,
    /// Relative path from the page's URL to the server root.
    pub root: &'a str,
    pub sign_csrf: String,
    pub decline_csrf: String,
    /// A problem with the last post, shown above the form.
    pub error: Option<String>,
    /// The values of the last post, kept when it is shown again.
    pub previous: Option<&'a SignInput>,
    /// The page's language.
    pub lang: Lang,
}

impl ReadyPage<'_> {
    /// A catalogue message as HTML.
    fn t(&self, msg: Msg, args: &[(&str, Arg<'_>)]) -> String {
        i18n::html(self.lang, msg, args)
    }

    /// The form's words for this signer's kind.
    fn words(&self) -> Words {
        words(self.session.envelope.signers[self.session.signer].kind)
    }
}

/// A readable label: the field's own `label` when the sender gave one (extensions E11); else
/// `agree_terms` -> `Agree terms`, and signatures, initials and dates by their type, numbered
/// when there are several.
/// Plain text, in the page's language (keys of other fields are the sender's words).
pub fn field_label(fields: &[Field], index: usize, lang: Lang) -> String {
    let f = &fields[index];
    if let Some(label) = &f.label {
        return label.clone();
    }
    let type_label = match f.kind {
        FieldType::Signature => Some(Msg::PageLabelSignature),
        FieldType::Initials => Some(Msg::PageLabelInitials),
        FieldType::Date => Some(Msg::PageLabelDate),
        _ => None,
    };
    match type_label {
        Some(msg) => {
            let label = i18n::text(lang, msg, &[]);
            let same: Vec<usize> = (0..fields.len())
                .filter(|&i| fields[i].kind == f.kind)
                .collect();
            match same.iter().position(|&i| i == index) {
                Some(n) if same.len() > 1 => i18n::text(
                    lang,
                    Msg::PageLabelNumbered,
                    &[("label", Arg::Text(&label)), ("number", (n + 1).into())],
                ),
                _ => label,
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

fn required_mark(f: &Field, lang: Lang) -> String {
    if f.required {
        required(lang)
    } else {
        format!(
            r#" <span class="opt">{}</span>"#,
            i18n::html(lang, Msg::Optional, &[])
        )
    }
}

fn required(lang: Lang) -> String {
    format!(
        r#" <span class="req">{}</span>"#,
        i18n::html(lang, Msg::Required, &[])
    )
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
    lang: Lang,
    /// The field's label as plain text, for the drawing area's accessible name.
    aria_name: &'a str,
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
        lang,
        aria_name,
    } = m;
    let t = |msg| i18n::html(lang, msg, &[]);
    let req = if required { " required" } else { "" };
    let _ = write!(
        out,
        r#"<fieldset class="field mark" id="{id}" data-signature data-required="{required}">
<legend>{legend}</legend>
<p class="hint" id="{id}-hint">{hint}</p>
<div class="modes">
<label class="mode"><input type="radio" name="{mode}" value="type" checked> {type_mode}</label>
<label class="mode"><input type="radio" name="{mode}" value="draw"> {draw_mode}</label>
</div>
<div class="pane" data-pane="type">
<label for="{id}-typed">{typed_label}</label>
<input type="text" id="{id}-typed" name="{typed_name}" class="typed" dir="auto" maxlength="200" autocomplete="off" value="{typed}" aria-describedby="{id}-hint"{req}>
</div>
<div class="pane" data-pane="draw" hidden>
<p class="hint" id="{id}-draw-hint">{draw_hint}</p>
<canvas class="pad" id="{id}-pad" width="600" height="200" role="img" aria-label="{area}" aria-describedby="{id}-draw-hint"></canvas>
<input type="hidden" name="{drawn_name}" class="drawn">
<div class="pad-actions"><button type="button" class="secondary clear">{clear}</button></div>
</div>
<p class="field-error" id="{id}-error" role="alert" hidden></p>
</fieldset>
"#,
        mode = esc(mode),
        typed_name = esc(typed_name),
        drawn_name = esc(drawn_name),
        legend = legend, // already escaped by the caller
        typed_label = if initials {
            t(Msg::PageTypeInitials)
        } else {
            t(Msg::PageTypeSignature)
        },
        type_mode = t(Msg::PageModeType),
        draw_mode = t(Msg::PageModeDraw),
        draw_hint = t(Msg::PageDrawHint),
        clear = t(Msg::PageClearDrawing),
        area = i18n::html(
            lang,
            Msg::PageDrawingArea,
            &[("field", Arg::Text(aria_name))]
        ),
    );
}

/// What a file input offers (extensions E14): the three types the core accepts.
const ATTACHMENT_ACCEPT: &str = "application/pdf,image/png,image/jpeg";

/// The `required` attribute of a field's control: `data-req` instead for a field with a
/// condition (extensions E14), which the script makes required while it shows the field; without
/// script every field shows and the server judges what applies.
fn req_attr(f: &Field) -> &'static str {
    match (f.required, f.condition.is_some()) {
        (false, _) => "",
        (true, false) => " required",
        (true, true) => " data-req",
    }
}

/// A field with a condition over the signer's own fields (extensions E14) sits in a block the
/// script shows while the condition holds: the key it reads and the test, as `data-` attributes.
fn field_html(out: &mut String, p: &ReadyPage<'_>, index: usize) {
    let Some(c) = &p.session.fields[index].condition else {
        return field_block(out, p, index);
    };
    let test = match (&c.equals, c.filled) {
        (Some(ConditionValue::Text(t)), _) => format!(r#"data-cond-equals="{}""#, esc(t)),
        (Some(ConditionValue::Bool(b)), _) => format!(r#"data-cond-checked="{b}""#),
        (None, Some(f)) => format!(r#"data-cond-filled="{f}""#),
        (None, None) => String::new(),
    };
    let _ = writeln!(
        out,
        r#"<div class="cond" data-for="f{index}" data-cond-field="{}" {test} data-required="{}">"#,
        esc(&c.field),
        p.session.fields[index].required,
    );
    field_block(out, p, index);
    out.push_str("</div>\n");
}

fn field_block(out: &mut String, p: &ReadyPage<'_>, index: usize) {
    let fields = &p.session.fields;
    let f = &fields[index];
    let id = format!("f{index}");
    let plain_label = field_label(fields, index, p.lang);
    let label = esc(&plain_label);
    let page_hint = p.t(Msg::PageOnPage, &[("page", f.page.into())]);
    match f.kind {
        FieldType::Signature | FieldType::Initials => {
            let legend = format!("{label}{}", required_mark(f, p.lang));
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
                    required: f.required && f.condition.is_none(),
                    typed: &previous_text(p.previous, &f.key),
                    hint: &page_hint,
                    initials: f.kind == FieldType::Initials,
                    lang: p.lang,
                    aria_name: &plain_label,
                },
            );
        }
        FieldType::Date => {
            let _ = write!(
                out,
                r#"<div class="field">
<label for="{id}">{label}</label>
<input type="text" id="{id}" value="{date}" readonly aria-describedby="{id}-hint">
<p class="hint" id="{id}-hint">{date_hint} {page_hint}</p>
</div>
"#,
                date = esc(&p.session.signing_date),
                date_hint = p.t(Msg::PageDateHint, &[]),
            );
        }
        FieldType::Text => {
            let _ = write!(
                out,
                r#"<div class="field">
<label for="{id}">{label}{req_mark}</label>
<input type="text" id="{id}" name="{name}" dir="auto" maxlength="1000" value="{value}" aria-describedby="{id}-hint"{req}>
<p class="hint" id="{id}-hint">{page_hint}</p>
</div>
"#,
                req_mark = required_mark(f, p.lang),
                name = esc(&format!("text:{}", f.key)),
                value = previous_text(p.previous, &f.key),
                req = req_attr(f),
            );
        }
        FieldType::Radio => {
            // A group of radio buttons: arrow keys move between them, Tab leaves the group.
            let chosen = previous_text(p.previous, &f.key);
            let _ = write!(
                out,
                r#"<fieldset class="field choice" id="{id}" aria-describedby="{id}-hint">
<legend>{label}{req_mark}</legend>
"#,
                req_mark = required_mark(f, p.lang),
            );
            for (i, option) in f.options.iter().flatten().enumerate() {
                let option = esc(option);
                let _ = writeln!(
                    out,
                    r#"<div class="option"><input type="radio" id="{id}-{i}" name="{name}" value="{option}"{checked}{req}> <label for="{id}-{i}">{option}</label></div>"#,
                    name = esc(&format!("text:{}", f.key)),
                    checked = if chosen == option { " checked" } else { "" },
                    req = req_attr(f),
                );
            }
            let _ = write!(
                out,
                r#"<p class="hint" id="{id}-hint">{page_hint}</p>
</fieldset>
"#
            );
        }
        FieldType::Select => {
            let chosen = previous_text(p.previous, &f.key);
            let _ = write!(
                out,
                r#"<div class="field">
<label for="{id}">{label}{req_mark}</label>
<select id="{id}" name="{name}" aria-describedby="{id}-hint"{req}>
<option value="">{choose}</option>
"#,
                req_mark = required_mark(f, p.lang),
                name = esc(&format!("text:{}", f.key)),
                req = req_attr(f),
                choose = p.t(Msg::PageChooseOption, &[]),
            );
            for option in f.options.iter().flatten() {
                let option = esc(option);
                let _ = writeln!(
                    out,
                    r#"<option value="{option}"{selected}>{option}</option>"#,
                    selected = if chosen == option { " selected" } else { "" },
                );
            }
            let _ = write!(
                out,
                r#"</select>
<p class="hint" id="{id}-hint">{page_hint}</p>
</div>
"#
            );
        }
        FieldType::Number if f.formula.is_some() => computed_block(out, p, index, &id, &label),
        FieldType::Number => {
            let _ = write!(
                out,
                r#"<div class="field">
<label for="{id}">{label}{req_mark}</label>
<input type="text" id="{id}" name="{name}" inputmode="decimal" pattern="{pattern}" maxlength="{max}" autocomplete="off" value="{value}" aria-describedby="{id}-hint"{req}>
<p class="hint" id="{id}-hint">{number_hint} {page_hint}</p>
</div>
"#,
                req_mark = required_mark(f, p.lang),
                name = esc(&format!("text:{}", f.key)),
                pattern = esc(field::NUMBER_PATTERN),
                max = field::MAX_NUMBER_CHARS,
                value = previous_text(p.previous, &f.key),
                req = req_attr(f),
                number_hint = p.t(Msg::PageNumberHint, &[]),
            );
        }
        FieldType::Attachment => {
            // A file (extensions E14): the chooser (a phone's offers its camera too), and a
            // camera button the script shows, which takes a photo at once (`capture`). Both post
            // as `file:<key>`; the core decides what the bytes are.
            let _ = write!(
                out,
                r#"<div class="field file">
<label for="{id}">{label}{req_mark}</label>
<input type="file" id="{id}" name="{name}" accept="{accept}" aria-describedby="{id}-hint"{req}>
<div class="camera" hidden>
<label for="{id}-camera">{camera}</label>
<input type="file" id="{id}-camera" name="{name}" accept="{accept}" capture="environment" data-camera-for="{id}" aria-describedby="{id}-hint">
</div>
<p class="hint" id="{id}-hint">{file_hint} {page_hint}</p>
</div>
"#,
                req_mark = required_mark(f, p.lang),
                name = esc(&format!("file:{}", f.key)),
                accept = ATTACHMENT_ACCEPT,
                req = req_attr(f),
                camera = p.t(Msg::PageAttachmentCamera, &[]),
                file_hint = p.t(Msg::PageAttachmentHint, &[]),
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
                req = req_attr(f),
                req_mark = required_mark(f, p.lang),
            );
        }
    }
}

/// A computed `number` field (extensions E14): an `<output>`, which a form never posts, that the
/// script fills from the formula's tree and the values it reads (the sender's, in
/// `data-known`; the signer's own, from the form). The server computes it again when the signer
/// signs. Without script it stays empty, and the signed copy has the server's value.
fn computed_block(out: &mut String, p: &ReadyPage<'_>, index: usize, id: &str, label: &str) {
    let f = &p.session.fields[index];
    let tree = f
        .formula
        .as_deref()
        .and_then(|src| envelope_core::formula::Formula::parse(src).ok())
        .map(|formula| formula.tree().to_string())
        .unwrap_or_default();
    let known = serde_json::to_string(&p.session.formula_inputs).unwrap_or_default();
    let _ = write!(
        out,
        r#"<div class="field computed">
<label for="{id}">{label}</label>
<output id="{id}" name="{name}" data-formula="{tree}" data-known="{known}" aria-describedby="{id}-hint" aria-live="polite"></output>
<p class="hint" id="{id}-hint">{hint} {page_hint}</p>
</div>
"#,
        name = esc(&format!("text:{}", f.key)),
        tree = esc(&tree),
        known = esc(&known),
        hint = p.t(Msg::PageComputedHint, &[]),
        page_hint = p.t(Msg::PageOnPage, &[("page", f.page.into())]),
    );
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
<p class="lead">{lead}</p>
"#,
        name = esc(&env.name),
        lead = p.t(p.words().lead, &[("name", Arg::Text(&signer.name))]),
    );
    sender_message(&mut out, p);
    let several = env.documents.len() > 1;
    if let Some(layout) = p.layout {
        pictures(&mut out, p, layout, &base);
        open_fields(&mut out, p);
    } else if several {
        // Several documents (extensions E5): each in its own frame, in order, under its name.
        framed_documents(&mut out, p, &base);
        open_fields(&mut out, p);
    } else {
        let _ = write!(
            out,
            r#"<section class="document" aria-labelledby="doc-title">
<h2 id="doc-title">{document}</h2>
<iframe class="doc" src="{base}/document" title="{frame}"></iframe>
<p><a href="{base}/document" target="_blank" rel="noopener noreferrer">{open}</a></p>
</section>
<section class="signing" aria-labelledby="fields-title">
<h2 id="fields-title">{fields}</h2>
"#,
            document = p.t(Msg::PageDocument, &[]),
            frame = p.t(
                Msg::PageDocumentFrame,
                &[("document", Arg::Text(&env.name))]
            ),
            open = p.t(Msg::PageOpenDocument, &[]),
            fields = p.t(p.words().fields, &[]),
        );
    }
    if let Some(e) = &p.error {
        let _ = writeln!(
            out,
            r#"<div class="alert" role="alert" id="form-error"><p>{}</p></div>"#,
            esc(e)
        );
    }
    // Files travel as multipart (extensions E14); other forms stay urlencoded.
    let enctype = if s.fields.iter().any(|f| f.kind == FieldType::Attachment) {
        r#" enctype="multipart/form-data""#
    } else {
        ""
    };
    let _ = write!(
        out,
        r#"<form method="post" action="{base}" id="sign-form"{enctype} accept-charset="utf-8" data-msg-signing="{signing}" data-msg-draw-required="{draw_required}">
<input type="hidden" name="csrf" value="{csrf}">
"#,
        csrf = esc(&p.sign_csrf),
        // The script's words: attributes, since the page's CSP allows no inline script.
        signing = p.t(p.words().acting, &[]),
        draw_required = p.t(Msg::PageDrawRequired, &[]),
    );
    if several {
        // The signer's fields grouped under each document's name, in document order.
        for d in &env.documents {
            let mine: Vec<usize> = (0..s.fields.len())
                .filter(|&i| s.fields[i].document == d.index)
                .collect();
            if mine.is_empty() {
                continue;
            }
            let _ = writeln!(
                out,
                r#"<fieldset class="document-fields"><legend>{}</legend>"#,
                esc(&d.name)
            );
            for i in mine {
                field_html(&mut out, p, i);
            }
            out.push_str("</fieldset>\n");
        }
    } else {
        for i in 0..s.fields.len() {
            field_html(&mut out, p, i);
        }
    }
    if s.signature_page {
        let typed = match p.previous.and_then(|x| x.signature.as_ref()) {
            Some(SignerValue::Typed(t)) => esc(t),
            _ => String::new(),
        };
        let plain_label = i18n::text(p.lang, Msg::PageLabelSignature, &[]);
        let legend = format!("{}{}", esc(&plain_label), required(p.lang));
        mark_block(
            &mut out,
            Mark {
                id: "page-signature",
                legend: &legend,
                names: ("page_mode", "page_typed", "page_drawn"),
                required: true,
                typed: &typed,
                hint: &p.t(Msg::PageSignaturePageHint, &[]),
                initials: false,
                lang: p.lang,
                aria_name: &plain_label,
            },
        );
    }
    if p.layout.is_some() {
        // Where a tapped field's input is shown (the script moves it here and back): inside the
        // form, so that what is entered is posted even while it is open.
        let _ = write!(
            out,
            r#"<dialog id="field-dialog" aria-label="{label}">
<div class="dialog-body"></div>
<div class="actions"><button type="button" class="primary" id="dialog-done">{done}</button></div>
</dialog>
"#,
            label = p.t(Msg::PageYourFields, &[]),
            done = p.t(Msg::PageDone, &[]),
        );
    }
    let _ = write!(
        out,
        r#"<div class="field check consent">
<input type="checkbox" id="consent" name="consent" value="yes" aria-describedby="consent-hint" required>
<label for="consent">{consent}{required}</label>
<p class="hint" id="consent-hint">{consent_hint}</p>
</div>
<div class="actions"><button type="submit" class="primary" id="sign-button">{sign}</button></div>
</form>
<details class="decline" id="decline">
<summary>{decline_summary}</summary>
<form method="post" action="{base}/decline" id="decline-form" accept-charset="utf-8">
<input type="hidden" name="csrf" value="{csrf}">
<label for="reason">{decline_reason} <span class="opt">{optional}</span></label>
<textarea id="reason" name="reason" dir="auto" rows="3" maxlength="1000"></textarea>
<p class="hint">{decline_hint}</p>
<div class="actions"><button type="submit" class="danger" id="decline-button">{decline}</button></div>
</form>
</details>
</section>
"#,
        csrf = esc(&p.decline_csrf),
        consent = p.t(p.words().consent, &[]),
        required = required(p.lang),
        consent_hint = p.t(p.words().consent_hint, &[]),
        sign = p.t(p.words().act, &[]),
        decline_summary = p.t(p.words().decline_summary, &[]),
        decline_reason = p.t(Msg::PageDeclineReason, &[]),
        optional = p.t(Msg::Optional, &[]),
        decline_hint = p.t(Msg::PageDeclineHint, &[]),
        decline = p.t(Msg::PageDecline, &[]),
    );
    out
}

/// A number for a `data-` attribute: points with two decimals at most.
fn num(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The box of a field as `data-` attributes, for the script that places it over its page.
fn place(f: &Field) -> String {
    format!(
        r#"data-x="{}" data-y="{}" data-w="{}" data-h="{}""#,
        num(f.x),
        num(f.y),
        num(f.width),
        num(f.height)
    )
}

/// The document as pictures of its pages (issue 18), each with the signer's fields over their
/// boxes, the other signers' fields as "For Client", and a "Next field" button. Without script
/// the pictures show and the fields are filled in the form below; the script places the
/// fields, opens a field's input when it is tapped, and shows what was entered in place.
fn pictures(out: &mut String, p: &ReadyPage<'_>, layout: &[DocumentPages], base: &str) {
    let s = p.session;
    let several = layout.len() > 1;
    let _ = write!(
        out,
        r#"<section class="document pictures" aria-labelledby="doc-title">
<h2 id="doc-title">{document}</h2>
<div class="next-bar" hidden><button type="button" class="secondary" id="next-field">{next}</button>
<p class="hint" id="fields-done" role="status" data-msg="{done}"></p></div>
"#,
        document = p.t(Msg::PageDocument, &[]),
        next = p.t(Msg::PageNextField, &[]),
        done = p.t(Msg::PageFieldsDone, &[]),
    );
    let mut first = true;
    for d in layout {
        if several {
            let _ = writeln!(
                out,
                r#"<h3 id="doc-{n}-title">{name}</h3>"#,
                n = d.index,
                name = esc(&d.name)
            );
        }
        let count = d.pages.len();
        for (i, size) in d.pages.iter().enumerate() {
            let page = i as u32 + 1;
            let scale = f64::from(envelope_core::render::scale_for(size.width, size.height));
            let _ = write!(
                out,
                r#"<div class="sheet" data-document="{n}" data-page="{page}" data-w="{w}" data-h="{h}">
<img class="page-img" src="{base}/document/{n}/page/{page}" width="{pw}" height="{ph}" alt="{alt}" loading="{loading}">
"#,
                n = d.index,
                w = num(size.width),
                h = num(size.height),
                pw = (size.width * scale) as u32,
                ph = (size.height * scale) as u32,
                alt = p.t(
                    Msg::PagePicture,
                    &[
                        ("page", page.into()),
                        ("count", count.into()),
                        ("document", Arg::Text(&d.name)),
                    ]
                ),
                loading = if first { "eager" } else { "lazy" },
            );
            first = false;
            for (fi, f) in s.fields.iter().enumerate() {
                if f.document != d.index || f.page != page {
                    continue;
                }
                spot(out, p, fi, f);
            }
            for f in &s.others {
                if f.document != d.index || f.page != page {
                    continue;
                }
                let role = f.role.as_deref().unwrap_or_default();
                let _ = writeln!(
                    out,
                    r#"<div class="spot other" {place} aria-hidden="true"><span class="spot-label">{label}</span></div>"#,
                    place = place(f),
                    label = p.t(Msg::PageForRole, &[("role", Arg::Text(role))]),
                );
            }
            out.push_str("</div>\n");
        }
        let _ = writeln!(
            out,
            r#"<p><a href="{base}/document/{n}" target="_blank" rel="noopener noreferrer">{open}</a></p>"#,
            n = d.index,
            open = p.t(Msg::PageOpenDocument, &[]),
        );
    }
}

/// One of the signer's fields over its page: a button that opens the field's input (or ticks a
/// check box); a date shows the date it will get.
fn spot(out: &mut String, p: &ReadyPage<'_>, index: usize, f: &Field) {
    let label = field_label(&p.session.fields, index, p.lang);
    let kind = f.kind.as_str();
    if f.kind == FieldType::Date {
        let _ = writeln!(
            out,
            r#"<div class="spot mine filled kind-date" {place} aria-hidden="true"><span class="spot-value">{date}</span></div>"#,
            place = place(f),
            date = esc(&p.session.signing_date),
        );
        return;
    }
    if f.formula.is_some() {
        // Computed (extensions E14): nothing to open; the script shows the value in place.
        let _ = writeln!(
            out,
            r#"<div class="spot mine computed kind-number" {place} data-for="f{index}" aria-hidden="true"><span class="spot-value"></span></div>"#,
            place = place(f),
        );
        return;
    }
    // The accessible name starts with the words the button shows (WCAG 2.5.3, label in name:
    // a speech-input user says what they see) and goes on with the field's name when that
    // differs: "Sign here, Signature". The script keeps it so when a value shows in place
    // ("Bakery and Sons, Company"); a check box's spot says whether it is ticked.
    let shown = match f.kind {
        FieldType::Signature => i18n::text(p.lang, Msg::PageSpotSign, &[]),
        _ => label.clone(),
    };
    let name = if shown == label {
        label.clone()
    } else {
        format!("{shown}, {label}")
    };
    let pressed = if f.kind == FieldType::Checkbox {
        r#" aria-pressed="false""#
    } else {
        ""
    };
    let _ = writeln!(
        out,
        r#"<button type="button" class="spot mine kind-{kind}" {place} data-for="f{index}" data-kind="{kind}" data-required="{required}" data-label="{label}" aria-label="{name}"{pressed}><span class="spot-value"></span><span class="spot-label">{shown}</span></button>"#,
        place = place(f),
        required = f.required,
        label = esc(&label),
        name = esc(&name),
        shown = esc(&shown),
    );
}

/// Closes the document's section and opens the signer's: the heading above the form.
fn open_fields(out: &mut String, p: &ReadyPage<'_>) {
    let _ = write!(
        out,
        r#"</section>
<section class="signing" aria-labelledby="fields-title">
<h2 id="fields-title">{fields}</h2>
"#,
        fields = p.t(p.words().fields, &[]),
    );
}

/// The words of the form that differ by what the signer does (extensions E13).
pub struct Words {
    pub title: Msg,
    pub lead: Msg,
    pub fields: Msg,
    pub consent: Msg,
    pub consent_hint: Msg,
    pub act: Msg,
    pub acting: Msg,
    pub decline_summary: Msg,
}

/// The form's words for a recipient of `kind`: a signer's, or an approver's (a viewer has no
/// form, see [`render_viewer`]).
pub fn words(kind: SignerKind) -> Words {
    match kind {
        SignerKind::Approver => Words {
            title: Msg::PageTitleApprove,
            lead: Msg::PageLeadApprove,
            fields: Msg::PageYourApproval,
            consent: Msg::PageConsentApprove,
            consent_hint: Msg::PageConsentApproveHint,
            act: Msg::PageApprove,
            acting: Msg::PageApproving,
            decline_summary: Msg::PageDeclineApproveSummary,
        },
        _ => Words {
            title: Msg::PageTitleSign,
            lead: Msg::PageLead,
            fields: Msg::PageYourFields,
            consent: Msg::PageConsent,
            consent_hint: Msg::PageConsentHint,
            act: Msg::PageSign,
            acting: Msg::PageSigning,
            decline_summary: Msg::PageDeclineSummary,
        },
    }
}

/// The page of a viewer (extensions E13), whose opening of the link finished their part: the
/// document, and a line saying nothing else is needed. No form.
pub fn render_viewer(p: &ReadyPage<'_>) -> String {
    let s = p.session;
    let env = &s.envelope;
    let signer = &env.signers[s.signer];
    let base = format!("{}sign/{}", p.root, esc(p.token));
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<h1>{name}</h1>
<p class="lead">{lead}</p>
<p class="hint viewed" role="status">{viewed}</p>
"#,
        name = esc(&env.name),
        lead = p.t(Msg::PageLeadView, &[("name", Arg::Text(&signer.name))]),
        viewed = p.t(Msg::PageViewed, &[]),
    );
    sender_message(&mut out, p);
    if let Some(layout) = p.layout {
        pictures(&mut out, p, layout, &base);
        out.push_str("</section>\n");
        return out;
    }
    framed_documents(&mut out, p, &base);
    out.push_str("</section>\n");
    out
}

/// The documents in frames, each under its name (extensions E5), in the document section left
/// open for what follows.
fn framed_documents(out: &mut String, p: &ReadyPage<'_>, base: &str) {
    let _ = writeln!(
        out,
        r#"<section class="document" aria-labelledby="doc-title">
<h2 id="doc-title">{}</h2>"#,
        p.t(Msg::PageDocument, &[]),
    );
    for d in &p.session.envelope.documents {
        let _ = write!(
            out,
            r#"<h3 id="doc-{n}-title">{name}</h3>
<iframe class="doc" src="{base}/document/{n}" title="{frame}"></iframe>
<p><a href="{base}/document/{n}" target="_blank" rel="noopener noreferrer">{open}</a></p>
"#,
            n = d.index,
            name = esc(&d.name),
            frame = p.t(Msg::PageDocumentFrame, &[("document", Arg::Text(&d.name))]),
            open = p.t(Msg::PageOpenDocument, &[]),
        );
    }
}

/// The sender's message, when there is one.
fn sender_message(out: &mut String, p: &ReadyPage<'_>) {
    if let Some(m) = p
        .session
        .message
        .as_deref()
        .filter(|m| !m.trim().is_empty())
    {
        let _ = writeln!(
            out,
            r#"<figure class="message"><figcaption>{}</figcaption><blockquote>{}</blockquote></figure>"#,
            p.t(Msg::PageSenderMessage, &[]),
            esc(m)
        );
    }
}
