//! The fonts the stamper and the audit trail draw text with (docs/FONTS.md).
//!
//! DejaVu Sans, Kristi and Noto Sans for Arabic, Hebrew, Devanagari and Thai are compiled in.
//! Noto Sans CJK (Chinese, Japanese, Korean) is about 20 MB a weight, so it is found on the
//! machine when the fonts are first used (in [`SYSTEM_FONT_DIRS`], or in the directories given
//! to [`use_font_dirs`] before then) and read when the first CJK character needs it. Where it is
//! missing, CJK characters in values are refused like any character no face has
//! (`Undrawable::NoGlyph`, a 400 naming the code point) and the audit trail shows them as code
//! points.
//!
//! The fonts are loaded once per process and shared by every service in it.

use std::path::PathBuf;

pub use crate::pdf::shape::SYSTEM_FONT_DIRS;

/// Sets the directories Noto Sans CJK is looked for in, instead of [`SYSTEM_FONT_DIRS`]. Call it
/// before the first document is stamped (a server calls it at start); returns `false`, changing
/// nothing, when the fonts were already loaded or the directories already set.
pub fn use_font_dirs(dirs: Vec<PathBuf>) -> bool {
    crate::pdf::shape::use_font_dirs(dirs)
}

/// What [`load`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    /// The compiled-in faces, by name.
    pub faces: Vec<String>,
    /// The file Noto Sans CJK is read from when first needed; `None`: CJK characters are
    /// refused.
    pub cjk_file: Option<PathBuf>,
}

/// Loads the compiled-in fonts and looks for Noto Sans CJK now (this happens on first use
/// otherwise), and says what was found.
pub fn load() -> Loaded {
    let lib = crate::pdf::shape::library();
    Loaded {
        faces: lib.faces.iter().map(|f| f.name.clone()).collect(),
        cjk_file: lib.cjk_file.clone(),
    }
}
