//! Signer input is checked when it arrives, so that nothing a signer sends can jam an envelope:
//! once `sign` accepts a submission, the rest of the envelope still completes (preview for the
//! next signer, stamping, audit trail, seal). Property tests generate hostile submissions; a few
//! fixed cases pin what is refused and what is stored.

use envelope_testkit::pdf as support;

use std::sync::{Arc, OnceLock};

use base64::Engine;
use envelope_core::model::{EnvelopeStatus, SignerValue};
use envelope_core::seal::{DevelopmentIdentity, LocalSealer, SigningIdentity};
use envelope_core::service::{
    AttachmentUpload, AuthContext, ClientInfo, CreateEnvelopeParams, FileKind, Params, SignInput,
    Upload,
};
use envelope_core::{ManualClock, MemoryMailer, SigningService, Timestamp};
use proptest::prelude::*;
use serde_json::json;
use support::{png_chunk, simple_pdf};

// ---------------------------------------------------------------------------------------------
// The world: one service with a sealer, an envelope per case.

struct World {
    svc: SigningService,
    test: AuthContext,
}

fn dev() -> &'static DevelopmentIdentity {
    static DEV: OnceLock<DevelopmentIdentity> = OnceLock::new();
    DEV.get_or_init(|| SigningIdentity::generate_development("Signer input test seal").unwrap())
}

async fn world() -> World {
    let d = dev();
    let sealer =
        LocalSealer::new(SigningIdentity::from_pem(&d.key_pem, &d.cert_pem, None).unwrap());
    let svc = SigningService::builder()
        .mailer(Arc::new(MemoryMailer::new()))
        .clock(Arc::new(ManualClock::new(
            Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap(),
        )))
        .sealer(Arc::new(sealer))
        .build();
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let test = svc.authenticate(&acct.test_key.secret).await.unwrap();
    World { svc, test }
}

/// The hostile signer's fields: every type, as tags.
const FIELDS: &[&str] = &[
    "Name: {{text:Hostile:note}}",
    "Agree: {{checkbox:Hostile:agree}}",
    "Signature: {{signature:Hostile}}",
    "Initials: {{initials:Hostile}}",
    "Date: {{date:Hostile}}",
    "Countersigned: {{signature:Other}}",
    "Plan: {{radio:Hostile:plan:Basic|Pro}}",
    "Colour: {{select:Hostile:colour:Red|Green|Blue}}",
    "Quantity: {{number:Hostile:qty}}",
    "ID: {{attachment:Hostile:id_doc}}",
];

struct Case {
    id: envelope_core::ids::EnvelopeId,
    hostile: String,
    other: String,
}

impl World {
    /// A sent envelope with the hostile signer first. With `signature_page`, the hostile signer
    /// only has a text field and signs on the appended page.
    async fn envelope(&self, signature_page: bool) -> Case {
        let lines: Vec<&str> = if signature_page {
            vec!["Name: {{text:Hostile:note}}", "Terms apply."]
        } else {
            FIELDS.to_vec()
        };
        let body = json!({
            "delivery": "embedded",
            "signing_order": true,
            "signature_page": signature_page,
            "signers": [
                {"name": "Hostile Signer", "email": "h@example.com", "role": "Hostile"},
                {"name": "Olga Other", "email": "o@example.com", "role": "Other"}
            ]
        });
        let up = Upload {
            file_name: "hostile.pdf".into(),
            bytes: simple_pdf(&lines).into(),
        };
        let limits = self.svc.settings().limits.clone();
        let p =
            CreateEnvelopeParams::parse(Params::json(body).unwrap(), Some(up), &limits).unwrap();
        let env = self.svc.create_envelope(&self.test, p).await.unwrap();
        let token = |url: String| url.rsplit('/').next().unwrap().to_string();
        let hostile = self
            .svc
            .signing_url(&self.test, &env.id, Some("Hostile"))
            .await
            .unwrap()
            .url;
        Case {
            id: env.id,
            hostile: token(hostile),
            other: String::new(),
        }
    }

