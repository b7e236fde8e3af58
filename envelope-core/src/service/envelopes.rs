//! Envelope creation and reads.

use std::collections::{BTreeMap, HashSet};

use bytes::Bytes;
use serde_json::Value;

use super::fields::{check_role, parse_fields, roles_in_order};
use super::paging;
use super::params::{Obj, Params, Upload, check_email, check_text, metadata};
use super::precondition::Versioned;
use super::signing::SignerAuth;
use super::{AuthContext, Limits, SigningService, period_of};
use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::field::{Field, FieldSource, FieldType, PlacedField};
use crate::i18n::Locale;
use crate::ids::{self, EnvelopeId, RecipientId, TemplateId};
use crate::ids::{AccountId, BulkSendId};
use crate::model::{
    CcRecipient, Delivery, Envelope, EnvelopeRecord, EnvelopeStatus, EventType, InPerson, List,
    MoreDocument, Sha256State, Signer, SignerKind, SignerRecord, SignerStatus, SignerValue,
    StoredFile,
};
use crate::model::{Mode, TemplateRecord};
use crate::pdf;
use crate::rules::{self, mark_turns};
use crate::store::{AllowanceDebit, BlobStream, EnvelopeFilter};

/// From this many bytes on, an original keeps its SHA-256 state ([`StoredFile::sha256_state`]):
/// sealing its signed copy then hashes only the update. Below it, hashing the original again
/// costs under a millisecond, less than the state's ~230 bytes in every record are worth.
pub(crate) const KEEP_SHA256_STATE_FROM: u64 = 1 << 20;

/// One signer as given on create.
#[derive(Debug, Clone, PartialEq)]
pub struct SignerParam {
    /// The template role this signer fills (key `role`), required when the envelope is made from a
    /// template.
    pub role: Option<String>,
    /// The signer's display name (key `name`), required.
    pub name: String,
    /// The signer's email address (key `email`), required and validated.
    pub email: String,
    /// The signer's position in the signing order (key `order`), used when `signing_order` is on.
    pub order: Option<u32>,
    /// How the signer proves who they are before seeing the document (extensions E2).
    pub auth: Option<SignerAuth>,
    /// The signer's language (extensions E4).
    pub locale: Option<Locale>,
    /// What the recipient does (key `kind`, extensions E13); fields only go to signers.
    pub kind: SignerKind,
    /// The host of an in-person signing (key `in_person`, extensions E13).
    pub in_person: Option<InPerson>,
}

/// One carbon-copy recipient as given on create (extensions E1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CcParam {
    /// The recipient's display name (key `name`).
    pub name: String,
    /// The recipient's email address (key `email`).
    pub email: String,
}

/// Carbon-copy recipients an envelope may have.
pub const MAX_CC: usize = 20;

pub use super::params::MAX_DOCUMENTS;

/// Parameters of `create envelope` (interface.md 4.1).
#[derive(Debug, Clone, Default)]
pub struct CreateEnvelopeParams {
    /// The signers (key `signers`), at least one and at most `Limits::max_signers`.
    pub signers: Vec<SignerParam>,
    /// True when the signers were given as an object keyed by role.
    pub signers_by_role: bool,
    /// The ID of the template to create the envelope from (key `template`), instead of an uploaded
    /// file.
    pub template: Option<String>,
    /// The first document, unless the envelope is made from a template.
    pub file: Option<Upload>,
    /// More documents, in order, after the template's or `file` (extensions E5). With neither
    /// `template` nor `file`, the first of them is the first document.
    pub files: Vec<Upload>,
    /// Values for sender data fields, in the order given.
    pub data: Vec<(String, Value)>,
    /// Explicit field positions (parsed and keyed at create).
    pub fields: Option<Value>,
    /// Whether to append a signature page (key `signature_page`).
    pub signature_page: bool,
    /// Whether signers sign one after another by `order` (key `signing_order`).
    pub signing_order: bool,
    /// How signers receive their links (key `delivery`): by email or as embedded links.
    pub delivery: Delivery,
    /// The envelope's name (key `name`); defaults to the document's file name.
    pub name: Option<String>,
    /// The subject of the signing emails (key `subject`).
    pub subject: Option<String>,
    /// A message included in the signing emails (key `message`).
    pub message: Option<String>,
    /// Whether to send the envelope at once (key `send`) rather than leave it a draft.
    pub send: bool,
    /// Days until the envelope expires (key `expires_in_days`), at most
    /// `Limits::max_expires_in_days`.
    pub expires_in_days: Option<u32>,
    /// Free-form string metadata (key `metadata`), at most `Limits::max_metadata_keys` keys.
    pub metadata: BTreeMap<String, String>,
    /// Carbon-copy recipients (at most [`MAX_CC`]).
    pub cc: Vec<CcParam>,
}

impl CreateEnvelopeParams {
    /// Parses request parameters; `file` is a multipart `file` part, if any.
    pub fn parse(p: Params, file: Option<Upload>, limits: &Limits) -> Result<Self> {
        Self::parse_parts(p, file.into_iter().collect(), limits)
    }

    /// Parses request parameters with every multipart `file` part, in order (extensions E5:
    /// each part is one document).
    pub fn parse_parts(mut p: Params, parts: Vec<Upload>, limits: &Limits) -> Result<Self> {
        // Counted before any document is decoded or inspected.
        if parts.len() > MAX_DOCUMENTS {
            return Err(too_many_documents());
        }
        let mut parts = parts.into_iter();
        let signers_v = p
            .json_value("signers")?
            .ok_or_else(|| Error::missing("signers"))?;
        let (signers, signers_by_role) = parse_signers(&signers_v, limits)?;
        let template = p.string("template")?;
        let file = take_file(&mut p, parts.next(), limits)?;
        let mut files: Vec<Upload> = parts.collect();
        let given = usize::from(file.is_some() || template.is_some()) + files.len();
        files.extend(take_files(&mut p, given, limits)?);
        let data = match p.json_value("data")? {
            None => Vec::new(),
            Some(Value::Object(m)) => m.into_iter().collect(),
            Some(_) => return Err(Error::invalid("data", "expected an object of field values")),
        };
        let fields = p.json_value("fields")?;
        let signature_page = p.boolean("signature_page")?.unwrap_or(false);
        let signing_order = p.boolean("signing_order")?.unwrap_or(false);
        let delivery = match p.string("delivery")?.as_deref() {
            None | Some("email") => Delivery::Email,
            Some("embedded") => Delivery::Embedded,
            Some(_) => return Err(Error::invalid("delivery", "must be email or embedded")),
        };
        let name = p.string("name")?;
        let subject = p.string("subject")?;
        let message = p.string("message")?;
        let send = p.boolean("send")?.unwrap_or(true);
        let expires_in_days = expires_in_days(&mut p, limits)?;
        let metadata = metadata(p.json_value("metadata")?, limits.max_metadata_keys)?;
        let cc = parse_cc(p.json_value("cc")?)?;
        p.finish()?;
        let params = CreateEnvelopeParams {
            cc,
            signers,
            signers_by_role,
            template,
            file,
            files,
            data,
            fields,
            signature_page,
            signing_order,
            delivery,
            name,
            subject,
            message,
            send,
            expires_in_days,
            metadata,
        };
        params.validate(limits)?;
        Ok(params)
    }

