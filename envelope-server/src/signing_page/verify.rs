//! The code step (extensions E2): what a signer with `auth` sees before anything else, and the
//! cookie that carries the core's grant once the code was right.
//!
//! Presentation only: whether a code is needed, right, expired or locked, and when a new one
//! may be emailed, is the core's (`SigningService::open_signing_link`, `verify_signer`,
//! `send_signer_code`). The page says nothing about the document (not even its name) and
//! nothing of the signer but their first name (`rules::identity::first_name`: no last name, no
//! email address) until the code is right. An emailed code goes out only when the signer
//! presses "Send me a code" (a POST): opening the page sends nothing. The grant cookie is
//! `HttpOnly`, scoped to the link's path, and `Secure` on an `https://` signing host; this
//! module must never log it.

use std::fmt::Write as _;

use envelope_core::Timestamp;
use envelope_core::i18n::{self, Arg, Lang, Msg};
use envelope_core::model::AuthMethod;
use envelope_core::service::SigningSession;
use envelope_core::service::first_name;
use hyper::HeaderMap;
use hyper::header::{self, HeaderValue};

use super::html::esc;

/// The name of the grant cookie.
pub const COOKIE: &str = "envelope_grant";

/// What the code page shows.
pub struct CodePage<'a> {
    /// The page's language.
    pub lang: Lang,
    pub session: &'a SigningSession,
    pub token: &'a str,
    pub root: &'a str,
    pub verify_csrf: String,
    pub send_csrf: String,
    /// A problem with the last post (wrong code, locked, too soon), in the signer's words.
    pub error: Option<String>,
    /// Good news of the last post ("A new code is on its way").
    pub notice: Option<String>,
}

fn time(t: Timestamp) -> String {
    t.datetime().format("%H:%M UTC").to_string()
}

/// Title and body of the code page, in the page's language.
pub fn render(p: &CodePage<'_>) -> (String, String) {
    let lang = p.lang;
    let say = |msg| i18n::text(lang, msg, &[]);
    let s = p.session;
    let signer = &s.envelope.signers[s.signer];
    let base = format!("{}sign/{}", p.root, esc(p.token));
    let v = s.verification.as_ref();
    let method = v.map_or(AuthMethod::AccessCode, |v| v.method);
    let email = method == AuthMethod::EmailCode;
    let title = say(if email {
        Msg::CodeTitleEmail
    } else {
        Msg::CodeTitleAccess
    });
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<section class="verify" aria-labelledby="verify-title">
<h1 id="verify-title">{title}</h1>
<p class="lead">{lead}</p>
"#,
        title = esc(&title),
        lead = i18n::html(
            lang,
            Msg::CodeLead,
            &[("name", Arg::Text(first_name(&signer.name)))]
        ),
    );
    // Whether a code asked for is on its way: then the page says where it went (in words that
    // name no address) and offers a new one; else it offers to send the first.
    let outstanding = v.is_some_and(|v| v.code_outstanding);
    let intro = if email && outstanding {
        let address = esc(&say(Msg::CodeYourEmail));
        i18n::html(lang, Msg::CodeIntroEmail, &[("email", Arg::Html(&address))])
    } else if email {
        i18n::html(lang, Msg::CodeIntroEmailAsk, &[])
    } else {
        i18n::html(lang, Msg::CodeIntroAccess, &[])
    };
    let _ = writeln!(out, "<p>{intro}</p>");
    if let Some(n) = &p.notice {
        let _ = writeln!(
            out,
            r#"<div class="info" role="status"><p>{}</p></div>"#,
            esc(n)
        );
    }
    let locked = v.and_then(|v| v.locked_until);
    let held = v.is_some_and(|v| v.held);
    let error = match (&p.error, locked) {
        (Some(e), _) => Some(e.clone()),
        (None, _) if held => Some(say(Msg::CodeLockedHeld)),
        (None, Some(until)) => Some(i18n::text(
            lang,
            Msg::CodeLocked,
            &[("until", Arg::Text(&time(until)))],
        )),
        _ => None,
    };
    if let Some(e) = &error {
        let _ = writeln!(
            out,
            r#"<div class="alert" role="alert" id="code-error"><p>{}</p></div>"#,
            esc(e)
        );
    }
    let label = say(if email {
        Msg::CodeLabelEmail
    } else {
        Msg::CodeLabelAccess
    });
    let input_extra = if email {
        r#" inputmode="numeric" pattern="[0-9 \-]*" maxlength="12""#
    } else {
        r#" maxlength="64""#
    };
    let attempts = v.map_or(5, |v| v.attempts_left);
    let help = i18n::text(
        lang,
        Msg::CodeAttemptsLeft,
        &[("count", Arg::Number(i64::from(attempts)))],
    );
    // With a problem shown, the alert says it all (attempts included): no second line.
    let (described, help) = if error.is_some() {
        ("code-error", String::new())
    } else {
        (
            "code-help",
            format!(r#"<p class="hint" id="code-help">{}</p>"#, esc(&help)),
        )
    };
    let _ = write!(
        out,
        r#"<form method="post" action="{base}/verify" id="code-form" class="code-form" accept-charset="utf-8">
<input type="hidden" name="csrf" value="{csrf}">
<div class="field">
<label for="code">{label}</label>
<input type="text" id="code" name="code" class="code" autocomplete="one-time-code" autocapitalize="off" spellcheck="false" required{input_extra} aria-describedby="{described}">
{help}
</div>
<div class="actions"><button type="submit" class="primary">{continue_}</button></div>
</form>
"#,
        csrf = esc(&p.verify_csrf),
        label = esc(&label),
        continue_ = esc(&say(Msg::CodeContinue)),
    );
    if email && outstanding {
        let _ = write!(
            out,
            r#"<form method="post" action="{base}/send-code" id="send-code-form" class="resend">
<input type="hidden" name="csrf" value="{csrf}">
<p class="hint">{no_email}</p>
<div class="actions"><button type="submit" class="secondary">{send}</button></div>
</form>
"#,
            csrf = esc(&p.send_csrf),
            no_email = esc(&say(Msg::CodeNoEmail)),
            send = esc(&say(Msg::CodeSendNew)),
        );
    } else if email {
        // Nothing is emailed until the signer asks: link scanners only ever GET.
        let _ = write!(
            out,
            r#"<form method="post" action="{base}/send-code" id="send-code-form" class="resend">
<input type="hidden" name="csrf" value="{csrf}">
<div class="actions"><button type="submit" class="primary">{send}</button></div>
</form>
"#,
            csrf = esc(&p.send_csrf),
            send = esc(&say(Msg::CodeSendFirst)),
        );
    }
    out.push_str("</section>\n");
    (title, out)
}

