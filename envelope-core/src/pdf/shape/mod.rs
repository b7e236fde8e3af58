//! Text set for drawing, in every script: which face draws each character, in what order the
//! pieces go on the line, and where each glyph lands. Both the stamper (`fonts.rs`) and the audit
//! trail (`audit/`) draw from what this module returns, so a name reads the same in both.
//!
//! The steps, for one line of text:
//! 1. **Direction** (`unicode-bidi`, the Unicode Bidirectional Algorithm): the line is cut into
//!    runs of one embedding level, put in visual order. A paragraph takes its direction from its
//!    first strong character, so `محمد Ali` is right to left and `Signed by: محمد` left to right.
//! 2. **Face, per cluster** (a character and the marks and joiners after it): the face preferred
//!    for its script (Noto Sans Arabic for Arabic, Noto Sans CJK for Han, kana and Hangul...),
//!    else the first face of the style's chain that has every character of the cluster. See
//!    docs/FONTS.md for the chains. A cluster no face has is drawn with the first face (as
//!    `.notdef`): the validation in `fonts::check_char` keeps such characters out of values.
//! 3. **Shaping** (`rustybuzz`, HarfBuzz's algorithm): each piece of one face, script and
//!    direction is shaped on its own: Arabic joins, lam-alef ligatures, Devanagari conjuncts and
//!    reordered vowel signs, Thai marks, kerning.
//!
//! The result is a [`Line`]: glyphs in visual order with their pen positions, and the logical
//! text of every cluster, which the PDF writers turn into `/ToUnicode` entries or `/ActualText`
//! spans so that copied and extracted text is what was typed.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use rustybuzz::ttf_parser::{self, GlyphId};
use rustybuzz::{Direction, UnicodeBuffer};
use unicode_bidi::BidiInfo;
use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};
use unicode_script::{Script, UnicodeScript};

/// The look of a piece of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Style {
    Regular,
    Bold,
    /// Typed signatures and initials: Kristi when it has every character, otherwise the regular
    /// chain (see [`set`]).
    Script,
}

/// A face of the [`Library`], by its place there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FaceId(pub u8);

/// One font face: its bytes, where it sits in them, and what the PDF writers need of it.
pub struct FontFace {
    /// The PostScript-style name written as `/BaseFont` (after the subset tag).
    pub name: String,
    /// A resource name for content streams, unique in the library (`EnvU`, `EnvAr`...).
    pub resource: String,
    pub data: &'static [u8],
    /// The face's index in a collection (`.ttc`), 0 otherwise.
    pub index: u32,
    /// CFF outlines (an OpenType font, embedded as `/FontFile3`) rather than TrueType ones.
    pub cff: bool,
    /// `/Flags` of the font descriptor: nonsymbolic (32), plus script (8) for Kristi.
    pub flags: i64,
    /// Ascender, descender and bounding box in 1/1000 em.
    pub ascent: f64,
    pub descent: f64,
    pub bbox: [f64; 4],
    face: rustybuzz::Face<'static>,
    scale: f64,
}

impl std::fmt::Debug for FontFace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FontFace")
            .field("name", &self.name)
            .field("index", &self.index)
            .field("cff", &self.cff)
            .finish_non_exhaustive()
    }
}

impl FontFace {
    fn parse(
        data: &'static [u8],
        index: u32,
        name: &str,
        resource: &str,
        flags: i64,
    ) -> Option<FontFace> {
        let face = rustybuzz::Face::from_slice(data, index)?;
        let scale = 1000.0 / f64::from(face.units_per_em().max(1));
        let b = face.global_bounding_box();
        let cff = face.tables().cff.is_some();
        if !cff && face.tables().glyf.is_none() {
            return None;
        }
        Some(FontFace {
            name: name.to_string(),
            resource: resource.to_string(),
            data,
            index,
            cff,
            flags,
            ascent: f64::from(face.ascender()) * scale,
            descent: f64::from(face.descender()) * scale,
            bbox: [
                f64::from(b.x_min) * scale,
                f64::from(b.y_min) * scale,
                f64::from(b.x_max) * scale,
                f64::from(b.y_max) * scale,
            ],
            face,
            scale,
        })
    }

