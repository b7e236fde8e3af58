//! What a signer may submit, checked the moment it arrives.
//!
//! The rule this module keeps: a submission it accepts can always be stamped and recorded, so
//! nothing a signer sends can make the envelope's completion fail later. Each value must fit its
//! field's type; typed text must be drawable by the stamping fonts
//! ([`pdf::check_drawable`]); a drawing must decode within [`pdf::DrawingLimits::SUBMITTED`] and
//! is stored as the service's own re-encoding ([`pdf::normalize_drawing`]), never as sent.
//! What is recorded rather than refused (the client's address and user agent, a decline reason)
//! is cleaned instead, so declining or signing never fails on it.
//!
//! Messages are the service's own plain words; they never quote a dependency's error.

use std::collections::BTreeMap;

use base64::Engine;

use super::SignInput;
use super::judge::Judge;
use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::field::{self, Field, FieldType, PlacedField};
use crate::formula::{Decimal, EvalError};
use crate::model::{AttachedFile, EnvelopeRecord, SignerKind, SignerValue};
use crate::pdf;

/// Key under which a signer's signature for the appended signature page is kept.
pub(in crate::service) const SIGNATURE_PAGE_KEY: &str = "$signature_page";
/// Longest typed signature or initials, in characters.
pub(in crate::service) const MAX_TYPED: usize = 200;
/// Longest text field value, in characters.
const MAX_TEXT: usize = 1000;
/// Longest decline reason, in characters.
pub(in crate::service) const MAX_REASON: usize = 1000;
const MAX_IP: usize = 64;
const MAX_USER_AGENT: usize = 512;

/// The date a date field gets when its signer signs at `now`.
pub(in crate::service) fn signing_date(now: Timestamp) -> String {
    now.datetime().format("%Y-%m-%d").to_string()
}

/// Checks a signer's submission against their fields: every key is theirs, every value fits its
/// field, required ones are present. Returns the values to store (dates are the signing date,
/// drawings re-encoded).
///
/// The signer's files come already checked and described (`attached`, by field key; extensions
/// E14): each is kept as its field's value. A value in `input.values` for an `attachment` field
/// is refused: files come only through `attached`.
pub(in crate::service) fn checked_values(
    rec: &EnvelopeRecord,
    i: usize,
    input: &SignInput,
    attached: &BTreeMap<String, AttachedFile>,
    now: Timestamp,
) -> Result<BTreeMap<String, SignerValue>> {
    if !input.consent {
        return Err(Error::ParameterMissing {
            param: "consent".into(),
        });
    }
    let role = &rec.signers[i].signer.role;
    let fields: Vec<&Field> = rec
        .fields
        .iter()
        .map(|f| &f.field)
        .filter(|f| f.role.as_ref() == Some(role) && !f.is_sender_field())
        .collect();
    if let Some(k) = input
        .values
        .keys()
        .chain(attached.keys())
        .find(|k| !fields.iter().any(|f| &f.key == *k))
    {
        return Err(Error::ParameterUnknown {
            param: format!("values.{}", shown_key(k)),
        });
    }
    if let Some(f) = fields
        .iter()
        .find(|f| f.formula.is_some() && input.values.contains_key(&f.key))
    {
        return Err(Error::invalid(
            format!("values.{}", f.key),
            "is computed from its formula; leave it out",
        ));
    }
    let mut out = BTreeMap::new();
    for f in fields.iter().filter(|f| f.formula.is_none()) {
        let param = format!("values.{}", f.key);
        let v = value_of(f.kind, f.options.as_deref(), input.values.get(&f.key), now)
            .map_err(|p| Error::invalid(&param, p))?;
        if let Some(v) = v {
            out.insert(f.key.clone(), v);
        }
        // Files come checked by `prepare_attachments`, which also refuses a file for a field
        // of another type.
        if let Some(a) = attached.get(&f.key) {
            out.insert(f.key.clone(), SignerValue::Attachment(a.clone()));
        }
    }
    // Formulas and conditions (extensions E14), judged here whatever the page showed: a
    // computed field gets the formula's value; a field whose condition does not hold is neither
    // required nor kept (so never stamped).
    let judged: Vec<(bool, Option<std::result::Result<Decimal, EvalError>>)> = {
        let lookup = |k: &str| {
            out.get(k)
                .or_else(|| rec.data.get(k))
                .or_else(|| rec.signers.iter().find_map(|s| s.values.get(k)))
        };
        let judge = Judge::computing(&rec.fields, &lookup);
        fields
            .iter()
            .map(|f| (judge.applies(f), judge.computed(f)))
            .collect()
    };
    for (f, (applies, computed)) in fields.iter().zip(judged) {
        if !applies {
            out.remove(&f.key);
            continue;
        }
        match computed {
            Some(Ok(d)) => {
                out.insert(f.key.clone(), SignerValue::Text(d.to_string()));
            }
            Some(Err(e)) if f.required => {
                return Err(Error::invalid(format!("values.{}", f.key), e.to_string()));
            }
            Some(Err(_)) | None => {}
        }
        let missing = match out.get(&f.key) {
            None => true,
            Some(SignerValue::Checkbox(b)) => !b,
            Some(_) => false,
        };
        if f.required && missing && f.formula.is_none() {
            return Err(Error::missing(format!("values.{}", f.key)));
        }
    }
    // Approvers and viewers sign nothing, the signature page included (extensions E13).
    if rec.signature_page && rec.signers[i].signer.kind == SignerKind::Signer {
        let v = input
            .signature
            .as_ref()
            .ok_or_else(|| Error::missing("signature"))?;
        out.insert(SIGNATURE_PAGE_KEY.into(), check_mark("signature", v)?);
    }
    Ok(out)
}

