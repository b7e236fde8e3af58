//! Hostile PDF object graphs for the fuzz tests: a proptest [`Strategy`] for a [`Graph`] (page
//! trees, content streams, form XObjects, fonts with ToUnicode CMaps, AcroForm fields and loose
//! objects, all linked by references that may loop), and [`Graph::to_pdf`], which writes it with
//! classic or stream xrefs, object streams, incremental updates and deliberate damage.
//!
//! A [`Link`] names an object of the pool it is meant for (a page's contents link to content
//! streams, a `Do` to forms); a few links name any object, or one that does not exist, so that the
//! reader also meets the wrong type where it expects a stream. Sizes stay small except for rare
//! "blow-up" knobs (huge `/Kids`, full-range `bfrange`, repeated `Do`, deep nesting, wide
//! dictionaries), which is where hangs live.
//!
//! Deterministic: the same value always writes the same bytes, so a failing case reproduces.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::Index;

pub mod file;
pub mod write;

pub use file::FilePlan;

/// A reference into a pool (or, with `any`, to any object number, possibly a missing one).
#[derive(Debug, Clone)]
pub struct Link {
    pub any: bool,
    pub at: Index,
}

/// A number as it is written: hostile values included (huge, negative, NaN, malformed).
#[derive(Debug, Clone)]
pub enum Num {
    Int(i64),
    Real(f64),
    Raw(&'static str),
}

/// A loose PDF value.
#[derive(Debug, Clone)]
pub enum Val {
    Null,
    Bool(bool),
    Num(Num),
    Name(String),
    Str(Vec<u8>),
    Ref(Link),
    Array(Vec<Val>),
    Dict(Vec<(String, Val)>),
    /// `n` nested arrays.
    Deep(u32),
    /// A dictionary with `n` distinct keys.
    Wide(u32),
}

/// Inherited page attributes, carried by `/Pages` nodes as well as pages.
#[derive(Debug, Clone)]
pub struct Inherit {
    pub resources: Option<Resources>,
    pub media: Option<[Num; 4]>,
    pub crop: Option<[Num; 4]>,
    pub rotate: Option<Num>,
}

#[derive(Debug, Clone)]
pub struct Resources {
    /// `/F0`, `/F1`, ... in order.
    pub fonts: Vec<Link>,
    /// `/X0`, `/X1`, ... in order.
    pub xobjects: Vec<Link>,
    /// Written as its own object and referenced.
    pub indirect: bool,
    /// Extra unused keys: large inherited resources.
    pub padding: u32,
}

/// A page-tree node: a `/Page` when `leaf`, else `/Pages`.
#[derive(Debug, Clone)]
pub struct PageNode {
    pub leaf: bool,
    pub kids: Vec<Link>,
    /// The kids are written this many times over (huge `/Kids`).
    pub fan_out: u32,
    pub count: Num,
    pub typed: bool,
    pub inherit: Inherit,
    pub contents: Vec<Link>,
    pub annots: Vec<Link>,
    pub parent: Option<Link>,
}

/// How a stream is stored.
#[derive(Debug, Clone)]
pub struct Enc {
    pub flate: bool,
    pub length: Length,
}

#[derive(Debug, Clone)]
pub enum Length {
    Exact,
    Off(i16),
    Missing,
    /// An indirect `/Length` object holding the right value.
    Indirect,
    /// `/Length` refers to the stream itself.
    SelfRef,
    Huge,
}

#[derive(Debug, Clone)]
pub struct Content {
    pub ops: Vec<Op>,
    pub enc: Enc,
}

#[derive(Debug, Clone)]
pub struct Form {
    pub ops: Vec<Op>,
    pub enc: Enc,
    pub resources: Option<Resources>,
    pub matrix: Option<[Num; 6]>,
    pub is_form: bool,
}

#[derive(Debug, Clone)]
pub enum FontKind {
    Helvetica,
    /// A simple font with `/Differences`.
    Simple(Vec<(u8, String)>),
    /// Type0 / Identity-H with a CIDFont and `/W`.
    Type0 {
        widths: Vec<(u16, u16, Num)>,
    },
}

#[derive(Debug, Clone)]
pub struct Font {
    pub kind: FontKind,
    pub to_unicode: Option<Link>,
}

#[derive(Debug, Clone)]
pub enum CMapLine {
    Char(u16, u32),
    Range(u32, u32, u32),
    /// A range with an array of destinations.
    RangeArray(u16, u16, Vec<u16>),
}

#[derive(Debug, Clone)]
pub struct CMap {
    pub lines: Vec<CMapLine>,
    /// The whole body is written this many times.
    pub repeat: u32,
    pub enc: Enc,
}

#[derive(Debug, Clone)]
pub struct FieldNode {
    pub name: Option<String>,
    pub ft: Option<&'static str>,
    pub kids: Vec<Link>,
    pub parent: Option<Link>,
    pub rect: Option<[Num; 4]>,
    pub page: Option<Link>,
    pub flags: Option<i64>,
}

/// Content-stream operations.
#[derive(Debug, Clone)]
pub enum Op {
    Text {
        font: u8,
        size: Num,
        at: (Num, Num),
        text: Vec<u8>,
        /// Split into a `TJ` array of this many parts (0: `Tj`).
        split: u8,
    },
    /// `n` times `q`.
    Save(u32),
    Restore(u32),
    Cm([Num; 6]),
    /// `/Xi Do`, `n` times.
    Do(u8, u32),
    /// A text show of `n` opening braces.
    Braces(u32),
    InlineImage(Vec<u8>),
    /// `n` nested arrays as an operand.
    Nest(u32),
    /// `n` operands before one operator.
    Operands(u32),
    Raw(Vec<u8>),
}

/// A whole hostile document before it is written.
#[derive(Debug, Clone)]
pub struct Graph {
    /// `nodes[0]` is the page tree's root.
    pub nodes: Vec<PageNode>,
    pub contents: Vec<Content>,
    pub forms: Vec<Form>,
    pub fonts: Vec<Font>,
    pub cmaps: Vec<CMap>,
    pub fields: Vec<FieldNode>,
    /// `/Fields` of the AcroForm, when there is one.
    pub form_roots: Option<Vec<Link>>,
    pub junk: Vec<Val>,
    pub file: FilePlan,
}

/// The pools of a graph, in object-number order after the catalog (object 1).
#[derive(Debug, Clone, Copy)]
pub enum Pool {
    Node,
    Content,
    Form,
    Font,
    CMap,
    Field,
    Junk,
}

/// Tag texts the discovery looks for, broken ones included.
const TAGS: &[&str] = &[
    "{{signature:A}}",
    "{{initials:A}}",
    "{{date:B}}",
    "{{text:B:name}}",
    "{{checkbox:A:agree}}",
    "{{data:company}}",
    "{{signature:}}",
    "{{text:A:a.b.c}}",
    "{{{{",
    "}}}}",
    "{{signature:A",
    "Client: {{sig",
    "nature:Client}}",
    "{{text:\u{e9}:x}}",
];

const NAMES: &[&str] = &[
    "Type",
    "Subtype",
    "Length",
    "Filter",
    "FlateDecode",
    "Kids",
    "Parent",
    "Resources",
    "Font",
    "XObject",
    "Form",
    "Page",
    "Pages",
    "Contents",
    "Annots",
    "Fields",
    "T",
    "FT",
    "Tx",
    "Btn",
    "Sig",
    "Rect",
    "P",
    "MediaBox",
    "Rotate",
    "ObjStm",
    "XRef",
    "Prev",
    "Size",
    "W",
    "Index",
    "N",
    "First",
    "DecodeParms",
    "Predictor",
    "Columns",
    "ToUnicode",
    "A",
];

pub fn link() -> impl Strategy<Value = Link> {
    (prop::bool::weighted(0.08), any::<Index>()).prop_map(|(any, at)| Link { any, at })
}

fn links(max: usize) -> impl Strategy<Value = Vec<Link>> {
    vec(link(), 0..=max)
}

pub fn num() -> impl Strategy<Value = Num> {
    prop_oneof![
        6 => (-50i64..900).prop_map(Num::Int),
        2 => (-1000.0f64..1000.0).prop_map(Num::Real),
        1 => prop::sample::select(vec![
            0, -1, i64::from(i32::MAX), i64::from(u32::MAX), i64::MAX, i64::MIN, 1 << 40,
        ])
        .prop_map(Num::Int),
        1 => prop::sample::select(vec![
            "1e9", "--3", ".", "-.", "+", "0.000000000000000000001", "NaN", "inf",
            "99999999999999999999999", "1.7976931348623157e308",
        ])
        .prop_map(Num::Raw),
    ]
}

fn nums<const N: usize>() -> impl Strategy<Value = [Num; N]> {
    vec(num(), N).prop_map(|v| v.try_into().unwrap_or_else(|_| unreachable!()))
}

/// A count that is small nearly always and large now and then; `scale` multiplies the large end.
fn blow(small: u32, large: u32, scale: u32) -> impl Strategy<Value = u32> {
    prop_oneof![12 => 0..=small, 1 => 0..=large.saturating_mul(scale)]
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(NAMES).prop_map(str::to_string),
        1 => "[A-Za-z#0-9]{0,6}",
    ]
}

