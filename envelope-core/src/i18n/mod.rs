//! Languages (extensions E4): a signer's [`Locale`], the languages the service speaks
//! ([`Lang`]), the choice of one from `Accept-Language` ([`negotiate`]), and the message
//! catalogues (`catalog`: one Fluent file per language under `envelope-core/locales/`).
//!
//! Everything a signer reads (emails, the signing page) is written through the catalogues;
//! what developers read (API errors, webhook payloads, the audit trail) stays English. This
//! module knows nothing of HTTP: a front end passes the `Accept-Language` header's value as a
//! string.

pub(crate) mod catalog;
mod locale;
#[cfg(test)]
mod tests;

pub use catalog::{Arg, Msg, escape_html, html, text};
pub use locale::{InvalidLocale, Locale};

/// A language the catalogues cover. [`Lang::En`] is the fallback of every other tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lang {
    /// English (`en`).
    En,
    /// German (`de`).
    De,
    /// French (`fr`).
    Fr,
    /// Spanish (`es`).
    Es,
    /// Italian (`it`).
    It,
    /// Portuguese (`pt`).
    Pt,
    /// Dutch (`nl`).
    Nl,
    /// Polish (`pl`).
    Pl,
}

impl Lang {
    /// Every supported language, English first.
    pub const ALL: [Lang; 8] = [
        Lang::En,
        Lang::De,
        Lang::Fr,
        Lang::Es,
        Lang::It,
        Lang::Pt,
        Lang::Nl,
        Lang::Pl,
    ];

    /// The language's BCP 47 primary subtag: `en`, `de`, ... (what `<html lang>` and
    /// `Content-Language` carry).
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::De => "de",
            Lang::Fr => "fr",
            Lang::Es => "es",
            Lang::It => "it",
            Lang::Pt => "pt",
            Lang::Nl => "nl",
            Lang::Pl => "pl",
        }
    }

    /// The supported language of a tag's primary subtag (case-insensitive): `pt-BR` -> `Pt`,
    /// `de-AT` -> `De`; `None` for any other language.
    pub fn of_tag(tag: &str) -> Option<Lang> {
        let primary = tag.split(['-', '_']).next().unwrap_or_default();
        Lang::ALL
            .into_iter()
            .find(|l| l.code().eq_ignore_ascii_case(primary))
    }

    /// The language of a signer's page: their locale when they have one (falling back to
    /// English when it is not supported), else the browser's `Accept-Language`.
    pub fn for_page(signer: Option<&Locale>, accept_language: Option<&str>) -> Lang {
        match signer {
            Some(l) => l.lang(),
            None => negotiate(accept_language.unwrap_or_default(), &Lang::ALL),
        }
    }

    /// The language of an email to a signer: their locale, else English.
    pub fn for_email(signer: Option<&Locale>) -> Lang {
        signer.map_or(Lang::En, Locale::lang)
    }
}

/// Header bytes that [`negotiate`] reads at most; language ranges past them are ignored, so a
/// hostile header costs a bounded amount of work.
pub const MAX_ACCEPT_LANGUAGE_BYTES: usize = 1024;
/// Language ranges that [`negotiate`] weighs at most.
pub const MAX_LANGUAGE_RANGES: usize = 32;

/// The best of `supported` for an `Accept-Language` value (RFC 9110 12.5.4): ranges by
/// descending quality (`q`, 1 when absent; equal weights keep the header's order), each matched
/// on its primary subtag (`de-DE` -> `de`); `q=0` means "not this one"; `*` and an empty or
/// unreadable header mean no preference, which is [`Lang::En`] (or the first of `supported`).
/// Malformed ranges are skipped; only the first [`MAX_ACCEPT_LANGUAGE_BYTES`] bytes and
/// [`MAX_LANGUAGE_RANGES`] ranges are read.
pub fn negotiate(accept_language: &str, supported: &[Lang]) -> Lang {
    let fallback = if supported.contains(&Lang::En) || supported.is_empty() {
        Lang::En
    } else {
        supported[0]
    };
    let mut head = accept_language;
    if head.len() > MAX_ACCEPT_LANGUAGE_BYTES {
        // Only whole ranges: cut at the last comma inside the bound.
        let mut cut = MAX_ACCEPT_LANGUAGE_BYTES;
        while !head.is_char_boundary(cut) {
            cut -= 1;
        }
        head = &head[..head[..cut].rfind(',').unwrap_or(0)];
    }
    let mut ranges: Vec<(u16, usize, Option<Lang>)> = Vec::new();
    let mut refused: Vec<Lang> = Vec::new();
    for (pos, item) in head.split(',').take(MAX_LANGUAGE_RANGES).enumerate() {
        let mut parts = item.split(';');
        let range = parts.next().unwrap_or_default().trim();
        let mut q = Some(1000u16);
        for p in parts {
            let p = p.trim();
            if let Some(v) = p.strip_prefix("q=").or_else(|| p.strip_prefix("Q=")) {
                q = quality(v.trim());
            }
        }
        let Some(q) = q else { continue };
        if range == "*" {
            if q > 0 {
                ranges.push((q, pos, None));
            }
            continue;
        }
        if !is_language_range(range) {
            continue;
        }
        let Some(lang) = Lang::of_tag(range).filter(|l| supported.contains(l)) else {
            continue;
        };
        if q == 0 {
            refused.push(lang);
        } else {
            ranges.push((q, pos, Some(lang)));
        }
    }
    ranges.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, _, lang) in ranges {
        match lang {
            Some(l) if !refused.contains(&l) => return l,
            Some(_) => {}
            None => {
                // `*`: any language will do; prefer the fallback unless it was refused.
                return std::iter::once(fallback)
                    .chain(supported.iter().copied())
                    .find(|l| !refused.contains(l))
                    .unwrap_or(fallback);
            }
        }
    }
    fallback
}

/// A `q` value as thousandths: `0`, `1`, `0.8`, `1.000` (at most three decimals, at most 1).
fn quality(v: &str) -> Option<u16> {
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths = match int {
        "0" => frac
            .bytes()
            .chain(std::iter::repeat(b'0'))
            .take(3)
            .fold(0u16, |n, b| n * 10 + u16::from(b - b'0')),
        "1" if frac.bytes().all(|b| b == b'0') => 1000,
        _ => return None,
    };
    Some(thousandths)
}

/// `1*8ALPHA *("-" 1*8alphanum)` (RFC 4647 2.1).
fn is_language_range(s: &str) -> bool {
    let mut subtags = s.split('-');
    let first = subtags.next().unwrap_or_default();
    (1..=8).contains(&first.len())
        && first.bytes().all(|b| b.is_ascii_alphabetic())
        && subtags
            .all(|t| (1..=8).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_alphanumeric()))
}