    /// The face's glyph for `c`, if it has one.
    pub fn glyph(&self, c: char) -> Option<u16> {
        self.face.glyph_index(c).map(|g| g.0).filter(|&g| g != 0)
    }

    /// Whether the face draws `c` (characters that draw nothing count as drawn).
    fn covers(&self, c: char) -> bool {
        ignorable(c) || self.glyph(c).is_some()
    }

    /// The advance of `gid` in 1/1000 em.
    pub fn advance(&self, gid: u16) -> f64 {
        f64::from(self.face.glyph_hor_advance(GlyphId(gid)).unwrap_or(0)) * self.scale
    }

    /// The `/W` width printpdf writes for `gid` (its advance in 1/1000 em, truncated), which
    /// the audit trail's pen follows.
    pub fn pdf_width(&self, gid: u16) -> f64 {
        let units = self.face.glyph_hor_advance(GlyphId(gid)).unwrap_or(0);
        let per_em = self.face.units_per_em().max(1);
        (f32::from(units) * 1000.0 / f32::from(u16::try_from(per_em).unwrap_or(1000))) as i64 as f64
    }

    /// The outline's bounding box of `gid` in 1/1000 em, `None` for a blank glyph.
    pub fn ink(&self, gid: u16) -> Option<[f64; 4]> {
        let b = self.face.glyph_bounding_box(GlyphId(gid))?;
        Some([
            f64::from(b.x_min) * self.scale,
            f64::from(b.y_min) * self.scale,
            f64::from(b.x_max) * self.scale,
            f64::from(b.y_max) * self.scale,
        ])
    }
}

/// Characters that draw nothing themselves but steer shaping: joiners and variation selectors.
fn ignorable(c: char) -> bool {
    matches!(u32::from(c), 0x200C | 0x200D | 0xFE00..=0xFE0F)
}

/// Whether `c` belongs to the cluster of the character before it.
pub fn extends(c: char) -> bool {
    ignorable(c) || c.general_category_group() == GeneralCategoryGroup::Mark
}

/// The faces text is drawn with: the vendored ones (`faces`), and Noto Sans CJK found on the
/// system, read when first needed.
#[derive(Debug)]
pub struct Library {
    pub faces: Vec<FontFace>,
    regular: Vec<FaceId>,
    bold: Vec<FaceId>,
    kristi: Option<FaceId>,
    dejavu: [Option<FaceId>; 2],
    /// Noto Sans CJK, regular and bold: found at start, read when first needed.
    cjk: [Option<LazyFace>; 2],
    /// The file Noto Sans CJK (regular) is read from.
    pub cjk_file: Option<PathBuf>,
    /// Noto faces for Arabic, Hebrew, Devanagari and Thai: (script, regular, bold).
    by_script: Vec<(Script, FaceId, FaceId)>,
}

/// DejaVu Sans (see assets/fonts/LICENSE-DejaVu.txt).
pub static DEJAVU: &[u8] = &DEJAVU_TTF;
static DEJAVU_TTF: [u8; 759_720] = *include_bytes!("../../../assets/fonts/DejaVuSans.ttf");
pub static DEJAVU_BOLD: &[u8] = &DEJAVU_BOLD_TTF;
static DEJAVU_BOLD_TTF: [u8; 708_920] =
    *include_bytes!("../../../assets/fonts/DejaVuSans-Bold.ttf");

/// The signature face: **Kristi**, a handwriting TrueType font by Birgit Pulk (SIL Open Font
/// License 1.1, `assets/fonts/LICENSE-Kristi.txt`; from Debian's `fonts-kristi`). Typed
/// signatures and initials are stamped in it; these are the font file's bytes, for a server
/// that shows typed names in the same face (CSS `font-family: "Kristi"`, `format("truetype")`).
pub const SIGNATURE_FONT: &[u8] = &KRISTI;
/// The bytes behind an `include_bytes!` reference are an anonymous constant, which every
/// codegen unit that uses it may copy into the binary; a static array is one symbol.
static KRISTI: [u8; 47_476] = *include_bytes!("../../../assets/fonts/Kristi.ttf");

// Noto Sans for the scripts DejaVu Sans does not shape (assets/fonts/LICENSE-Noto.txt).
static ARABIC: [u8; 244_072] = *include_bytes!("../../../assets/fonts/NotoSansArabic-Regular.ttf");
static ARABIC_BOLD: [u8; 252_940] =
    *include_bytes!("../../../assets/fonts/NotoSansArabic-Bold.ttf");
