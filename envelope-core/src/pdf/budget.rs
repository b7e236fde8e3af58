//! The work budget of one document: every place that parses or interprets hostile bytes charges
//! what it does here, and the first limit passed stops the whole read with
//! [`PdfError::TooComplex`].
//!
//! Counters are the defence: each one bounds a kind of work whose cost a stranger controls
//! (objects parsed, bytes inflated, content operations, glyphs, map entries, nesting). The
//! wall-clock deadline is only a backstop, read every few hundred charges so that it costs
//! nothing on the happy path. Once a limit is passed the budget stays spent: code that swallows
//! a local failure (an unreadable object becomes null) still stops at the next charge or
//! [`Budget::check`]. This module must never look at PDF bytes itself: it only drives the lexer
//! ([`Budget::parse`], [`Budget::operand`]) with the limits and charges what the lexer built.

use std::time::{Duration, Instant};

use super::PdfError;
use super::lexer::{Lexer, Stop, Token};
use super::object::Object;

/// Limits on the work one document may cost. `Default` gives the values of docs/PDF.md; an
/// embedder may raise or lower any of them.
#[derive(Debug, Clone, Copy)]
pub struct PdfLimits {
    /// Most pages a document may have (200 by the spec). [`super::inspect`] only.
    pub max_pages: u32,
    /// Most objects parsed from the file (every value inside dictionaries and arrays counts).
    pub max_objects: u64,
    /// Largest decoded stream, in bytes (also the joined content of one page).
    pub max_stream_bytes: usize,
    /// Most bytes decoded from all streams of the document together.
    pub max_decoded_bytes: u64,
    /// Most content-stream operators and operands interpreted (a memoised form costs one).
    pub max_content_ops: u64,
    /// Most glyphs the text extractor produces (a form's glyphs count at each use).
    pub max_glyphs: u64,
    /// Most entries put into maps: xref entries, character maps, object stream indexes, caches.
    pub max_map_entries: u64,
    /// Deepest nesting of arrays and dictionaries, of form XObjects, and of the page tree.
    pub max_nesting: usize,
    /// Wall-clock time for one document; a backstop behind the counters.
    pub deadline: Duration,
}

impl Default for PdfLimits {
    fn default() -> Self {
        PdfLimits {
            max_pages: 200,
            max_objects: 500_000,
            max_stream_bytes: 64 << 20,
            max_decoded_bytes: 256 << 20,
            max_content_ops: 10_000_000,
            max_glyphs: 1_000_000,
            max_map_entries: 1_000_000,
            max_nesting: 64,
            deadline: Duration::from_millis(1500),
        }
    }
}

impl PdfLimits {
    /// The limits for reading a document that was inspected already (stamping, sealing): the
    /// defaults, with a deadline long enough that a busy machine never fails a completion. The
    /// counters bound the work all the same.
    pub(crate) fn for_stamping() -> Self {
        PdfLimits {
            deadline: Duration::from_secs(30),
            ..PdfLimits::default()
        }
    }
}

/// The limit a document went past, with its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    Objects(u64),
    StreamBytes(usize),
    DecodedBytes(u64),
    ContentOps(u64),
    Glyphs(u64),
    MapEntries(u64),
    Nesting(usize),
    Deadline(Duration),
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Limit::Objects(n) => write!(
                f,
                "the PDF needs more than {n} objects to read; it is too complex"
            ),
            Limit::StreamBytes(n) => write!(
                f,
                "a stream of the PDF decodes to more than {n} bytes; it is too large"
            ),
            Limit::DecodedBytes(n) => write!(
                f,
                "the streams of the PDF decode to more than {n} bytes in total; it is too large"
            ),
            Limit::ContentOps(n) => write!(
                f,
                "the PDF needs more than {n} content operators and operands to read; it is too complex"
            ),
            Limit::Glyphs(n) => write!(
                f,
                "the PDF shows more than {n} characters; it is too complex"
            ),
            Limit::MapEntries(n) => write!(
                f,
                "the PDF needs more than {n} table entries (cross-references, character maps) to read; it is too complex"
            ),
            Limit::Nesting(n) => write!(
                f,
                "the PDF nests objects, forms or page-tree levels more than {n} deep; it is too complex"
            ),
            Limit::Deadline(d) => write!(
                f,
                "the PDF takes more than {} ms to read; it is too complex",
                d.as_millis()
            ),
        }
    }
}

