//! The pages of links that cannot sign (done, not yet, declined, voided, expired, completed)
//! and of failures (unknown link and the like). They say what happened and what to do next;
//! an unknown link says nothing that would help guessing. Words come from the catalogues
//! (`envelope_core::i18n`), in the page's language.

use envelope_core::i18n::{self, Arg, Lang, Msg};
use envelope_core::model::Delivery;
use envelope_core::service::{LinkState, SigningSession};

use super::html::esc;

/// Title and body of the page for a session's state (`Ready` aside).
pub fn render(s: &SigningSession, just_now: bool, lang: Lang) -> (String, String) {
    let env = &s.envelope;
    let strong = format!("<strong>{}</strong>", esc(&env.name));
    let about = |msg| i18n::html(lang, msg, &[("document", Arg::Html(&strong))]);
    let say = |msg| i18n::html(lang, msg, &[]);
    let by_email = env.delivery == Delivery::Email;
    let pick = |email, sender| if by_email { email } else { sender };
    let (title, icon, paragraphs): (Msg, &str, Vec<String>) = match s.state {
        LinkState::Signed => (
            if just_now {
                Msg::StateThanks
            } else {
                Msg::StateSignedTitle
            },
            "done",
            vec![
                about(Msg::StateSigned),
                say(pick(Msg::StateOthersEmail, Msg::StateOthersSender)),
            ],
        ),
        LinkState::Completed => (
            if just_now {
                Msg::StateThanks
            } else {
                Msg::StateCompletedTitle
            },
            "done",
            vec![
                about(Msg::StateCompleted),
                say(pick(Msg::StateCompletedEmail, Msg::StateCompletedSender)),
            ],
        ),
        LinkState::NotYourTurn => (
            Msg::StateWaitTitle,
            "wait",
            vec![
                about(Msg::StateWait),
                say(pick(Msg::StateWaitEmail, Msg::StateWaitSender)),
            ],
        ),
        LinkState::Declined => (
            Msg::StateDeclinedTitle,
            "stop",
            vec![about(Msg::StateDeclined), say(Msg::StateDeclinedNote)],
        ),
        LinkState::Voided => {
            let mut p = vec![about(Msg::StateVoided)];
            if let Some(r) = s.void_reason.as_deref().filter(|r| !r.trim().is_empty()) {
                p.push(say(Msg::StateVoidedReason));
                p.push(format!(
                    r#"<blockquote class="reason">{}</blockquote>"#,
                    esc(r)
                ));
            }
            (Msg::StateVoidedTitle, "stop", p)
        }
        LinkState::Expired => (
            Msg::StateExpiredTitle,
            "wait",
            vec![about(Msg::StateExpired), say(Msg::StateExpiredNote)],
        ),
        LinkState::Ready => (Msg::PageSign, "done", Vec::new()),
        // Shown by the code step (`verify.rs`), never here.
        LinkState::VerificationRequired => (Msg::CodeTitleEmail, "wait", Vec::new()),
    };
    let title = i18n::text(lang, title, &[]);
    let body = notice(&title, icon, &paragraphs);
    (title, body)
}

/// A page for a failure: unknown link, a post that could not be accepted, a server error.
/// `title` and `text` are plain text (escaped here).
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