static HEBREW: [u8; 26_892] = *include_bytes!("../../../assets/fonts/NotoSansHebrew-Regular.ttf");
static HEBREW_BOLD: [u8; 27_156] = *include_bytes!("../../../assets/fonts/NotoSansHebrew-Bold.ttf");
static DEVANAGARI: [u8; 229_336] =
    *include_bytes!("../../../assets/fonts/NotoSansDevanagari-Regular.ttf");
static DEVANAGARI_BOLD: [u8; 237_660] =
    *include_bytes!("../../../assets/fonts/NotoSansDevanagari-Bold.ttf");
static THAI: [u8; 37_744] = *include_bytes!("../../../assets/fonts/NotoSansThai-Regular.ttf");
static THAI_BOLD: [u8; 37_788] = *include_bytes!("../../../assets/fonts/NotoSansThai-Bold.ttf");

/// Where Noto Sans CJK is looked for when [`crate::fonts::use_font_dirs`] was not called: the
/// directories Debian/Ubuntu (`fonts-noto-cjk`), Fedora (`google-noto-sans-cjk-fonts`), Arch and
/// Alpine install it to.
pub const SYSTEM_FONT_DIRS: &[&str] = &[
    "/usr/share/fonts/opentype/noto",
    "/usr/share/fonts/google-noto-sans-cjk-fonts",
    "/usr/share/fonts/google-noto-cjk",
    "/usr/share/fonts/noto-cjk",
    "/usr/share/fonts/noto",
    "/usr/local/share/fonts",
];

/// The CJK files, Regular then Bold: the collection (`.ttc`, its Simplified Chinese face) or
/// the single-region OpenType file.
const CJK_FILES: [[&str; 2]; 2] = [
    ["NotoSansCJK-Regular.ttc", "NotoSansCJKsc-Regular.otf"],
    ["NotoSansCJK-Bold.ttc", "NotoSansCJKsc-Bold.otf"],
];

static FONT_DIRS: OnceLock<Vec<PathBuf>> = OnceLock::new();

/// Sets the directories Noto Sans CJK is looked for in (instead of [`SYSTEM_FONT_DIRS`]).
/// Call it once, before the first document is stamped; returns `false` (and changes nothing)
/// when the fonts were already loaded or the directories already set.
pub fn use_font_dirs(dirs: Vec<PathBuf>) -> bool {
    FONT_DIRS.set(dirs).is_ok()
}

/// The loaded fonts, loaded on first use.
pub fn library() -> &'static Library {
    static LIBRARY: OnceLock<Library> = OnceLock::new();
    LIBRARY.get_or_init(|| {
        let dirs = FONT_DIRS.get_or_init(|| SYSTEM_FONT_DIRS.iter().map(PathBuf::from).collect());
        Library::load(dirs)
    })
}

/// The first of `files` in `dirs` (the first directory that has one wins).
fn find_file(dirs: &[PathBuf], files: [&str; 2]) -> Option<PathBuf> {
    dirs.iter()
        .flat_map(|dir| files.iter().map(move |f| dir.join(f)))
        .find(|path| path.is_file())
}

/// The face ids of Noto Sans CJK, regular and bold, beside the vendored faces' indices.
const CJK_IDS: [FaceId; 2] = [FaceId(254), FaceId(255)];

/// A face read from the machine the first time it is needed (Noto Sans CJK: 20 MB a weight,
/// which a server that never meets a CJK name does not hold).
#[derive(Debug)]
struct LazyFace {
    path: PathBuf,
    name: &'static str,
    resource: &'static str,
    face: OnceLock<Option<FontFace>>,
}

impl LazyFace {
    fn new(path: PathBuf, name: &'static str, resource: &'static str) -> LazyFace {
        LazyFace {
            path,
            name,
            resource,
            face: OnceLock::new(),
        }
    }