    /// Checks the limits and texts (also for parameters built in Rust).
    pub fn validate(&self, limits: &Limits) -> Result<()> {
        if self.cc.len() > MAX_CC {
            return Err(Error::invalid(
                "cc",
                format!("at most {MAX_CC} recipients may be copied"),
            ));
        }
        for (i, c) in self.cc.iter().enumerate() {
            check_text(&format!("cc[{i}].name"), &c.name, 200)?;
            check_email(&format!("cc[{i}].email"), &c.email)?;
        }
        check_signers(&self.signers, self.signers_by_role, limits)?;
        match (&self.template, &self.file) {
            (Some(_), Some(_)) => {
                return Err(Error::invalid(
                    "template",
                    "give a template or a file, not both",
                ));
            }
            (None, None) if self.files.is_empty() => return Err(Error::missing("file")),
            _ => {}
        }
        if let Some(f) = &self.file {
            check_file_name("file_name", &f.file_name)?;
            if f.bytes.len() > limits.max_file_bytes {
                return Err(Error::FileTooLarge {
                    max_bytes: limits.max_file_bytes,
                });
            }
        }
        let count = usize::from(self.template.is_some() || self.file.is_some()) + self.files.len();
        if count > MAX_DOCUMENTS {
            return Err(too_many_documents());
        }
        let total: usize = self
            .file
            .iter()
            .chain(&self.files)
            .map(|f| f.bytes.len())
            .sum();
        if total > limits.max_file_bytes {
            return Err(Error::DocumentsTooLarge {
                max_bytes: limits.max_file_bytes,
            });
        }
        for (i, f) in self.files.iter().enumerate() {
            check_file_name(&format!("files.{i}.file_name"), &f.file_name)?;
        }
        if let Some(n) = &self.name {
            check_text("name", n, 500)?;
        }
        check_letter(self.subject.as_deref(), self.message.as_deref())?;
        check_metadata(&self.metadata, limits)?;
        check_expiry(self.expires_in_days, limits)
    }
}

/// `expires_in_days`: from 1 to `Limits::max_expires_in_days`, or absent.
pub(crate) fn expires_in_days(p: &mut Params, limits: &Limits) -> Result<Option<u32>> {
    match p.integer("expires_in_days")? {
        None => Ok(None),
        Some(d) if d >= 1 && d <= i64::from(limits.max_expires_in_days) => Ok(Some(d as u32)),
        Some(_) => Err(expiry_out_of_range(limits)),
    }
}

/// [`expires_in_days`]'s rule for a value built in Rust.
pub(crate) fn check_expiry(days: Option<u32>, limits: &Limits) -> Result<()> {
    match days {
        Some(d) if !(1..=limits.max_expires_in_days).contains(&d) => {
            Err(expiry_out_of_range(limits))
        }
        _ => Ok(()),
    }
}

fn expiry_out_of_range(limits: &Limits) -> Error {
    Error::invalid(
        "expires_in_days",
        format!("must be between 1 and {}", limits.max_expires_in_days),
    )
}

/// The signing emails' `subject` (at most 500 characters) and `message` (at most 10,000).
pub(crate) fn check_letter(subject: Option<&str>, message: Option<&str>) -> Result<()> {
    if let Some(s) = subject {
        check_text("subject", s, 500)?;
    }
    if let Some(m) = message
        && m.chars().count() > 10_000
    {
        return Err(Error::invalid(
            "message",
            "must be at most 10000 characters",
        ));
    }
    Ok(())
}

/// The entries' checks of a parsed `metadata`, for a map built in Rust.
pub(crate) fn check_metadata(map: &BTreeMap<String, String>, limits: &Limits) -> Result<()> {
    let given = map
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    metadata(Some(Value::Object(given)), limits.max_metadata_keys).map(|_| ())
}

/// The signers of a request: at least one, at most `Limits::max_signers`, each with a valid
/// name, email, role, order and `auth`. Errors name an entry as the request does: by role in
/// the object form, by index in a list.
pub(crate) fn check_signers(signers: &[SignerParam], by_role: bool, limits: &Limits) -> Result<()> {
    if signers.is_empty() {
        return Err(Error::invalid("signers", "at least one signer is required"));
    }
    if signers.len() > limits.max_signers {
        return Err(Error::TooManySigners {
            given: signers.len(),
            max: limits.max_signers,
        });
    }
    for (i, s) in signers.iter().enumerate() {
        let at = match (&s.role, by_role) {
            (Some(r), true) => format!("signers.{r}"),
            _ => format!("signers.{i}"),
        };
        check_text(&format!("{at}.name"), &s.name, 200)?;
        check_email(&format!("{at}.email"), &s.email)?;
        if let Some(r) = &s.role {
            check_role(&format!("{at}.role"), r)?;
        }
        if let Some(o) = s.order
            && !(1..=1000).contains(&o)
        {
            return Err(Error::invalid(
                format!("{at}.order"),
                "must be between 1 and 1000",
            ));
        }
        if let Some(a) = &s.auth {
            a.validate(&format!("{at}.auth"))?;
        }
        if let Some(h) = &s.in_person {
            if s.kind == SignerKind::Viewer {
                return Err(Error::invalid(
                    format!("{at}.in_person"),
                    "a viewer finishes by opening the document and cannot be hosted in person",
                ));
            }
            check_text(&format!("{at}.in_person.host_name"), &h.host_name, 200)?;
            check_email(&format!("{at}.in_person.host_email"), &h.host_email)?;
        }
    }
    Ok(())
}

/// The explicit `fields` of a request placed on the envelope's documents (`pages`: each
/// document's page sizes, in order): parsed with keys unique against `taken`, each in a document
/// the envelope has and inside its page. Errors name `fields.N` as on create.
pub(crate) fn place_fields(
    v: &Value,
    max: usize,
    taken: &mut HashSet<String>,
    pages: &[Vec<pdf::PageSize>],
    found: &[PlacedField],
) -> Result<Vec<Field>> {
    let explicit = parse_fields(v, max, taken, found)?;
    for (i, f) in explicit.iter().enumerate() {
        let Some(doc_pages) = pages.get(f.document as usize - 1) else {
            return Err(Error::invalid(
                format!("fields.{i}.document"),
                format!("the envelope has {} documents", pages.len()),
            ));
        };
        if let Err((_, why)) = pdf::check_fields(std::slice::from_ref(f), doc_pages) {
            return Err(Error::invalid(format!("fields.{i}"), why));
        }
    }
    Ok(explicit)
}

/// `cc`: a list of `{name, email}` (extensions E1); errors name `cc[N].field`.
pub(crate) fn parse_cc(v: Option<Value>) -> Result<Vec<CcParam>> {
    let items = match v {
        None => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(Error::invalid(
                "cc",
                "expected a list of {name, email} recipients",
            ));
        }
    };
    if items.len() > MAX_CC {
        return Err(Error::invalid(
            "cc",
            format!("at most {MAX_CC} recipients may be copied"),
        ));
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let mut o = Obj::new(format!("cc[{i}]"), item)?;
        let name = o.required_string("name")?;
        let email = o.required_string("email")?;
        o.finish()?;
        out.push(CcParam { name, email });
    }
    Ok(out)
}

