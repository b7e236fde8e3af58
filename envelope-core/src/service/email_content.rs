//! The words of the emails to signers: a subject, a plain-text body and an HTML body for each
//! kind of email.
//!
//! Pure functions of their inputs. Every string that a user chose (names, the document's name,
//! the sender's message, a void reason) is HTML-escaped before it enters the HTML part. The HTML
//! is self-contained: inline CSS only, no images, fonts, scripts or other external resources,
//! so it renders the same offline and leaks nothing when opened. This module never decides who
//! gets an email or when (that is `notify.rs`), and never does I/O.

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
}

/// Asks a signer to sign. `subject` and `message` are the sender's; `until` is when the link
/// stops working, already formatted.
pub(crate) fn signing_request(
    c: &Context<'_>,
    subject: Option<&str>,
    message: Option<&str>,
    url: &str,
    until: Option<&str>,
) -> Content {
    let subject = subject
        .map(str::to_owned)
        .unwrap_or_else(|| format!("Please sign: {}", c.document));
    let message = message.filter(|m| !m.trim().is_empty());

    let mut text = format!("Hello {},\n\n", c.signer);
    if let Some(m) = message {
        text.push_str(&format!("{}\n\n", m.trim_end()));
    }
    text.push_str(&format!(
        "You are asked to sign \"{}\". Open this link to review and sign:\n{url}\n",
        c.document
    ));
    if let Some(u) = until {
        text.push_str(&format!("\nThe link works until {u}.\n"));
    }
    text.push_str(&footer_text(c));

    let mut body = greeting(c);
    if let Some(m) = message {
        body.push_str(&quote(m));
    }
    body.push_str(&paragraph(&format!(
        "You are asked to sign <strong>{}</strong>.",
        escape(c.document)
    )));
    body.push_str(&button(url, "Review and sign"));
    if let Some(u) = until {
        body.push_str(&paragraph(&format!("The link works until {}.", escape(u))));
    }
    body.push_str(&fallback_link(url));
    Content {
        html: page(&subject, &body, c),
        subject,
        text,
    }
}

/// Reminds a signer that a document waits for them.
pub(crate) fn reminder(c: &Context<'_>, url: &str, until: Option<&str>) -> Content {
    let subject = format!("Reminder: please sign {}", c.document);
    let mut text = format!(
        "Hello {},\n\nThis is a reminder that \"{}\" is waiting for your signature:\n{url}\n",
        c.signer, c.document
    );
    if let Some(u) = until {
        text.push_str(&format!("\nThe link works until {u}.\n"));
    }
    text.push_str(&footer_text(c));

    let mut body = greeting(c);
    body.push_str(&paragraph(&format!(
        "This is a reminder that <strong>{}</strong> is waiting for your signature.",
        escape(c.document)
    )));
    body.push_str(&button(url, "Review and sign"));
    if let Some(u) = until {
        body.push_str(&paragraph(&format!("The link works until {}.", escape(u))));
    }
    body.push_str(&fallback_link(url));
    Content {
        html: page(&subject, &body, c),
        subject,
        text,
    }
}

/// Tells a signer that the document can no longer be signed, and why.
pub(crate) fn voided(c: &Context<'_>, reason: &str) -> Content {
    let subject = format!("Voided: {}", c.document);
    let reason = reason.trim();
    let mut text = format!(
        "Hello {},\n\n\"{}\" was voided and can no longer be signed.\n",
        c.signer, c.document
    );
    if !reason.is_empty() {
        text.push_str(&format!("Reason: {reason}\n"));
    }
    text.push_str("\nYou do not need to do anything.\n");
    text.push_str(&footer_text(c));

    let mut body = greeting(c);
    body.push_str(&paragraph(&format!(
        "<strong>{}</strong> was voided and can no longer be signed.",
        escape(c.document)
    )));
    if !reason.is_empty() {
        body.push_str(&paragraph(&format!("Reason: {}", escape(reason))));
    }
    body.push_str(&paragraph("You do not need to do anything."));
    Content {
        html: page(&subject, &body, c),
        subject,
        text,
    }
}