    /// The face, read now if it was not; `None` when the file is unreadable or not a font
    /// (said once in the log).
    fn get(&self) -> Option<&FontFace> {
        self.face
            .get_or_init(|| {
                let face = std::fs::read(&self.path).ok().and_then(|bytes| {
                    // Kept for the life of the process, like the compiled-in fonts.
                    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                    let index = sc_face(bytes)?;
                    FontFace::parse(bytes, index, self.name, self.resource, 32)
                });
                match &face {
                    Some(_) => tracing::info!(path = %self.path.display(), "Noto Sans CJK read"),
                    None => tracing::warn!(
                        path = %self.path.display(),
                        "not a usable Noto Sans CJK font; CJK characters cannot be drawn"
                    ),
                }
                face
            })
            .as_ref()
    }
}

/// Whether `c` is Chinese, Japanese or Korean (ideographs, kana, Hangul, Bopomofo, their
/// punctuation and full-width forms): the characters Noto Sans CJK is read for. Other
/// characters it has (Latin, symbols) come from the other faces or not at all, so that an emoji
/// never loads 20 MB.
fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x1100..=0x11FF | 0x2E80..=0x2FDF | 0x2FF0..=0x303F | 0x3040..=0x31FF | 0x3200..=0x32FF
        | 0x3300..=0x33FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xA960..=0xA97F | 0xAC00..=0xD7FF
        | 0xF900..=0xFAFF | 0xFE30..=0xFE4F | 0xFF00..=0xFFEF | 0x1B000..=0x1B16F
        | 0x1F200..=0x1F2FF | 0x20000..=0x3FFFF)
}

/// The index of the Simplified Chinese face of a Noto Sans CJK collection (0 in a single file).
fn sc_face(bytes: &[u8]) -> Option<u32> {
    let n = ttf_parser::fonts_in_collection(bytes).unwrap_or(1);
    let mut first = None;
    for i in 0..n {
        let Ok(face) = ttf_parser::Face::parse(bytes, i) else {
            continue;
        };
        first.get_or_insert(i);
        let sc = face.names().into_iter().any(|name| {
            name.name_id == ttf_parser::name_id::FAMILY
                && name
                    .to_string()
                    .is_some_and(|s| s.ends_with(" SC") || s.ends_with("CJK sc"))
        });
        if sc {
            return Some(i);
        }
    }
    first
}

/// A script, its regular and bold font files, their family name and resource name.
type ScriptFaces = (
    Script,
    &'static [u8],
    &'static [u8],
    &'static str,
    &'static str,
);