/// `signers`: a list, or an object keyed by role; returns the entries and whether they were
/// keyed by role.
pub(crate) fn parse_signers(v: &Value, limits: &Limits) -> Result<(Vec<SignerParam>, bool)> {
    let count = match v {
        Value::Array(a) => a.len(),
        Value::Object(m) => m.len(),
        _ => {
            return Err(Error::invalid(
                "signers",
                "expected a list of signers or an object keyed by role",
            ));
        }
    };
    if count > limits.max_signers {
        return Err(Error::TooManySigners {
            given: count,
            max: limits.max_signers,
        });
    }
    let mut out = Vec::new();
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let mut o = Obj::new(format!("signers.{i}"), item)?;
                let name = o.required_string("name")?;
                let email = o.required_string("email")?;
                let auth = auth_param(&mut o)?;
                let role = o.string("role")?;
                let order = match o.integer("order")? {
                    None => None,
                    Some(n) if (1..=1000).contains(&n) => Some(n as u32),
                    Some(_) => {
                        return Err(Error::invalid(o.at("order"), "must be between 1 and 1000"));
                    }
                };
                let locale = locale(&mut o)?;
                let (kind, in_person) = kind_params(&mut o)?;
                o.finish()?;
                out.push(SignerParam {
                    role,
                    name,
                    email,
                    order,
                    auth,
                    locale,
                    kind,
                    in_person,
                });
            }
            Ok((out, false))
        }
        Value::Object(map) => {
            for (role, item) in map {
                let mut o = Obj::new(format!("signers.{role}"), item)?;
                let name = o.required_string("name")?;
                let email = o.required_string("email")?;
                let auth = auth_param(&mut o)?;
                let locale = locale(&mut o)?;
                let (kind, in_person) = kind_params(&mut o)?;
                o.finish()?;
                out.push(SignerParam {
                    role: Some(role.clone()),
                    name,
                    email,
                    order: None,
                    auth,
                    locale,
                    kind,
                    in_person,
                });
            }
            Ok((out, true))
        }
        _ => unreachable!("checked above"),
    }
}

/// `auth` of a signer entry (extensions E2), errors named below the entry
/// (`signers.0.auth.access_code`).
fn auth_param(o: &mut Obj<'_>) -> Result<Option<SignerAuth>> {
    let path = o.at("auth");
    o.value("auth")
        .map(|v| SignerAuth::parse(&path, v))
        .transpose()
}

/// A signer entry's `kind` and `in_person` (extensions E13), errors named below the entry
/// (`signers.0.in_person.host_email`).
fn kind_params(o: &mut Obj<'_>) -> Result<(SignerKind, Option<InPerson>)> {
    let kind = match o.string("kind")? {
        None => SignerKind::Signer,
        Some(k) => SignerKind::parse(&k).ok_or_else(|| {
            Error::invalid(o.at("kind"), "must be one of signer, approver, viewer")
        })?,
    };
    let path = o.at("in_person");
    let in_person = match o.value("in_person") {
        None | Some(Value::Null) => None,
        Some(v) => {
            let mut h = Obj::new(path, v)?;
            let host_name = h.required_string("host_name")?;
            let host_email = h.required_string("host_email")?;
            h.finish()?;
            Some(InPerson {
                host_name,
                host_email,
            })
        }
    };
    Ok((kind, in_person))
}

/// A signer entry's `locale` (extensions E4): a well-formed BCP 47 tag, or absent.
fn locale(o: &mut Obj<'_>) -> Result<Option<Locale>> {
    o.string("locale")?
        .map(|t| Locale::parse(&t).map_err(|e| Error::invalid(o.at("locale"), e.to_string())))
        .transpose()
}

/// The PDF: a multipart part, or `file_base64` with `file_name`.
pub(crate) fn take_file(
    p: &mut Params,
    part: Option<Upload>,
    limits: &Limits,
) -> Result<Option<Upload>> {
    let b64 = p.base64("file_base64")?;
    let file_name = p.string("file_name")?;
    match (part, b64) {
        (Some(_), Some(_)) => Err(Error::invalid(
            "file_base64",
            "give the file as a part or as base64, not both",
        )),
        (Some(mut up), None) => {
            if let Some(n) = file_name {
                up.file_name = n;
            }
            check_file_name("file_name", &up.file_name)?;
            Ok(Some(up))
        }
        (None, Some(b64)) => {
            let file_name = file_name.ok_or_else(|| Error::missing("file_name"))?;
            check_file_name("file_name", &file_name)?;
            // Base64 is 4/3 of the data: refuse before decoding what cannot fit.
            if b64.len() / 4 * 3 > limits.max_file_bytes + 3 {
                return Err(Error::FileTooLarge {
                    max_bytes: limits.max_file_bytes,
                });
            }
            let bytes = b64
                .decode()
                .ok_or_else(|| Error::invalid("file_base64", "is not valid base64"))?;
            if bytes.len() > limits.max_file_bytes {
                return Err(Error::FileTooLarge {
                    max_bytes: limits.max_file_bytes,
                });
            }
            Ok(Some(Upload { file_name, bytes }))
        }
        (None, None) => {
            if file_name.is_some() {
                return Err(Error::missing("file_base64"));
            }
            Ok(None)
        }
    }
}

fn too_many_documents() -> Error {
    Error::invalid(
        "files",
        format!("an envelope has at most {MAX_DOCUMENTS} documents"),
    )
}

/// `files: [{file_name, file_base64}]` (extensions E5), after `given` documents. The list is
/// counted, and each document's size estimated from its text, before any is decoded.
fn take_files(p: &mut Params, given: usize, limits: &Limits) -> Result<Vec<Upload>> {
    let items = match p.json_value("files")? {
        None => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(Error::invalid(
                "files",
                "expected a list of {file_name, file_base64} documents",
            ));
        }
    };
    if given + items.len() > MAX_DOCUMENTS {
        return Err(too_many_documents());
    }
    let mut entries = Vec::with_capacity(items.len());
    let mut estimate = 0usize;
    for (i, mut item) in items.into_iter().enumerate() {
        // The text is moved out of the parsed value, not copied: a document is held once.
        let moved = match item.get_mut("file_base64") {
            Some(Value::String(t)) => Some(std::mem::take(t)),
            _ => None,
        };
        let mut o = Obj::new(format!("files.{i}"), &item)?;
        let file_name = o.required_string("file_name")?;
        check_file_name(&o.at("file_name"), &file_name)?;
        let text = match moved {
            Some(t) => {
                o.value("file_base64");
                t
            }
            // Missing or not a string: the usual answer names it.
            None => o.required_string("file_base64")?,
        };
        o.finish()?;
        estimate = estimate.saturating_add(text.len() / 4 * 3);
        entries.push((i, file_name, text));
    }
    // Base64 is 4/3 of the data: refuse before decoding what cannot fit.
    if estimate > limits.max_file_bytes + 3 * entries.len() {
        return Err(Error::DocumentsTooLarge {
            max_bytes: limits.max_file_bytes,
        });
    }
    let mut out = Vec::with_capacity(entries.len());
    for (i, file_name, text) in entries {
        let bytes = super::params::decode_base64(text).ok_or_else(|| {
            Error::invalid(format!("files.{i}.file_base64"), "is not valid base64")
        })?;
        out.push(Upload { file_name, bytes });
    }
    Ok(out)
}

pub(crate) fn check_file_name(param: &str, n: &str) -> Result<()> {
    check_text(param, n, 255)?;
    if n.contains('/') || n.contains('\\') {
        return Err(Error::invalid(
            param,
            "must be a file name without directories",
        ));
    }
    Ok(())
}

/// What intake learned about a PDF.
pub(crate) struct Inspected {
    pub info: pdf::PdfInfo,
}

impl SigningService {
    /// Validates a PDF: size, readability, encryption, page count; discovers its fields.
    pub(crate) async fn inspect_pdf(&self, upload: &Upload) -> Result<Inspected> {
        let limits = &self.inner.settings.limits;
        if upload.bytes.len() > limits.max_file_bytes {
            return Err(Error::FileTooLarge {
                max_bytes: limits.max_file_bytes,
            });
        }
        let info = self
            .inspect_document(upload, "file", limits.max_pages, HashSet::new())
            .await?;
        Ok(Inspected { info })
    }