/// The grants a browser sent for this link (`Cookie: envelope_grant=...`); several when cookies
/// of one name from different paths meet.
pub fn grants(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .filter(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.trim().to_string())
        .filter(|v| !v.is_empty() && v.len() <= 128 && v.bytes().all(|b| b.is_ascii_alphanumeric()))
        .collect()
}

/// How the grant cookie is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CookieMode {
    /// Whether the cookie is `Secure`: by the signing host's scheme ([`secure_cookies`]).
    pub secure: bool,
    /// The page runs in a cross-site frame (embedded signing): `SameSite=None; Partitioned`
    /// (a cookie for this frame under this top-level site only), since a `Strict` cookie is
    /// never sent there.
    pub framed: bool,
}

/// `Set-Cookie` for a grant: `HttpOnly`, scoped to `path` (the link's `/sign/{token}`), for as
/// long as the grant lives.
pub fn set_cookie(grant: &str, path: &str, max_age_secs: i64, mode: CookieMode) -> HeaderValue {
    let mut c = format!(
        "{COOKIE}={grant}; Path={path}; Max-Age={}; HttpOnly",
        max_age_secs.max(0)
    );
    if mode.secure || mode.framed {
        c.push_str("; Secure");
    }
    if mode.framed {
        c.push_str("; SameSite=None; Partitioned");
    } else {
        c.push_str("; SameSite=Strict");
    }
    HeaderValue::from_str(&c)
        .unwrap_or_else(|_| HeaderValue::from_static("envelope_grant=; Max-Age=0"))
}

/// Whether the grant cookie is `Secure`: on an `https://` signing host, never on a plain
/// `http://` one, where a browser would refuse to store it (on any host but localhost) and the
/// signer could never pass the code step.
pub fn secure_cookies(signing_base: &str) -> bool {
    !signing_base
        .get(..7)
        .is_some_and(|s| s.eq_ignore_ascii_case("http://"))
}

/// Whether a plain `http://` signing host is one a browser holds secure anyway (localhost,
/// loopback addresses). Any other plain-http host sends codes and grants over the network in
/// the clear: `serve` warns about it at start.
pub fn loopback_http(signing_base: &str) -> bool {
    let Some(rest) = signing_base.strip_prefix("http://") else {
        return false;
    };
    let host = rest.split(['/', '?']).next().unwrap_or_default();
    let host = match host.rsplit_once(':') {
        Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => host,
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost"
        || host.ends_with(".localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The path the cookie is scoped to: the signing host's own path prefix (behind a proxy) and
/// `/sign/{token}`.
pub fn cookie_path(signing_base: &str, token: &str) -> String {
    let after_scheme = signing_base
        .split_once("://")
        .map_or(signing_base, |(_, r)| r);
    let prefix = after_scheme
        .find('/')
        .map_or("", |i| &after_scheme[i..])
        .trim_end_matches('/');
    format!("{prefix}/sign/{token}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_are_read_and_written_strictly() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static(
                "a=1; envelope_grant=abcDEF123; envelope_grant=bad%21; envelope_grant=",
            ),
        );
        assert_eq!(grants(&h), ["abcDEF123"]);
        let strict = CookieMode {
            secure: true,
            framed: false,
        };
        let c = set_cookie("g1", "/sign/tok", 43200, strict);
        assert_eq!(
            c.to_str().unwrap(),
            "envelope_grant=g1; Path=/sign/tok; Max-Age=43200; HttpOnly; Secure; SameSite=Strict"
        );
        let framed = CookieMode {
            secure: false,
            framed: true,
        };
        let c = set_cookie("g1", "/sign/tok", 10, framed);
        assert!(
            c.to_str()
                .unwrap()
                .ends_with("HttpOnly; Secure; SameSite=None; Partitioned")
        );
    }

    #[test]
    fn secure_by_the_scheme_and_a_warning_for_plain_http_off_loopback() {
        // (signing host, Secure cookie, loopback http)
        for (base, secure, loopback) in [
            ("https://sign.example.com", true, false),
            ("HTTPS://sign.example.com", true, false),
            ("http://127.0.0.1:8080", false, true),
            ("http://localhost:3000/x", false, true),
            ("http://[::1]:8080", false, true),
            ("http://sign.internal:8080", false, false),
            ("http://192.168.1.10", false, false),
        ] {
            assert_eq!(secure_cookies(base), secure, "{base}");
            assert_eq!(loopback_http(base), loopback, "{base}");
        }
        assert_eq!(cookie_path("https://h.example/app/", "T"), "/app/sign/T");
        assert_eq!(cookie_path("http://127.0.0.1:9", "T"), "/sign/T");
    }
}