/// Whether `f` applies (extensions E14) over stored values: it has no condition, or its
/// condition holds over the values `value` gives, where the field a condition reads counts as
/// empty while it does not apply itself ([`Judge`]).
pub(crate) fn applies<'a>(
    all: &'a [PlacedField],
    f: &Field,
    value: &'a super::judge::Lookup<'a>,
) -> bool {
    Judge::stored(all, value).applies(f)
}

/// An unknown key as the error names it: short keys as given, anything long or odd cut, so that
/// an error never echoes a megabyte or a control character back.
pub(super) fn shown_key(k: &str) -> String {
    if k.chars().count() <= 100 && pdf::check_drawable(k).is_ok() {
        return k.to_string();
    }
    let mut cut = pdf::keep_drawable(k, 40);
    cut.push('…');
    cut
}

/// Why a signer's value was refused: typed, so that a signing page can say it in the signer's
/// language (extensions E4). Its `Display` is the English sentence of the API's error message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValueProblem {
    /// Typed text that is empty or only spaces.
    Empty,
    /// Longer than `max` characters.
    TooLong {
        /// The most characters the value may have.
        max: usize,
    },
    /// Typed text with control characters.
    ControlCharacters,
    /// A character the stamping fonts cannot draw, or that must not be in a one-line value.
    Character(pdf::Undrawable),
    /// A drawing that could not be read and re-encoded within [`DrawingLimits::SUBMITTED`], or
    /// that is blank.
    ///
    /// [`DrawingLimits::SUBMITTED`]: crate::service::DrawingLimits::SUBMITTED
    Drawing(pdf::DrawingError),
    /// A drawing that is not base64.
    DrawingNotBase64,
    /// A date field's value that is not `YYYY-MM-DD`.
    DateFormat,
    /// A value of another kind than the field's (a check box value for a text field...).
    WrongKind(&'static str),
    /// A `radio` or `select` value that is not one of the field's options.
    NotAnOption,
    /// A `number` value that is not a plain decimal of at most 40 characters
    /// ([`field::parse_number`]).
    NotANumber,
    /// An `attachment` field's file that was refused (extensions E14).
    Attachment(pdf::AttachmentError),
    /// A value for an `attachment` field given as text or a mark: files come as uploads.
    NotAFile,
}

impl std::fmt::Display for ValueProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ValueProblem::Empty => f.write_str("must not be empty"),
            ValueProblem::TooLong { max } => write!(f, "must be at most {max} characters"),
            ValueProblem::ControlCharacters => f.write_str("must not contain control characters"),
            ValueProblem::Character(u) => u.fmt(f),
            ValueProblem::Drawing(d) => d.fmt(f),
            ValueProblem::DrawingNotBase64 => f.write_str("the drawing is not valid base64"),
            ValueProblem::DateFormat => {
                f.write_str("expected a date as YYYY-MM-DD (date fields get the signing date)")
            }
            ValueProblem::WrongKind(what) => f.write_str(what),
            ValueProblem::NotAnOption => f.write_str("must be one of the field's options"),
            ValueProblem::NotANumber => write!(
                f,
                "expected a number such as 12 or -3.50 (at most {} characters)",
                field::MAX_NUMBER_CHARS
            ),
            ValueProblem::Attachment(e) => e.fmt(f),
            ValueProblem::NotAFile => {
                f.write_str("expected a file (a PDF, PNG or JPEG), sent as an upload")
            }
        }
    }
}