pub fn val(scale: u32) -> impl Strategy<Value = Val> {
    let leaf = prop_oneof![
        1 => Just(Val::Null),
        1 => any::<bool>().prop_map(Val::Bool),
        1 => num().prop_map(Val::Num),
        1 => name().prop_map(Val::Name),
        1 => vec(any::<u8>(), 0..12).prop_map(Val::Str),
        3 => link().prop_map(Val::Ref),
        1 => blow(8, 2_000, scale).prop_map(Val::Deep),
        1 => blow(8, 2_000, scale).prop_map(Val::Wide),
    ];
    leaf.prop_recursive(3, 24, 5, move |inner| {
        prop_oneof![
            vec(inner.clone(), 0..5).prop_map(Val::Array),
            vec((name(), inner), 0..5).prop_map(Val::Dict),
        ]
    })
}

fn text() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => prop::sample::select(TAGS).prop_map(|t| t.as_bytes().to_vec()),
        1 => vec(any::<u8>(), 0..12),
        1 => "[ -~]{0,16}".prop_map(String::into_bytes),
    ]
}

pub fn op(scale: u32) -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0u8..4, num(), (num(), num()), text(), 0u8..4).prop_map(
            |(font, size, at, text, split)| Op::Text { font, size, at, text, split }
        ),
        2 => blow(4, 500, scale).prop_map(Op::Save),
        2 => blow(4, 500, scale).prop_map(Op::Restore),
        1 => nums::<6>().prop_map(Op::Cm),
        4 => (0u8..4, prop_oneof![8 => 1u32..=2, 1 => 1u32..=40]).prop_map(|(x, n)| Op::Do(x, n)),
        1 => blow(16, 10_000, scale).prop_map(Op::Braces),
        1 => vec(any::<u8>(), 0..24).prop_map(Op::InlineImage),
        1 => blow(8, 2_000, scale).prop_map(Op::Nest),
        1 => blow(8, 2_000, scale).prop_map(Op::Operands),
        1 => vec(any::<u8>(), 0..24).prop_map(Op::Raw),
    ]
}