    /// After the hostile signer's turn: the next signer's preview renders, and the envelope
    /// completes with a signed copy and an audit trail.
    async fn completes(&self, case: &mut Case) -> Result<(), TestCaseError> {
        let url = self
            .svc
            .signing_url(&self.test, &case.id, Some("Other"))
            .await;
        if let Ok(u) = url {
            case.other = u.url.rsplit('/').next().unwrap().to_string();
            let preview = self.svc.signing_document(&case.other, None).await;
            prop_assert!(preview.is_ok(), "preview failed: {:?}", preview.err());
        }
        let done = self.svc.test_complete(&self.test, &case.id).await;
        let done = match done {
            Ok(d) => d,
            Err(e) => return Err(TestCaseError::fail(format!("completion failed: {e}"))),
        };
        prop_assert_eq!(done.status, EnvelopeStatus::Completed);
        prop_assert!(done.files.signed && done.files.audit_trail);
        for kind in [FileKind::Signed, FileKind::AuditTrail] {
            let link = self
                .svc
                .envelope_file_link(&self.test, &case.id, kind)
                .await
                .unwrap();
            let token = link.url.rsplit('/').next().unwrap().to_string();
            let (_, bytes) = self.svc.open_file_link(&token).await.unwrap();
            prop_assert!(bytes.starts_with(b"%PDF-"));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Hostile PNGs.

const MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

/// A valid header claiming `w`x`h` pixels of `color` at `depth`, then a little pixel data.
fn claimed(w: u32, h: u32, color: u8, depth: u8, idat: &[u8]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[depth, color, 0, 0, 0]);
    png_chunk(&mut out, b"IHDR", &ihdr);
    png_chunk(&mut out, b"IDAT", idat);
    png_chunk(&mut out, b"IEND", &[]);
    out
}

/// A real PNG of random pixels, in one of the PNG colour types and depths.
fn encoded(w: u32, h: u32, kind: u8, seed: &[u8]) -> Vec<u8> {
    let (color, depth) = match kind % 6 {
        0 => (png::ColorType::Rgba, png::BitDepth::Eight),
        1 => (png::ColorType::Rgb, png::BitDepth::Eight),
        2 => (png::ColorType::GrayscaleAlpha, png::BitDepth::Eight),
        3 => (png::ColorType::Grayscale, png::BitDepth::Sixteen),
        4 => (png::ColorType::Indexed, png::BitDepth::Eight),
        _ => (png::ColorType::Grayscale, png::BitDepth::One),
    };
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, w, h);
    enc.set_color(color);
    enc.set_depth(depth);
    if color == png::ColorType::Indexed {
        enc.set_palette(vec![255, 255, 255, 10, 20, 120]);
        enc.set_trns(vec![0, 255]);
    }
    let bits = color.samples() * depth as usize;
    let row = (w as usize * bits).div_ceil(8);
    let mut data: Vec<u8> = (0..row * h as usize)
        .map(|i| seed.get(i % seed.len().max(1)).copied().unwrap_or(0))
        .collect();
    if color == png::ColorType::Indexed {
        data.iter_mut().for_each(|b| *b &= 1);
    }
    let mut writer = enc.write_header().unwrap();
    writer.write_image_data(&data).unwrap();
    writer.finish().unwrap();
    out
}

fn real_png() -> impl Strategy<Value = Vec<u8>> + Clone {
    (
        1u32..48,
        1u32..24,
        any::<u8>(),
        prop::collection::vec(any::<u8>(), 1..64),
    )
        .prop_map(|(w, h, k, seed)| encoded(w, h, k, &seed))
}

fn hostile_png() -> impl Strategy<Value = Vec<u8>> {
    let real = real_png();
    prop_oneof![
        // The reported case: the magic, then junk.
        2 => prop::collection::vec(any::<u8>(), 0..200).prop_map(|junk| [MAGIC, &junk].concat()),
        // Truncated anywhere.
        2 => (real.clone(), any::<prop::sample::Index>())
            .prop_map(|(p, at)| p[..at.index(p.len())].to_vec()),
        // Bytes flipped.
        2 => (real, prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4))
            .prop_map(|(mut p, flips)| {
                for (at, b) in flips {
                    let i = at.index(p.len());
                    p[i] ^= b | 1;
                }
                p
            }),
        // Huge or odd claimed dimensions, bit depths and colour types.
        2 => (
            prop_oneof![Just(0u32), 1u32..5000, Just(4096), Just(65_535), Just(u32::MAX >> 1)],
            prop_oneof![Just(0u32), 1u32..5000, Just(4097), Just(1 << 20)],
            prop::sample::select(vec![0u8, 2, 3, 4, 6, 7]),
            prop::sample::select(vec![1u8, 2, 4, 8, 16, 3]),
            prop::collection::vec(any::<u8>(), 0..64),
        )
            .prop_map(|(w, h, c, d, idat)| claimed(w, h, c, d, &idat)),
    ]
}

