//! Typed parameters for Rust callers: builders that produce the same `*Params` the JSON and form
//! paths parse, so that an embedding application never writes JSON.
//!
//! A built value is checked exactly like a parsed one: the service runs the same validation on
//! both (`create_envelope` and `create_template` take `impl Into<...Params>`), and the parts
//! that are parsed late (explicit fields) are handed over in their wire form and parsed by the
//! same code as a request's. An error names the parameter as a request would
//! (`signers.0.email`, `fields.1.page`).
//!
//! ```
//! # tokio_test_block_on(async {
//! use envelope_core::field::FieldType;
//! use envelope_core::model::SignerValue;
//! use envelope_core::service::{ClientInfo, CreateEnvelope, SignInput, Upload};
//! use envelope_core::SigningService;
//!
//! let svc = SigningService::builder().build();
//! let account = svc.admin().create_account("Acme").await?;
//! let ctx = svc.authenticate(&account.test_key.secret).await?;
//!
//! // The PDF's tags define the roles Client and Provider and a sender field `start_date`.
//! let pdf = Upload::new("contract.pdf", contract_pdf());
//! let envelope = svc
//!     .create_envelope(
//!         &ctx,
//!         CreateEnvelope::from_pdf(pdf)
//!             .signer("Client", "Zoë Client", "zoe@example.com")
//!             .signer("Provider", "Pat Provider", "pat@example.com")
//!             .data("start_date", "2027-01-01"),
//!     )
//!     .await?;
//!
//! // Each signer's side: open the link, fill the fields, consent, sign.
//! let mut last = envelope;
//! for (role, name) in [("Client", "Zoë Client"), ("Provider", "Pat Provider")] {
//!     let link = svc.signing_link(&ctx, &last.id, Some(role)).await?;
//!     let session = svc.open_signing_link(&link.token, None, &ClientInfo::default()).await?;
//!     let mut input = SignInput::new().consent();
//!     for field in &session.fields {
//!         input = match field.kind {
//!             FieldType::Signature => input.value(&field.key, SignerValue::typed(name)),
//!             FieldType::Text => input.value(&field.key, "Acme Ltd"),
//!             _ => input, // dates are the signing date
//!         };
//!     }
//!     last = svc.sign(&link.token, None, input, &ClientInfo::default()).await?;
//! }
//! assert_eq!(last.status.as_str(), "completed");
//! # Ok::<(), envelope_core::Error>(())
//! # }).unwrap();
//! # fn contract_pdf() -> Vec<u8> { include_bytes!("../../../examples/contract.pdf").to_vec() }
//! # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
//! # }
//! ```

use bytes::Bytes;
use serde_json::{Map, Value};

use super::envelopes::{CcParam, CreateEnvelopeParams, SignerParam};
use super::params::Upload;
use super::signing::{SignInput, SignerAuth};
use super::templates::CreateTemplateParams;
use crate::field::{FieldType, SENDER};
use crate::i18n::Locale;
use crate::ids::TemplateId;
use crate::model::{Delivery, InPerson, SignerKind, SignerValue};

impl Upload {
    /// A PDF given by the caller: its file name (shown in downloads and the audit trail) and
    /// its bytes.
    ///
    /// ```
    /// let upload = envelope_core::service::Upload::new("contract.pdf", b"%PDF-1.7...".to_vec());
    /// assert_eq!(upload.file_name, "contract.pdf");
    /// ```
    pub fn new(file_name: impl Into<String>, bytes: impl Into<Bytes>) -> Upload {
        Upload {
            file_name: file_name.into(),
            bytes: bytes.into(),
        }
    }
}

/// One signer of [`CreateEnvelope::add_signer`]: a name and an email, and optionally a role, a
/// place in the signing order, a language and an identity check.
///
/// ```
/// use envelope_core::service::{Signer, SignerAuth};
/// use envelope_core::i18n::Locale;
/// let s = Signer::new("Jan Kowalski", "jan@example.pl")
///     .role("Witness")
///     .order(2)
///     .locale(Locale::parse("pl").unwrap())
///     .auth(SignerAuth::EmailCode);
/// # let _ = s;
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Signer(SignerParam);