/// Why `value` would be refused for a field of type `kind`, if it would: the check a submission
/// gets, for a page that wants to explain a `parameter_invalid` in its own words. For `radio`
/// and `select` fields use [`field_value_problem`], which knows the options.
pub fn value_problem(kind: FieldType, value: &SignerValue) -> Option<ValueProblem> {
    value_of(kind, None, Some(value), Timestamp::from_millis(0)?).err()
}

/// Why `value` would be refused for `field`, if it would (its options included).
pub fn field_value_problem(field: &Field, value: &SignerValue) -> Option<ValueProblem> {
    value_of(
        field.kind,
        field.options.as_deref(),
        Some(value),
        Timestamp::from_millis(0)?,
    )
    .err()
}

/// A value the sender or the test helper gives a field, checked as a signer's would be: `None`
/// when it is empty.
/// Not for dates, which take the signing date.
pub(in crate::service) fn check_field_value(
    param: &str,
    field: &Field,
    v: &SignerValue,
) -> Result<Option<SignerValue>> {
    let epoch = Timestamp::from_millis(0).ok_or_else(|| Error::Internal("no epoch".into()))?;
    value_of(field.kind, field.options.as_deref(), Some(v), epoch)
        .map_err(|p| Error::invalid(param, p))
}

/// One field's value: `None` when it is absent or empty.
#[cfg(test)]
fn check_value(
    param: &str,
    kind: FieldType,
    v: Option<&SignerValue>,
    now: Timestamp,
) -> Result<Option<SignerValue>> {
    value_of(kind, None, v, now).map_err(|p| Error::invalid(param, p))
}

/// One field's value: `None` when it is absent or empty. `options` are a `radio` or `select`
/// field's; a choice field without them takes no value.
fn value_of(
    kind: FieldType,
    options: Option<&[String]>,
    v: Option<&SignerValue>,
    now: Timestamp,
) -> std::result::Result<Option<SignerValue>, ValueProblem> {
    Ok(match (kind, v) {
        // The service fills dates; a value sent along must at least be a date.
        (FieldType::Date, None) => Some(SignerValue::Text(signing_date(now))),
        (FieldType::Date, Some(SignerValue::Text(t)))
            if chrono::NaiveDate::parse_from_str(t.trim(), "%Y-%m-%d").is_ok() =>
        {
            Some(SignerValue::Text(signing_date(now)))
        }
        (FieldType::Date, Some(_)) => return Err(ValueProblem::DateFormat),
        (_, None) => None,
        (FieldType::Signature | FieldType::Initials, Some(v)) => Some(mark(v)?),
        (FieldType::Text, Some(SignerValue::Text(t))) if t.trim().is_empty() => None,
        (FieldType::Text, Some(SignerValue::Text(t))) => {
            if t.chars().count() > MAX_TEXT {
                return Err(ValueProblem::TooLong { max: MAX_TEXT });
            }
            pdf::check_drawable(t).map_err(ValueProblem::Character)?;
            Some(SignerValue::Text(t.clone()))
        }
        (FieldType::Text, Some(_)) => return Err(ValueProblem::WrongKind("expected text")),
        (FieldType::Checkbox, Some(SignerValue::Checkbox(b))) => Some(SignerValue::Checkbox(*b)),
        (FieldType::Checkbox, Some(_)) => {
            return Err(ValueProblem::WrongKind("expected true or false"));
        }
        (FieldType::Radio | FieldType::Select, Some(SignerValue::Text(t))) if t.is_empty() => None,
        (FieldType::Radio | FieldType::Select, Some(SignerValue::Text(t))) => {
            // Options are drawable (checked when the field was made), so a value equal to one
            // is too.
            if !options.unwrap_or_default().iter().any(|o| o == t) {
                return Err(ValueProblem::NotAnOption);
            }
            Some(SignerValue::Text(t.clone()))
        }
        (FieldType::Radio | FieldType::Select, Some(_)) => {
            return Err(ValueProblem::WrongKind(
                "expected one of the field's options",
            ));
        }
        (FieldType::Number, Some(SignerValue::Text(t))) if t.trim().is_empty() => None,
        (FieldType::Number, Some(SignerValue::Text(t))) => {
            let n = field::parse_number(t).ok_or(ValueProblem::NotANumber)?;
            Some(SignerValue::Text(n.to_string()))
        }
        (FieldType::Number, Some(_)) => return Err(ValueProblem::NotANumber),
        // Files come checked and stored through `attachments` (`checked_values`), never
        // as a value: a value naming a blob would be a way to claim someone else's bytes.
        (FieldType::Attachment, Some(_)) => return Err(ValueProblem::NotAFile),
    })
}

