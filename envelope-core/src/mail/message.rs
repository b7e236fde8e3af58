//! One [`Email`] -> one RFC 5322 message, built with lettre so that [`super::FileMailer`] and
//! [`super::SmtpMailer`] put out the same bytes. Pure: no I/O, no clock other than the `Date`
//! header lettre adds.
//!
//! Structure: `text/plain` alone; `multipart/alternative` (plain first, HTML last, the order
//! clients prefer) when there is HTML; both wrapped in `multipart/mixed` when there are
//! attachments. lettre chooses each body's transfer encoding (7bit, quoted-printable or base64)
//! and RFC 2047-encodes non-ASCII display names and subjects.

use lettre::message::header::{ContentType, Header, HeaderName, HeaderValue};
use lettre::message::{Attachment as Part, Mailbox as LMailbox, MultiPart, SinglePart};
use lettre::{Address, Message};
use rand::RngExt;
use rand::distr::Alphanumeric;

use super::{Email, MailError, Mailbox};
use crate::clock::Timestamp;

/// The RFC 5322 bytes (CRLF line ends) of `email` sent by `from`, dated `date`.
///
/// ```
/// use envelope_core::mail::{to_rfc5322, Email, EmailKind, Mailbox};
/// let email = Email {
///     kind: EmailKind::Reminder,
///     to: Mailbox { name: "Zoë".into(), email: "zoe@example.com".into() },
///     subject: "Reminder".into(),
///     text: "Hello".into(),
///     html: None,
///     attachments: vec![],
///     envelope: "env_1".parse().unwrap(),
///     mode: envelope_core::Mode::Test,
/// };
/// let date = envelope_core::Timestamp::from_millis(1_800_000_000_000).unwrap();
/// let bytes = to_rfc5322(&email, &Mailbox::default_from(), date).unwrap();
/// assert!(String::from_utf8_lossy(&bytes).contains("X-Envelope-Kind: reminder"));
/// ```
pub fn to_rfc5322(email: &Email, from: &Mailbox, date: Timestamp) -> Result<Vec<u8>, MailError> {
    Ok(build(email, &mailbox(from)?, date)?.formatted())
}

/// Converts and validates an address, for constructors that want to fail early.
pub(crate) fn mailbox(m: &Mailbox) -> Result<LMailbox, MailError> {
    let address: Address = m
        .email
        .trim()
        .parse()
        .map_err(|source| MailError::InvalidAddress {
            address: m.email.clone(),
            source,
        })?;
    let name = one_line(&m.name);
    Ok(LMailbox::new(
        (!name.trim().is_empty()).then_some(name),
        address,
    ))
}

pub(crate) fn build(email: &Email, from: &LMailbox, date: Timestamp) -> Result<Message, MailError> {
    let text_part = SinglePart::plain(email.text.clone());
    let body = match &email.html {
        Some(html) => Body::Multi(
            MultiPart::alternative()
                .singlepart(text_part)
                .singlepart(SinglePart::html(html.clone())),
        ),
        None => Body::Single(text_part),
    };
    let body = if email.attachments.is_empty() {
        body
    } else {
        let mut mixed = match body {
            Body::Single(p) => MultiPart::mixed().singlepart(p),
            Body::Multi(m) => MultiPart::mixed().multipart(m),
        };
        for a in &email.attachments {
            let content_type = ContentType::parse(&a.content_type)
                .unwrap_or_else(|_| ContentType::parse("application/octet-stream").expect("valid"));
            mixed = mixed
                .singlepart(Part::new(one_line(&a.file_name)).body(a.bytes.clone(), content_type));
        }
        Body::Multi(mixed)
    };

    let builder = Message::builder()
        .from(from.clone())
        .to(mailbox(&email.to)?)
        .subject(one_line(&email.subject))
        .date(date.datetime().into())
        // The host's name in a Message-ID tells recipients about the server; the sender's domain
        // is what mail systems expect.
        .message_id(Some(format!(
            "<{}@{}>",
            random_token(24),
            from.email.domain()
        )))
        .header(AutoSubmitted("auto-generated".into()))
        .header(EnvelopeId(ascii_token(&email.envelope)))
        .header(EnvelopeKind(email.kind.as_str().into()));
    Ok(match body {
        Body::Single(p) => builder.singlepart(p)?,
        Body::Multi(m) => builder.multipart(m)?,
    })
}