    /// Inspects one document of an envelope within `max_pages`; errors name `param`, and keys
    /// in `taken` (earlier documents') are numbered on.
    async fn inspect_document(
        &self,
        upload: &Upload,
        param: &str,
        max_pages: u32,
        taken: HashSet<String>,
    ) -> Result<pdf::PdfInfo> {
        let bytes = upload.bytes.clone();
        let pdf_limits = pdf::PdfLimits {
            max_pages,
            ..pdf::PdfLimits::default()
        };
        self.blocking("inspect", move || {
            pdf::inspect_after(&bytes, &pdf_limits, taken)
        })
        .await?
        .map_err(|e| match e {
            pdf::PdfError::TooManyPages { pages, max } => Error::TooManyPages { pages, max },
            pdf::PdfError::Encrypted => Error::InvalidPdf {
                param: param.into(),
                reason: "the PDF is encrypted".into(),
            },
            // Unreadable, or past a limit of the work budget (`TooComplex`, whose message
            // names the limit): the uploader gets invalid_pdf either way.
            other => Error::InvalidPdf {
                param: param.into(),
                reason: other.to_string(),
            },
        })
    }

    /// The documents after the first (extensions E5), inspected in order: each one's fields
    /// (keys numbered on after `fields`', marked with their document), pages and upload. Their
    /// pages count against what the first left of the page limit.
    async fn inspect_more(
        &self,
        files: &[Upload],
        offset: usize,
        fields: &mut Vec<PlacedField>,
        pages: &mut Vec<Vec<pdf::PageSize>>,
    ) -> Result<()> {
        let max = self.inner.settings.limits.max_pages;
        for (i, up) in files.iter().enumerate() {
            let used: usize = pages.iter().map(Vec::len).sum();
            let left = max.saturating_sub(used as u32);
            let taken: HashSet<String> = fields.iter().map(|f| f.field.key.clone()).collect();
            let param = format!("files.{}", i + offset);
            let info = match self.inspect_document(up, &param, left, taken).await {
                Ok(info) => info,
                Err(Error::TooManyPages { pages, .. }) => {
                    return Err(Error::DocumentsTooManyPages {
                        pages: (used as u32).saturating_add(pages),
                        max,
                    });
                }
                Err(e) => return Err(e),
            };
            let document = pages.len() as u32 + 1;
            fields.extend(info.fields.into_iter().map(|mut f| {
                f.field.document = document;
                f
            }));
            pages.push(info.pages);
        }
        Ok(())
    }

    /// Stores bytes made here (an audit trail, a signed copy kept whole) under a new key and
    /// describes them. Nothing seals them again: no SHA-256 state is kept.
    pub(crate) async fn put_file(
        &self,
        file_name: &str,
        bytes: bytes::Bytes,
    ) -> Result<StoredFile> {
        let blob = format!("blob_{}", ids::random_base62(32));
        let mut file = self.put_file_as(blob, file_name, bytes).await?;
        file.sha256_state = None;
        Ok(file)
    }

    /// Stores an original (an upload, a template's file) under `blob` (a retried put of the same
    /// key overwrites) and describes it. From [`KEEP_SHA256_STATE_FROM`] bytes on, the one
    /// SHA-256 pass that gives its digest also leaves the state that the signed copy's seal
    /// continues ([`StoredFile::sha256_state`]).
    pub(crate) async fn put_file_as(
        &self,
        blob: String,
        file_name: &str,
        bytes: bytes::Bytes,
    ) -> Result<StoredFile> {
        let (sha256, state) = Sha256State::of(&bytes);
        let size = bytes.len() as u64;
        self.inner.blobs.put(&blob, bytes, self.now()).await?;
        Ok(StoredFile {
            blob,
            file_name: file_name.to_string(),
            size,
            sha256,
            delta: None,
            sha256_state: (size >= KEEP_SHA256_STATE_FROM).then_some(state),
        })
    }

    /// Stores a signed copy, `base` followed by `update` (an incremental update), as the update
    /// alone: the blob holds only the bytes after `base`'s, and reads put `base` in front
    /// (docs/STORAGE.md, "Signed copies"). `sha256` (lowercase hex) is the whole file's, which the
    /// caller computed in its one pass over `base_bytes` and `update`; `size` is the whole
    /// file's too. When `base` is not a whole file of its own (a delta itself, or bytes that are
    /// not its), the two are joined and stored whole.
    pub(crate) async fn put_update(
        &self,
        file_name: &str,
        base: &StoredFile,
        base_bytes: &[u8],
        update: bytes::Bytes,
        sha256: String,
    ) -> Result<StoredFile> {
        let extends =
            base.delta.is_none() && base_bytes.len() as u64 == base.size && !update.is_empty();
        if !extends {
            let mut whole = bytes::BytesMut::with_capacity(base_bytes.len() + update.len());
            whole.extend_from_slice(base_bytes);
            whole.extend_from_slice(&update);
            return self.put_file(file_name, whole.freeze()).await;
        }
        let size = (base_bytes.len() + update.len()) as u64;
        let stored = update.len() as u64;
        let blob = format!("blob_{}", ids::random_base62(32));
        self.inner.blobs.put(&blob, update, self.now()).await?;
        Ok(StoredFile {
            blob,
            file_name: file_name.to_string(),
            size,
            sha256,
            delta: Some(crate::model::Delta {
                base: base.blob.clone(),
                stored,
            }),
            sha256_state: None,
        })
    }

    /// The bytes of a stored file.
    pub(crate) async fn read_file(&self, file: &StoredFile) -> Result<Option<bytes::Bytes>> {
        let base = file.delta.as_ref().map(|d| d.base.as_str());
        self.read_blobs(&file.blob, base).await
    }

    /// The blob `blob`, after the blob `base` when there is one (a delta); `None` when either is
    /// gone. A delta's two parts are joined in one buffer here: the API answers with one body.
    pub(crate) async fn read_blobs(
        &self,
        blob: &str,
        base: Option<&str>,
    ) -> Result<Option<bytes::Bytes>> {
        let Some(tail) = self.inner.blobs.get(blob).await? else {
            return Ok(None);
        };
        let Some(base) = base else {
            return Ok(Some(tail));
        };
        let Some(head) = self.inner.blobs.get(base).await? else {
            return Ok(None);
        };
        let mut whole = bytes::BytesMut::with_capacity(head.len() + tail.len());
        whole.extend_from_slice(&head);
        whole.extend_from_slice(&tail);
        Ok(Some(whole.freeze()))
    }

    /// The blob `blob`, after the blob `base` when there is one (a delta), as it is read; `None`
    /// when either is gone. A delta's update (`blob`, a few kilobytes: stamps and the seal's
    /// revision) is read whole first, so that a missing part is known before the first byte
    /// and no second connection to the store waits while the original streams.
    pub(crate) async fn read_stream(
        &self,
        blob: &str,
        base: Option<&str>,
    ) -> Result<Option<BlobStream>> {
        let Some(base) = base else {
            return Ok(self.inner.blobs.get_stream(blob).await?);
        };
        let Some(tail) = self.inner.blobs.get(blob).await? else {
            return Ok(None);
        };
        let Some(head) = self.inner.blobs.get_stream(base).await? else {
            return Ok(None);
        };
        Ok(Some(head.chain(BlobStream::from_bytes(tail))))
    }