/// A signature or initials: typed text the fonts can draw, or a drawn PNG (base64), returned
/// re-encoded.
pub(in crate::service) fn check_mark(param: &str, v: &SignerValue) -> Result<SignerValue> {
    mark(v).map_err(|p| Error::invalid(param, p))
}

fn mark(v: &SignerValue) -> std::result::Result<SignerValue, ValueProblem> {
    match v {
        SignerValue::Typed(t) => {
            // The checks of `params::check_text`, in its order, then drawability.
            if t.trim().is_empty() {
                return Err(ValueProblem::Empty);
            }
            if t.chars().count() > MAX_TYPED {
                return Err(ValueProblem::TooLong { max: MAX_TYPED });
            }
            if t.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
                return Err(ValueProblem::ControlCharacters);
            }
            let t = t.trim();
            pdf::check_drawable(t).map_err(ValueProblem::Character)?;
            Ok(SignerValue::Typed(t.to_string()))
        }
        SignerValue::Drawn(b64) => {
            let max = pdf::DrawingLimits::SUBMITTED.max_bytes;
            // Base64 needs 4 characters per 3 bytes; anything longer is too large before decoding.
            if b64.len() > max.div_ceil(3) * 4 {
                return Err(ValueProblem::Drawing(pdf::DrawingError::TooManyBytes {
                    max,
                }));
            }
            let engine = base64::engine::general_purpose::STANDARD;
            let bytes = engine
                .decode(b64.trim())
                .map_err(|_| ValueProblem::DrawingNotBase64)?;
            let png = pdf::normalize_drawing(&bytes).map_err(ValueProblem::Drawing)?;
            Ok(SignerValue::Drawn(engine.encode(png)))
        }
        _ => Err(ValueProblem::WrongKind(
            "expected a typed or drawn signature",
        )),
    }
}

/// The client's address and user agent as recorded for the audit trail: cut to length, with
/// line breaks, direction overrides and characters the fonts lack removed. `None` when nothing
/// is left.
pub(in crate::service) fn recorded_client(
    ip: Option<&str>,
    user_agent: Option<&str>,
) -> (Option<String>, Option<String>) {
    let clean = |s: Option<&str>, max| {
        s.map(|s| pdf::keep_drawable(s, max).trim().to_string())
            .filter(|s| !s.is_empty())
    };
    (clean(ip, MAX_IP), clean(user_agent, MAX_USER_AGENT))
}