enum Body {
    Single(SinglePart),
    Multi(MultiPart),
}

/// Header values come from users (names, subjects): a line break must never start a new header.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Envelope IDs are ASCII already; anything else is dropped rather than trusted in a header.
fn ascii_token(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect()
}

pub(crate) fn random_token(len: usize) -> String {
    rand::rng()
        .sample_iter(Alphanumeric)
        .take(len)
        .map(char::from)
        .collect()
}

macro_rules! simple_header {
    ($(#[$doc:meta])* $ty:ident, $name:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone)]
        struct $ty(String);
        impl Header for $ty {
            fn name() -> HeaderName {
                HeaderName::new_from_ascii_str($name)
            }
            fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
                Ok(Self(s.into()))
            }
            fn display(&self) -> HeaderValue {
                HeaderValue::new(Self::name(), self.0.clone())
            }
        }
    };
}

simple_header!(
    /// The envelope a message is about, for routing and for finding it in a mailbox.
    EnvelopeId, "X-Envelope-Id"
);
simple_header!(
    /// [`super::EmailKind::as_str`].
    EnvelopeKind, "X-Envelope-Kind"
);

simple_header!(
    /// RFC 3834 (`auto-generated`): tells auto-responders (out-of-office) not to answer.
    AutoSubmitted, "Auto-Submitted"
);

#[cfg(test)]
pub(crate) mod tests {
    use mail_parser::{MessageParser, MimeHeaders};

    use super::*;
    use crate::mail::{Attachment, EmailKind};

    /// A message with everything that needs encoding: non-ASCII names and subject, HTML, a PDF.
    pub(crate) fn rich_email() -> Email {
        Email {
            kind: EmailKind::Completed,
            to: Mailbox {
                name: "Zoë Ångström".into(),
                email: "zoe@example.com".into(),
            },
            subject: "Completed: Umowa z Łukasz – ważne".into(),
            text: "Hello Zoë,\n\nEveryone has signed. Łukasz says dziękuję.\n".into(),
            html: Some("<p>Hello Zo&euml;, <b>Łukasz</b> says dziękuję.</p>".into()),
            attachments: vec![Attachment {
                file_name: "Umowa Łukasz.pdf".into(),
                content_type: "application/pdf".into(),
                bytes: b"%PDF-1.7\n\x00\xff\xfe binary\n%%EOF\n".to_vec(),
            }],
            envelope: crate::ids::EnvelopeId::trusted("env_123"),
            mode: crate::model::Mode::Live,
        }
    }

    fn date() -> Timestamp {
        Timestamp::from_millis(1_800_000_000_000).unwrap()
    }

    fn headers_of(bytes: &[u8]) -> String {
        let raw = String::from_utf8(bytes.to_vec()).expect("7-bit message");
        raw[..raw.find("\r\n\r\n").expect("header end")].to_owned()
    }

    #[test]
    fn non_ascii_headers_are_rfc2047_encoded_and_decode_back() {
        let from = Mailbox {
            name: "Łukasz at Envelope".into(),
            email: "no-reply@example.com".into(),
        };
        let bytes = to_rfc5322(&rich_email(), &from, date()).unwrap();
        assert!(
            bytes.is_ascii(),
            "every byte of a message is 7-bit after encoding"
        );
        let headers = headers_of(&bytes);
        for name in ["To: ", "From: ", "Subject: "] {
            let line = headers
                .split("\r\n")
                .find(|l| l.starts_with(name))
                .unwrap_or_else(|| panic!("{name} in {headers}"));
            assert!(line.contains("=?utf-8?"), "encoded word in {line}");
        }

        let m = MessageParser::default().parse(&bytes).unwrap();
        let to = m.to().unwrap().first().unwrap();
        assert_eq!(to.name(), Some("Zoë Ångström"));
        assert_eq!(to.address(), Some("zoe@example.com"));
        assert_eq!(
            m.from().unwrap().first().unwrap().name(),
            Some("Łukasz at Envelope")
        );
        assert_eq!(m.subject(), Some("Completed: Umowa z Łukasz – ważne"));
        assert!(m.message_id().unwrap().ends_with("@example.com"));
        assert_eq!(m.date().unwrap().to_timestamp(), 1_800_000_000);
        assert_eq!(
            m.header_raw("X-Envelope-Id").map(str::trim),
            Some("env_123")
        );
        assert_eq!(
            m.header_raw("X-Envelope-Kind").map(str::trim),
            Some("completed")
        );
        assert_eq!(
            m.header_raw("Auto-Submitted").map(str::trim),
            Some("auto-generated")
        );
    }

