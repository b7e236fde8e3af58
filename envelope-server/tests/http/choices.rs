//! Choice and number fields (extensions E6): a reportlab form's radio group and combo box, tags,
//! explicit fields, the signer's page, the signed copy read back by qpdf, pypdf and pdftotext,
//! and the refusals of bad options and values.

use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::common::signing::{form_token, html, link, post_form};
use crate::common::{TestServer, b64, envelope_body};

/// A one-page order form drawn by reportlab at test time: a radio group `Client.plan`
/// (basic/pro/enterprise), a combo box `Client.color` (r/g/b), and text tags for a select, a
/// radio group, a number and the signature.
fn order_form() -> Vec<u8> {
    const SCRIPT: &str = r#"
import io, sys
from reportlab.pdfgen import canvas
buf = io.BytesIO()
c = canvas.Canvas(buf, pagesize=(612, 792))
c.setFont("Helvetica", 11)
c.drawString(72, 740, "Order form")
c.drawString(72, 700, "Plan:")
form = c.acroForm
for i, v in enumerate(["basic", "pro", "enterprise"]):
    form.radio(name="Client.plan", value=v, selected=False, x=140 + i * 90, y=695, size=14,
               buttonStyle="circle", borderStyle="solid", forceBorder=True)
c.drawString(72, 650, "Colour:")
form.choice(name="Client.color", value="r", options=["r", "g", "b"], x=140, y=645,
            width=120, height=20, fieldFlags="combo", forceBorder=True)
c.drawString(72, 600, "Size: {{select:Client:size:Small|Medium|Large}}")
c.drawString(72, 560, "Shipping: {{radio:Client:ship:Post|Courier}}")
c.drawString(72, 520, "Quantity: {{number:Client:qty}}")
c.drawString(72, 460, "Signed: {{signature:Client}}")
c.save()
sys.stdout.buffer.write(buf.getvalue())
"#;
    let out = Command::new("python3")
        .args(["-c", SCRIPT])
        .stderr(Stdio::inherit())
        .output()
        .expect("python3 with reportlab (scripts/install-test-deps.sh installs it)");
    assert!(out.status.success(), "reportlab failed");
    out.stdout
}

/// Runs `tool args... file` on `bytes` in a temporary directory; stdout, and whether it passed.
fn tool(tool: &str, args: &[&str], bytes: &[u8]) -> (String, bool) {
    tool_then(tool, args, &[], bytes)
}

/// [`tool`] with arguments after the file too (`pdftotext file -`).
fn tool_then(tool: &str, args: &[&str], after: &[&str], bytes: &[u8]) -> (String, bool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doc.pdf");
    std::fs::write(&path, bytes).unwrap();
    let out = Command::new(tool)
        .args(args)
        .arg(&path)
        .args(after)
        .output()
        .unwrap_or_else(|e| panic!("{tool} (scripts/install-test-deps.sh installs it): {e}"));
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (text, out.status.success())
}

/// The form fields pypdf reads from `bytes`, as `{name: value}`.
fn pypdf_values(bytes: &[u8]) -> Value {
    const SCRIPT: &str = r#"
import json, sys
from pypdf import PdfReader
fields = PdfReader(sys.argv[1]).get_fields() or {}
print(json.dumps({k: str(v.get("/V")) for k, v in fields.items()}))
"#;
    let (out, ok) = tool("python3", &["-c", SCRIPT], bytes);
    assert!(ok, "pypdf: {out}");
    serde_json::from_str(out.trim()).unwrap_or_else(|_| panic!("pypdf said: {out}"))
}

async fn download(s: &TestServer, id: &str, kind: &str) -> Vec<u8> {
    let link = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}/files/{kind}"))
        .await
        .ok(200);
    let url = link["url"].as_str().unwrap();
    let r = s.client.get(url).send().await.unwrap();
    assert_eq!(r.status(), 200);
    r.bytes().await.unwrap().to_vec()
}

fn field<'a>(env: &'a Value, key: &str) -> &'a Value {
    env["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["key"] == key)
        .unwrap_or_else(|| panic!("no field {key} in {}", env["fields"]))
}