impl Library {
    fn load(dirs: &[PathBuf]) -> Library {
        let mut lib = Library {
            faces: Vec::new(),
            regular: Vec::new(),
            bold: Vec::new(),
            kristi: None,
            dejavu: [None, None],
            cjk: [None, None],
            cjk_file: None,
            by_script: Vec::new(),
        };
        let mut add = |data: &'static [u8], index: u32, name: &str, resource: &str, flags| {
            let face = FontFace::parse(data, index, name, resource, flags)?;
            let id = FaceId(u8::try_from(lib.faces.len()).ok()?);
            lib.faces.push(face);
            Some(id)
        };
        // The vendored fonts are compiled in and parsed by the tests: none of these fail.
        let dejavu = add(DEJAVU, 0, "DejaVuSans", "EnvU", 32);
        let dejavu_bold = add(DEJAVU_BOLD, 0, "DejaVuSans-Bold", "EnvUB", 32);
        let kristi = add(SIGNATURE_FONT, 0, "Kristi", "EnvK", 32 | 8);
        let scripts: [ScriptFaces; 4] = [
            (
                Script::Arabic,
                &ARABIC,
                &ARABIC_BOLD,
                "NotoSansArabic",
                "EnvAr",
            ),
            (
                Script::Hebrew,
                &HEBREW,
                &HEBREW_BOLD,
                "NotoSansHebrew",
                "EnvHe",
            ),
            (
                Script::Devanagari,
                &DEVANAGARI,
                &DEVANAGARI_BOLD,
                "NotoSansDevanagari",
                "EnvDe",
            ),
            (Script::Thai, &THAI, &THAI_BOLD, "NotoSansThai", "EnvTh"),
        ];
        let mut by_script = Vec::new();
        for (script, regular, bold, name, resource) in scripts {
            let r = add(regular, 0, &format!("{name}-Regular"), resource, 32);
            let b = add(
                bold,
                0,
                &format!("{name}-Bold"),
                &format!("{resource}B"),
                32,
            );
            if let (Some(r), Some(b)) = (r, b) {
                by_script.push((script, r, b));
            }
        }
        let cjk_regular = find_file(dirs, CJK_FILES[0]);
        let cjk_bold = find_file(dirs, CJK_FILES[1]);
        lib.cjk_file = cjk_regular.clone();
        let has_regular = cjk_regular.is_some();
        lib.cjk = [
            cjk_regular.map(|p| LazyFace::new(p, "NotoSansCJKsc-Regular", "EnvCJK")),
            cjk_bold
                .filter(|_| has_regular)
                .map(|p| LazyFace::new(p, "NotoSansCJKsc-Bold", "EnvCJKB")),
        ];
        let cjk_regular = has_regular.then_some(CJK_IDS[0]);
        let cjk_bold = lib.cjk[1].as_ref().map(|_| CJK_IDS[1]).or(cjk_regular);
        lib.dejavu = [dejavu, dejavu_bold];
        lib.kristi = kristi;
        lib.regular = dejavu
            .into_iter()
            .chain(by_script.iter().map(|s| s.1))
            .chain(cjk_regular)
            .collect();
        lib.bold = dejavu_bold
            .into_iter()
            .chain(by_script.iter().map(|s| s.2))
            .chain(cjk_bold)
            .collect();
        lib.by_script = by_script;
        lib
    }

    /// A face of the library. The ids of `Line`s name faces that are loaded; an id of an
    /// unreadable CJK file is never handed out (see [`Self::try_face`]).
    pub fn face(&self, id: FaceId) -> &FontFace {
        self.try_face(id)
            .expect("face ids are handed out for loaded faces only")
    }

    /// A face of the library, reading Noto Sans CJK if `id` is one of its weights and it was
    /// not read yet; `None` for a CJK file that turned out unusable.
    fn try_face(&self, id: FaceId) -> Option<&FontFace> {
        match CJK_IDS.iter().position(|&c| c == id) {
            Some(weight) => self.cjk[weight].as_ref()?.get(),
            None => self.faces.get(usize::from(id.0)),
        }
    }

    /// Whether face `id` draws `c`: CJK faces are consulted for CJK characters only.
    fn face_covers(&self, id: FaceId, c: char) -> bool {
        if CJK_IDS.contains(&id) && !is_cjk(c) && !ignorable(c) && !extends(c) {
            return false;
        }
        self.try_face(id).is_some_and(|f| f.covers(c))
    }

    /// DejaVu Sans (regular or bold), the first face of each chain.
    pub fn dejavu(&self, bold: bool) -> Option<FaceId> {
        self.dejavu[usize::from(bold)]
    }

    pub fn kristi(&self) -> Option<FaceId> {
        self.kristi
    }

    fn chain(&self, bold: bool) -> &[FaceId] {
        if bold { &self.bold } else { &self.regular }
    }

    /// The face preferred for `script`, if it has one of its own.
    fn preferred(&self, script: Script, bold: bool) -> Option<FaceId> {
        let cjk = matches!(
            script,
            Script::Han | Script::Hiragana | Script::Katakana | Script::Hangul | Script::Bopomofo
        );
        if cjk {
            let weight = usize::from(bold && self.cjk[1].is_some());
            return self.cjk[weight].as_ref().map(|_| CJK_IDS[weight]);
        }
        self.by_script
            .iter()
            .find(|s| s.0 == script)
            .map(|s| if bold { s.2 } else { s.1 })
    }

    /// Whether some face of the regular chain draws `c`.
    pub fn covers(&self, c: char) -> bool {
        self.regular.iter().any(|&f| self.face_covers(f, c))
    }

    /// The face that draws `cluster` (of `script`) in the regular or bold chain; a cluster no
    /// bold face has is drawn in the regular face that has it rather than as a box.
    fn face_for(&self, cluster: &str, script: Script, bold: bool) -> Option<FaceId> {
        let chain = self.chain(bold);
        let all = |f: &FaceId| cluster.chars().all(|c| self.face_covers(*f, c));
        let regular = bold
            .then(|| self.regular.iter().copied())
            .into_iter()
            .flatten();
        self.preferred(script, bold)
            .into_iter()
            .chain(chain.iter().copied())
            .chain(regular)
            .find(all)
            .or_else(|| chain.first().copied())
    }
}

