//! Languages (extensions E4) through the real server: `locale` on signers (JSON, multipart,
//! reassign) and its errors, and the signing page in the signer's language or the browser's.

use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

use crate::common::pdf::client_contract;
use crate::common::signing::{form_token, html, link, post_form, signing_envelope};
use crate::common::{Resp, TestServer, client_signer, envelope_body};

fn signers(client_locale: Value, provider_locale: Value) -> Value {
    let mut list = json!([
        {"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"},
        {"name": "Jürgen Kunde", "email": "juergen@example.com", "role": "Provider"}
    ]);
    for (i, l) in [client_locale, provider_locale].into_iter().enumerate() {
        if !l.is_null() {
            list[i]["locale"] = l;
        }
    }
    list
}

async fn page(s: &TestServer, path: &str, accept_language: Option<&str>) -> Resp {
    let mut req = s.client.get(s.url(path));
    if let Some(a) = accept_language {
        req = req.header("accept-language", a);
    }
    s.send(req).await
}

/// The language a page says it is in: `<html lang>` and `Content-Language` agree.
fn lang(r: &Resp) -> String {
    let body = html(r);
    let tag = body
        .split("<html lang=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_string();
    assert_eq!(r.header("content-language").as_deref(), Some(tag.as_str()));
    assert_eq!(r.header("vary").as_deref(), Some("Accept-Language"));
    tag
}

#[tokio::test]
async fn locale_on_the_signer_object_and_its_errors() {
    let s = TestServer::start().await;
    // A seed request: the signer object gains `locale: null` (and `auth: null`, extensions E2;
    // `last_email`; `kind: "signer"` and `in_person: null`, extensions E13) and nothing else.
    let seed = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            envelope_body(&client_contract(), client_signer()),
        )
        .await
        .ok(201);
    let keys: Vec<&String> = seed["signers"][0].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "id",
            "role",
            "name",
            "email",
            "locale",
            "order",
            "status",
            "viewed_at",
            "signed_at",
            "declined_at",
            "decline_reason",
            "auth",
            "last_email",
            "kind",
            "in_person"
        ]
    );
    assert!(seed["signers"][0]["locale"].is_null());
    assert_eq!(seed["signers"][0]["kind"], "signer");
    assert!(seed["signers"][0]["in_person"].is_null());

    // JSON, list form: kept as given; a tag outside the supported set is accepted too.
    let env = signing_envelope(
        &s,
        json!({"signers": signers(json!("pt-BR"), json!("xx-YY"))}),
    )
    .await;
    assert_eq!(env["signers"][0]["locale"], "pt-BR");
    assert_eq!(env["signers"][1]["locale"], "xx-YY");
    let id = env["id"].as_str().unwrap();
    let got = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200);
    assert_eq!(got["signers"][0]["locale"], "pt-BR");

    // Malformed tags name the parameter.
    let mut body = envelope_body(
        &client_contract(),
        json!([
            {"name": "Ada", "email": "ada@example.com", "locale": "de_DE"}
        ]),
    );
    let r = s.post(&s.test_key, "/v1/envelopes", body.clone()).await;
    assert_eq!(
        r.error(400, "parameter_invalid")["param"],
        "signers.0.locale"
    );
    body["signers"] = json!({"Client": {"name": "Ada", "email": "ada@example.com", "locale": 42}});
    let r = s.post(&s.test_key, "/v1/envelopes", body).await;
    assert_eq!(
        r.error(400, "parameter_invalid")["param"],
        "signers.Client.locale"
    );

    // Multipart: the signers part is JSON text, checked the same way.
    let multipart = |signers: Value| {
        Form::new()
            .text("signers", signers.to_string())
            .part("file", Part::bytes(client_contract()).file_name("c.pdf"))
    };
    let send = |form: Form| {
        s.send(
            s.client
                .post(s.url("/v1/envelopes"))
                .bearer_auth(&s.test_key)
                .multipart(form),
        )
    };
    let r = send(multipart(
        json!([{"name": "Ada", "email": "ada@example.com", "locale": "pl"}]),
    ))
    .await;
    assert_eq!(r.ok(201)["signers"][0]["locale"], "pl");
    let r = send(multipart(
        json!([{"name": "Ada", "email": "ada@example.com", "locale": "p l"}]),
    ))
    .await;
    assert_eq!(
        r.error(400, "parameter_invalid")["param"],
        "signers.0.locale"
    );

    // Reassign takes the new person's locale (or none).
    let signer = env["signers"][0]["id"].as_str().unwrap();
    let path = format!("/v1/envelopes/{id}/signers/{signer}/reassign");
    let r = s
        .post(
            &s.test_key,
            &path,
            json!({"name": "Nora", "email": "nora@example.net", "locale": "??"}),
        )
        .await;
    assert_eq!(r.error(400, "parameter_invalid")["param"], "locale");
    let after = s
        .post(
            &s.test_key,
            &path,
            json!({"name": "Nora", "email": "nora@example.net", "locale": "nl-BE"}),
        )
        .await
        .ok(200);
    assert_eq!(after["signers"][0]["locale"], "nl-BE");
    let after = s
        .post(
            &s.test_key,
            &path,
            json!({"name": "Nils", "email": "nils@example.net"}),
        )
        .await
        .ok(200);
    assert!(after["signers"][0]["locale"].is_null());
}