impl Signer {
    /// A signer with a name and an email address; the role is the document's next unclaimed
    /// one (or `Signer N`) unless [`Signer::role`] names it.
    pub fn new(name: impl Into<String>, email: impl Into<String>) -> Signer {
        Signer(SignerParam {
            role: None,
            name: name.into(),
            email: email.into(),
            order: None,
            auth: None,
            locale: None,
            kind: SignerKind::Signer,
            in_person: None,
        })
    }

    /// The role this signer takes (a role of the document's fields, or a new one).
    pub fn role(mut self, role: impl Into<String>) -> Signer {
        self.0.role = Some(role.into());
        self
    }

    /// The signer's place in the signing order (1 to 1000; equal places sign in parallel).
    pub fn order(mut self, order: u32) -> Signer {
        self.0.order = Some(order);
        self
    }

    /// The signer's language for emails and signing pages (extensions E4).
    pub fn locale(mut self, locale: Locale) -> Signer {
        self.0.locale = Some(locale);
        self
    }

    /// How the signer proves who they are before seeing the document (extensions E2).
    pub fn auth(mut self, auth: SignerAuth) -> Signer {
        self.0.auth = Some(auth);
        self
    }

    /// What the recipient does (extensions E13): an approver approves or declines, a viewer
    /// finishes by opening the document; neither is given fields.
    pub fn kind(mut self, kind: SignerKind) -> Signer {
        self.0.kind = kind;
        self
    }

    /// Signs in person (extensions E13): the request goes to the host, who hands the device over.
    pub fn in_person(
        mut self,
        host_name: impl Into<String>,
        host_email: impl Into<String>,
    ) -> Signer {
        self.0.in_person = Some(InPerson {
            host_name: host_name.into(),
            host_email: host_email.into(),
        });
        self
    }
}

impl From<Signer> for SignerParam {
    fn from(s: Signer) -> SignerParam {
        s.0
    }
}

/// An explicit field of [`CreateEnvelope::field`] or [`CreateTemplate::field`], in the terms of
/// the API's field object (decisions.md): a type, a role (or the sender), a page and a
/// rectangle in PDF points from the page's top-left corner.
///
/// It is handed to the service in its wire form and parsed by the same code as a request's
/// `fields`, so every check and every error (`fields.0.page`) is the API's: as there, the place
/// ([`FieldSpec::at`]) and the size ([`FieldSpec::size`]) must be given.
///
/// ```
/// use envelope_core::service::FieldSpec;
/// use envelope_core::field::FieldType;
/// let sign = FieldSpec::for_role("Client", FieldType::Signature).at(2, 72.0, 640.0).size(180.0, 36.0);
/// let start = FieldSpec::sender(FieldType::Text).key("start_date").at(1, 300.0, 120.0).size(120.0, 14.0);
/// # let _ = (sign, start);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct FieldSpec(Map<String, Value>);

impl FieldSpec {
    /// A field that the signer of `role` fills.
    pub fn for_role(role: impl Into<String>, kind: FieldType) -> FieldSpec {
        let mut f = FieldSpec::of(kind);
        f.0.insert("role".into(), Value::String(role.into()));
        f
    }

    /// A sender data field, filled through [`CreateEnvelope::data`] on create.
    pub fn sender(kind: FieldType) -> FieldSpec {
        let mut f = FieldSpec::of(kind);
        f.0.insert("filled_by".into(), Value::String(SENDER.into()));
        f
    }

    fn of(kind: FieldType) -> FieldSpec {
        let mut m = Map::new();
        m.insert("type".into(), Value::String(kind.as_str().into()));
        FieldSpec(m)
    }

    /// The field's key; left out, it is `<role>_<type>` numbered from `_2`.
    pub fn key(mut self, key: impl Into<String>) -> FieldSpec {
        self.0.insert("key".into(), Value::String(key.into()));
        self
    }