/// A file for the attachment field (extensions E14): pictures real and hostile, a JPEG, a PDF,
/// a broken PDF, junk; under a hostile name.
fn attachment() -> impl Strategy<Value = (String, Vec<u8>)> {
    let jpeg = (1u32..40, 1u32..30).prop_map(|(w, h)| {
        let img = image::RgbImage::from_fn(w, h, |x, y| image::Rgb([x as u8, y as u8, 9]));
        let mut out = Vec::new();
        image::DynamicImage::ImageRgb8(img)
            .write_to(
                &mut std::io::Cursor::new(&mut out),
                image::ImageFormat::Jpeg,
            )
            .unwrap();
        out
    });
    let bytes = prop_oneof![
        3 => real_png(),
        2 => hostile_png(),
        2 => jpeg.clone(),
        1 => (jpeg, any::<prop::sample::Index>()).prop_map(|(j, at)| j[..at.index(j.len())].to_vec()),
        2 => Just(simple_pdf(&["A scan"])),
        1 => any::<prop::sample::Index>().prop_map(|at| {
            let p = simple_pdf(&["A scan"]);
            p[..at.index(p.len())].to_vec()
        }),
        1 => prop::collection::vec(any::<u8>(), 0..300),
    ];
    (
        prop_oneof![hostile_text(), Just("scan.png".to_string())],
        bytes,
    )
}

fn drawn() -> impl Strategy<Value = SignerValue> {
    let b64 = |p: Vec<u8>| SignerValue::Drawn(base64::engine::general_purpose::STANDARD.encode(p));
    prop_oneof![
        4 => real_png().prop_map(b64),
        3 => hostile_png().prop_map(b64),
        1 => "[A-Za-z0-9+/=%\\- ]{0,80}".prop_map(SignerValue::Drawn),
        1 => (0usize..3).prop_map(|k| SignerValue::Drawn("A".repeat([0, 699_052, 900_000][k]))),
    ]
}

// ---------------------------------------------------------------------------------------------
// Hostile text.

fn hostile_text() -> impl Strategy<Value = String> {
    let samples = vec![
        String::new(),
        "   ".into(),
        "Ada Lovelace".into(),
        "Zoë Ångström – €5".into(),
        "Łukasz Żółć".into(),
        "שלום עליכם".into(),
        "مرحبا".into(),
        "abc\u{202E}fed".into(),
        "a\u{200B}b\u{200D}c".into(),
        "👩\u{200D}💻".into(),
        "😀".into(),
        "🚀".into(),
        "李雷".into(),
        "e\u{301}\u{301}\u{301}".into(),
        "line\nbreak".into(),
        "tab\there".into(),
        "nul\u{0}".into(),
        "\u{FEFF}bom".into(),
        "\u{E000}private".into(),
        "x".repeat(200),
        "x".repeat(201),
        "é".repeat(1000),
        "y".repeat(1001),
        "z ".repeat(5000),
        "{{signature:Other}}".into(),
        "(unbalanced \\ ) paren".into(),
    ];
    prop_oneof![
        3 => prop::sample::select(samples),
        2 => "[A-Za-z .'-]{1,40}",
        2 => any::<String>(),
        1 => prop::collection::vec(any::<char>(), 0..300).prop_map(|c| c.into_iter().collect()),
    ]
}