fn enc() -> impl Strategy<Value = Enc> {
    let length = prop_oneof![
        12 => Just(Length::Exact),
        1 => any::<i16>().prop_map(Length::Off),
        1 => Just(Length::Missing),
        1 => Just(Length::Indirect),
        1 => Just(Length::SelfRef),
        1 => Just(Length::Huge),
    ];
    (prop::bool::weighted(0.6), length).prop_map(|(flate, length)| Enc { flate, length })
}

fn resources(scale: u32) -> impl Strategy<Value = Resources> {
    (links(4), links(4), any::<bool>(), blow(2, 2_000, scale)).prop_map(
        |(fonts, xobjects, indirect, padding)| Resources {
            fonts,
            xobjects,
            indirect,
            padding,
        },
    )
}

fn inherit(scale: u32) -> impl Strategy<Value = Inherit> {
    (
        prop::option::weighted(0.7, resources(scale)),
        prop::option::weighted(0.5, nums::<4>()),
        prop::option::weighted(0.1, nums::<4>()),
        prop::option::weighted(0.2, num()),
    )
        .prop_map(|(resources, media, crop, rotate)| Inherit {
            resources,
            media,
            crop,
            rotate,
        })
}

fn page_node(scale: u32) -> impl Strategy<Value = PageNode> {
    (
        prop::bool::weighted(0.6),
        links(5),
        prop_oneof![10 => Just(1u32), 1 => 1u32..=500 * scale],
        num(),
        prop::bool::weighted(0.9),
        inherit(scale),
        links(3),
        links(3),
        prop::option::weighted(0.5, link()),
    )
        .prop_map(
            |(leaf, kids, fan_out, count, typed, inherit, contents, annots, parent)| PageNode {
                leaf,
                kids,
                fan_out,
                count,
                typed,
                inherit,
                contents,
                annots,
                parent,
            },
        )
}