    /// The choices of a `radio` or `select` field, in order (extensions E6): 1 to 500
    /// distinct options of at most 200 characters each, checked like a request's.
    pub fn options<I, S>(mut self, options: I) -> FieldSpec
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let list = options
            .into_iter()
            .map(|o| Value::String(o.into()))
            .collect();
        self.0.insert("options".into(), Value::Array(list));
        self
    }

    /// Whether the field must be filled (default: true, except check boxes).
    pub fn required(mut self, required: bool) -> FieldSpec {
        self.0.insert("required".into(), Value::Bool(required));
        self
    }

    /// The page (from 1) and the top-left corner, in points from the page's top-left corner.
    pub fn at(mut self, page: u32, x: f64, y: f64) -> FieldSpec {
        self.0.insert("page".into(), Value::from(page));
        self.0.insert("x".into(), number(x));
        self.0.insert("y".into(), number(y));
        self
    }

    /// The document the field is on, from 1 (extensions E5; default 1).
    pub fn document(mut self, document: u32) -> FieldSpec {
        self.0.insert("document".into(), Value::from(document));
        self
    }

    /// Width and height in points.
    pub fn size(mut self, width: f64, height: f64) -> FieldSpec {
        self.0.insert("width".into(), number(width));
        self.0.insert("height".into(), number(height));
        self
    }
}

/// A number as JSON; a non-finite one becomes a string, which the field parser refuses with
/// the parameter's name (`expected a number`) rather than being lost as `null`.
fn number(v: f64) -> Value {
    serde_json::Number::from_f64(v)
        .map(Value::Number)
        .unwrap_or_else(|| Value::String(v.to_string()))
}

/// A value for a sender data field ([`CreateEnvelope::data`]): text, or a check box's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataValue(Value);

impl From<&str> for DataValue {
    fn from(s: &str) -> DataValue {
        DataValue(Value::String(s.into()))
    }
}

impl From<String> for DataValue {
    fn from(s: String) -> DataValue {
        DataValue(Value::String(s))
    }
}

impl From<&String> for DataValue {
    fn from(s: &String) -> DataValue {
        DataValue(Value::String(s.clone()))
    }
}

impl From<bool> for DataValue {
    fn from(b: bool) -> DataValue {
        DataValue(Value::Bool(b))
    }
}

/// The parameters of [`SigningService::create_envelope`](super::SigningService::create_envelope),
/// built in Rust.
///
/// ```
/// use envelope_core::ids::TemplateId;
/// use envelope_core::service::{CreateEnvelope, CreateEnvelopeParams};
/// let template: TemplateId = "tmpl_123".parse().unwrap();
/// let p: CreateEnvelopeParams = CreateEnvelope::from_template(&template)
///     .signer("Client", "Zoë Client", "zoe@example.com")
///     .signer("Provider", "Pat Provider", "pat@example.com")
///     .data("start_date", "2027-01-01")
///     .data("renewal", true)
///     .cc("Legal", "legal@example.com")
///     .signing_order(true)
///     .draft()
///     .into();
/// assert_eq!(p.signers.len(), 2);
/// assert!(!p.send);
/// ```
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until it is given to create_envelope"]
pub struct CreateEnvelope {
    p: CreateEnvelopeParams,
    /// Every signer was given by role (`signer`): the object form of `signers`.
    by_role: bool,
    fields: Vec<Value>,
}

impl CreateEnvelope {
    fn new(template: Option<String>, file: Option<Upload>) -> CreateEnvelope {
        CreateEnvelope {
            p: CreateEnvelopeParams {
                template,
                file,
                send: true,
                ..CreateEnvelopeParams::default()
            },
            by_role: true,
            fields: Vec::new(),
        }
    }

    /// An envelope from a template (its PDF, fields and roles).
    pub fn from_template(template: &TemplateId) -> CreateEnvelope {
        CreateEnvelope::new(Some(template.to_string()), None)
    }

    /// An envelope from a PDF: its `{{...}}` tags and form fields are discovered.
    pub fn from_pdf(file: Upload) -> CreateEnvelope {
        CreateEnvelope::new(None, Some(file))
    }

    /// One more document after the template's PDF or the first file (extensions E5): at most
    /// 10 documents in all, whose total size and pages the seed's limits bound. Its tags and
    /// form fields are discovered like the first document's.
    pub fn document(mut self, file: Upload) -> CreateEnvelope {
        self.p.files.push(file);
        self
    }