/// One glyph on a line, positions in 1/1000 em from the line's start (y up).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Glyph {
    pub face: FaceId,
    pub gid: u16,
    /// Where the glyph's origin goes: the pen position plus the shaper's offset.
    pub x: f64,
    pub y: f64,
}

/// The glyphs of one cluster and the text they stand for, in logical order.
#[derive(Debug, Clone, PartialEq)]
pub struct Cluster {
    pub text: String,
    /// Indices into [`Line::glyphs`] (consecutive, in visual order).
    pub glyphs: std::ops::Range<usize>,
    /// Set right to left: the glyphs' visual order is the reverse of their logical one.
    pub rtl: bool,
}

impl Cluster {
    /// The text to write for extraction (`/ToUnicode`, `/ActualText`): the cluster's text,
    /// except that a right-to-left cluster of several characters (a lam-alef ligature, a letter
    /// with its vowel marks) is written in visual order. Readers take the characters of a line
    /// in visual order and reverse its right-to-left runs (poppler's `pdftotext` does), the
    /// characters of one glyph or span included, so this is what comes back in logical order.
    pub fn extracted(&self) -> String {
        if self.rtl {
            self.text.chars().rev().collect()
        } else {
            self.text.clone()
        }
    }
}

/// A line of text set: glyphs in visual order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Line {
    pub glyphs: Vec<Glyph>,
    pub clusters: Vec<Cluster>,
    /// The advance of the whole line, in 1/1000 em.
    pub width: f64,
    /// Drawn slanted (an upright face standing for an italic, see [`set`]).
    pub slant: bool,
}

impl Line {
    /// Every face the line uses.
    pub fn faces(&self) -> impl Iterator<Item = FaceId> + '_ {
        let mut seen: Vec<FaceId> = Vec::new();
        self.glyphs.iter().filter_map(move |g| {
            if seen.contains(&g.face) {
                return None;
            }
            seen.push(g.face);
            Some(g.face)
        })
    }

    /// Whether every glyph comes from `face`.
    pub fn only(&self, face: FaceId) -> bool {
        self.glyphs.iter().all(|g| g.face == face)
    }

    /// The union of the glyphs' outline boxes, in 1/1000 em: `[x0, y0, x1, y1]`, or `None` for
    /// a line that puts no ink.
    pub fn ink(&self) -> Option<[f64; 4]> {
        let lib = library();
        let mut ink: Option<[f64; 4]> = None;
        for g in &self.glyphs {
            if let Some([x0, y0, x1, y1]) = lib.face(g.face).ink(g.gid) {
                let b = [g.x + x0, g.y + y0, g.x + x1, g.y + y1];
                ink = Some(match ink {
                    None => b,
                    Some(a) => [
                        a[0].min(b[0]),
                        a[1].min(b[1]),
                        a[2].max(b[2]),
                        a[3].max(b[3]),
                    ],
                });
            }
        }
        ink
    }

    /// The tallest ascender and deepest descender of the faces used (1/1000 em).
    pub fn extent(&self) -> (f64, f64) {
        let lib = library();
        self.faces().fold((0.0, 0.0), |(a, d), f| {
            let face = lib.face(f);
            (face.ascent.max(a), face.descent.min(d))
        })
    }
}

/// Whether Kristi has every character of `text`.
pub fn script_covers(text: &str) -> bool {
    let lib = library();
    lib.kristi()
        .is_some_and(|k| text.chars().all(|c| lib.face(k).covers(c)))
}

/// Sets `text` as one line in `style`.
///
/// [`Style::Script`] is Kristi when Kristi has every character (no name mixes two faces);
/// otherwise the regular chain, drawn slanted when every glyph comes from DejaVu Sans (an
/// italic stand-in for Latin, Greek and Cyrillic) and upright in the other scripts' faces.
pub fn set(text: &str, style: Style) -> Line {
    let lib = library();
    if style == Style::Script {
        if let Some(k) = lib.kristi().filter(|_| script_covers(text)) {
            return set_in(text, |_, _| Some(k));
        }
        let mut line = set(text, Style::Regular);
        line.slant = lib.dejavu(false).is_some_and(|d| line.only(d));
        return line;
    }
    let bold = style == Style::Bold;
    set_in(text, |cluster, script| lib.face_for(cluster, script, bold))
}

