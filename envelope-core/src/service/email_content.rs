//! The words of the emails to signers: a subject, a plain-text body and an HTML body for each
//! kind of email.
//!
//! Pure functions of their inputs. Every string that a user chose (names, the document's name,
//! the sender's message, a void reason) is HTML-escaped before it enters the HTML part. The HTML
//! is self-contained: inline CSS only, no images, fonts, scripts or other external resources,
//! so it renders the same offline and leaks nothing when opened. This module never decides who
//! gets an email or when (that is `notify.rs`), and never does I/O.
//!
//! The words come from the catalogues (`crate::i18n`, extensions E4) in the recipient's
//! language; the sender's subject and message are theirs and go out as written. Dates stay in
//! the unambiguous `YYYY-MM-DD HH:MM UTC` form in every language.

use crate::i18n::{self, Arg, Lang, Msg};

/// What an email says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Content {
    pub subject: String,
    pub text: String,
    pub html: String,
}

/// What every email mentions.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Context<'a> {
    /// The service's name (`Settings::service_name`), shown in the footer.
    pub service: &'a str,
    /// The recipient's name.
    pub signer: &'a str,
    /// The envelope's name.
    pub document: &'a str,
    /// The language the email is written in (extensions E4).
    pub lang: Lang,
}

impl Context<'_> {
    fn text(&self, msg: Msg, args: &[(&str, Arg<'_>)]) -> String {
        i18n::text(self.lang, msg, args)
    }

    fn html(&self, msg: Msg, args: &[(&str, Arg<'_>)]) -> String {
        i18n::html(self.lang, msg, args)
    }

    /// A message about the document: its name quoted in the text part, emphasised in HTML.
    fn about_document(&self, msg: Msg) -> (String, String) {
        let quoted = self.text(Msg::Quoted, &[("text", Arg::Text(self.document))]);
        let strong = format!("<strong>{}</strong>", escape(self.document));
        (
            self.text(msg, &[("document", Arg::Text(&quoted))]),
            self.html(msg, &[("document", Arg::Html(&strong))]),
        )
    }

    /// "The link works until ...", text and HTML.
    fn until(&self, until: &str) -> (String, String) {
        let args = [("until", Arg::Text(until))];
        (
            self.text(Msg::EmailLinkUntil, &args),
            self.html(Msg::EmailLinkUntil, &args),
        )
    }
}

/// The start of the subject of every email of a test envelope (extensions E7), in every
/// language: the sender's own subject cannot make a test email look live.
pub(crate) const TEST_SUBJECT_PREFIX: &str = "[Test] ";

/// `subject` as a test envelope's email says it.
pub(crate) fn test_mode_subject(subject: &str) -> String {
    format!("{TEST_SUBJECT_PREFIX}{subject}")
}

/// What a request email asks (extensions E13): to sign, to approve, to view, or, sent to the
/// host of an in-person signing, to start it for the signer named here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ask<'a> {
    Sign,
    Approve,
    View,
    Host { signer: &'a str },
}

impl Ask<'_> {
    fn subject(self) -> Msg {
        match self {
            Ask::Sign => Msg::EmailRequestSubject,
            Ask::Approve => Msg::EmailApproveSubject,
            Ask::View => Msg::EmailViewSubject,
            Ask::Host { .. } => Msg::EmailHostSubject,
        }
    }
    fn button(self) -> Msg {
        match self {
            Ask::Sign => Msg::EmailButtonSign,
            Ask::Approve => Msg::EmailButtonApprove,
            Ask::View => Msg::EmailButtonView,
            Ask::Host { .. } => Msg::EmailButtonHost,
        }
    }
}

/// Asks a signer to sign. `subject` and `message` are the sender's; `until` is when the link
/// stops working, already formatted.
#[cfg(test)]
pub(crate) fn signing_request(
    c: &Context<'_>,
    subject: Option<&str>,
    message: Option<&str>,
    url: &str,
    until: Option<&str>,
) -> Content {
    request(c, Ask::Sign, subject, message, url, until)
}

/// Asks a recipient to do what `ask` says. `subject` and `message` are the sender's; `until` is
/// when the link stops working, already formatted.
pub(crate) fn request(
    c: &Context<'_>,
    ask: Ask<'_>,
    subject: Option<&str>,
    message: Option<&str>,
    url: &str,
    until: Option<&str>,
) -> Content {
    let subject = subject
        .map(str::to_owned)
        .unwrap_or_else(|| c.text(ask.subject(), &[("document", Arg::Text(c.document))]));
    let message = message.filter(|m| !m.trim().is_empty());
    let (ask_text, ask_html) = match ask {
        Ask::Sign => c.about_document(Msg::EmailRequestBody),
        Ask::Approve => c.about_document(Msg::EmailApproveBody),
        Ask::View => c.about_document(Msg::EmailViewBody),
        Ask::Host { signer } => {
            let quoted = c.text(Msg::Quoted, &[("text", Arg::Text(c.document))]);
            let strong = format!("<strong>{}</strong>", escape(c.document));
            (
                c.text(
                    Msg::EmailHostBody,
                    &[
                        ("document", Arg::Text(&quoted)),
                        ("name", Arg::Text(signer)),
                    ],
                ),
                c.html(
                    Msg::EmailHostBody,
                    &[
                        ("document", Arg::Html(&strong)),
                        ("name", Arg::Text(signer)),
                    ],
                ),
            )
        }
    };

    let mut text = format!(
        "{}\n\n",
        c.text(Msg::EmailHello, &[("name", c.signer.into())])
    );
    if let Some(m) = message {
        text.push_str(&format!("{}\n\n", m.trim_end()));
    }
    text.push_str(&format!(
        "{ask_text} {}\n{url}\n",
        c.text(Msg::EmailOpenLink, &[])
    ));
    let mut body = greeting(c);
    if let Some(m) = message {
        body.push_str(&quote(m));
    }
    body.push_str(&paragraph(&ask_html));
    link_parts(c, ask.button(), url, until, &mut text, &mut body);
    Content {
        html: page(&subject, &body, c),
        subject,
        text,
    }
}

/// Reminds a signer that a document waits for them.
pub(crate) fn reminder(c: &Context<'_>, ask: Ask<'_>, url: &str, until: Option<&str>) -> Content {
    let subject = c.text(
        Msg::EmailReminderSubject,
        &[("document", Arg::Text(c.document))],
    );
    let (remind_text, remind_html) = c.about_document(Msg::EmailReminderBody);
    let mut text = format!(
        "{}\n\n{remind_text} {}\n{url}\n",
        c.text(Msg::EmailHello, &[("name", c.signer.into())]),
        c.text(Msg::EmailOpenLink, &[])
    );
    let mut body = greeting(c);
    body.push_str(&paragraph(&remind_html));
    link_parts(c, ask.button(), url, until, &mut text, &mut body);
    Content {
        html: page(&subject, &body, c),
        subject,
        text,
    }
}

/// The end of an email with a signing link: the button, until when it works, the link spelled
/// out; and the footer of the text part.
fn link_parts(
    c: &Context<'_>,
    label: Msg,
    url: &str,
    until: Option<&str>,
    text: &mut String,
    body: &mut String,
) {
    body.push_str(&button(url, &c.text(label, &[])));
    if let Some(u) = until {
        let (t, h) = c.until(u);
        text.push_str(&format!("\n{t}\n"));
        body.push_str(&paragraph(&h));
    }
    text.push_str(&footer_text(c));
    body.push_str(&fallback_link(c, url));
}

/// Tells a signer that the document can no longer be signed, and why.
pub(crate) fn voided(c: &Context<'_>, reason: &str) -> Content {
    let subject = c.text(
        Msg::EmailVoidedSubject,
        &[("document", Arg::Text(c.document))],
    );
    let reason = reason.trim();
    let (void_text, void_html) = c.about_document(Msg::EmailVoidedBody);
    let mut text = format!(
        "{}\n\n{void_text}\n",
        c.text(Msg::EmailHello, &[("name", c.signer.into())])
    );
    let mut body = greeting(c);
    body.push_str(&paragraph(&void_html));
    if !reason.is_empty() {
        let args = [("reason", Arg::Text(reason))];
        text.push_str(&format!("{}\n", c.text(Msg::EmailReason, &args)));
        body.push_str(&paragraph(&c.html(Msg::EmailReason, &args)));
    }
    text.push_str(&format!("\n{}\n", c.text(Msg::EmailNothingToDo, &[])));
    text.push_str(&footer_text(c));
    body.push_str(&paragraph(&c.html(Msg::EmailNothingToDo, &[])));
    Content {
        html: page(&subject, &body, c),
        subject,
        text,
    }
}

/// Tells a signer that everyone has signed; `attachment` names the attached signed copy, or is
/// `None` when it was too large to attach or could not be read.
pub(crate) fn completed(c: &Context<'_>, attachment: Option<&str>) -> Content {
    let subject = c.text(
        Msg::EmailCompletedSubject,
        &[("document", Arg::Text(c.document))],
    );
    let (copy_text, copy_html) = match attachment {
        Some(name) => {
            let args = [("file", Arg::Text(name))];
            (
                c.text(Msg::EmailCompletedAttached, &args),
                c.html(Msg::EmailCompletedAttached, &args),
            )
        }
        None => (
            c.text(Msg::EmailCompletedNotAttached, &[]),
            c.html(Msg::EmailCompletedNotAttached, &[]),
        ),
    };
    let (done_text, done_html) = c.about_document(Msg::EmailCompletedBody);
    let text = format!(
        "{}\n\n{done_text} {copy_text}\n{}",
        c.text(Msg::EmailHello, &[("name", c.signer.into())]),
        footer_text(c)
    );
    let mut body = greeting(c);
    body.push_str(&paragraph(&done_html));
    body.push_str(&paragraph(&copy_html));
    Content {
        html: page(&subject, &body, c),
        subject,
        text,
    }
}

/// Tells a carbon-copy recipient that everyone has signed. `attached` names the attached files
/// (the signed copy and the audit trail); `links` are `(file name, URL)` of those too large to
/// attach, valid `link_days` days.
pub(crate) fn copy_completed(
    c: &Context<'_>,
    attached: &[&str],
    links: &[(String, String)],
    link_days: i64,
) -> Content {
    let subject = c.text(
        Msg::EmailCompletedSubject,
        &[("document", Arg::Text(c.document))],
    );
    let (copy_text, copy_html) = c.about_document(Msg::EmailCopyBody);
    let mut text = format!(
        "{}\n\n{copy_text}\n",
        c.text(Msg::EmailHello, &[("name", c.signer.into())])
    );
    let mut body = greeting(c);
    body.push_str(&paragraph(&copy_html));
    if !attached.is_empty() {
        let list = attached.join(", ");
        let args = [("files", Arg::Text(&list))];
        text.push_str(&format!("{}\n", c.text(Msg::EmailCopyAttached, &args)));
        body.push_str(&paragraph(&c.html(Msg::EmailCopyAttached, &args)));
    }
    for (name, url) in links {
        let args = [("file", Arg::Text(name)), ("days", Arg::Number(link_days))];
        text.push_str(&format!(
            "\n{}:\n{url}\n",
            c.text(Msg::EmailCopyTooLarge, &args)
        ));
        body.push_str(&paragraph(&format!(
            "{}.",
            c.html(Msg::EmailCopyTooLarge, &args)
        )));
        let label = c.text(Msg::EmailCopyDownload, &[("file", Arg::Text(name))]);
        body.push_str(&button(url, &label));
        body.push_str(&fallback_link(c, url));
    }
    text.push_str(&format!("\n{}\n", c.text(Msg::EmailNothingToDo, &[])));
    text.push_str(&footer_text(c));
    body.push_str(&paragraph(&c.html(Msg::EmailNothingToDo, &[])));
    Content {
        html: page(&subject, &body, c),
        subject,
        text,
    }
}

/// The code that verifies a signer's identity (extensions E2), good for `minutes`. The code is
/// not in the subject: subjects show on lock screens and in notification previews.
pub(crate) fn code(c: &Context<'_>, code: &str, minutes: i64) -> Content {
    let subject = c.text(
        Msg::EmailCodeSubject,
        &[("document", Arg::Text(c.document))],
    );
    let (intro_text, intro_html) = c.about_document(Msg::EmailCodeBody);
    let use_args = [("minutes", Arg::Number(minutes))];
    let text = format!(
        "{}\n\n{intro_text}\n\n    {code}\n\n{}\n\n{}\n{}",
        c.text(Msg::EmailHello, &[("name", c.signer.into())]),
        c.text(Msg::EmailCodeUse, &use_args),
        c.text(Msg::EmailCodeIgnore, &[]),
        footer_text(c)
    );
    let mut body = greeting(c);
    body.push_str(&paragraph(&intro_html));
    body.push_str(&format!(
        "<p style=\"margin:0 0 24px;font-size:32px;font-weight:bold;letter-spacing:6px;font-family:Consolas,Menlo,monospace;\">{}</p>\n",
        escape(code)
    ));
    body.push_str(&paragraph(&c.html(Msg::EmailCodeUse, &use_args)));
    body.push_str(&paragraph(&c.html(Msg::EmailCodeIgnore, &[])));
    Content {
        html: page(&subject, &body, c),
        subject,
        text,
    }
}

/// Escapes text for HTML content and for quoted attribute values.
pub(crate) fn escape(s: &str) -> String {
    i18n::catalog::escape_html(s).into_owned()
}

fn footer_text(c: &Context<'_>) -> String {
    format!(
        "\n{}\n",
        c.text(Msg::EmailFooter, &[("service", c.service.into())])
    )
}

const FONT: &str = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;";

fn greeting(c: &Context<'_>) -> String {
    paragraph(&c.html(Msg::EmailHello, &[("name", c.signer.into())]))
}

fn paragraph(inner_html: &str) -> String {
    format!("<p style=\"margin:0 0 16px;\">{inner_html}</p>\n")
}

/// The sender's own words, set apart so that they are not mistaken for the service's.
fn quote(text: &str) -> String {
    let lines: Vec<String> = text.trim_end().lines().map(escape).collect();
    format!(
        "<blockquote style=\"margin:0 0 16px;padding:8px 16px;border-left:4px solid #9ca3af;color:#1f2937;\">{}</blockquote>\n",
        lines.join("<br>\n")
    )
}

/// A link styled as a button: a real `<a>`, so that it works with keyboards, screen readers and
/// clients that drop CSS. Colours give a contrast ratio above 7:1.
fn button(url: &str, label: &str) -> String {
    format!(
        "<p style=\"margin:24px 0;\"><a href=\"{}\" style=\"display:inline-block;background:#1d4ed8;color:#ffffff;text-decoration:none;font-weight:bold;font-size:16px;padding:12px 24px;border-radius:6px;\">{}</a></p>\n",
        escape(url),
        escape(label)
    )
}

fn fallback_link(c: &Context<'_>, url: &str) -> String {
    let url = escape(url);
    format!(
        "<p style=\"margin:0 0 16px;font-size:14px;color:#4b5563;\">{}<br>\n<a href=\"{url}\" style=\"color:#1d4ed8;word-break:break-all;\">{url}</a></p>\n",
        c.html(Msg::EmailFallbackLink, &[])
    )
}

fn page(title: &str, body: &str, c: &Context<'_>) -> String {
    format!(
        "<!DOCTYPE html>\n\
<html lang=\"{lang}\">\n\
<head>\n\
<meta charset=\"utf-8\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<title>{title}</title>\n\
</head>\n\
<body style=\"margin:0;padding:0;background:#f3f4f6;\">\n\
<table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" style=\"background:#f3f4f6;\">\n\
<tr><td align=\"center\" style=\"padding:24px 12px;\">\n\
<table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" style=\"max-width:560px;background:#ffffff;border-radius:8px;\">\n\
<tr><td style=\"padding:32px;{FONT}font-size:16px;line-height:1.5;color:#111827;\">\n\
{body}\
</td></tr>\n\
</table>\n\
<p style=\"margin:16px 0 0;{FONT}font-size:13px;color:#4b5563;\">{footer}</p>\n\
</td></tr>\n\
</table>\n\
</body>\n\
</html>\n",
        lang = c.lang.code(),
        title = escape(title),
        footer = c.html(Msg::EmailFooter, &[("service", c.service.into())]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVIL: &str = "<script>alert('x')</script> & \"Bob\"";
    const URL: &str = "https://sign.example.com/sign/tok_abc?x=1&y=2";

    fn ctx(signer: &str) -> Context<'_> {
        Context {
            service: "Envelope",
            signer,
            document: "NDA <2025>",
            lang: Lang::En,
        }
    }

    /// Every kind of email, built with hostile text wherever a user can put text.
    fn all(evil: &str) -> Vec<(&'static str, Content)> {
        let c = Context {
            service: evil,
            signer: evil,
            document: evil,
            lang: Lang::En,
        };
        vec![
            (
                "request",
                signing_request(&c, Some(evil), Some(evil), URL, Some(evil)),
            ),
            ("reminder", reminder(&c, Ask::Sign, URL, Some(evil))),
            ("voided", voided(&c, evil)),
            ("completed", completed(&c, Some(evil))),
        ]
    }

    #[test]
    fn user_text_is_escaped_in_html() {
        for (kind, content) in all(EVIL) {
            assert!(
                !content.html.contains("<script"),
                "{kind}: {}",
                content.html
            );
            assert!(!content.html.contains("\"Bob\""), "{kind}");
            assert!(
                content.html.contains(
                    "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;Bob&quot;"
                ),
                "{kind}: {}",
                content.html
            );
            // Plain text is not HTML: the name reads as the user typed it.
            assert!(content.text.contains(EVIL), "{kind}");
        }
    }

    #[test]
    fn html_is_self_contained() {
        for (kind, content) in all("Zoë") {
            let html = content.html.to_ascii_lowercase();
            for banned in [
                "<script", "<style", "<link", "<img", "<iframe", "src=", "url(", "@import",
            ] {
                assert!(!html.contains(banned), "{kind} contains {banned}");
            }
            // The only links are the signing link.
            let hrefs: Vec<&str> = html
                .split("href=\"")
                .skip(1)
                .map(|s| &s[..s.find('"').unwrap()])
                .collect();
            assert!(
                hrefs.iter().all(|h| *h == escape(URL).to_ascii_lowercase()),
                "{kind}: {hrefs:?}"
            );
            assert!(
                html.starts_with("<!doctype html>") && html.contains("<html lang=\"en\">"),
                "{kind}"
            );
        }
    }

    #[test]
    fn links_are_a_button_in_html_and_a_line_of_their_own_in_text() {
        for content in [
            signing_request(&ctx("Zoë"), None, None, URL, None),
            reminder(&ctx("Zoë"), Ask::Sign, URL, None),
        ] {
            assert!(content.text.lines().any(|l| l == URL), "{}", content.text);
            assert!(content.html.contains(&format!(
                "<a href=\"{}\" style=\"display:inline-block;",
                escape(URL)
            )));
            assert!(content.html.contains(">Review and sign</a>"));
            assert!(content.html.contains("If the button does not work"));
        }
    }

    #[test]
    fn signing_request_carries_the_senders_subject_and_message() {
        let c = ctx("Łukasz");
        let default = signing_request(&c, None, None, URL, None);
        assert_eq!(default.subject, "Please sign: NDA <2025>");
        assert!(
            default
                .html
                .contains("<title>Please sign: NDA &lt;2025&gt;</title>")
        );
        assert!(!default.html.contains("<blockquote"));

        let own = signing_request(
            &c,
            Some("Our agreement"),
            Some("Hi!\nPlease sign <today>."),
            URL,
            Some("2025-01-31 12:00 UTC"),
        );
        assert_eq!(own.subject, "Our agreement");
        assert!(
            own.text
                .starts_with("Hello Łukasz,\n\nHi!\nPlease sign <today>.\n\n"),
            "{}",
            own.text
        );
        assert!(
            own.html
                .contains("Hi!<br>\nPlease sign &lt;today&gt;.</blockquote>"),
            "{}",
            own.html
        );
        assert!(
            own.text
                .contains("The link works until 2025-01-31 12:00 UTC.")
        );
        assert!(
            own.html
                .contains("The link works until 2025-01-31 12:00 UTC.")
        );
        assert!(own.text.ends_with("\nSent via Envelope.\n"));
    }

    #[test]
    fn void_and_completion_notices() {
        let c = ctx("Zoë");
        let v = voided(&c, "declined by Client: wrong <date>");
        assert_eq!(v.subject, "Voided: NDA <2025>");
        assert!(
            v.text
                .contains("Reason: declined by Client: wrong <date>\n")
        );
        assert!(
            v.html
                .contains("Reason: declined by Client: wrong &lt;date&gt;")
        );
        assert!(!voided(&c, "  ").text.contains("Reason"));

        let done = completed(&c, Some("nda-signed.pdf"));
        assert_eq!(done.subject, "Completed: NDA <2025>");
        assert!(
            done.text
                .contains("The signed copy is attached (nda-signed.pdf).")
        );
        assert!(
            done.html
                .contains("The signed copy is attached (nda-signed.pdf).")
        );
        let big = completed(&c, None);
        assert!(big.text.contains("could not be attached") && !big.text.contains("is attached"));
    }

    #[test]
    fn every_language_writes_every_email_escaped_and_labelled() {
        for lang in Lang::ALL {
            let c = Context {
                service: EVIL,
                signer: EVIL,
                document: EVIL,
                lang,
            };
            let links = [("big.pdf".to_string(), URL.to_string())];
            let emails = [
                signing_request(&c, None, None, URL, Some("2025-01-31 12:00 UTC")),
                reminder(&c, Ask::Sign, URL, None),
                voided(&c, EVIL),
                completed(&c, None),
                copy_completed(&c, &["a.pdf"], &links, 7),
            ];
            for e in &emails {
                let tag = format!("<html lang=\"{}\">", lang.code());
                assert!(e.html.contains(&tag), "{lang:?}");
                assert!(!e.html.contains("<script"), "{lang:?}: {}", e.html);
                assert!(e.text.contains(EVIL), "{lang:?}");
                for s in [&e.subject, &e.text, &e.html] {
                    assert!(!s.contains(['\u{2068}', '\u{2069}']), "{lang:?}: {s}");
                }
            }
            if lang != Lang::En {
                let english = Context {
                    lang: Lang::En,
                    ..c
                };
                let en = signing_request(&english, None, None, URL, None);
                assert_ne!(emails[0].subject, en.subject, "{lang:?}");
                assert_ne!(emails[0].text, en.text, "{lang:?}");
            }
        }
    }

    #[test]
    fn a_german_signing_request() {
        let c = Context {
            lang: Lang::De,
            ..ctx("Jürgen")
        };
        let e = signing_request(&c, None, None, URL, Some("2025-01-31 12:00 UTC"));
        assert_eq!(e.subject, "Bitte unterschreiben: NDA <2025>");
        assert!(e.text.starts_with("Guten Tag Jürgen,\n\n"), "{}", e.text);
        assert!(
            e.text
                .contains("Sie werden gebeten, „NDA <2025>“ zu unterschreiben."),
            "{}",
            e.text
        );
        assert!(
            e.text
                .contains("Der Link ist gültig bis 2025-01-31 12:00 UTC.")
        );
        assert!(e.text.ends_with("\nGesendet über Envelope.\n"));
        assert!(
            e.html.contains(
                "Sie werden gebeten, <strong>NDA &lt;2025&gt;</strong> zu unterschreiben."
            ),
            "{}",
            e.html
        );
        assert!(e.html.contains(">Prüfen und unterschreiben</a>"));
    }
}