    /// The signer of `role`. With only `signer` calls this is the API's object form: the
    /// signing order follows the order of the document's roles.
    pub fn signer(
        mut self,
        role: impl Into<String>,
        name: impl Into<String>,
        email: impl Into<String>,
    ) -> CreateEnvelope {
        self.p.signers.push(Signer::new(name, email).role(role).0);
        self
    }

    /// A signer with options. Any `add_signer` makes this the API's list form: signers sign in
    /// the order given, unless [`Signer::order`] says otherwise.
    pub fn add_signer(mut self, signer: Signer) -> CreateEnvelope {
        self.by_role = false;
        self.p.signers.push(signer.0);
        self
    }

    /// The value of the sender data field `key` (text, or `true`/`false` for a check box).
    pub fn data(mut self, key: impl Into<String>, value: impl Into<DataValue>) -> CreateEnvelope {
        self.p.data.push((key.into(), value.into().0));
        self
    }

    /// An explicit field, added to those the document defines.
    pub fn field(mut self, field: FieldSpec) -> CreateEnvelope {
        self.fields.push(Value::Object(field.0));
        self
    }

    /// A carbon-copy recipient, emailed the signed copy (extensions E1).
    pub fn cc(mut self, name: impl Into<String>, email: impl Into<String>) -> CreateEnvelope {
        self.p.cc.push(CcParam {
            name: name.into(),
            email: email.into(),
        });
        self
    }

    /// Keep the envelope a draft: it is not sent (send it with `send_envelope`).
    pub fn draft(mut self) -> CreateEnvelope {
        self.p.send = false;
        self
    }

    /// The envelope's name (default: the template's name or the file's).
    pub fn name(mut self, name: impl Into<String>) -> CreateEnvelope {
        self.p.name = Some(name.into());
        self
    }

    /// The subject of the signing request emails.
    pub fn subject(mut self, subject: impl Into<String>) -> CreateEnvelope {
        self.p.subject = Some(subject.into());
        self
    }

    /// A message to the signers, in the emails and on the signing page.
    pub fn message(mut self, message: impl Into<String>) -> CreateEnvelope {
        self.p.message = Some(message.into());
        self
    }

    /// Signers sign one after the other, in their order.
    pub fn signing_order(mut self, on: bool) -> CreateEnvelope {
        self.p.signing_order = on;
        self
    }

    /// Signers without a signature field sign on an appended signature page.
    pub fn signature_page(mut self, on: bool) -> CreateEnvelope {
        self.p.signature_page = on;
        self
    }

    /// Embedded delivery: no signing emails; the application hands out the links.
    pub fn embedded(mut self) -> CreateEnvelope {
        self.p.delivery = Delivery::Embedded;
        self
    }

    /// The envelope is voided if not completed within `days` of being sent.
    pub fn expires_in_days(mut self, days: u32) -> CreateEnvelope {
        self.p.expires_in_days = Some(days);
        self
    }

    /// One metadata entry, returned with the envelope and its events.
    pub fn metadata(mut self, key: impl Into<String>, value: impl Into<String>) -> CreateEnvelope {
        self.p.metadata.insert(key.into(), value.into());
        self
    }
}

impl From<CreateEnvelope> for CreateEnvelopeParams {
    fn from(b: CreateEnvelope) -> CreateEnvelopeParams {
        let mut p = b.p;
        p.signers_by_role = b.by_role && !p.signers.is_empty();
        if !b.fields.is_empty() {
            p.fields = Some(Value::Array(b.fields));
        }
        p
    }
}

/// The parameters of [`SigningService::create_template`](super::SigningService::create_template),
/// built in Rust.
///
/// ```
/// use envelope_core::service::{CreateTemplate, CreateTemplateParams, Upload};
/// let p: CreateTemplateParams = CreateTemplate::new("Services agreement", Upload::new("msa.pdf", vec![]))
///     .description("Our standard terms")
///     .roles(["Client", "Provider"])
///     .into();
/// assert_eq!(p.roles.as_deref(), Some(&["Client".to_string(), "Provider".to_string()][..]));
/// ```
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until it is given to create_template"]
pub struct CreateTemplate {
    p: CreateTemplateParams,
    fields: Vec<Value>,
}

