//! [`SmtpMailer`] against a real SMTP server on 127.0.0.1: Python's `aiosmtpd` with the handler
//! in `testkit/src/smtp_sink.py`, which stores what it receives. The received bytes are then
//! read with an independent MIME parser.
//!
//! Needs `python3` with `aiosmtpd`; `scripts/install-test-deps.sh` installs it. Without it these
//! tests fail (they never pass silently).

use std::net::{Ipv4Addr, TcpListener};
use std::sync::Arc;
use std::time::{Duration, Instant};

use envelope_core::mail::{
    Attachment, Email, EmailKind, MailError, Mailbox, Mailer, SmtpMailer, to_rfc5322,
};
use mail_parser::{MessageParser, MimeHeaders};

use envelope_testkit::smtp::Sink;

fn sender() -> Mailbox {
    Mailbox {
        name: "Acme Signing".into(),
        email: "sign@acme.example".into(),
    }
}

fn email(to: &str) -> Email {
    Email {
        kind: EmailKind::Completed,
        to: Mailbox {
            name: "Zoë Ångström".into(),
            email: to.into(),
        },
        subject: "Completed: Umowa z Łukasz".into(),
        text: "Hello Zoë,\n\nEveryone has signed \"Umowa\". Łukasz says dziękuję.\n".into(),
        html: Some("<!DOCTYPE html>\n<p>Hello Zoë, <strong>Łukasz</strong> signed.</p>\n".into()),
        attachments: vec![Attachment {
            file_name: "Umowa Łukasz.pdf".into(),
            content_type: "application/pdf".into(),
            // Binary bytes, a lone "." line and a long line: what SMTP must carry untouched.
            bytes: [
                b"%PDF-1.7\n\x00\x01\xfe\xff\n.\n".as_slice(),
                &[b'x'; 3000],
                b"\n%%EOF\n",
            ]
            .concat(),
        }],
        envelope: "env_smtp".parse().unwrap(),
        mode: envelope_core::Mode::Test,
    }
}

#[tokio::test]
async fn a_message_arrives_whole_with_its_encodings() {
    let sink = Sink::start();
    let mailer = SmtpMailer::from_url(&sink.url(), None, Some(sender())).unwrap();
    let sent = email("zoe@example.com");
    mailer.send(&sent).await.unwrap();

    let got = sink.received(1).await.remove(0);
    assert_eq!(got.mail_from, "sign@acme.example");
    assert_eq!(got.rcpt_tos, ["zoe@example.com"]);

    let m = MessageParser::default().parse(&got.eml).unwrap();
    let to = m.to().unwrap().first().unwrap();
    assert_eq!(
        (to.name(), to.address()),
        (Some("Zoë Ångström"), Some("zoe@example.com"))
    );
    let from = m.from().unwrap().first().unwrap();
    assert_eq!(from.name(), Some("Acme Signing"));
    assert_eq!(m.subject(), Some("Completed: Umowa z Łukasz"));
    let raw = String::from_utf8(got.eml.clone()).expect("7-bit on the wire");
    let subject_line = raw.lines().find(|l| l.starts_with("Subject:")).unwrap();
    assert!(subject_line.contains("=?utf-8?"), "{subject_line}");

    let root = m.root_part().content_type().unwrap();
    assert_eq!((root.ctype(), root.subtype()), ("multipart", Some("mixed")));
    assert!(raw.contains("Content-Type: multipart/alternative"));
    assert_eq!(m.body_text(0).unwrap().replace("\r\n", "\n"), sent.text);
    assert_eq!(
        m.body_html(0).unwrap().replace("\r\n", "\n").trim_end(),
        sent.html.as_deref().unwrap().trim_end()
    );
    assert_eq!(m.attachment_count(), 1);
    let a = m.attachment(0).unwrap();
    let ct = a.content_type().unwrap();
    assert_eq!((ct.ctype(), ct.subtype()), ("application", Some("pdf")));
    assert_eq!(a.attachment_name(), Some("Umowa Łukasz.pdf"));
    assert_eq!(a.contents(), sent.attachments[0].bytes.as_slice());

    // What the relay got is what FileMailer would have written (headers that carry time or
    // randomness aside).
    let local = to_rfc5322(
        &sent,
        &sender(),
        envelope_core::Timestamp::from_millis(0).unwrap(),
    )
    .unwrap();
    let local = MessageParser::default().parse(&local).unwrap();
    assert_eq!(local.subject(), m.subject());
    assert_eq!(local.attachment(0).unwrap().contents(), a.contents());
    assert_eq!(
        m.header_raw("X-Envelope-Id").map(str::trim),
        Some("env_smtp")
    );
}

