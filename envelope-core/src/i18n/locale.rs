//! A signer's locale: a well-formed BCP 47 language tag, kept as given.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::Lang;

/// Characters a locale may have: far above any real tag (`zh-Hant-TW` is 10), and the bound of
/// what an API error or the audit trail may echo.
pub const MAX_LOCALE_CHARS: usize = 64;

/// A BCP 47 language tag (RFC 5646 `langtag`: `de`, `pt-BR`, `fr-CA`, `zh-Hant-TW`,
/// `de-CH-1996`, `en-US-u-ca-gregory`), well-formed and kept as the caller wrote it. Any
/// well-formed tag is accepted; the language it is served in is [`Locale::lang`], English for
/// tags outside the supported set.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Locale(String);

/// Why a string is not a [`Locale`]: a plain sentence for the API's `parameter_invalid`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be a BCP 47 language tag such as de, pt-BR or fr-CA")]
pub struct InvalidLocale;

impl Locale {
    /// Checks that `tag` is a well-formed language tag (case-insensitive, as RFC 5646 says).
    pub fn parse(tag: &str) -> Result<Locale, InvalidLocale> {
        if tag.len() > MAX_LOCALE_CHARS || !well_formed(tag) {
            return Err(InvalidLocale);
        }
        Ok(Locale(tag.to_string()))
    }

    /// The tag as given.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The language this tag is served in: its primary language when supported (`pt-BR` ->
    /// Portuguese), else English.
    pub fn lang(&self) -> Lang {
        Lang::of_tag(&self.0).unwrap_or(Lang::En)
    }
}

impl fmt::Display for Locale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for Locale {
    type Err = InvalidLocale;
    fn from_str(s: &str) -> Result<Locale, InvalidLocale> {
        Locale::parse(s)
    }
}

impl TryFrom<String> for Locale {
    type Error = InvalidLocale;
    fn try_from(s: String) -> Result<Locale, InvalidLocale> {
        Locale::parse(&s)
    }
}

impl From<Locale> for String {
    fn from(l: Locale) -> String {
        l.0
    }
}

fn alpha(s: &str, len: std::ops::RangeInclusive<usize>) -> bool {
    len.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphabetic())
}

fn alnum(s: &str, len: std::ops::RangeInclusive<usize>) -> bool {
    len.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// RFC 5646's `langtag` production (section 2.1); private-use-only and grandfathered tags are
/// not taken (a signer's locale names a language).
fn well_formed(tag: &str) -> bool {
    let subtags: Vec<&str> = tag.split('-').collect();
    let mut i = 0;
    let at = |i: usize| subtags.get(i).copied();
    // language: 2*3ALPHA ["-" extlang] / 4ALPHA / 5*8ALPHA
    match at(i) {
        Some(l) if alpha(l, 2..=3) => {
            i += 1;
            // extlang: up to three 3ALPHA subtags
            let mut ext = 0;
            while ext < 3 && at(i).is_some_and(|s| alpha(s, 3..=3)) {
                i += 1;
                ext += 1;
            }
        }
        Some(l) if alpha(l, 4..=8) => i += 1,
        _ => return false,
    }
    // script: 4ALPHA
    if at(i).is_some_and(|s| alpha(s, 4..=4)) {
        i += 1;
    }
    // region: 2ALPHA / 3DIGIT
    if at(i)
        .is_some_and(|s| alpha(s, 2..=2) || (s.len() == 3 && s.bytes().all(|b| b.is_ascii_digit())))
    {
        i += 1;
    }
    // variants: 5*8alphanum / DIGIT 3alphanum
    while at(i).is_some_and(|s| {
        alnum(s, 5..=8) || (s.len() == 4 && s.as_bytes()[0].is_ascii_digit() && alnum(s, 4..=4))
    }) {
        i += 1;
    }
    // extensions: singleton 1*("-" 2*8alphanum), singleton not x
    while let Some(s) = at(i) {
        if s.len() != 1 || !alnum(s, 1..=1) || s.eq_ignore_ascii_case("x") {
            break;
        }
        i += 1;
        let start = i;
        while at(i).is_some_and(|t| alnum(t, 2..=8)) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    // private use: "x" 1*("-" 1*8alphanum)
    if at(i).is_some_and(|s| s.eq_ignore_ascii_case("x")) {
        i += 1;
        let start = i;
        while at(i).is_some_and(|t| alnum(t, 1..=8)) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    i == subtags.len()
}