/// Text a signer may well send: any characters the fonts draw, edge cases included.
fn fair_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[A-Za-z .'-]{1,40}",
        prop::sample::select(vec![
            "Zoë Ångström – €5".to_string(),
            "Łukasz Żółć".into(),
            "Пётр Ильич".into(),
            "😀".into(),
            "e\u{301}".into(),
            "x".repeat(200),
            "é".repeat(1000),
        ]),
        any::<String>().prop_map(|s| envelope_core::pdf::keep_drawable(&s, 150)),
    ]
}

/// Mostly fair text, sometimes hostile: enough submissions are accepted for the property to
/// say something about completion.
fn some_text() -> impl Strategy<Value = String> {
    prop_oneof![3 => fair_text(), 1 => hostile_text()]
}

fn value_for(kind: &'static str) -> impl Strategy<Value = Option<SignerValue>> {
    let right = match kind {
        "text" => some_text().prop_map(SignerValue::Text).boxed(),
        "checkbox" => any::<bool>().prop_map(SignerValue::Checkbox).boxed(),
        "date" => prop_oneof![
            Just(SignerValue::Text("2027-03-10".into())),
            hostile_text().prop_map(SignerValue::Text),
        ]
        .boxed(),
        // Mostly an option, sometimes a near miss or hostile text.
        "radio" => prop_oneof![
            3 => prop::sample::select(vec!["Basic", "Pro"]).prop_map(|o| SignerValue::Text(o.into())),
            1 => prop::sample::select(vec!["basic", "Pro ", "Red", ""]).prop_map(|o| SignerValue::Text(o.into())),
            1 => hostile_text().prop_map(SignerValue::Text),
        ]
        .boxed(),
        "select" => prop_oneof![
            3 => prop::sample::select(vec!["Red", "Green", "Blue"]).prop_map(|o| SignerValue::Text(o.into())),
            1 => hostile_text().prop_map(SignerValue::Text),
        ]
        .boxed(),
        "number" => prop_oneof![
            3 => "-?[0-9]{1,20}(\\.[0-9]{1,19})?".prop_map(SignerValue::Text),
            1 => "[-+.,e0-9 ]{0,45}".prop_map(SignerValue::Text),
            1 => hostile_text().prop_map(SignerValue::Text),
        ]
        .boxed(),
        _ => prop_oneof![some_text().prop_map(SignerValue::Typed), drawn()].boxed(),
    };
    let wrong = prop_oneof![
        hostile_text().prop_map(SignerValue::Text),
        hostile_text().prop_map(SignerValue::Typed),
        any::<bool>().prop_map(SignerValue::Checkbox),
        drawn(),
    ];
    prop_oneof![12 => right.prop_map(Some), 1 => wrong.prop_map(Some), 1 => Just(None)]
}

#[derive(Debug, Clone)]
struct Submission {
    values: Vec<(&'static str, Option<SignerValue>)>,
    signature: Option<SignerValue>,
    extra_key: Option<String>,
    consent: bool,
    user_agent: Option<String>,
    ip: Option<String>,
    attachment: Option<(String, Vec<u8>)>,
}

impl Submission {
    fn input(&self) -> SignInput {
        let mut input = SignInput {
            consent: self.consent,
            signature: self.signature.clone(),
            ..SignInput::default()
        };
        for (k, v) in &self.values {
            if let Some(v) = v {
                input.values.insert((*k).to_string(), v.clone());
            }
        }
        if let Some(k) = &self.extra_key {
            input.values.insert(k.clone(), SignerValue::Checkbox(true));
        }
        if let Some((name, bytes)) = &self.attachment {
            let upload = AttachmentUpload::new(name.clone(), bytes.clone());
            input.attachments.insert("id_doc".into(), upload);
        }
        input
    }

