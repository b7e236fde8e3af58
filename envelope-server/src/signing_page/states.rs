//! The pages of links that cannot sign (done, not yet, declined, voided, expired, completed)
//! and of failures (unknown link and the like). They say what happened and what to do next;
//! an unknown link says nothing that would help guessing.

use envelope_core::model::Delivery;
use envelope_core::service::{LinkState, SigningSession};

use super::html::esc;

/// Title and body of the page for a session's state (`Ready` aside).
pub fn render(s: &SigningSession, just_now: bool) -> (String, String) {
    let env = &s.envelope;
    let name = esc(&env.name);
    let by_email = env.delivery == Delivery::Email;
    let (title, icon, paragraphs): (&str, &str, Vec<String>) = match s.state {
        LinkState::Signed => (
            if just_now {
                "Thank you for signing"
            } else {
                "You have signed"
            },
            "done",
            vec![
                format!("You have signed <strong>{name}</strong>."),
                if by_email {
                    "The other signers still have to sign. When everyone has, you will get the \
                     signed document by email."
                        .into()
                } else {
                    "The other signers still have to sign. The sender will let you know when \
                     everyone has."
                        .into()
                },
            ],
        ),
        LinkState::Completed => (
            if just_now {
                "Thank you for signing"
            } else {
                "Everyone has signed"
            },
            "done",
            vec![
                format!("Everyone has signed <strong>{name}</strong>."),
                if by_email {
                    "A copy of the signed document is on its way to you by email.".into()
                } else {
                    "The sender has the signed document.".into()
                },
            ],
        ),
        LinkState::NotYourTurn => (
            "Not your turn yet",
            "wait",
            vec![
                format!("Someone else has to sign <strong>{name}</strong> before you."),
                if by_email {
                    "We will email you when it is your turn.".into()
                } else {
                    "Come back to this link when the sender tells you it is your turn.".into()
                },
            ],
        ),
        LinkState::Declined => (
            "You declined to sign",
            "stop",
            vec![
                format!("You declined to sign <strong>{name}</strong>."),
                "The sender has been told, and the envelope is cancelled for everyone.".into(),
            ],
        ),
        LinkState::Voided => {
            let mut p = vec![format!(
                "The sender cancelled <strong>{name}</strong>. There is nothing to sign."
            )];
            if let Some(r) = s.void_reason.as_deref().filter(|r| !r.trim().is_empty()) {
                p.push("Reason given:".into());
                p.push(format!(
                    r#"<blockquote class="reason">{}</blockquote>"#,
                    esc(r)
                ));
            }
            ("This envelope was cancelled", "stop", p)
        }
        LinkState::Expired => (
            "This link has expired",
            "wait",
            vec![
                format!("The time to sign <strong>{name}</strong> is over."),
                "Ask the sender for a new link if you still need to sign.".into(),
            ],
        ),
        LinkState::Ready => ("Ready to sign", "done", Vec::new()),
        // Shown by the code step (`verify.rs`), never here.
        LinkState::VerificationRequired => ("Enter your code", "wait", Vec::new()),
    };
    (title.to_string(), notice(title, icon, &paragraphs))
}

/// A page for a failure: unknown link, a post that could not be accepted, a server error.
pub fn failure(title: &str, text: &str) -> String {
    notice(title, "stop", &[esc(text)])
}

/// A centered notice: a heading and blocks of (already escaped) HTML; a block that is not an
/// element yet becomes a paragraph.
fn notice(title: &str, icon: &str, blocks: &[String]) -> String {
    let mut out = format!(
        r#"<section class="notice notice-{icon}" aria-labelledby="notice-title">
<h1 id="notice-title">{}</h1>
"#,
        esc(title)
    );
    for b in blocks {
        if b.starts_with("<blockquote") {
            out.push_str(b);
        } else {
            out.push_str("<p>");
            out.push_str(b);
            out.push_str("</p>");
        }
        out.push('\n');
    }
    out.push_str("</section>\n");
    out
}