    /// Creates an envelope from a template or a PDF; sends it unless `send` is false.
    ///
    /// Takes parsed parameters or a [`CreateEnvelope`](super::CreateEnvelope) builder; both get
    /// the same checks.
    pub async fn create_envelope(
        &self,
        ctx: &AuthContext,
        p: impl Into<CreateEnvelopeParams>,
    ) -> Result<Envelope> {
        let p: CreateEnvelopeParams = p.into();
        let limits = &self.inner.settings.limits;
        p.validate(limits)?;
        let scope = ctx.scope();
        // New bytes to store: the uploads (an envelope made from a template shares its file).
        let needed = p
            .file
            .iter()
            .chain(&p.files)
            .map(|f| f.bytes.len() as u64)
            .sum();
        if let Err(e) = self.check_storage(ctx, needed).await {
            // A retry of a request whose first attempt committed is answered with its envelope,
            // whose bytes are what fills the quota now.
            if ctx.idempotency_origin.is_some()
                && let Some(first) = self
                    .inner
                    .store
                    .get_envelope(
                        &scope,
                        &EnvelopeId::trusted(ctx.new_id(ids::ENVELOPE, "envelope")),
                    )
                    .await?
            {
                return Ok(first.view());
            }
            return Err(e);
        }
        let template = match &p.template {
            Some(id) => Some(self.usable_template(&scope, id).await?),
            None => None,
        };
        let checked = self.check_envelope(&p, template.as_ref()).await?;

        let now = self.now();
        let debit = if ctx.mode().is_live() && p.send {
            Some(self.allowance_debit(ctx, now).await?)
        } else {
            None
        };
        let rec = self.build_envelope(&ctx.maker(), &p, checked, now).await?;
        match self
            .write_new_envelope(rec, p.send, debit.as_ref(), now)
            .await?
        {
            Ok(rec) => Ok(rec.view()),
            // A retry of an idempotent request whose first attempt committed, then died before
            // it could answer: that envelope is the answer (its emails went out, or not, with
            // the first attempt).
            Err((id, crate::store::StoreError::Duplicate)) if ctx.idempotency_origin.is_some() => {
                match self.inner.store.get_envelope(&scope, &id).await? {
                    Some(first) => Ok(first.view()),
                    None => Err(Error::Internal("envelope ID taken in another scope".into())),
                }
            }
            Err((_, e)) => Err(self
                .refusal_of_create(ctx, e, needed, p.template.as_deref())
                .await),
        }
    }

    /// What a create answers for a store's refusal of its write.
    pub(crate) async fn refusal_of_create(
        &self,
        ctx: &AuthContext,
        e: crate::store::StoreError,
        needed: u64,
        template: Option<&str>,
    ) -> Error {
        match (e, template) {
            (crate::store::StoreError::QuotaExceeded, _) => self.storage_refusal(ctx, needed).await,
            // The template was deleted (retention) since it was read.
            (crate::store::StoreError::Conflict, Some(id)) => template_missing(id),
            (e, _) => e.into(),
        }
    }

    /// The template `id` of `scope`, when envelopes can be made from it (it exists and is not
    /// archived); else the `template` error of a create.
    pub(crate) async fn usable_template(
        &self,
        scope: &crate::model::Scope,
        id: &str,
    ) -> Result<TemplateRecord> {
        let tid = TemplateId::parse(id).map_err(|_| template_missing(id))?;
        self.inner
            .store
            .get_template(scope, &tid)
            .await?
            .filter(|t| !t.archived)
            .ok_or_else(|| template_missing(id))
    }

    /// Every check of a create that needs the documents, without writing anything: the
    /// documents read (or `template`'s, read by the caller), fields placed, signers given their
    /// roles, coverage and data checked. A bulk send runs it once per row over one template.
    pub(crate) async fn check_envelope(
        &self,
        p: &CreateEnvelopeParams,
        template: Option<&TemplateRecord>,
    ) -> Result<Checked> {
        let limits = &self.inner.settings.limits;
        // The first document is the template's, `file`, or else the first of `files`.
        let (first, more, offset) = match (&p.template, &p.file) {
            (None, None) if !p.files.is_empty() => (Some(&p.files[0]), &p.files[1..], 1),
            (_, file) => (file.as_ref(), &p.files[..], 0),
        };
        // The first document: its fields, roles in signing order, page sizes.
        let (mut fields, mut roles, pages, template_id, default_name, source) =
            match (template, first) {
                (Some(t), _) => {
                    let pages = t
                        .page_sizes
                        .iter()
                        .map(|&(width, height)| pdf::PageSize { width, height })
                        .collect();
                    // Documents added to a template's count its file in the total (extensions E5).
                    let added: u64 = more.iter().map(|f| f.bytes.len() as u64).sum();
                    if !more.is_empty()
                        && t.file.size.saturating_add(added) > limits.max_file_bytes as u64
                    {
                        return Err(Error::DocumentsTooLarge {
                            max_bytes: limits.max_file_bytes,
                        });
                    }
                    (
                        t.fields.clone(),
                        t.roles.clone(),
                        pages,
                        Some(t.id.clone()),
                        t.name.clone(),
                        Source::Stored(t.file.clone()),
                    )
                }
                (None, Some(upload)) => {
                    let param = if offset == 1 { "files.0" } else { "file" };
                    let info = match self
                        .inspect_document(upload, param, limits.max_pages, HashSet::new())
                        .await
                    {
                        Err(Error::TooManyPages { pages, max }) if !more.is_empty() => {
                            return Err(Error::DocumentsTooManyPages { pages, max });
                        }
                        other => other?,
                    };
                    let roles = roles_in_order(info.fields.iter().map(|f| &f.field));
                    (
                        info.fields,
                        roles,
                        info.pages,
                        None,
                        upload.file_name.clone(),
                        Source::Upload(upload.clone()),
                    )
                }
                (None, None) => return Err(Error::missing("file")),
            };
        let mut pages = vec![pages];
        let first_fields = fields.len();
        self.inspect_more(more, offset, &mut fields, &mut pages)
            .await?;
        for r in roles_in_order(fields[first_fields..].iter().map(|f| &f.field)) {
            if !roles.contains(&r) {
                roles.push(r);
            }
        }
        if let Some(v) = &p.fields {
            let mut taken: HashSet<String> = fields.iter().map(|f| f.field.key.clone()).collect();
            let explicit = place_fields(v, limits.max_fields, &mut taken, &pages, &fields)?;
            for r in roles_in_order(&explicit) {
                if !roles.contains(&r) {
                    roles.push(r);
                }
            }
            fields.extend(explicit.into_iter().map(|field| PlacedField {
                field,
                source: FieldSource::Explicit,
            }));
        }

        // Tags' conditions and formulas (extensions E14) read the fields of every document.
        super::fields::check_found(&fields, if offset == 1 { "files" } else { "file" })?;
        let signers = resolve_signers(&p.signers, p.signers_by_role, &roles)?;
        check_coverage(&fields, &signers, p.signature_page)?;
        let data = check_data(&fields, &p.data)?;
        Ok(Checked {
            fields,
            pages,
            template: template_id,
            default_name,
            source,
            signers,
            data,
        })
    }