#[tokio::test]
async fn a_reportlab_form_and_tags_become_choices_that_the_signer_fills() {
    let s = TestServer::start().await;
    let pdf = order_form();
    // A template shows the fields found in the form and the tags.
    let env = s
        .post(
            &s.test_key,
            "/v1/templates",
            json!({"name": "Order", "file_base64": b64(&pdf), "file_name": "order.pdf"}),
        )
        .await
        .ok(201);

    let plan = field(&env, "plan");
    assert_eq!(plan["type"], "radio");
    assert_eq!(plan["options"], json!(["basic", "pro", "enterprise"]));
    assert_eq!(plan["role"], "Client");
    let color = field(&env, "color");
    assert_eq!(color["type"], "select");
    assert_eq!(color["options"], json!(["r", "g", "b"]));
    assert_eq!(
        field(&env, "size")["options"],
        json!(["Small", "Medium", "Large"])
    );
    assert_eq!(field(&env, "ship")["type"], "radio");
    let qty = field(&env, "qty");
    assert_eq!(qty["type"], "number");
    // Other types keep exactly their seed keys, plus `document` (extensions E5).
    assert!(qty.get("options").is_none());
    let sig = field(&env, "Client_signature").as_object().unwrap();
    let mut keys: Vec<&str> = sig.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "document",
            "filled_by",
            "height",
            "key",
            "page",
            "required",
            "role",
            "type",
            "width",
            "x",
            "y"
        ]
    );

    let created = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({
                "template": env["id"],
                "delivery": "embedded",
                "signers": crate::common::client_signer(),
            }),
        )
        .await
        .ok(201);
    let id = created["id"].as_str().unwrap().to_string();

    // The page: a fieldset of radio buttons, a select, a number input with the core's pattern.
    let path = link(&s, &id, "Client").await;
    let page = html(&s.send(s.client.get(s.url(&path))).await);
    assert!(page.contains(r#"<fieldset class="field choice""#), "{page}");
    assert!(page.contains(r#"<input type="radio" id="#));
    assert!(page.contains(r#"name="text:plan" value="enterprise""#));
    assert!(page.contains(r#"<select id="#) && page.contains(r#"<option value="g">g</option>"#));
    assert!(page.contains(&format!(
        r#"inputmode="decimal" pattern="{}""#,
        envelope_core::field::NUMBER_PATTERN
    )));
    let csrf = form_token(&page, "sign-form");
    let mut values = vec![
        ("csrf", csrf.as_str()),
        ("text:plan", "pro"),
        ("text:color", "g"),
        ("text:size", "Medium"),
        ("text:ship", "Courier"),
        ("text:qty", "12.5"),
        ("mode:Client_signature", "type"),
        ("typed:Client_signature", "Ada Lovelace"),
        ("consent", "yes"),
    ];

    // Wrong choices and numbers are refused, naming the field in the signer's words.
    for (name, bad, words) in [
        ("text:plan", "gold", "must be one of the field"),
        ("text:color", "G", "must be one of the field"),
        ("text:qty", "1e3", "expected a number"),
        ("text:qty", "12,5", "expected a number"),
    ] {
        let mut wrong = values.clone();
        wrong.iter_mut().find(|(n, _)| *n == name).unwrap().1 = bad;
        let r = post_form(&s, &path, &wrong, Some(&s.base)).await;
        let text = html(&r);
        assert_eq!(r.status, 400, "{name}={bad}: {text}");
        assert!(text.contains(words), "{name}={bad}: {text}");
    }
    let page = html(&s.send(s.client.get(s.url(&path))).await);
    let csrf = form_token(&page, "sign-form");
    values[0].1 = &csrf;
    let r = post_form(&s, &path, &values, Some(&s.base)).await;
    assert!(html(&r).contains("Everyone has signed"), "{}", html(&r));

    let signed = download(&s, &id, "signed").await;
    assert!(
        signed.starts_with(&pdf),
        "the original is the signed copy's prefix"
    );
    let (check, ok) = tool("qpdf", &["--check"], &signed);
    assert!(ok, "qpdf --check: {check}");
    let read = pypdf_values(&signed);
    assert_eq!(read["Client.plan"], "/pro", "{read}");
    assert_eq!(read["Client.color"], "g", "{read}");
    let (text, ok) = tool_then("pdftotext", &["-layout"], &["-"], &signed);
    assert!(ok);
    let text = String::from_utf8_lossy(text.as_bytes());
    for shown in ["Medium", "Courier", "12.5"] {
        assert!(text.contains(shown), "{shown} not in:\n{text}");
    }
    assert!(!text.contains("{{"), "tags are painted over:\n{text}");
}

/// An explicit field of `kind` with `options` (left out when `None`).
fn explicit(kind: &str, key: &str, role: Option<&str>, options: Option<Value>) -> Value {
    let mut f =
        json!({"type": kind, "key": key, "page": 1, "x": 72, "y": 72, "width": 150, "height": 20});
    if let Some(r) = role {
        f["role"] = json!(r);
    }
    if let Some(o) = options {
        f["options"] = o;
    }
    f
}

fn create_body(fields: Vec<Value>, data: Value) -> Value {
    let pdf = crate::common::pdf::client_contract();
    let mut body = envelope_body(&pdf, crate::common::client_signer());
    body["fields"] = json!(fields);
    body["data"] = data;
    body
}

#[tokio::test]
async fn bad_options_and_values_are_refused_naming_the_field() {
    let s = TestServer::start().await;
    let tier = || explicit("select", "tier", None, Some(json!(["gold", "silver"])));
    let amount = || explicit("number", "amount", None, None);
    let many: Vec<String> = (0..501).map(|i| format!("o{i}")).collect();
    // A radio or select field without options misses a parameter; the other cases are invalid.
    let r = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            create_body(
                vec![explicit("radio", "r", Some("Client"), None)],
                json!({}),
            ),
        )
        .await;
    assert_eq!(
        r.error(400, "parameter_missing")["param"],
        "fields.0.options"
    );
    let cases: Vec<(Vec<Value>, Value, &str)> = vec![
        (
            vec![explicit("radio", "r", Some("Client"), Some(json!([])))],
            json!({}),
            "fields.0.options",
        ),
        (
            vec![explicit("select", "r", Some("Client"), Some(json!(many)))],
            json!({}),
            "fields.0.options",
        ),
        (
            vec![explicit(
                "select",
                "r",
                Some("Client"),
                Some(json!(["a", "b", "a"])),
            )],
            json!({}),
            "fields.0.options.2",
        ),
        (
            vec![explicit(
                "radio",
                "r",
                Some("Client"),
                Some(json!(["a", "x".repeat(201)])),
            )],
            json!({}),
            "fields.0.options.1",
        ),
        (
            vec![explicit(
                "radio",
                "r",
                Some("Client"),
                Some(json!(["ok", "\u{202e}evil"])),
            )],
            json!({}),
            "fields.0.options.1",
        ),
        (
            vec![explicit("text", "t", Some("Client"), Some(json!(["a"])))],
            json!({}),
            "fields.0.options",
        ),
        (vec![tier()], json!({"tier": "bronze"}), "data.tier"),
        (
            vec![tier(), amount()],
            json!({"tier": "gold", "amount": "12 000"}),
            "data.amount",
        ),
        (
            vec![amount()],
            json!({"amount": "9".repeat(41)}),
            "data.amount",
        ),
    ];
    for (fields, data, param) in cases {
        let r = s
            .post(
                &s.test_key,
                "/v1/envelopes",
                create_body(fields, data.clone()),
            )
            .await;
        let e = r.error(400, "parameter_invalid");
        assert_eq!(e["param"], param, "{data}: {e}");
    }

    // Templates check explicit options the same way.
    let pdf = crate::common::pdf::client_contract();
    let r = s
        .post(
            &s.test_key,
            "/v1/templates",
            json!({
                "name": "T",
                "file_base64": b64(&pdf),
                "file_name": "t.pdf",
                "fields": [explicit("select", "s", Some("Client"), Some(json!(["a", 1])))],
            }),
        )
        .await;
    assert_eq!(
        r.error(400, "parameter_invalid")["param"],
        "fields.0.options.1"
    );

    // Good sender data is stamped as given; the test helper picks a signer's first option.
    let fields = vec![
        tier(),
        amount(),
        explicit(
            "radio",
            "plan",
            Some("Client"),
            Some(json!(["Monthly", "<Yearly> & \"more\""])),
        ),
    ];
    let mut body = create_body(fields, json!({"tier": "silver", "amount": "-3.50"}));
    body["fields"][0]["y"] = json!(120);
    body["fields"][1]["y"] = json!(160);
    body["delivery"] = json!("embedded");
    let env = s.post(&s.test_key, "/v1/envelopes", body).await.ok(201);
    let id = env["id"].as_str().unwrap();
    // Options are the sender's words: escaped on the page, never markup.
    let path = link(&s, id, "Client").await;
    let page = html(&s.send(s.client.get(s.url(&path))).await);
    assert!(
        page.contains(r#"value="&lt;Yearly&gt; &amp; &quot;more&quot;""#),
        "{page}"
    );
    assert!(!page.contains("<Yearly>"));
    s.post_empty(
        &s.test_key,
        &format!("/v1/test_helpers/envelopes/{id}/complete"),
    )
    .await
    .ok(200);
    let signed = download(&s, id, "signed").await;
    let (check, ok) = tool("qpdf", &["--check"], &signed);
    assert!(ok, "{check}");
    let (text, _) = tool_then("pdftotext", &[], &["-"], &signed);
    for shown in ["silver", "-3.50", "Monthly"] {
        assert!(text.contains(shown), "{shown} not in:\n{text}");
    }
}