#[tokio::test]
async fn the_page_speaks_the_signers_language_or_the_browsers() {
    let s = TestServer::start().await;
    let env = signing_envelope(&s, json!({"signers": signers(Value::Null, json!("de"))})).await;
    let id = env["id"].as_str().unwrap();
    let client = link(&s, id, "Client").await;
    let provider = link(&s, id, "Provider").await;

    // No locale: the browser's preference, English without one.
    let r = page(&s, &client, None).await;
    assert_eq!(lang(&r), "en");
    assert!(html(&r).contains("Your fields"));
    let r = page(&s, &client, Some("fr-CA,fr;q=0.9,en;q=0.5")).await;
    assert_eq!(lang(&r), "fr");
    let body = html(&r);
    assert!(
        body.contains("Vos champs") && body.contains(">Signer</button>"),
        "{body}"
    );
    assert!(body.contains("J’accepte de signer électroniquement"));
    let r = page(&s, &client, Some("xx, en;q=0.1, pt;q=0.2")).await;
    assert_eq!(lang(&r), "pt");

    // The signer's locale wins over the browser's.
    let r = page(&s, &provider, Some("fr-FR,fr;q=0.9")).await;
    assert_eq!(lang(&r), "de");
    let body = html(&r);
    for words in [
        "Ihre Felder",
        "Guten Tag Jürgen Kunde, bitte prüfen Sie das Dokument",
        ">Unterschreiben</button>",
        "Ich bin damit einverstanden, elektronisch zu unterschreiben",
        "(erforderlich)",
        r#"data-msg-signing="Wird unterschrieben…""#,
        "Unterschrift ablehnen",
        "<title>Supply agreement unterschreiben",
    ] {
        assert!(body.contains(words), "{words} missing:\n{body}");
    }

    // Refused posts answer in the page's language: consent, then a missing signature.
    let csrf = form_token(&body, "sign-form");
    let r = post_form(
        &s,
        &provider,
        &[
            ("csrf", &csrf),
            ("mode:Provider_signature", "type"),
            ("typed:Provider_signature", "Jürgen Kunde"),
        ],
        Some(&s.base),
    )
    .await;
    assert_eq!(r.status, 400);
    assert!(
        html(&r).contains(
            "Bitte bestätigen Sie „Ich bin damit einverstanden, elektronisch zu unterschreiben“"
        ),
        "{}",
        html(&r)
    );
    let r = post_form(
        &s,
        &provider,
        &[
            ("csrf", &csrf),
            ("mode:Provider_signature", "type"),
            ("consent", "yes"),
        ],
        Some(&s.base),
    )
    .await;
    assert!(
        html(&r).contains("Bitte füllen Sie „Unterschrift“ aus."),
        "{}",
        html(&r)
    );
    // Refused values: the words for what the core found wrong, with the field's label.
    let r = post_form(
        &s,
        &provider,
        &[
            ("csrf", &csrf),
            ("mode:Provider_signature", "type"),
            ("typed:Provider_signature", "\u{1F680}"),
            ("consent", "yes"),
        ],
        Some(&s.base),
    )
    .await;
    assert!(
        html(&r).contains(
            "„Unterschrift“ enthält ein Zeichen, das nicht in das Dokument übernommen werden \
             kann (U+1F680)."
        ),
        "{}",
        html(&r)
    );
    let r = post_form(
        &s,
        &provider,
        &[
            ("csrf", &csrf),
            ("mode:Provider_signature", "draw"),
            ("drawn:Provider_signature", "bm90IGEgcG5n"),
            ("consent", "yes"),
        ],
        Some(&s.base),
    )
    .await;
    assert!(
        html(&r).contains(
            "Die Zeichnung für „Unterschrift“ konnte nicht gelesen werden. Bitte löschen Sie sie \
             und zeichnen Sie erneut."
        ),
        "{}",
        html(&r)
    );
    let r = post_form(
        &s,
        &provider,
        &[
            ("csrf", &csrf),
            ("mode:Provider_signature", "type"),
            ("typed:Provider_signature", "Jürgen Kunde"),
            ("consent", "yes"),
        ],
        Some(&s.base),
    )
    .await;
    assert_eq!(lang(&r), "de");
    assert!(
        html(&r).contains("Vielen Dank für Ihre Unterschrift"),
        "{}",
        html(&r)
    );
    // The state page afterwards, too.
    let r = page(&s, &provider, None).await;
    assert!(html(&r).contains("Sie haben unterschrieben"));

    // Pages without a signer follow the browser.
    let r = page(&s, "/sign/tok_unknown", Some("pl-PL,pl;q=0.9")).await;
    assert_eq!(r.status, 404);
    assert_eq!(lang(&r), "pl");
    assert!(html(&r).contains("Ten link jest nieprawidłowy"));
    // A forged post, in the browser's language.
    let r = s
        .send(
            s.client
                .post(s.url(&client))
                .header("content-type", "application/x-www-form-urlencoded")
                .header("origin", "https://evil.example")
                .header("accept-language", "it")
                .body("consent=yes"),
        )
        .await;
    assert_eq!(r.status, 403);
    assert!(html(&r).contains("Modulo non accettato"), "{}", html(&r));
}