/// Tells a signer that everyone has signed; `attachment` names the attached signed copy, or is
/// `None` when it was too large to attach or could not be read.
pub(crate) fn completed(c: &Context<'_>, attachment: Option<&str>) -> Content {
    let subject = format!("Completed: {}", c.document);
    let copy = match attachment {
        Some(name) => format!("The signed copy is attached ({name})."),
        None => "The signed copy could not be attached to this email (it may be too large); ask the sender for a copy.".to_owned(),
    };
    let text = format!(
        "Hello {},\n\nEveryone has signed \"{}\". {copy}\n{}",
        c.signer,
        c.document,
        footer_text(c)
    );
    let mut body = greeting(c);
    body.push_str(&paragraph(&format!(
        "Everyone has signed <strong>{}</strong>.",
        escape(c.document)
    )));
    body.push_str(&paragraph(&escape(&copy)));
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
    let subject = format!("Completed: {}", c.document);
    let mut text = format!(
        "Hello {},\n\nYou receive a copy of \"{}\": everyone has signed it.\n",
        c.signer, c.document
    );
    let mut body = greeting(c);
    body.push_str(&paragraph(&format!(
        "You receive a copy of <strong>{}</strong>: everyone has signed it.",
        escape(c.document)
    )));
    if !attached.is_empty() {
        let list = attached.join(", ");
        text.push_str(&format!("Attached: {list}.\n"));
        body.push_str(&paragraph(&format!("Attached: {}.", escape(&list))));
    }
    for (name, url) in links {
        text.push_str(&format!(
            "\n{name} is too large to attach; download it within {link_days} days:\n{url}\n"
        ));
        body.push_str(&paragraph(&format!(
            "{} is too large to attach; download it within {link_days} days.",
            escape(name)
        )));
        body.push_str(&button(url, &format!("Download {name}")));
        body.push_str(&fallback_link(url));
    }
    text.push_str("\nYou do not need to do anything.\n");
    text.push_str(&footer_text(c));
    body.push_str(&paragraph("You do not need to do anything."));
    Content {
        html: page(&subject, &body, c),
        subject,
        text,
    }
}

/// The code that verifies a signer's identity (extensions E2), good for `minutes`. The code is
/// not in the subject: subjects show on lock screens and in notification previews.
pub(crate) fn code(c: &Context<'_>, code: &str, minutes: i64) -> Content {
    let subject = format!("Your code to sign {}", c.document);
    let text = format!(
        "Hello {},\n\nYour code to open \"{}\" is:\n\n    {code}\n\nEnter it on the signing page. \
         It works for {minutes} minutes, once.\n\nIf you did not open a signing link, ignore this \
         email: without the code nobody can see the document.\n{}",
        c.signer,
        c.document,
        footer_text(c)
    );
    let mut body = greeting(c);
    body.push_str(&paragraph(&format!(
        "Your code to open <strong>{}</strong> is:",
        escape(c.document)
    )));
    body.push_str(&format!(
        "<p style=\"margin:0 0 24px;font-size:32px;font-weight:bold;letter-spacing:6px;font-family:Consolas,Menlo,monospace;\">{}</p>\n",
        escape(code)
    ));
    body.push_str(&paragraph(&format!(
        "Enter it on the signing page. It works for {minutes} minutes, once."
    )));
    body.push_str(&paragraph(
        "If you did not open a signing link, ignore this email: without the code nobody can see \
         the document.",
    ));
    Content {
        html: page(&subject, &body, c),
        subject,
        text,
    }
}

/// Escapes text for HTML content and for quoted attribute values.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn footer_text(c: &Context<'_>) -> String {
    format!("\nSent via {}.\n", c.service)
}

const FONT: &str = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;";

fn greeting(c: &Context<'_>) -> String {
    paragraph(&format!("Hello {},", escape(c.signer)))
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

fn fallback_link(url: &str) -> String {
    let url = escape(url);
    format!(
        "<p style=\"margin:0 0 16px;font-size:14px;color:#4b5563;\">If the button does not work, copy this link into your browser:<br>\n<a href=\"{url}\" style=\"color:#1d4ed8;word-break:break-all;\">{url}</a></p>\n"
    )
}

fn page(title: &str, body: &str, c: &Context<'_>) -> String {
    format!(
        "<!DOCTYPE html>\n\
<html lang=\"en\">\n\
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
<p style=\"margin:16px 0 0;{FONT}font-size:13px;color:#4b5563;\">Sent via {service}.</p>\n\
</td></tr>\n\
</table>\n\
</body>\n\
</html>\n",
        title = escape(title),
        service = escape(c.service),
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
        }
    }

    /// Every kind of email, built with hostile text wherever a user can put text.
    fn all(evil: &str) -> Vec<(&'static str, Content)> {
        let c = Context {
            service: evil,
            signer: evil,
            document: evil,
        };
        vec![
            (
                "request",
                signing_request(&c, Some(evil), Some(evil), URL, Some(evil)),
            ),
            ("reminder", reminder(&c, URL, Some(evil))),
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
            reminder(&ctx("Zoë"), URL, None),
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
}
