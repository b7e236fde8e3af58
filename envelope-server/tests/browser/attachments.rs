//! An `attachment` field on a phone-sized Chromium (extensions E14): the file input takes the
//! three types and the script shows the camera's input; a junk "PNG" comes back with the message
//! in the signer's language and the form again (`signing-attachment-phone.png`, 390 px wide,
//! shows it); a photo taken through the camera's input then signs.

use std::io::Cursor;

use serde_json::json;

use super::common::pdf::PdfBuilder;
use super::common::signing::link;
use super::common::{TestServer, b64};
use super::webdriver::Driver;
use super::{get_json, save, settle};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signer_attaches_a_photo_after_a_refused_file() {
    let driver = Driver::start().await;
    let s = TestServer::start().await;
    let pdf = PdfBuilder::new().page(&["Rental application"]).build();
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({"file_base64": b64(&pdf), "file_name": "application.pdf",
                   "delivery": "embedded", "name": "Rental application",
                   "signers": [{"name": "Ada Lovelace", "email": "ada@example.com",
                                "role": "Client", "locale": "fr"}],
                   "fields": [
                       {"type": "attachment", "role": "Client", "key": "id_doc",
                        "label": "Passeport", "page": 1, "x": 72, "y": 200, "width": 240,
                        "height": 20},
                       {"type": "signature", "role": "Client", "key": "sig",
                        "page": 1, "x": 72, "y": 400, "width": 200, "height": 40}]}),
        )
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("passeport.png");
    std::fs::write(&junk, b"this is not a picture".repeat(20)).unwrap();
    let photo = dir.path().join("passeport.jpg");
    let img = image::RgbImage::from_fn(640, 480, |x, y| {
        image::Rgb([(x / 3) as u8, (y / 2) as u8, 140])
    });
    let mut jpeg = Vec::new();
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut Cursor::new(&mut jpeg), image::ImageFormat::Jpeg)
        .unwrap();
    std::fs::write(&photo, &jpeg).unwrap();

    let profile = tempfile::tempdir().unwrap();
    let b = driver.session(profile.path()).await;
    b.set_window(390, 844).await;
    b.goto(&s.url(&link(&s, id, "Client").await)).await;
    b.wait_for_text("Passeport").await;
    let attrs = b
        .script(
            "var f = document.getElementById('f0'), c = document.getElementById('f0-camera');\
             return [f.accept, f.required, c.accept, c.getAttribute('capture'),\
                     c.parentNode.hidden, document.getElementById('sign-form').enctype];",
            vec![],
        )
        .await;
    assert_eq!(
        attrs,
        json!([
            "application/pdf,image/png,image/jpeg",
            true,
            "application/pdf,image/png,image/jpeg",
            "environment",
            false,
            "multipart/form-data"
        ]),
        "the chooser, and the camera shown by the script"
    );

    // A junk "PNG": the message in the signer's language, the form again.
    let sig = b.find(r#"input[name="typed:sig"]"#).await;
    b.type_text(&sig, "Ada Lovelace").await;
    let file = b.find("#f0").await;
    b.type_text(&file, junk.to_str().unwrap()).await;
    b.click(&b.find("#consent").await).await;
    b.click(&b.find("#sign-button").await).await;
    let text = b
        .wait_for_text("doit être un fichier PDF, PNG ou JPEG")
        .await;
    assert!(text.contains("Passeport"), "{text}");
    // The phone's view: the message, then the field with the chooser and the camera.
    let alert = b.find("#form-error").await;
    b.script_on("arguments[0].scrollIntoView({block: 'start'});", &alert)
        .await;
    settle().await;
    save("signing-attachment-phone.png", &b.viewport_png().await);
    assert_eq!(
        get_json(&s, &format!("/v1/envelopes/{id}")).await["status"],
        "sent"
    );

    // The photo, taken with the camera's input: the script hands it to the chooser, so one
    // file is posted and `required` is met.
    let camera = b.find("#f0-camera").await;
    b.type_text(&camera, photo.to_str().unwrap()).await;
    let handed = b
        .script(
            "var f = document.getElementById('f0'), c = document.getElementById('f0-camera');\
             return [f.files.length, f.files.length && f.files[0].name, c.files.length];",
            vec![],
        )
        .await;
    assert_eq!(handed, json!([1, "passeport.jpg", 0]));
    let sig = b.find(r#"input[name="typed:sig"]"#).await;
    b.script_on("arguments[0].value = '';", &sig).await;
    b.type_text(&sig, "Ada Lovelace").await;
    let consent = b.find("#consent").await;
    let ticked = b.script_on("return arguments[0].checked;", &consent).await;
    if ticked.as_bool() != Some(true) {
        b.click(&consent).await;
    }
    b.click(&b.find("#sign-button").await).await;
    for _ in 0..50 {
        let env = get_json(&s, &format!("/v1/envelopes/{id}")).await;
        if env["status"] == "completed" {
            assert_eq!(env["attachments"][0]["name"], "passeport.jpg");
            assert_eq!(env["attachments"][0]["content_type"], "image/jpeg");
            b.quit().await;
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    panic!("the envelope did not complete: {}", b.body_text().await);
}