/// A decline reason as recorded: at most [`MAX_REASON`] characters (more is refused), line
/// breaks kept as `\n`, other control and invisible formatting characters dropped. Other
/// characters stay as written: the reason is the signer's words, and the audit trail shows what
/// its font lacks as code points.
pub(in crate::service) fn recorded_reason(reason: Option<&str>) -> Result<Option<String>> {
    let Some(r) = reason else { return Ok(None) };
    if r.chars().count() > MAX_REASON {
        return Err(Error::invalid(
            "reason",
            format!("must be at most {MAX_REASON} characters"),
        ));
    }
    let cleaned: String = r
        .replace("\r\n", "\n")
        .chars()
        .filter_map(|c| match pdf::check_char(c) {
            Err(pdf::Undrawable::Control(_)) if c == '\n' => Some('\n'),
            Err(pdf::Undrawable::Control(_)) if c.is_whitespace() => Some(' '),
            Err(pdf::Undrawable::Control(_) | pdf::Undrawable::Invisible(_)) => None,
            _ => Some(c),
        })
        .collect();
    Ok(Some(cleaned.trim().to_string()).filter(|r| !r.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::{Condition, ConditionValue};
    use crate::service::signing::judge::holds;

    fn now() -> Timestamp {
        Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap()
    }

    fn placed(key: &str, condition: Option<Condition>) -> PlacedField {
        PlacedField {
            field: Field {
                key: key.into(),
                kind: FieldType::Text,
                role: Some("Client".into()),
                filled_by: "Client".into(),
                required: true,
                page: 1,
                x: 0.0,
                y: 0.0,
                width: 10.0,
                height: 10.0,
                document: 1,
                options: None,
                label: None,
                condition,
                formula: None,
            },
            source: field::FieldSource::Explicit,
        }
    }

    fn when(
        field: &str,
        equals: Option<ConditionValue>,
        filled: Option<bool>,
    ) -> Option<Condition> {
        Some(Condition {
            field: field.into(),
            equals,
            filled,
        })
    }

    #[test]
    fn conditions_hold_on_values_and_follow_chains() {
        let text = |s: &str| SignerValue::Text(s.into());
        let eq = |s: &str| Some(ConditionValue::Text(s.into()));
        // equals: trimmed text; a check box by its state, an absent one counting as unticked.
        let c = when("a", eq("No"), None).unwrap();
        assert!(holds(&c, Some(&text(" No "))));
        assert!(!holds(&c, Some(&text("no"))) && !holds(&c, None));
        let ticked = when("t", Some(ConditionValue::Bool(true)), None).unwrap();
        let unticked = when("t", Some(ConditionValue::Bool(false)), None).unwrap();
        assert!(holds(&ticked, Some(&SignerValue::Checkbox(true))));
        assert!(!holds(&ticked, None));
        assert!(holds(&unticked, None) && holds(&unticked, Some(&SignerValue::Checkbox(false))));
        // filled: a blank text is empty.
        let filled = when("w", None, Some(true)).unwrap();
        assert!(!holds(&filled, Some(&text("  "))) && holds(&filled, Some(&text("x"))));
        let empty = when("w", None, Some(false)).unwrap();
        assert!(holds(&empty, None));

        // c shows when b is filled, b when a is No: b's value counts only while b applies.
        let all = vec![
            placed("a", None),
            placed("b", when("a", eq("No"), None)),
            placed("c", when("b", None, Some(true))),
        ];
        let values = |a: &str, b: &str| {
            let map: BTreeMap<String, SignerValue> =
                [("a".to_string(), text(a)), ("b".to_string(), text(b))].into();
            move |k: &str| map.get(k).cloned()
        };
        let check = |a: &str, b: &str| {
            let v = values(a, b);
            let owned: Vec<Option<SignerValue>> = ["a", "b", "c"].iter().map(|k| v(k)).collect();
            let lookup = |k: &str| match k {
                "a" => owned[0].as_ref(),
                "b" => owned[1].as_ref(),
                _ => owned[2].as_ref(),
            };
            all.iter()
                .map(|f| applies(&all, &f.field, &lookup))
                .collect::<Vec<_>>()
        };
        assert_eq!(check("No", "because"), [true, true, true]);
        assert_eq!(
            check("Yes", "because"),
            [true, false, false],
            "b left over from No"
        );
        assert_eq!(check("No", ""), [true, true, false]);
    }

    #[test]
    fn each_type_takes_only_its_values() {
        let t = |s: &str| Some(SignerValue::Text(s.into()));
        let ok: &[(FieldType, Option<SignerValue>, Option<SignerValue>)] = &[
            (FieldType::Date, None, t("2027-03-10")),
            (FieldType::Date, t("1999-01-01"), t("2027-03-10")),
            (FieldType::Text, t("  "), None),
            (FieldType::Text, t("Zoë's Bakery"), t("Zoë's Bakery")),
            (
                FieldType::Checkbox,
                Some(SignerValue::Checkbox(false)),
                Some(SignerValue::Checkbox(false)),
            ),
            (
                FieldType::Initials,
                Some(SignerValue::Typed(" ZC ".into())),
                Some(SignerValue::Typed("ZC".into())),
            ),
        ];
        for (kind, given, want) in ok {
            assert_eq!(
                &check_value("values.k", *kind, given.as_ref(), now()).unwrap(),
                want,
                "{kind:?} {given:?}"
            );
        }
        let refused: &[(FieldType, SignerValue, &str)] = &[
            (
                FieldType::Date,
                SignerValue::Text("10/03/2027".into()),
                "YYYY-MM-DD",
            ),
            (FieldType::Date, SignerValue::Checkbox(true), "YYYY-MM-DD"),
            (
                FieldType::Text,
                SignerValue::Checkbox(true),
                "expected text",
            ),
            (
                FieldType::Text,
                SignerValue::Text("x".repeat(1001)),
                "at most 1000",
            ),
            (
                FieldType::Text,
                SignerValue::Text("a\u{0}b".into()),
                "U+0000",
            ),
            (
                FieldType::Text,
                SignerValue::Text("ok\u{202E}".into()),
                "U+202E",
            ),
            (
                FieldType::Checkbox,
                SignerValue::Text("true".into()),
                "true or false",
            ),
            (
                FieldType::Signature,
                SignerValue::Text("Ada".into()),
                "typed or drawn",
            ),
            (
                FieldType::Signature,
                SignerValue::Typed("\u{1F680}".into()),
                "U+1F680",
            ),
            (
                FieldType::Signature,
                SignerValue::Typed("Ada\nL".into()),
                "U+000A",
            ),
            (
                FieldType::Signature,
                SignerValue::Typed("x".repeat(201)),
                "at most 200",
            ),
            (
                FieldType::Signature,
                SignerValue::Drawn("%%%".into()),
                "not valid base64",
            ),
            (
                FieldType::Signature,
                SignerValue::Drawn("iVBORw0KGgoAAAANSnVua2p1bmtqdW5r".into()),
                "not a readable PNG image",
            ),
            (
                FieldType::Signature,
                SignerValue::Drawn("A".repeat(800_000)),
                "at most 512 KB",
            ),
        ];
        for (kind, given, needle) in refused {
            let e = check_value("values.k", *kind, Some(given), now()).unwrap_err();
            let msg = e.to_string();
            assert!(
                e.code() == "parameter_invalid" && msg.contains(needle) && !msg.contains('{'),
                "{kind:?}: {msg}"
            );
        }
    }

    #[test]
    fn recorded_strings_are_cleaned_not_refused() {
        assert_eq!(
            recorded_client(Some(" 203.0.113.7\n"), Some("A\u{202E}B\r\nC \u{1F680}")),
            (Some("203.0.113.7".into()), Some("AB  C".into()))
        );
        assert_eq!(recorded_client(Some("\u{0}"), None), (None, None));
        assert_eq!(
            recorded_reason(Some("Wrong\r\naddress\u{202E}\t李雷")).unwrap(),
            Some("Wrong\naddress 李雷".into())
        );
        assert_eq!(recorded_reason(Some(" \u{200B} ")).unwrap(), None);
        assert!(recorded_reason(Some(&"x".repeat(1001))).is_err());
    }

    #[test]
    fn unknown_keys_are_named_briefly() {
        assert_eq!(shown_key("Client_extra"), "Client_extra");
        let long = shown_key(&"k".repeat(10_000));
        assert_eq!(long.chars().count(), 41);
        assert_eq!(shown_key("a\u{0}b"), "ab…");
    }
}

#[cfg(test)]
mod problem_tests {
    use super::*;

    #[test]
    fn each_refused_value_has_its_problem_and_the_same_english_words() {
        let typed = |s: &str| SignerValue::Typed(s.into());
        let cases: Vec<(FieldType, SignerValue, ValueProblem, &str)> = vec![
            (
                FieldType::Signature,
                typed("  "),
                ValueProblem::Empty,
                "must not be empty",
            ),
            (
                FieldType::Initials,
                typed(&"x".repeat(MAX_TYPED + 1)),
                ValueProblem::TooLong { max: MAX_TYPED },
                "must be at most 200 characters",
            ),
            (
                FieldType::Signature,
                typed("a\u{7}b"),
                ValueProblem::ControlCharacters,
                "must not contain control characters",
            ),
            (
                FieldType::Signature,
                typed("\u{1F680}"),
                ValueProblem::Character(pdf::Undrawable::NoGlyph('\u{1F680}')),
                "contains a character the document's fonts cannot draw (U+1F680)",
            ),
            (
                FieldType::Text,
                SignerValue::Text("x".repeat(MAX_TEXT + 1)),
                ValueProblem::TooLong { max: MAX_TEXT },
                "must be at most 1000 characters",
            ),
            (
                FieldType::Signature,
                SignerValue::Drawn("not base64!".into()),
                ValueProblem::DrawingNotBase64,
                "the drawing is not valid base64",
            ),
            (
                FieldType::Signature,
                SignerValue::Drawn("bm90IGEgcG5n".into()),
                ValueProblem::Drawing(pdf::DrawingError::Unreadable),
                "the drawing is not a readable PNG image",
            ),
            (
                FieldType::Date,
                SignerValue::Text("15.03.2027".into()),
                ValueProblem::DateFormat,
                "expected a date as YYYY-MM-DD (date fields get the signing date)",
            ),
            (
                FieldType::Checkbox,
                typed("yes"),
                ValueProblem::WrongKind("expected true or false"),
                "expected true or false",
            ),
        ];
        for (kind, value, problem, english) in cases {
            assert_eq!(
                value_problem(kind, &value),
                Some(problem.clone()),
                "{value:?}"
            );
            assert_eq!(problem.to_string(), english);
            let e = check_value(
                "values.k",
                kind,
                Some(&value),
                Timestamp::from_millis(0).unwrap(),
            )
            .unwrap_err();
            assert_eq!(e.to_string(), format!("Invalid values.k: {english}"));
        }
        assert_eq!(value_problem(FieldType::Signature, &typed("Zoë")), None);
    }

    #[test]
    fn choices_and_numbers_take_only_their_values() {
        let field = |kind, options: Option<&[&str]>| Field {
            key: "k".into(),
            kind,
            role: Some("A".into()),
            filled_by: "A".into(),
            required: true,
            page: 1,
            x: 0.0,
            y: 0.0,
            width: 1.0,
            height: 1.0,
            document: 1,
            options: options.map(|o| o.iter().map(|s| s.to_string()).collect()),
            label: None,
            condition: None,
            formula: None,
        };
        let plans = field(FieldType::Radio, Some(&["basic", "pro", "enterprise"]));
        let colors = field(FieldType::Select, Some(&["r", "g", "b"]));
        let number = field(FieldType::Number, None);
        let t = |s: &str| SignerValue::Text(s.into());
        let accepted: &[(&Field, SignerValue, Option<SignerValue>)] = &[
            (&plans, t("pro"), Some(t("pro"))),
            (&colors, t("b"), Some(t("b"))),
            (&colors, t(""), None),
            (&number, t(" -12.50 "), Some(t("-12.50"))),
            (&number, t("  "), None),
        ];
        for (f, given, want) in accepted {
            let got = value_of(
                f.kind,
                f.options.as_deref(),
                Some(given),
                Timestamp::from_millis(0).unwrap(),
            );
            assert_eq!(&got.unwrap(), want, "{:?} {given:?}", f.kind);
            assert_eq!(field_value_problem(f, given), None);
        }
        let refused: &[(&Field, SignerValue, ValueProblem)] = &[
            (&plans, t("Pro"), ValueProblem::NotAnOption),
            (&plans, t(" pro"), ValueProblem::NotAnOption),
            (&colors, t("red"), ValueProblem::NotAnOption),
            (
                &colors,
                SignerValue::Checkbox(true),
                ValueProblem::WrongKind("expected one of the field's options"),
            ),
            (&number, t("1e3"), ValueProblem::NotANumber),
            (&number, t("12,5"), ValueProblem::NotANumber),
            (&number, t(&"9".repeat(41)), ValueProblem::NotANumber),
            (
                &number,
                SignerValue::Checkbox(true),
                ValueProblem::NotANumber,
            ),
        ];
        for (f, given, problem) in refused {
            assert_eq!(
                field_value_problem(f, given).as_ref(),
                Some(problem),
                "{given:?}"
            );
            let e = check_field_value("data.k", f, given).unwrap_err();
            assert_eq!(e.param().as_deref(), Some("data.k"));
        }
        // A choice field without options (never made so) takes nothing.
        let bare = field(FieldType::Select, None);
        assert_eq!(
            field_value_problem(&bare, &t("r")),
            Some(ValueProblem::NotAnOption)
        );
    }
}
