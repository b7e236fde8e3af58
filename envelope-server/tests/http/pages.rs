//! Pages as pictures (issue 18): `GET /sign/{token}/document/{n}/page/{p}` answers a PNG of the
//! page drawn by the server binary's own `render-page` worker, guarded like the document; a
//! picture follows the document as signers sign; and a hostile page (a decompression bomb of an
//! image, which the upload's reader never decodes) is cut off by the worker's CPU or memory
//! limit with a clear 422 while the server keeps answering.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::json;

use envelope_core::model::SignerValue;
use envelope_core::render::RenderLimits;
use envelope_core::service::{ClientInfo, SignInput};

use super::common::signing::{link, signing_envelope};
use super::common::{Options, TestServer, b64};

fn png_size(png: &[u8]) -> (u32, u32) {
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    let w = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(png[20..24].try_into().unwrap());
    (w, h)
}

#[tokio::test]
async fn a_page_is_a_png_of_its_size_and_only_existing_pages_answer() {
    let s = TestServer::start().await;
    let env = signing_envelope(&s, json!({})).await;
    let id = env["id"].as_str().unwrap();
    let path = link(&s, id, "Client").await;

    let r = s
        .send(s.client.get(s.url(&format!("{path}/document/1/page/1"))))
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type").as_deref(), Some("image/png"));
    assert_eq!(r.header("cache-control").as_deref(), Some("no-store"));
    assert!(r.header("content-security-policy").is_some());
    // Letter at 2 pixels per point.
    assert_eq!(png_size(&r.body), (1224, 1584));
    let again = s
        .send(s.client.get(s.url(&format!("{path}/document/1/page/1"))))
        .await;
    assert_eq!(again.body, r.body, "the cache answers the same picture");
    let two = s
        .send(s.client.get(s.url(&format!("{path}/document/1/page/2"))))
        .await;
    assert_eq!(two.status, 200);
    assert_ne!(two.body, r.body);

    for bad in [
        "document/1/page/3",
        "document/1/page/0",
        "document/1/page/x",
        "document/1/page/999999",
        "document/1/page/",
        "document/2/page/1",
        "document/0/page/1",
        "document/1/page/1/more",
    ] {
        let r = s.send(s.client.get(s.url(&format!("{path}/{bad}")))).await;
        assert_eq!(r.status, 404, "{bad}");
        assert_eq!(
            r.header("content-type").as_deref(),
            Some("text/html; charset=utf-8"),
            "{bad}"
        );
    }
    let unknown = s
        .send(
            s.client
                .get(s.url("/sign/Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg/document/1/page/1")),
        )
        .await;
    assert_eq!(unknown.status, 404);

    // A voided envelope's pages are gone with its document.
    s.post(
        &s.test_key,
        &format!("/v1/envelopes/{id}/void"),
        json!({"reason": "Terms changed"}),
    )
    .await
    .ok(200);
    let r = s
        .send(s.client.get(s.url(&format!("{path}/document/1/page/1"))))
        .await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn a_picture_follows_the_document_as_signers_sign() {
    let s = TestServer::start().await;
    let env = signing_envelope(&s, json!({})).await;
    let id = env["id"].as_str().unwrap();
    let client = link(&s, id, "Client").await;
    let provider = link(&s, id, "Provider").await;
    let picture = |path: String| {
        let s = &s;
        async move {
            let r = s
                .send(s.client.get(s.url(&format!("{path}/document/1/page/1"))))
                .await;
            assert_eq!(r.status, 200);
            r.body
        }
    };
    let before = picture(provider.clone()).await;
    assert_eq!(
        picture(client.clone()).await,
        before,
        "one document, one picture"
    );

    let token = client.strip_prefix("/sign/").unwrap();
    let mut values = BTreeMap::new();
    values.insert(
        "company".into(),
        SignerValue::Text("Bakery and Sons".into()),
    );
    values.insert(
        "Client_signature".into(),
        SignerValue::Typed("Ada Lovelace".into()),
    );
    values.insert("Client_initials".into(), SignerValue::Typed("AL".into()));
    let input = SignInput {
        values,
        consent: true,
        ..SignInput::default()
    };
    s.svc
        .sign(token, None, input, &ClientInfo::default())
        .await
        .unwrap();
    let after = picture(provider).await;
    assert_ne!(
        after, before,
        "the Client's values are in the Provider's picture"
    );
}

/// A one-page PDF whose page draws a 12,000 x 12,000 RGB image of zeros: 1.9 MB of Flate that
/// decodes to 432 MB. The upload's reader never decodes images, so it is accepted; drawing it
/// costs the renderer seconds of CPU and hundreds of megabytes.
fn image_bomb() -> Vec<u8> {
    let script = r#"
import sys, zlib
w = h = 12000
c = zlib.compressobj(1)
row = bytes(w * 3)
data = b"".join(c.compress(row) for _ in range(h)) + c.flush()
def stream(d, s):
    return d[:-2] + b" /Length %d >>\nstream\n" % len(s) + s + b"\nendstream"
objs = [b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>",
        stream(b"<< >>", b"q 612 0 0 792 0 0 cm /Im0 Do Q"),
        stream(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode >>" % (w, h), data)]
out = b"%PDF-1.7\n"
offs = []
for i, o in enumerate(objs):
    offs.append(len(out))
    out += b"%d 0 obj\n" % (i + 1) + o + b"\nendobj\n"
x = len(out)
out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
for o in offs:
    out += b"%010d 00000 n \n" % o
out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, x)
sys.stdout.buffer.write(out)
"#;
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .output()
        .expect("python3 writes the test's PDF");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

async fn bomb_envelope(s: &TestServer) -> String {
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({
                "name": "Bomb",
                "delivery": "embedded",
                "file_name": "bomb.pdf",
                "file_base64": b64(&image_bomb()),
                "signature_page": true,
                "signers": [{"name": "Ada", "email": "ada@example.com", "role": "Client"}],
            }),
        )
        .await
        .ok(201);
    link(s, env["id"].as_str().unwrap(), "Client").await
}

/// Asks for the bomb's picture while the API is asked for the envelope list: the picture is
/// refused with 422 (`page_not_drawable`; an HTML page, as every signing route answers), and the
/// API answered meanwhile.
async fn refused_while_the_server_answers(s: &TestServer, path: &str) {
    let picture = s.send(s.client.get(s.url(&format!("{path}/document/1/page/1"))));
    let api = async {
        // Once the worker is surely running.
        tokio::time::sleep(Duration::from_millis(300)).await;
        s.get(&s.test_key, "/v1/envelopes").await.ok(200);
    };
    let (r, ()) = tokio::join!(picture, api);
    assert_eq!(r.status, 422);
    assert_eq!(
        r.header("content-type").as_deref(),
        Some("text/html; charset=utf-8")
    );
    // The page itself still works, and links the PDF.
    let page = s.send(s.client.get(s.url(path))).await;
    assert_eq!(page.status, 200);
    assert!(String::from_utf8_lossy(&page.body).contains("/document/1\""));
}

/// Under the same limits an ordinary page is drawn: the refusal was the bomb's.
async fn an_ordinary_page_is_drawn(s: &TestServer) {
    let env = signing_envelope(s, json!({})).await;
    let path = link(s, env["id"].as_str().unwrap(), "Client").await;
    let r = s
        .send(s.client.get(s.url(&format!("{path}/document/1/page/1"))))
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(png_size(&r.body), (1224, 1584));
}

/// The bomb under `limits`: refused while the API answers, and an ordinary page still drawn.
async fn bomb_under(limits: RenderLimits) {
    let s = TestServer::start_with(Options {
        render_limits: Some(limits),
        ..Options::default()
    })
    .await;
    let path = bomb_envelope(&s).await;
    refused_while_the_server_answers(&s, &path).await;
    an_ordinary_page_is_drawn(&s).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_decompression_bomb_is_cut_off_by_the_cpu_limit() {
    bomb_under(RenderLimits {
        cpu_seconds: 2,
        timeout: Duration::from_secs(60),
        ..RenderLimits::default()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_decompression_bomb_is_cut_off_by_the_memory_limit() {
    bomb_under(RenderLimits {
        memory_bytes: 384 * 1024 * 1024,
        cpu_seconds: 120,
        timeout: Duration::from_secs(120),
        ..RenderLimits::default()
    })
    .await;
}