    #[test]
    fn html_and_attachments_make_mixed_over_alternative() {
        let email = rich_email();
        let bytes = to_rfc5322(&email, &Mailbox::default_from(), date()).unwrap();
        let m = MessageParser::default().parse(&bytes).unwrap();

        let root = m.root_part().content_type().unwrap();
        assert_eq!((root.ctype(), root.subtype()), ("multipart", Some("mixed")));
        let raw = String::from_utf8(bytes.clone()).unwrap();
        assert!(raw.contains("Content-Type: multipart/alternative"));

        assert_eq!(m.body_text(0).unwrap().replace("\r\n", "\n"), email.text);
        assert_eq!(
            m.body_html(0).unwrap().trim_end(),
            email.html.as_deref().unwrap()
        );
        let text_ct = m.text_part(0).unwrap().content_type().unwrap();
        assert_eq!(
            text_ct
                .attribute("charset")
                .map(str::to_ascii_lowercase)
                .as_deref(),
            Some("utf-8")
        );

        assert_eq!(m.attachment_count(), 1);
        let a = m.attachment(0).unwrap();
        let ct = a.content_type().unwrap();
        assert_eq!((ct.ctype(), ct.subtype()), ("application", Some("pdf")));
        assert_eq!(a.attachment_name(), Some("Umowa Łukasz.pdf"));
        assert_eq!(a.contents(), email.attachments[0].bytes.as_slice());
    }

    #[test]
    fn shapes_by_content() {
        let plain = Email {
            html: None,
            attachments: vec![],
            ..rich_email()
        };
        let with_html = Email {
            attachments: vec![],
            ..rich_email()
        };
        let plain_with_file = Email {
            html: None,
            ..rich_email()
        };
        for (email, shape) in [
            (plain, ("text", "plain")),
            (with_html, ("multipart", "alternative")),
            (plain_with_file, ("multipart", "mixed")),
        ] {
            let bytes = to_rfc5322(&email, &Mailbox::default_from(), date()).unwrap();
            let m = MessageParser::default().parse(&bytes).unwrap();
            let ct = m.root_part().content_type().unwrap();
            assert_eq!((ct.ctype(), ct.subtype().unwrap()), shape);
            // A lone part gains the message's final CRLF; the text is otherwise intact.
            let text = m.body_text(0).unwrap().replace("\r\n", "\n");
            assert_eq!(text.trim_end(), email.text.trim_end());
        }
    }

    #[test]
    fn line_breaks_in_user_text_cannot_add_headers() {
        let email = Email {
            subject: "Hi\r\nBcc: evil@example.com".into(),
            to: Mailbox {
                name: "Eve\r\nBcc: evil@example.com".into(),
                email: "eve@example.com".into(),
            },
            ..rich_email()
        };
        let bytes = to_rfc5322(&email, &Mailbox::default_from(), date()).unwrap();
        let headers = headers_of(&bytes);
        assert!(
            !headers.split("\r\n").any(|l| l.starts_with("Bcc")),
            "{headers}"
        );
        let m = MessageParser::default().parse(&bytes).unwrap();
        assert!(m.bcc().is_none());
        assert_eq!(m.to().unwrap().iter().count(), 1);
    }

    #[test]
    fn invalid_addresses_are_errors_not_panics() {
        let email = Email {
            to: Mailbox {
                name: "X".into(),
                email: "no-at-sign".into(),
            },
            ..rich_email()
        };
        assert!(matches!(
            to_rfc5322(&email, &Mailbox::default_from(), date()),
            Err(MailError::InvalidAddress { .. })
        ));
    }
}
