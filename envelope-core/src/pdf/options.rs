//! Options of `radio` and `select` fields: the rules an option list must meet. They live with the
//! PDF engine because the chosen option is painted into the signed copy, so every option must be
//! drawable by the stamping fonts; `field.rs` (the wire model) keeps only the limits.

use crate::field::{MAX_OPTION_CHARS, MAX_OPTIONS};

/// Why an option list or one of its options was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionsProblem {
    /// No options at all.
    Empty,
    /// More than [`MAX_OPTIONS`].
    TooMany,
    /// The option at this index is empty, longer than [`MAX_OPTION_CHARS`], or has a character
    /// the stamping fonts cannot draw.
    Bad(usize, String),
    /// The option at this index repeats an earlier one.
    Duplicate(usize),
}

impl std::fmt::Display for OptionsProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OptionsProblem::Empty => f.write_str("must list at least one option"),
            OptionsProblem::TooMany => write!(f, "at most {MAX_OPTIONS} options are allowed"),
            OptionsProblem::Bad(_, why) => f.write_str(why),
            OptionsProblem::Duplicate(_) => f.write_str("repeats an earlier option"),
        }
    }
}

/// One option: 1 to [`MAX_OPTION_CHARS`] characters, not only spaces, all drawable by the
/// stamping fonts (the chosen option is painted into the signed copy).
pub fn check_option(option: &str) -> Result<(), String> {
    if option.trim().is_empty() {
        return Err("must not be empty".into());
    }
    if option.chars().count() > MAX_OPTION_CHARS {
        return Err(format!("must be at most {MAX_OPTION_CHARS} characters"));
    }
    super::check_drawable(option).map_err(|u| u.to_string())
}

/// Checks an option list: 1 to [`MAX_OPTIONS`] entries (counted before any is looked at), each
/// valid ([`check_option`]), none repeated. Linear in the list's length.
pub fn check_options(options: &[String]) -> Result<(), OptionsProblem> {
    if options.is_empty() {
        return Err(OptionsProblem::Empty);
    }
    if options.len() > MAX_OPTIONS {
        return Err(OptionsProblem::TooMany);
    }
    let mut seen = std::collections::HashSet::with_capacity(options.len());
    for (i, o) in options.iter().enumerate() {
        check_option(o).map_err(|why| OptionsProblem::Bad(i, why))?;
        if !seen.insert(o.as_str()) {
            return Err(OptionsProblem::Duplicate(i));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_lists_are_bounded() {
        let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(check_options(&list(&["Yes", "No"])), Ok(()));
        assert_eq!(check_options(&[]), Err(OptionsProblem::Empty));
        assert_eq!(
            check_options(&list(&["a", "b", "a"])),
            Err(OptionsProblem::Duplicate(2))
        );
        assert!(matches!(
            check_options(&list(&["a", " "])),
            Err(OptionsProblem::Bad(1, _))
        ));
        assert!(matches!(
            check_options(&list(&["a", "\u{202e}b"])),
            Err(OptionsProblem::Bad(1, _))
        ));
        let long = "x".repeat(MAX_OPTION_CHARS + 1);
        assert!(matches!(
            check_options(&[long]),
            Err(OptionsProblem::Bad(0, _))
        ));
        let many: Vec<String> = (0..=MAX_OPTIONS).map(|i| i.to_string()).collect();
        assert_eq!(check_options(&many), Err(OptionsProblem::TooMany));
        assert_eq!(check_options(&many[..MAX_OPTIONS]), Ok(()));
    }
}