/// Charges between two reads of the clock.
const CLOCK_EVERY: u32 = 256;

/// What one document has spent so far.
#[derive(Debug, Clone)]
pub struct Budget {
    limits: PdfLimits,
    deadline: Instant,
    objects: u64,
    decoded: u64,
    ops: u64,
    glyphs: u64,
    entries: u64,
    since_clock: u32,
    spent: Option<Limit>,
}

impl Budget {
    pub fn new(limits: &PdfLimits) -> Self {
        let now = Instant::now();
        Budget {
            limits: *limits,
            deadline: now.checked_add(limits.deadline).unwrap_or(now),
            objects: 0,
            decoded: 0,
            ops: 0,
            glyphs: 0,
            entries: 0,
            since_clock: 0,
            spent: None,
        }
    }

    pub fn limits(&self) -> &PdfLimits {
        &self.limits
    }

    /// The limit passed so far, as an error.
    pub fn check(&self) -> Result<(), PdfError> {
        match self.spent {
            Some(l) => Err(PdfError::TooComplex(l)),
            None => Ok(()),
        }
    }

    /// Records that `limit` was passed (the first one wins) and returns its error.
    pub fn trip(&mut self, limit: Limit) -> PdfError {
        let l = *self.spent.get_or_insert(limit);
        PdfError::TooComplex(l)
    }

    fn charge(
        &mut self,
        n: u64,
        counter: fn(&mut Budget) -> &mut u64,
        max: u64,
        limit: Limit,
    ) -> Result<(), PdfError> {
        self.check()?;
        let c = counter(self);
        *c = c.saturating_add(n);
        if *c > max {
            return Err(self.trip(limit));
        }
        self.since_clock += 1;
        if self.since_clock >= CLOCK_EVERY {
            self.clock()?;
        }
        Ok(())
    }

    /// Reads the clock now (after a single expensive step such as inflating a stream).
    pub fn clock(&mut self) -> Result<(), PdfError> {
        self.since_clock = 0;
        if Instant::now() > self.deadline {
            return Err(self.trip(Limit::Deadline(self.limits.deadline)));
        }
        self.check()
    }

    /// `n` objects parsed.
    pub fn objects(&mut self, n: u64) -> Result<(), PdfError> {
        let max = self.limits.max_objects;
        self.charge(n, |b| &mut b.objects, max, Limit::Objects(max))
    }

    /// Objects that may still be parsed before the limit.
    pub fn objects_left(&self) -> u64 {
        self.limits.max_objects.saturating_sub(self.objects)
    }

    /// The most bytes the next stream may decode to: the per-stream limit, or what is left of the
    /// total when that is smaller.
    pub fn stream_cap(&self) -> usize {
        let left = self.limits.max_decoded_bytes.saturating_sub(self.decoded);
        self.limits
            .max_stream_bytes
            .min(usize::try_from(left).unwrap_or(usize::MAX))
    }

    /// A stream went past `cap` (as given by [`Budget::stream_cap`]).
    pub fn stream_too_large(&mut self, cap: usize) -> PdfError {
        if cap < self.limits.max_stream_bytes {
            self.trip(Limit::DecodedBytes(self.limits.max_decoded_bytes))
        } else {
            self.trip(Limit::StreamBytes(self.limits.max_stream_bytes))
        }
    }

    /// `n` bytes decoded (every filter stage counts).
    pub fn decoded(&mut self, n: u64) -> Result<(), PdfError> {
        let max = self.limits.max_decoded_bytes;
        self.charge(n, |b| &mut b.decoded, max, Limit::DecodedBytes(max))?;
        if n >= 1 << 20 {
            self.clock()?;
        }
        Ok(())
    }

    /// `n` content operators or operands interpreted.
    pub fn content_ops(&mut self, n: u64) -> Result<(), PdfError> {
        let max = self.limits.max_content_ops;
        self.charge(n, |b| &mut b.ops, max, Limit::ContentOps(max))
    }

    /// `n` glyphs produced.
    pub fn glyphs(&mut self, n: u64) -> Result<(), PdfError> {
        let max = self.limits.max_glyphs;
        self.charge(n, |b| &mut b.glyphs, max, Limit::Glyphs(max))
    }