/// The code step of identity verification (extensions E2) speaks the signer's language too,
/// and so does the refusal of a wrong code.
#[tokio::test]
async fn the_code_step_speaks_the_signers_language() {
    let s = TestServer::start().await;
    let mut list = signers(json!("de"), Value::Null);
    list[0]["auth"] = json!({"method": "access_code", "access_code": "4711-Tor"});
    let env = signing_envelope(&s, json!({ "signers": list })).await;
    let client = link(&s, env["id"].as_str().unwrap(), "Client").await;

    let r = page(&s, &client, Some("en-US,en;q=0.9")).await;
    assert_eq!(lang(&r), "de");
    let body = html(&r);
    for words in [
        "Geben Sie Ihren Zugangscode ein",
        // The first name only (extensions E8).
        "Hallo Ada, der Absender möchte bestätigen",
        ">Zugangscode</label>",
        "Noch 5 Versuche, bevor der Link gesperrt wird.",
        ">Weiter</button>",
    ] {
        assert!(body.contains(words), "{words} missing:\n{body}");
    }
    assert!(
        !body.contains("Your fields"),
        "the form shows before the code"
    );

    let csrf = form_token(&body, "code-form");
    let r = post_form(
        &s,
        &format!("{client}/verify"),
        &[("csrf", &csrf), ("code", "0000")],
        Some(&s.base),
    )
    .await;
    assert_eq!(r.status, 400);
    let body = html(&r);
    assert!(
        body.contains("Dieser Code ist nicht richtig. Noch 4 Versuche"),
        "{body}"
    );
}