    /// The record of a checked create, as a draft: the uploads stored (blobs before records),
    /// owner and IDs from `ctx` (derived from its origin when it has one).
    pub(crate) async fn build_envelope(
        &self,
        ctx: &Maker<'_>,
        p: &CreateEnvelopeParams,
        checked: Checked,
        now: Timestamp,
    ) -> Result<EnvelopeRecord> {
        let Checked {
            fields,
            pages,
            template,
            default_name,
            source,
            signers,
            data,
        } = checked;
        let more = match (&p.template, &p.file) {
            (None, None) if !p.files.is_empty() => &p.files[1..],
            _ => &p.files[..],
        };
        let has_signature_fields = fields.iter().any(|f| f.field.kind == FieldType::Signature);
        let original = match source {
            Source::Stored(file) => file,
            Source::Upload(up) => {
                let blob = ctx.new_id("blob_", "original");
                self.put_file_as(blob, &up.file_name, up.bytes).await?
            }
        };
        let mut more_documents = Vec::with_capacity(more.len());
        for (i, up) in more.iter().enumerate() {
            let blob = ctx.new_id("blob_", &format!("document{}", i + 2));
            more_documents.push(MoreDocument {
                original: self
                    .put_file_as(blob, &up.file_name, up.bytes.clone())
                    .await?,
                page_count: pages[i + 1].len() as u32,
                signed: None,
            });
        }
        Ok(EnvelopeRecord {
            id: ids::EnvelopeId::trusted(ctx.new_id(ids::ENVELOPE, "envelope")),
            account: ctx.account.clone(),
            mode: ctx.mode,
            version: 1,
            status: EnvelopeStatus::Draft,
            name: p.name.clone().unwrap_or(default_name),
            template,
            delivery: p.delivery,
            signing_order: p.signing_order,
            signers,
            cc: p
                .cc
                .iter()
                .enumerate()
                .map(|(i, c)| CcRecipient {
                    id: RecipientId::trusted(ctx.new_id(ids::RECIPIENT, &format!("cc{i}"))),
                    name: c.name.trim().to_string(),
                    email: c.email.trim().to_string(),
                })
                .collect(),
            metadata: p.metadata.clone(),
            void_reason: None,
            created_at: now,
            sent_at: None,
            completed_at: None,
            voided_at: None,
            expires_at: None,
            expires_in_days: p.expires_in_days,
            subject: p.subject.clone(),
            message: p.message.clone(),
            fields,
            data,
            signature_page: p.signature_page && !has_signature_fields,
            original,
            signed: None,
            audit_trail: None,
            page_count: Some(pages[0].len() as u32),
            more_documents,
            emails: vec![],
            files_deleted_at: None,
            seal: None,
            corrections: Vec::new(),
            bulk_send: None,
        })
    }

    /// The write of a create: the draft `rec` sent when `send` says so, its emails queued, its
    /// events recorded, all inserted in one store write with `debit`; then its emails' first
    /// attempts. A store's refusal is answered as is, with the envelope's ID, for the caller to
    /// interpret (a duplicate of a retried request, a bulk row made before a crash).
    pub(crate) async fn write_new_envelope(
        &self,
        mut rec: EnvelopeRecord,
        send: bool,
        debit: Option<&AllowanceDebit>,
        now: Timestamp,
    ) -> Result<std::result::Result<EnvelopeRecord, (EnvelopeId, crate::store::StoreError)>> {
        let mut kinds = vec![EventType::Created];
        if send {
            rules::send(&mut rec, now)?;
            mark_turns(&mut rec, now);
            kinds.push(EventType::Sent);
        }
        let emails = self.queue_emails(None, &mut rec, now);
        let events: Vec<_> = kinds
            .into_iter()
            .map(|k| super::events::record(&rec, k, None, now))
            .collect();
        if let Err(e) = self.inner.store.create_envelope(&rec, &events, debit).await {
            return Ok(Err((rec.id, e)));
        }
        self.dispatch_emails(&rec, emails);
        Ok(Ok(rec))
    }

    /// A debit for a live send, refused early when nothing is left (the store re-checks
    /// atomically).
    pub(crate) async fn allowance_debit(
        &self,
        ctx: &AuthContext,
        now: Timestamp,
    ) -> Result<AllowanceDebit> {
        let account = self
            .inner
            .store
            .get_account(&ctx.account.id)
            .await?
            .unwrap_or_else(|| ctx.account.clone());
        let (period, _, _) = period_of(now);
        let used = self.inner.store.usage(&account.id, &period).await?;
        if used >= account.monthly_allowance {
            return Err(Error::InsufficientBalance);
        }
        Ok(AllowanceDebit {
            account: account.id,
            period,
            allowance: account.monthly_allowance,
        })
    }

    /// `GET /envelopes/{id}`.
    pub async fn get_envelope(&self, ctx: &AuthContext, id: &EnvelopeId) -> Result<Envelope> {
        Ok(self.load_envelope(ctx, id).await?.view())
    }

    /// `GET /envelopes/{id}` as the JSON of [`Envelope`], the bytes `serde_json::to_vec` makes of
    /// [`SigningService::get_envelope`]'s answer. The JSON made from a record is kept by its
    /// version (`views.rs`): while the store's stamp shows that version, the answer is the kept
    /// bytes and no record is read.
    pub async fn get_envelope_json(&self, ctx: &AuthContext, id: &EnvelopeId) -> Result<Bytes> {
        Ok(self.get_envelope_json_versioned(ctx, id).await?.value)
    }

    /// [`SigningService::get_envelope_json`], with the version of the envelope the JSON shows
    /// (the version is known on both paths: no read beyond the stamp's is added).
    pub async fn get_envelope_json_versioned(
        &self,
        ctx: &AuthContext,
        id: &EnvelopeId,
    ) -> Result<Versioned<Bytes>> {
        let stamp = self
            .inner
            .store
            .envelope_stamp(&ctx.scope(), id)
            .await?
            .ok_or_else(|| Error::not_found("envelope", id))?;
        let due = rules::is_expired_at(stamp.status, stamp.expires_at, self.now());
        if !due && let Some(json) = self.inner.views.get(id, stamp.version) {
            return Ok(Versioned {
                value: json,
                version: stamp.version,
            });
        }
        let rec = self.load_envelope(ctx, id).await?;
        let json =
            Bytes::from(serde_json::to_vec(&rec.view()).map_err(|e| {
                Error::Internal(format!("envelope view serialization failed: {e}"))
            })?);
        self.inner.views.put(id, rec.version, json.clone());
        Ok(Versioned {
            value: json,
            version: rec.version,
        })
    }

    /// `GET /envelopes`: newest first, optionally only those made from `template`.
    pub async fn list_envelopes(
        &self,
        ctx: &AuthContext,
        list: &super::ListParams,
        template: Option<&str>,
    ) -> Result<List<Envelope>> {
        self.list_envelopes_filtered(ctx, list, template, None)
            .await
    }

    /// `GET /envelopes`: newest first, optionally only those made from `template` and those
    /// made by the bulk send `bulk_send` (extensions E12).
    pub async fn list_envelopes_filtered(
        &self,
        ctx: &AuthContext,
        list: &super::ListParams,
        template: Option<&str>,
        bulk_send: Option<&str>,
    ) -> Result<List<Envelope>> {
        // A filter that is not an ID of its kind names nothing: no envelope matches.
        let empty = || List::new("/v1/envelopes", Vec::new(), false);
        let Ok(template) = template.map(TemplateId::parse).transpose() else {
            return Ok(empty());
        };
        let Ok(bulk_send) = bulk_send.map(BulkSendId::parse).transpose() else {
            return Ok(empty());
        };
        let filter = EnvelopeFilter {
            template,
            bulk_send,
        };
        let (items, has_more) = paging::page(list, "envelope", async |page| {
            self.inner
                .store
                .list_envelopes(&ctx.scope(), &filter, page)
                .await
        })
        .await?;
        let mut out = Vec::with_capacity(items.len());
        for rec in items {
            let rec = self.settle_expiry(rec).await?;
            out.push(rec.view());
        }
        Ok(List::new("/v1/envelopes", out, has_more))
    }
}

enum Source {
    Stored(StoredFile),
    Upload(Upload),
}