#[tokio::test]
async fn concurrent_sends_share_a_bounded_pool_of_connections() {
    let sink = Sink::start();
    let mailer = Arc::new(
        SmtpMailer::builder(&sink.url())
            .unwrap()
            .from(sender())
            .max_connections(2)
            .build()
            .unwrap(),
    );
    let sends: Vec<_> = (0..6)
        .map(|i| {
            let mailer = mailer.clone();
            tokio::spawn(async move { mailer.send(&email(&format!("s{i}@example.com"))).await })
        })
        .collect();
    for s in sends {
        s.await.unwrap().unwrap();
    }
    let got = sink.received(6).await;
    let mut rcpts: Vec<String> = got.iter().flat_map(|r| r.rcpt_tos.clone()).collect();
    rcpts.sort();
    let expected: Vec<String> = (0..6).map(|i| format!("s{i}@example.com")).collect();
    assert_eq!(rcpts, expected);
    let mut peers: Vec<&(String, u16)> = got.iter().map(|r| &r.peer).collect();
    peers.sort();
    peers.dedup();
    assert!(
        peers.len() <= 2,
        "more connections than the pool allows: {peers:?}"
    );
}

#[tokio::test]
async fn sequential_sends_reuse_one_connection() {
    let sink = Sink::start();
    let mailer = SmtpMailer::from_url(&sink.url(), None, None).unwrap();
    for i in 0..3 {
        mailer
            .send(&email(&format!("s{i}@example.com")))
            .await
            .unwrap();
        // lettre hands a connection back to its pool in a spawned task after the send returns.
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let got = sink.received(3).await;
    assert!(got.iter().all(|r| r.peer == got[0].peer), "{got:?}");
    assert!(got.iter().all(|r| r.mail_from == "no-reply@localhost"));
}

#[tokio::test]
async fn a_refused_recipient_is_an_error() {
    let sink = Sink::start();
    let mailer = SmtpMailer::from_url(&sink.url(), None, None).unwrap();
    // A non-ASCII address needs SMTPUTF8, which this server (started without -u) does not offer.
    let err = mailer
        .send(&email("zoë@example.com"))
        .await
        .expect_err("the server cannot take this address");
    let err = err.downcast::<MailError>().expect("a MailError");
    assert!(matches!(*err, MailError::Smtp(_)), "{err}");
    // The mailer is still usable afterwards.
    mailer.send(&email("zoe@example.com")).await.unwrap();
    let got = sink.received(1).await;
    assert_eq!(got[0].rcpt_tos, ["zoe@example.com"]);
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    // Accepts connections and says nothing: lettre waits for a greeting that never comes.
    let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .await
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    let hold = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            open.push(stream);
        }
    });
    let mailer = SmtpMailer::builder(&format!("smtp://127.0.0.1:{port}"))
        .unwrap()
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let started = Instant::now();
    let err = mailer.send(&email("zoe@example.com")).await.unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let err = err.downcast::<MailError>().expect("a MailError");
    assert!(
        matches!(*err, MailError::Timeout { .. } | MailError::Smtp(_)),
        "{err}"
    );
    hold.abort();
}

#[tokio::test]
async fn nothing_listening_is_an_error() {
    let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mailer = SmtpMailer::from_url(&format!("smtp://127.0.0.1:{port}"), None, None).unwrap();
    assert!(mailer.send(&email("zoe@example.com")).await.is_err());
}