    fn client(&self) -> ClientInfo {
        ClientInfo {
            ip_address: self.ip.clone(),
            user_agent: self.user_agent.clone(),
        }
    }
}

fn submission() -> impl Strategy<Value = Submission> {
    // Boxed in two parts: one tuple of thirteen strategies overflows a test thread's stack.
    let seed = (
        value_for("text"),
        value_for("checkbox"),
        value_for("signature"),
        value_for("initials"),
        value_for("date"),
        value_for("signature"),
        prop::option::weighted(0.05, hostile_text()),
        prop::bool::weighted(0.97),
        prop::option::of(prop_oneof![
            hostile_text(),
            prop::collection::vec(any::<char>(), 0..2000).prop_map(|c| c.into_iter().collect()),
        ]),
        prop::option::of(hostile_text()),
    )
        .boxed();
    let choices = (
        value_for("radio"),
        value_for("select"),
        value_for("number"),
        prop::option::weighted(0.9, attachment()),
    )
        .boxed();
    (seed, choices).prop_map(
        |(
            (note, agree, sig, ini, date, page, extra, consent, ua, ip),
            (plan, colour, qty, file),
        )| {
            Submission {
                values: vec![
                    ("note", note),
                    ("agree", agree),
                    ("Hostile_signature", sig),
                    ("Hostile_initials", ini),
                    ("Hostile_date", date),
                    ("plan", plan),
                    ("colour", colour),
                    ("qty", qty),
                ],
                signature: page,
                extra_key: extra,
                consent,
                user_agent: ua,
                ip,
                attachment: file,
            }
        },
    )
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    })
}

fn shared_world() -> &'static World {
    static W: OnceLock<World> = OnceLock::new();
    W.get_or_init(|| runtime().block_on(world()))
}

/// Every case builds, signs and completes (with seal and audit trail) one envelope, so the
/// default count is modest; `PROPTEST_CASES` raises it for a longer run.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// What a refusal may look like: a parameter error in plain words.
fn plain_refusal(e: &envelope_core::Error) -> Result<(), TestCaseError> {
    let msg = e.to_string();
    prop_assert!(
        matches!(
            e.code(),
            "parameter_invalid" | "parameter_missing" | "parameter_unknown"
        ),
        "unexpected refusal {}: {msg}",
        e.code()
    );
    // An unknown key is named as sent (cut short); every other message is the service's own.
    if e.code() != "parameter_unknown" {
        for debug in ["ChunkType", "Some(", " { ", "Error {", "\\u{"] {
            prop_assert!(!msg.contains(debug), "Debug output in {msg}");
        }
    }
    Ok(())
}

async fn run(w: &World, sub: Submission, signature_page: bool) -> Result<(), TestCaseError> {
    let mut case = w.envelope(signature_page).await;
    let mut input = sub.input();
    if signature_page {
        input
            .values
            .retain(|k, _| k == "note" || Some(k) == sub.extra_key.as_ref());
        input.attachments.clear();
    }
    match w.svc.sign(&case.hostile, None, input, &sub.client()).await {
        Ok(env) => prop_assert_eq!(env.status, EnvelopeStatus::Sent),
        Err(e) => plain_refusal(&e)?,
    }
    // Accepted or refused, nothing the hostile signer sent may stop the envelope completing.
    w.completes(&mut case).await
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn an_accepted_submission_never_stops_completion(sub in submission()) {
        let w = shared_world();
        runtime().block_on(run(w, sub, false))?;
    }

    #[test]
    fn an_accepted_signature_page_signature_never_stops_completion(sub in submission()) {
        let w = shared_world();
        runtime().block_on(run(w, sub, true))?;
    }
}

// ---------------------------------------------------------------------------------------------
// Fixed cases.

fn good_input(signature: SignerValue) -> SignInput {
    let mut input = SignInput {
        consent: true,
        ..SignInput::default()
    };
    input
        .values
        .insert("note".into(), SignerValue::Text("Hostile Ltd".into()));
    input.values.insert("Hostile_signature".into(), signature);
    input
        .values
        .insert("Hostile_initials".into(), SignerValue::Typed("HS".into()));
    input
        .values
        .insert("plan".into(), SignerValue::Text("Pro".into()));
    input
        .values
        .insert("colour".into(), SignerValue::Text("Blue".into()));
    input
        .values
        .insert("qty".into(), SignerValue::Text("-3.50".into()));
    input.attachments.insert(
        "id_doc".into(),
        AttachmentUpload::new("scan.pdf", simple_pdf(&["A scan"])),
    );
    input
}

