//! The pages of links that cannot sign (done, not yet, declined, voided, expired, completed)
//! and of failures (unknown link and the like). They say what happened and what to do next;
//! an unknown link says nothing that would help guessing. Words come from the catalogues
//! (`envelope_core::i18n`), in the page's language.

use envelope_core::i18n::{self, Arg, Lang, Msg};
use envelope_core::model::{Delivery, SignerKind};
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
    let approver = env.signers[s.signer].kind == SignerKind::Approver;
    let (title, icon, paragraphs): (Msg, &str, Vec<String>) = match s.state {
        // An approver approved (extensions E13).
        LinkState::Signed if approver => (
            Msg::StateApprovedTitle,
            "done",
            vec![
                about(Msg::StateApproved),
                say(pick(Msg::StateOthersEmail, Msg::StateOthersSender)),
            ],
        ),
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
        // Shown by the code step (`verify.rs`) and the hand-over step ([`hand_over`]), never here.
        LinkState::VerificationRequired => (Msg::CodeTitleEmail, "wait", Vec::new()),
        LinkState::HandOver => (Msg::HandoverTitle, "wait", Vec::new()),
    };
    let title = i18n::text(lang, title, &[]);
    let body = notice(&title, icon, &paragraphs);
    (title, body)
}

/// The hand-over step of an in-person signing (extensions E13): the host, who opened the link,
/// gives the device to the signer, who goes on to the page (`{base}/in-person`). Nothing of the
/// document shows before.
pub fn hand_over(s: &SigningSession, host: &str, base: &str, lang: Lang) -> String {
    let env = &s.envelope;
    let name = &env.signers[s.signer].name;
    let strong = format!("<strong>{}</strong>", esc(&env.name));
    let title = i18n::text(lang, Msg::HandoverTitle, &[("name", Arg::Text(name))]);
    let lead = i18n::html(
        lang,
        Msg::HandoverLead,
        &[
            ("host", Arg::Text(host)),
            ("document", Arg::Html(&strong)),
            ("name", Arg::Text(name)),
        ],
    );
    format!(
        r#"<section class="notice hand-over" aria-labelledby="notice-title">
<h1 id="notice-title">{}</h1>
<p>{lead}</p>
<div class="actions"><a class="button primary" id="hand-over" href="{base}/in-person">{}</a></div>
</section>
"#,
        esc(&title),
        i18n::html(lang, Msg::HandoverContinue, &[("name", Arg::Text(name))]),
    )
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