/// Who makes a new envelope: its owner, and the origin its IDs are derived from (an
/// idempotency origin, or a bulk send's row); random IDs without one.
pub(crate) struct Maker<'a> {
    pub account: &'a AccountId,
    pub mode: Mode,
    pub origin: Option<&'a str>,
}

impl Maker<'_> {
    /// As [`AuthContext::new_id`].
    pub(crate) fn new_id(&self, prefix: &str, what: &str) -> String {
        match self.origin {
            Some(origin) => ids::derived_id(prefix, &format!("{origin}:{what}")),
            None => ids::new_id(prefix),
        }
    }
}

impl AuthContext {
    /// The maker of the envelopes this request creates.
    pub(crate) fn maker(&self) -> Maker<'_> {
        Maker {
            account: &self.account.id,
            mode: self.mode(),
            origin: self.idempotency_origin.as_deref(),
        }
    }
}

/// What the checks of a create found ([`SigningService::check_envelope`]), before anything is
/// written.
pub(crate) struct Checked {
    fields: Vec<PlacedField>,
    /// Each document's page sizes, in order.
    pages: Vec<Vec<pdf::PageSize>>,
    template: Option<TemplateId>,
    default_name: String,
    source: Source,
    /// The signers with their roles and orders.
    pub signers: Vec<SignerRecord>,
    data: BTreeMap<String, SignerValue>,
}

impl Checked {
    /// What the checks of a create from `template` found, for signers and data checked
    /// against it (a bulk send's row when its turn comes).
    pub(crate) fn of_template(
        template: &TemplateRecord,
        signers: Vec<SignerRecord>,
        data: BTreeMap<String, SignerValue>,
    ) -> Checked {
        Checked {
            fields: template.fields.clone(),
            pages: vec![
                template
                    .page_sizes
                    .iter()
                    .map(|&(width, height)| pdf::PageSize { width, height })
                    .collect(),
            ],
            template: Some(template.id.clone()),
            default_name: template.name.clone(),
            source: Source::Stored(template.file.clone()),
            signers,
            data,
        }
    }
}

/// The `template` error of a create: no such template, or one that is archived or was deleted.
pub(crate) fn template_missing(id: &str) -> Error {
    Error::NotFound {
        resource: "template",
        id: id.chars().take(80).collect(),
        param: Some("template".into()),
    }
}

/// Gives every signer a role and an order (decisions.md, "Envelopes"): `doc_roles` are the
/// document's roles in signing order, `by_role` whether the signers were keyed by role.
pub(crate) fn resolve_signers(
    signers: &[SignerParam],
    by_role: bool,
    doc_roles: &[String],
) -> Result<Vec<SignerRecord>> {
    let mut claimed: Vec<String> = Vec::new();
    for (i, s) in signers.iter().enumerate() {
        if let Some(r) = &s.role {
            if claimed.contains(r) {
                return Err(Error::invalid(
                    format!("signers.{i}.role"),
                    format!("the role '{r}' has another signer"),
                ));
            }
            claimed.push(r.clone());
        }
    }
    let mut free = doc_roles.iter().filter(|r| !claimed.contains(r));
    let mut out = Vec::with_capacity(signers.len());
    let mut used: Vec<String> = claimed.clone();
    for (i, s) in signers.iter().enumerate() {
        let role = match &s.role {
            Some(r) => r.clone(),
            None => match free.next() {
                Some(r) => r.clone(),
                None => {
                    let mut n = i + 1;
                    let mut name = format!("Signer {n}");
                    while used.contains(&name) {
                        n += 1;
                        name = format!("Signer {n}");
                    }
                    name
                }
            },
        };
        used.push(role.clone());
        let order = match (s.order, by_role) {
            (Some(o), _) => o,
            (None, true) => match doc_roles.iter().position(|r| *r == role) {
                Some(pos) => pos as u32 + 1,
                None => (doc_roles.len() + i) as u32 + 1,
            },
            (None, false) => i as u32 + 1,
        };
        out.push(SignerRecord {
            signer: Signer {
                id: ids::SignerId::new(),
                role,
                name: s.name.trim().to_string(),
                email: s.email.trim().to_string(),
                locale: s.locale.clone(),
                order,
                status: SignerStatus::Pending,
                viewed_at: None,
                signed_at: None,
                declined_at: None,
                decline_reason: None,
                auth: None,
                last_email: None,
                kind: s.kind,
                in_person: s.in_person.as_ref().map(|h| InPerson {
                    host_name: h.host_name.trim().to_string(),
                    host_email: h.host_email.trim().to_string(),
                }),
            },
            sent_at: None,
            last_reminded_at: None,
            consented_at: None,
            ip_address: None,
            user_agent: None,
            values: BTreeMap::new(),
            reassignments: vec![],
            identity: s.auth.as_ref().map(SignerAuth::to_record),
            links: Vec::new(),
            links_not_kept: Default::default(),
            acted_via: None,
            locks: Vec::new(),
            locks_not_kept: 0,
        });
    }
    Ok(out)
}