#[tokio::test]
async fn the_reported_junk_png_is_refused_in_plain_words_and_the_envelope_completes() {
    let w = world().await;
    let mut case = w.envelope(false).await;
    let mut junk = MAGIC.to_vec();
    junk.extend_from_slice(b"\0\0\0\rIHDRjunkjunkjunkjunkjunk");
    let b64 = base64::engine::general_purpose::STANDARD.encode(&junk);
    let e = w
        .svc
        .sign(
            &case.hostile,
            None,
            good_input(SignerValue::Drawn(b64)),
            &ClientInfo::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        (e.code(), e.param().as_deref(), e.to_string().as_str()),
        (
            "parameter_invalid",
            Some("values.Hostile_signature"),
            "Invalid values.Hostile_signature: the drawing is not a readable PNG image"
        )
    );
    w.completes(&mut case).await.unwrap();
}

#[tokio::test]
async fn a_drawing_is_stored_reencoded_and_stamped() {
    let w = world().await;
    let mut case = w.envelope(false).await;
    // Ink with a text chunk a signer might use to smuggle data into the signed copy.
    let mut sent = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut sent, 40, 10);
        enc.set_color(png::ColorType::GrayscaleAlpha);
        enc.set_depth(png::BitDepth::Eight);
        enc.add_text_chunk("Comment".into(), "SMUGGLED-TEXT".into())
            .unwrap();
        let mut writer = enc.write_header().unwrap();
        let mut data = vec![0u8; 40 * 10 * 2];
        for x in 0..40 {
            data[(5 * 40 + x) * 2 + 1] = 255;
        }
        writer.write_image_data(&data).unwrap();
    }
    let b64 = base64::engine::general_purpose::STANDARD.encode(&sent);
    w.svc
        .sign(
            &case.hostile,
            None,
            good_input(SignerValue::Drawn(b64)),
            &ClientInfo {
                ip_address: Some("203.0.113.9".into()),
                user_agent: Some("Evil\u{202E}Agent\r\n李".into()),
            },
        )
        .await
        .unwrap();
    w.completes(&mut case).await.unwrap();
    let link = w
        .svc
        .envelope_file_link(&w.test, &case.id, FileKind::Signed)
        .await
        .unwrap();
    let (_, signed) = w
        .svc
        .open_file_link(link.url.rsplit('/').next().unwrap())
        .await
        .unwrap();
    assert!(
        !signed.windows(13).any(|x| x == b"SMUGGLED-TEXT"),
        "ancillary chunks are not carried into the signed copy"
    );
    assert!(
        signed.windows(14).any(|x| x == b"/Subtype/Image")
            || signed.windows(15).any(|x| x == b"/Subtype /Image"),
        "the drawing is stamped as an image"
    );
}

#[tokio::test]
async fn the_test_helper_signs_names_the_fonts_cannot_draw() {
    let w = world().await;
    let body = json!({
        "delivery": "embedded",
        "signers": [
            {"name": "李雷", "email": "l@example.com", "role": "Hostile"},
            {"name": "Olga\tשלום Other", "email": "o@example.com", "role": "Other"}
        ]
    });
    let up = Upload {
        file_name: "hostile.pdf".into(),
        bytes: simple_pdf(FIELDS).into(),
    };
    let limits = w.svc.settings().limits.clone();
    let p = CreateEnvelopeParams::parse(Params::json(body).unwrap(), Some(up), &limits).unwrap();
    let env = w.svc.create_envelope(&w.test, p).await.unwrap();
    let done = w.svc.test_complete(&w.test, &env.id).await.unwrap();
    assert_eq!(done.status, EnvelopeStatus::Completed);
}