impl CreateTemplate {
    /// A template named `name` from a PDF.
    pub fn new(name: impl Into<String>, file: Upload) -> CreateTemplate {
        CreateTemplate {
            p: CreateTemplateParams {
                name: name.into(),
                description: None,
                file,
                fields: None,
                roles: None,
            },
            fields: Vec::new(),
        }
    }

    /// A description, for the sender's eyes.
    pub fn description(mut self, description: impl Into<String>) -> CreateTemplate {
        self.p.description = Some(description.into());
        self
    }

    /// The roles in signing order (they must include every role that has fields).
    pub fn roles<S: Into<String>>(mut self, roles: impl IntoIterator<Item = S>) -> CreateTemplate {
        self.p.roles = Some(roles.into_iter().map(Into::into).collect());
        self
    }

    /// An explicit field, added to those the document defines.
    pub fn field(mut self, field: FieldSpec) -> CreateTemplate {
        self.fields.push(Value::Object(field.0));
        self
    }
}

impl From<CreateTemplate> for CreateTemplateParams {
    fn from(b: CreateTemplate) -> CreateTemplateParams {
        let mut p = b.p;
        if !b.fields.is_empty() {
            p.fields = Some(Value::Array(b.fields));
        }
        p
    }
}

impl SignInput {
    /// Nothing filled, no consent yet.
    ///
    /// ```
    /// use envelope_core::service::SignInput;
    /// use envelope_core::model::SignerValue;
    /// let input = SignInput::new()
    ///     .value("Client_signature", SignerValue::typed("Zoë Client"))
    ///     .value("Client_text", "Acme Ltd")
    ///     .value("Client_checkbox", true)
    ///     .consent();
    /// assert!(input.consent);
    /// assert_eq!(input.values.len(), 3);
    /// ```
    pub fn new() -> SignInput {
        SignInput::default()
    }

    /// The value of the field `key` (text, a check box's state, or a typed or drawn mark).
    pub fn value(mut self, key: impl Into<String>, value: impl Into<SignerValue>) -> SignInput {
        self.values.insert(key.into(), value.into());
        self
    }

    /// The file for the `attachment` field `key` (extensions E14): a PDF, PNG or JPEG of at
    /// most 10 MB, checked when the signer signs.
    ///
    /// ```
    /// use envelope_core::service::{AttachmentUpload, SignInput};
    /// let input = SignInput::new().attachment("Client_attachment", AttachmentUpload::new("id.pdf", b"%PDF-1.7 ...".to_vec()));
    /// assert_eq!(input.attachments["Client_attachment"].file_name, "id.pdf");
    /// ```
    pub fn attachment(
        mut self,
        key: impl Into<String>,
        file: super::signing::AttachmentUpload,
    ) -> SignInput {
        self.attachments.insert(key.into(), file);
        self
    }

    /// The signature on the appended signature page, when the envelope has one.
    pub fn signature(mut self, value: impl Into<SignerValue>) -> SignInput {
        self.signature = Some(value.into());
        self
    }

    /// The signer agrees to sign electronically (required to sign).
    pub fn consent(mut self) -> SignInput {
        self.consent = true;
        self
    }
}

impl SignerValue {
    /// A typed signature or initials.
    pub fn typed(text: impl Into<String>) -> SignerValue {
        SignerValue::Typed(text.into())
    }

    /// A drawn signature or initials from PNG bytes (re-encoded by the service on arrival).
    pub fn drawn_png(png: &[u8]) -> SignerValue {
        use base64::Engine;
        SignerValue::Drawn(base64::engine::general_purpose::STANDARD.encode(png))
    }
}

impl From<&str> for SignerValue {
    fn from(s: &str) -> SignerValue {
        SignerValue::Text(s.into())
    }
}

impl From<String> for SignerValue {
    fn from(s: String) -> SignerValue {
        SignerValue::Text(s)
    }
}

impl From<bool> for SignerValue {
    fn from(b: bool) -> SignerValue {
        SignerValue::Checkbox(b)
    }
}