/// Every role with fields has a signer; every signer has a signature field or gets the page;
/// at most [`MAX_ATTACHMENT_FIELDS`](crate::field::MAX_ATTACHMENT_FIELDS) `attachment` fields.
pub(crate) fn check_coverage(
    fields: &[PlacedField],
    signers: &[SignerRecord],
    signature_page: bool,
) -> Result<()> {
    let max = crate::field::MAX_ATTACHMENT_FIELDS;
    if fields
        .iter()
        .filter(|f| f.field.kind == FieldType::Attachment)
        .count()
        > max
    {
        return Err(Error::invalid(
            "fields",
            format!("at most {max} attachment fields are allowed on one envelope"),
        ));
    }
    for f in fields {
        if let Some(r) = &f.field.role
            && !f.field.is_sender_field()
        {
            match signers.iter().position(|s| &s.signer.role == r) {
                None => return Err(Error::MissingSigner { role: r.clone() }),
                Some(i) if !signers[i].signer.kind.fills_fields() => {
                    let kind = signers[i].signer.kind.as_str();
                    return Err(Error::invalid(
                        format!("signers.{i}.kind"),
                        format!(
                            "the role '{r}' has fields, and fields cannot be assigned to an \
                             {kind}; give the role to a signer or remove its fields"
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
    }
    let has_signature_fields = fields.iter().any(|f| f.field.kind == FieldType::Signature);
    let page_applies = signature_page && !has_signature_fields;
    for (i, s) in signers.iter().enumerate() {
        // Approvers and viewers sign nothing (extensions E13).
        if !s.signer.kind.fills_fields() {
            continue;
        }
        let has_own = fields.iter().any(|f| {
            f.field.kind == FieldType::Signature && f.field.role.as_deref() == Some(&s.signer.role)
        });
        if !has_own && !page_applies {
            return Err(Error::SignerWithoutFields {
                index: i,
                role: s.signer.role.clone(),
            });
        }
    }
    Ok(())
}

/// Checks `data` against the sender fields: unknown names, types, required ones missing.
pub(crate) fn check_data(
    fields: &[PlacedField],
    data: &[(String, Value)],
) -> Result<BTreeMap<String, SignerValue>> {
    let sender: Vec<&Field> = fields
        .iter()
        .map(|f| &f.field)
        .filter(|f| f.is_sender_field())
        .collect();
    let unknown: Vec<String> = data
        .iter()
        .filter(|(k, _)| !sender.iter().any(|f| &f.key == k))
        .map(|(k, _)| k.clone())
        .collect();
    if !unknown.is_empty() {
        return Err(Error::UnknownDataFields { names: unknown });
    }
    let mut out = BTreeMap::new();
    for (k, v) in data {
        let f = sender.iter().find(|f| &f.key == k).expect("checked above");
        let param = format!("data.{k}");
        if f.formula.is_some() {
            return Err(Error::invalid(
                param,
                "is computed from its formula; leave it out",
            ));
        }
        let value = match (f.kind, v) {
            (FieldType::Checkbox, Value::Bool(b)) => SignerValue::Checkbox(*b),
            (FieldType::Checkbox, Value::String(s)) if s == "true" || s == "false" => {
                SignerValue::Checkbox(s == "true")
            }
            (FieldType::Checkbox, _) => {
                return Err(Error::invalid(param, "expected true or false"));
            }
            // Choices and numbers: the checks a signer's value gets (extensions E6).
            (FieldType::Radio | FieldType::Select | FieldType::Number, Value::String(s)) => {
                let given = SignerValue::Text(s.clone());
                match super::signing::values::check_field_value(&param, f, &given)? {
                    Some(v) => v,
                    None => continue,
                }
            }
            (_, Value::String(s)) if s.chars().count() <= 1000 => SignerValue::Text(s.clone()),
            (_, Value::String(_)) => {
                return Err(Error::invalid(param, "must be at most 1000 characters"));
            }
            (_, Value::Null) => continue,
            (_, _) => return Err(Error::invalid(param, "expected a string")),
        };
        out.insert(k.clone(), value);
    }
    // Computed sender fields (extensions E14) read sender fields only: known now.
    let computed: Vec<(&Field, _)> = {
        let lookup = |k: &str| out.get(k);
        let judge = super::signing::judge::Judge::computing(fields, &lookup);
        sender
            .iter()
            .filter_map(|f| judge.computed(f).map(|r| (*f, r)))
            .collect()
    };
    for (f, result) in computed {
        match result {
            Ok(d) => {
                out.insert(f.key.clone(), SignerValue::Text(d.to_string()));
            }
            Err(e) if f.required => {
                return Err(Error::invalid(format!("data.{}", f.key), e.to_string()));
            }
            Err(_) => {}
        }
    }
    let missing: Vec<String> = sender
        .iter()
        .filter(|f| f.required && f.formula.is_none() && !out.contains_key(&f.key))
        .map(|f| f.key.clone())
        .collect();
    if !missing.is_empty() {
        return Err(Error::MissingData { keys: missing });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn placed(kind: FieldType, role: Option<&str>, key: &str, required: bool) -> PlacedField {
        PlacedField {
            field: Field {
                key: key.into(),
                kind,
                role: role.map(Into::into),
                filled_by: role.unwrap_or("sender").into(),
                required,
                page: 1,
                x: 0.0,
                y: 0.0,
                width: 10.0,
                height: 10.0,
                document: 1,
                options: None,
                label: None,
                condition: None,
                formula: None,
            },
            source: FieldSource::Tag,
        }
    }

    fn params(signers: Value) -> CreateEnvelopeParams {
        let (signers, by_role) = parse_signers(&signers, &Limits::default()).unwrap();
        CreateEnvelopeParams {
            signers,
            signers_by_role: by_role,
            ..Default::default()
        }
    }

    #[test]
    fn list_signers_take_document_roles_then_signer_n() {
        let p = params(json!([
            {"name":"A","email":"a@x.io"},
            {"name":"B","email":"b@x.io","role":"Client"},
            {"name":"C","email":"c@x.io"},
            {"name":"D","email":"d@x.io"}
        ]));
        let s = resolve_signers(
            &p.signers,
            p.signers_by_role,
            &["Client".into(), "Witness".into()],
        )
        .unwrap();
        let roles: Vec<_> = s
            .iter()
            .map(|s| (s.signer.role.as_str(), s.signer.order))
            .collect();
        assert_eq!(
            roles,
            [
                ("Witness", 1),
                ("Client", 2),
                ("Signer 3", 3),
                ("Signer 4", 4)
            ]
        );
    }

    #[test]
    fn object_signers_take_template_role_order() {
        let p = params(
            json!({"Witness": {"name":"W","email":"w@x.io"}, "Client": {"name":"C","email":"c@x.io"}}),
        );
        let s = resolve_signers(
            &p.signers,
            p.signers_by_role,
            &["Client".into(), "Witness".into()],
        )
        .unwrap();
        let roles: Vec<_> = s
            .iter()
            .map(|s| (s.signer.role.as_str(), s.signer.order))
            .collect();
        assert_eq!(roles, [("Witness", 2), ("Client", 1)]);
    }

    #[test]
    fn duplicate_roles_are_refused() {
        let p = params(
            json!([{"name":"A","email":"a@x.io","role":"R"},{"name":"B","email":"b@x.io","role":"R"}]),
        );
        assert_eq!(
            resolve_signers(&p.signers, p.signers_by_role, &[])
                .unwrap_err()
                .param()
                .as_deref(),
            Some("signers.1.role")
        );
    }

    #[test]
    fn coverage_rules() {
        let p = params(json!([{"name":"A","email":"a@x.io","role":"Client"}]));
        let signers = resolve_signers(&p.signers, p.signers_by_role, &[]).unwrap();
        let witness = vec![placed(FieldType::Signature, Some("Witness"), "w", true)];
        assert_eq!(
            check_coverage(&witness, &signers, false)
                .unwrap_err()
                .code(),
            "missing_signer"
        );
        let none: Vec<PlacedField> = vec![];
        let e = check_coverage(&none, &signers, false).unwrap_err();
        assert_eq!(
            (e.code(), e.param().as_deref()),
            ("signer_without_fields", Some("signers.0"))
        );
        check_coverage(&none, &signers, true).unwrap();
        let date_only = vec![placed(FieldType::Date, Some("Client"), "d", true)];
        check_coverage(&date_only, &signers, true).unwrap();
        let other_sig = vec![placed(FieldType::Signature, Some("Client"), "s", true)];
        check_coverage(&other_sig, &signers, false).unwrap();
    }

    #[test]
    fn data_rules() {
        let fields = vec![
            placed(FieldType::Text, None, "start_date", true),
            placed(FieldType::Checkbox, None, "rush", false),
            placed(FieldType::Signature, Some("Client"), "sig", true),
        ];
        let e = check_data(&fields, &[("nope".into(), json!("x"))]).unwrap_err();
        assert_eq!(
            (e.code(), e.param().as_deref()),
            ("unknown_data_fields", Some("data.nope"))
        );
        let e = check_data(&fields, &[("sig".into(), json!("x"))]).unwrap_err();
        assert_eq!(
            e.code(),
            "unknown_data_fields",
            "signer fields are not data"
        );
        let e = check_data(&fields, &[]).unwrap_err();
        match e {
            Error::MissingData { keys } => assert_eq!(keys, ["start_date"]),
            other => panic!("{other:?}"),
        }
        let e = check_data(&fields, &[("start_date".into(), json!(5))]).unwrap_err();
        assert_eq!(e.param().as_deref(), Some("data.start_date"));
        let ok = check_data(
            &fields,
            &[
                ("start_date".into(), json!("2027-01-01")),
                ("rush".into(), json!(true)),
            ],
        )
        .unwrap();
        assert_eq!(ok["rush"], SignerValue::Checkbox(true));
    }

    #[test]
    fn too_many_signers() {
        let many: Vec<Value> = (0..11)
            .map(|i| json!({"name":"N","email":format!("n{i}@x.io")}))
            .collect();
        let e = parse_signers(&Value::Array(many), &Limits::default()).unwrap_err();
        assert_eq!(e.code(), "too_many_signers");
    }
}