/// The scripts of `text`'s characters, with Common and Inherited ones (spaces, digits,
/// punctuation, marks) taking the script of the character before them, or after them at the
/// start.
fn scripts(text: &str) -> Vec<Script> {
    let raw: Vec<Script> = text.chars().map(|c| c.script()).collect();
    let weak = |s: Script| matches!(s, Script::Common | Script::Inherited | Script::Unknown);
    let first = raw
        .iter()
        .copied()
        .find(|&s| !weak(s))
        .unwrap_or(Script::Common);
    let mut last = first;
    raw.into_iter()
        .map(|s| {
            if !weak(s) {
                last = s;
            }
            last
        })
        .collect()
}

fn set_in(text: &str, pick: impl Fn(&str, Script) -> Option<FaceId>) -> Line {
    let lib = library();
    let mut line = Line::default();
    if text.is_empty() {
        return line;
    }
    let scripts = scripts(text);
    // Byte offset -> script.
    let script_at: Vec<(usize, Script)> =
        text.char_indices().map(|(i, _)| i).zip(scripts).collect();
    let script_of = |i: usize| {
        let k = script_at.partition_point(|&(at, _)| at <= i);
        script_at[k.saturating_sub(1)].1
    };
    let bidi = BidiInfo::new(text, None);
    let mut pen = 0.0;
    for para in &bidi.paragraphs {
        let (levels, runs) = bidi.visual_runs(para, para.range.clone());
        for run in runs {
            let rtl = levels[run.start].is_rtl();
            // Pieces of one face and script, in logical order.
            let mut pieces: Vec<(std::ops::Range<usize>, FaceId, Script)> = Vec::new();
            for c in cluster_ranges(text, run.clone()) {
                let script = script_of(c.start);
                let Some(face) = pick(&text[c.clone()], script) else {
                    continue;
                };
                match pieces.last_mut() {
                    Some((r, f, s)) if *f == face && *s == script && r.end == c.start => {
                        r.end = c.end;
                    }
                    _ => pieces.push((c, face, script)),
                }
            }
            if rtl {
                pieces.reverse();
            }
            for (range, face, script) in pieces {
                let piece = Piece {
                    text: &text[range],
                    face,
                    script,
                    rtl,
                };
                pen = shape_piece(lib, &piece, pen, &mut line);
            }
        }
    }
    line.width = pen;
    line
}

/// The byte ranges of `range`'s clusters: a character with the marks and joiners after it.
fn cluster_ranges(
    text: &str,
    range: std::ops::Range<usize>,
) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let s = &text[range.clone()];
    let mut starts: Vec<usize> = s
        .char_indices()
        .filter(|&(i, c)| i == 0 || !extends(c))
        .map(|(i, _)| range.start + i)
        .collect();
    starts.push(range.end);
    (0..starts.len() - 1).map(move |k| starts[k]..starts[k + 1])
}

/// The shaping plan of a face for a buffer's direction and script, made once per process:
/// making a plan (which of the font's lookups apply, in what order) costs more than shaping a
/// name with it.
fn plan_for(
    id: FaceId,
    face: &rustybuzz::Face<'static>,
    buf: &UnicodeBuffer,
) -> Arc<rustybuzz::ShapePlan> {
    type Plans = HashMap<(FaceId, bool, u32), Arc<rustybuzz::ShapePlan>>;
    static PLANS: OnceLock<Mutex<Plans>> = OnceLock::new();
    let rtl = buf.direction() == Direction::RightToLeft;
    let key = (id, rtl, buf.script().tag().as_u32());
    let plans = PLANS.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(plan) = plans.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return plan.clone();
    }
    let plan = Arc::new(rustybuzz::ShapePlan::new(
        face,
        buf.direction(),
        Some(buf.script()),
        buf.language().as_ref(),
        &[],
    ));
    plans
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(key)
        .or_insert(plan)
        .clone()
}

/// A run of text of one face, script and direction.
struct Piece<'t> {
    text: &'t str,
    face: FaceId,
    script: Script,
    rtl: bool,
}