    /// `n` entries put into a map (or rows of a table read to fill one).
    pub fn entries(&mut self, n: u64) -> Result<(), PdfError> {
        let max = self.limits.max_map_entries;
        self.charge(n, |b| &mut b.entries, max, Limit::MapEntries(max))
    }

    /// Parses one object of the file at the lexer's cursor, within the nesting limit and what is
    /// left of the object limit. `None` is a malformed object (not a limit).
    pub fn parse(&mut self, lx: &mut Lexer<'_>) -> Result<Option<Object>, PdfError> {
        self.check()?;
        let before = lx.objects;
        lx.limit(
            self.limits.max_nesting,
            before.saturating_add(self.objects_left()),
        );
        let o = lx.parse_object();
        let built = lx.objects - before;
        self.stopped(lx.stopped(), Limit::Objects(self.limits.max_objects))?;
        self.objects(built)?;
        Ok(o)
    }

    /// Builds one operand of a content stream from its first token; each value counts as one
    /// content operation.
    pub fn operand<'a>(
        &mut self,
        lx: &mut Lexer<'a>,
        first: Token<'a>,
    ) -> Result<Option<Object>, PdfError> {
        let before = lx.objects;
        let left = self.limits.max_content_ops.saturating_sub(self.ops);
        lx.limit(self.limits.max_nesting, before.saturating_add(left));
        let o = lx.object_from(first, 0);
        let built = lx.objects - before;
        self.stopped(lx.stopped(), Limit::ContentOps(self.limits.max_content_ops))?;
        self.content_ops(built)?;
        Ok(o)
    }

    fn stopped(&mut self, stop: Option<Stop>, quota: Limit) -> Result<(), PdfError> {
        match stop {
            Some(Stop::TooDeep) => Err(self.trip(Limit::Nesting(self.limits.max_nesting))),
            Some(Stop::Quota) => Err(self.trip(quota)),
            None => Ok(()),
        }
    }

    /// Map entries that may still be added before the limit.
    pub fn entries_left(&self) -> u64 {
        self.limits.max_map_entries.saturating_sub(self.entries)
    }

    /// Fails when `depth` is past the nesting limit.
    pub fn depth(&mut self, depth: usize) -> Result<(), PdfError> {
        self.check()?;
        if depth > self.limits.max_nesting {
            return Err(self.trip(Limit::Nesting(self.limits.max_nesting)));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_limit_passed_stays() {
        let mut b = Budget::new(&PdfLimits {
            max_objects: 10,
            ..PdfLimits::default()
        });
        assert!(b.objects(10).is_ok());
        assert!(matches!(
            b.objects(1),
            Err(PdfError::TooComplex(Limit::Objects(10)))
        ));
        // Every later charge, of any kind, answers the same limit.
        assert!(matches!(
            b.glyphs(1),
            Err(PdfError::TooComplex(Limit::Objects(10)))
        ));
        assert!(b.check().is_err());
    }

    #[test]
    fn the_stream_cap_shrinks_to_what_is_left_of_the_total() {
        let mut b = Budget::new(&PdfLimits {
            max_stream_bytes: 100,
            max_decoded_bytes: 150,
            ..PdfLimits::default()
        });
        assert_eq!(b.stream_cap(), 100);
        b.decoded(100).expect("within the total");
        assert_eq!(b.stream_cap(), 50);
        assert!(matches!(
            b.stream_too_large(50),
            PdfError::TooComplex(Limit::DecodedBytes(150))
        ));
    }

    #[test]
    fn the_deadline_is_read_from_the_clock() {
        let mut b = Budget::new(&PdfLimits {
            deadline: Duration::ZERO,
            ..PdfLimits::default()
        });
        std::thread::sleep(Duration::from_millis(2));
        assert!(matches!(
            b.clock(),
            Err(PdfError::TooComplex(Limit::Deadline(_)))
        ));
    }

    #[test]
    fn messages_name_the_limit_in_plain_words() {
        let m = Limit::ContentOps(2_000_000).to_string();
        assert_eq!(
            m,
            "the PDF needs more than 2000000 content operators and operands to read; it is too complex"
        );
        assert!(
            !Limit::Deadline(Duration::from_millis(1500))
                .to_string()
                .contains('{')
        );
    }
}