fn font() -> impl Strategy<Value = Font> {
    let kind = prop_oneof![
        1 => Just(FontKind::Helvetica),
        1 => vec((any::<u8>(), name()), 0..6).prop_map(FontKind::Simple),
        1 => vec((any::<u16>(), any::<u16>(), num()), 0..4)
            .prop_map(|widths| FontKind::Type0 { widths }),
    ];
    (kind, prop::option::weighted(0.7, link()))
        .prop_map(|(kind, to_unicode)| Font { kind, to_unicode })
}

fn cmap(scale: u32) -> impl Strategy<Value = CMap> {
    let line = prop_oneof![
        4 => (any::<u16>(), 0x20u32..0x3000).prop_map(|(s, d)| CMapLine::Char(s, d)),
        2 => (0u32..0x100, 0u32..0x200, 0x20u32..0x3000).prop_map(|(lo, n, d)| CMapLine::Range(lo, lo + n, d)),
        1 => Just(CMapLine::Range(0, 0xFFFF, 0x41)),
        1 => Just(CMapLine::Range(0, u32::MAX, 0x41)),
        1 => (any::<u16>(), any::<u16>(), vec(any::<u16>(), 0..6)).prop_map(|(a, b, d)| CMapLine::RangeArray(a, b, d)),
    ];
    (vec(line, 0..8), blow(1, 200, scale), enc()).prop_map(|(lines, repeat, enc)| CMap {
        lines,
        repeat: repeat.max(1),
        enc,
    })
}

fn field() -> impl Strategy<Value = FieldNode> {
    (
        prop::option::weighted(0.9, "[A-Za-z]{1,5}(\\.[a-z]{1,3})?"),
        prop::option::weighted(
            0.8,
            prop::sample::select(vec!["Tx", "Btn", "Sig", "Ch", "X"]),
        ),
        links(3),
        prop::option::weighted(0.4, link()),
        prop::option::weighted(0.8, nums::<4>()),
        prop::option::weighted(0.5, link()),
        prop::option::weighted(0.3, any::<i64>()),
    )
        .prop_map(|(name, ft, kids, parent, rect, page, flags)| FieldNode {
            name,
            ft,
            kids,
            parent,
            rect,
            page,
            flags,
        })
}

prop_compose! {
    /// A hostile document; `scale` (1 in CI) multiplies the sizes of the rare blow-ups.
    pub fn graph(scale: u32)(
        nodes in vec(page_node(scale), 1..8),
        contents in vec((vec(op(scale), 0..10), enc()).prop_map(|(ops, enc)| Content { ops, enc }), 0..5),
        forms in vec(
            (vec(op(scale), 0..8), enc(), prop::option::weighted(0.5, resources(scale)),
             prop::option::weighted(0.3, nums::<6>()), prop::bool::weighted(0.9))
                .prop_map(|(ops, enc, resources, matrix, is_form)| Form { ops, enc, resources, matrix, is_form }),
            0..5),
        fonts in vec(font(), 0..4),
        cmaps in vec(cmap(scale), 0..3),
        fields in vec(field(), 0..6),
        form_roots in prop::option::weighted(0.6, links(4)),
        junk in vec(val(scale), 0..4),
        file in file::file_plan(scale),
    ) -> Graph {
        Graph { nodes, contents, forms, fonts, cmaps, fields, form_roots, junk, file }
    }
}

impl Graph {
    fn pool_len(&self, p: Pool) -> usize {
        match p {
            Pool::Node => self.nodes.len(),
            Pool::Content => self.contents.len(),
            Pool::Form => self.forms.len(),
            Pool::Font => self.fonts.len(),
            Pool::CMap => self.cmaps.len(),
            Pool::Field => self.fields.len(),
            Pool::Junk => self.junk.len(),
        }
    }

    fn base(&self, p: Pool) -> u32 {
        let order = [
            Pool::Node,
            Pool::Content,
            Pool::Form,
            Pool::Font,
            Pool::CMap,
            Pool::Field,
            Pool::Junk,
        ];
        let mut n = 2; // object 1 is the catalog
        for q in order {
            if std::mem::discriminant(&q) == std::mem::discriminant(&p) {
                break;
            }
            n += self.pool_len(q) as u32;
        }
        n
    }

    /// Objects written from the pools (the catalog included).
    fn pooled(&self) -> u32 {
        self.base(Pool::Junk) + self.junk.len() as u32 - 1
    }

    /// The object number a link names. `any` links may name a few numbers past the end.
    pub fn resolve(&self, pool: Pool, l: &Link) -> u32 {
        let len = self.pool_len(pool);
        if l.any || len == 0 {
            return 1 + l.at.index(self.pooled() as usize + 3) as u32;
        }
        self.base(pool) + l.at.index(len) as u32
    }
}