/// Shapes `piece` and appends its glyphs at `pen`; returns the pen after it.
fn shape_piece(lib: &Library, piece: &Piece<'_>, pen: f64, line: &mut Line) -> f64 {
    let Piece {
        text: piece,
        face,
        script,
        rtl,
    } = *piece;
    let f = lib.face(face);
    let mut buf = UnicodeBuffer::new();
    buf.push_str(piece);
    let tag = script.short_name().as_bytes();
    if let Some(s) = <[u8; 4]>::try_from(tag)
        .ok()
        .and_then(|t| rustybuzz::Script::from_iso15924_tag(ttf_parser::Tag::from_bytes(&t)))
    {
        buf.set_script(s);
    }
    buf.set_direction(if rtl {
        Direction::RightToLeft
    } else {
        Direction::LeftToRight
    });
    buf.guess_segment_properties();
    let plan = plan_for(face, &f.face, &buf);
    let out = rustybuzz::shape_with_plan(&f.face, &plan, buf);
    let infos = out.glyph_infos();
    let positions = out.glyph_positions();
    // Cluster starts in logical order: a cluster's text runs to the next start.
    let mut starts: Vec<u32> = infos.iter().map(|g| g.cluster).collect();
    starts.sort_unstable();
    starts.dedup();
    let text_of = |cluster: u32| {
        let k = starts.partition_point(|&s| s <= cluster);
        let end = starts.get(k).map_or(piece.len(), |&e| e as usize);
        piece
            .get(cluster as usize..end)
            .unwrap_or_default()
            .to_string()
    };
    let mut pen = pen;
    let mut i = 0;
    while i < infos.len() {
        let cluster = infos[i].cluster;
        let first = line.glyphs.len();
        while i < infos.len() && infos[i].cluster == cluster {
            let p = positions[i];
            line.glyphs.push(Glyph {
                face,
                gid: u16::try_from(infos[i].glyph_id).unwrap_or(0),
                x: pen + f64::from(p.x_offset) * f.scale,
                y: f64::from(p.y_offset) * f.scale,
            });
            pen += f64::from(p.x_advance) * f.scale;
            i += 1;
        }
        line.clusters.push(Cluster {
            text: text_of(cluster),
            glyphs: first..line.glyphs.len(),
            rtl,
        });
    }
    pen
}

/// What each glyph stands for in one PDF's `/ToUnicode` maps, per face and code: the first text
/// a glyph is met with. A cluster this cannot explain (several glyphs, or a glyph met before with
/// another text) is drawn inside an `/ActualText` span instead.
#[derive(Debug, Default)]
pub struct GlyphTexts {
    map: std::collections::BTreeMap<(FaceId, u16), String>,
}

impl GlyphTexts {
    /// Records the texts of a cluster's glyphs, given as (face, code) in visual order, and
    /// says whether the `/ToUnicode` maps alone give back [`Cluster::extracted`]; `false` means
    /// the cluster needs an `/ActualText` span. A glyph of a cluster of several gets its own
    /// character when there is one per glyph, else the first one gets the whole text and the
    /// others none (inside the span, readers use the span's text).
    pub fn record(&mut self, cluster: &Cluster, glyphs: &[(FaceId, u16)]) -> bool {
        let text = cluster.extracted();
        if let [one] = glyphs {
            return *self.map.entry(*one).or_insert_with(|| text.clone()) == text;
        }
        // Per glyph, in visual order (reversed already for right-to-left clusters).
        let chars: Vec<char> = text.chars().collect();
        let n = glyphs.len();
        for (k, key) in glyphs.iter().enumerate() {
            let own = if chars.len() == n {
                chars[k].to_string()
            } else if k == 0 {
                text.clone()
            } else {
                String::new()
            };
            self.map.entry(*key).or_insert(own);
        }
        false
    }

    /// The text recorded for a glyph ("" for one that stands for nothing alone).
    pub fn get(&self, face: FaceId, code: u16) -> &str {
        self.map.get(&(face, code)).map_or("", String::as_str)
    }

    /// The recorded glyphs of `face`: code and text.
    pub fn of(&self, face: FaceId) -> impl Iterator<Item = (u16, &str)> + '_ {
        self.map
            .range((face, 0)..=(face, u16::MAX))
            .map(|(&(_, code), t)| (code, t.as_str()))
    }
}

#[cfg(test)]
mod tests;
