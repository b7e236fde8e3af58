//! Tokens and objects from PDF bytes: the lexer behind the file reader and the content-stream
//! interpreter.
//!
//! Every input is hostile: the lexer never panics, never reads past its slice, bounds nesting
//! ([`MAX_DEPTH`], or the caller's limit) and string sizes by the input itself, and stops building
//! an object once it holds more values than the caller's quota. It tells the caller why it
//! stopped ([`Lexer::stopped`]) so that the document's budget can name the limit. It must never
//! resolve references or look at anything but the slice it was given.

use super::object::{Dict, ObjRef, Object};

/// Deepest array/dictionary nesting accepted.
pub const MAX_DEPTH: usize = 64;

#[derive(Debug, Clone, PartialEq)]
pub enum Token<'a> {
    Int(i64),
    Real(f64),
    Str(Vec<u8>),
    Name(Vec<u8>),
    ArrayStart,
    ArrayEnd,
    DictStart,
    DictEnd,
    /// Any other bare word: `obj`, `R`, `true`, content operators.
    Keyword(&'a [u8]),
}

pub fn is_white(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t' | b'\x0c' | b'\0')
}

pub fn is_delim(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

/// Why the lexer refused the object it was building.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Nesting went past the depth limit.
    TooDeep,
    /// More values than the quota.
    Quota,
}

/// A cursor over bytes.
#[derive(Debug, Clone)]
pub struct Lexer<'a> {
    pub data: &'a [u8],
    pub pos: usize,
    /// Set once a limit was passed: the object being parsed is refused.
    stop: Option<Stop>,
    max_depth: usize,
    /// Values built so far (every array item and dictionary value counts).
    pub objects: u64,
    quota: u64,
}

impl<'a> Lexer<'a> {
    pub fn new(data: &'a [u8], pos: usize) -> Self {
        Lexer {
            data,
            pos: pos.min(data.len()),
            stop: None,
            max_depth: MAX_DEPTH,
            objects: 0,
            quota: u64::MAX,
        }
    }

    /// Sets the nesting limit and the quota of values (counted over this lexer's life).
    pub fn limit(&mut self, max_depth: usize, quota: u64) {
        self.max_depth = max_depth;
        self.quota = quota;
    }

    /// Why the last object was refused, when a limit refused it.
    pub fn stopped(&self) -> Option<Stop> {
        self.stop
    }

    pub fn skip_ws(&mut self) {
        while let Some(&b) = self.data.get(self.pos) {
            if is_white(b) {
                self.pos += 1;
            } else if b == b'%' {
                while let Some(&c) = self.data.get(self.pos) {
                    if c == b'\n' || c == b'\r' {
                        break;
                    }
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    /// The next token, or `None` at the end of input. Malformed bytes are skipped.
    pub fn next_token(&mut self) -> Option<Token<'a>> {
        loop {
            self.skip_ws();
            let b = *self.data.get(self.pos)?;
            match b {
                b'[' => {
                    self.pos += 1;
                    return Some(Token::ArrayStart);
                }
                b']' => {
                    self.pos += 1;
                    return Some(Token::ArrayEnd);
                }
                b'<' if self.data.get(self.pos + 1) == Some(&b'<') => {
                    self.pos += 2;
                    return Some(Token::DictStart);
                }
                b'>' if self.data.get(self.pos + 1) == Some(&b'>') => {
                    self.pos += 2;
                    return Some(Token::DictEnd);
                }
                b'<' => return Some(Token::Str(self.hex_string())),
                b'(' => return Some(Token::Str(self.literal_string())),
                b'/' => return Some(Token::Name(self.name())),
                b'0'..=b'9' | b'+' | b'-' | b'.' => {
                    if let Some(t) = self.number() {
                        return Some(t);
                    }
                }
                b')' | b'>' | b'{' | b'}' => self.pos += 1,
                _ => {
                    let start = self.pos;
                    while let Some(&c) = self.data.get(self.pos) {
                        if is_white(c) || is_delim(c) {
                            break;
                        }
                        self.pos += 1;
                    }
                    return Some(Token::Keyword(&self.data[start..self.pos]));
                }
            }
        }
    }

    fn number(&mut self) -> Option<Token<'a>> {
        let start = self.pos;
        let mut end = self.pos;
        while let Some(&c) = self.data.get(end) {
            if c.is_ascii_digit() || c == b'.' || ((c == b'-' || c == b'+') && end == start) {
                end += 1;
            } else {
                break;
            }
        }
        let text = std::str::from_utf8(&self.data[start..end]).ok()?;
        self.pos = end.max(start + 1);
        if !text.contains('.')
            && let Ok(i) = text.parse::<i64>()
        {
            return Some(Token::Int(i));
        }
        // Producers write things like "-.5", "3." and "--2"; be lenient.
        let cleaned = text.trim_start_matches('+').replace("--", "-");
        let cleaned = if cleaned == "-" || cleaned == "." || cleaned.is_empty() {
            "0".into()
        } else {
            cleaned
        };
        match cleaned.parse::<f64>() {
            Ok(v) if v.is_finite() => Some(Token::Real(v)),
            _ => Some(Token::Real(0.0)),
        }
    }

    fn name(&mut self) -> Vec<u8> {
        self.pos += 1;
        let mut out = Vec::new();
        while let Some(&c) = self.data.get(self.pos) {
            if is_white(c) || is_delim(c) {
                break;
            }
            if c == b'#' {
                let h = self
                    .data
                    .get(self.pos + 1..self.pos + 3)
                    .and_then(|h| std::str::from_utf8(h).ok());
                if let Some(v) = h.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    out.push(v);
                    self.pos += 3;
                    continue;
                }
            }
            out.push(c);
            self.pos += 1;
        }
        out
    }

    fn hex_string(&mut self) -> Vec<u8> {
        self.pos += 1;
        let mut out = Vec::new();
        let mut hi: Option<u8> = None;
        while let Some(&c) = self.data.get(self.pos) {
            self.pos += 1;
            let v = match c {
                b'>' => break,
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => continue,
            };
            match hi.take() {
                Some(h) => out.push(h << 4 | v),
                None => hi = Some(v),
            }
        }
        if let Some(h) = hi {
            out.push(h << 4);
        }
        out
    }

    fn literal_string(&mut self) -> Vec<u8> {
        self.pos += 1;
        let mut out = Vec::new();
        let mut depth = 1usize;
        while let Some(&c) = self.data.get(self.pos) {
            self.pos += 1;
            match c {
                b'(' => {
                    depth += 1;
                    out.push(c);
                }
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                    out.push(c);
                }
                b'\\' => {
                    let Some(&e) = self.data.get(self.pos) else {
                        break;
                    };
                    self.pos += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'\r' => {
                            if self.data.get(self.pos) == Some(&b'\n') {
                                self.pos += 1;
                            }
                        }
                        b'\n' => {}
                        b'0'..=b'7' => {
                            let mut v = u32::from(e - b'0');
                            for _ in 0..2 {
                                match self.data.get(self.pos) {
                                    Some(&d @ b'0'..=b'7') => {
                                        v = v * 8 + u32::from(d - b'0');
                                        self.pos += 1;
                                    }
                                    _ => break,
                                }
                            }
                            out.push((v & 0xFF) as u8);
                        }
                        _ => out.push(e),
                    }
                }
                _ => out.push(c),
            }
        }
        out
    }

    /// Parses one object starting at the cursor (references `n g R` included).
    pub fn parse_object(&mut self) -> Option<Object> {
        self.stop = None;
        let t = self.next_token()?;
        self.object_from(t, 0)
    }

    /// Builds an object whose first token was already read. `None` when the token cannot start
    /// an object (a keyword other than `true`/`false`/`null`, or nesting too deep).
    pub fn object_from(&mut self, t: Token<'a>, depth: usize) -> Option<Object> {
        if depth == 0 {
            self.stop = None;
        }
        if self.stop.is_some() {
            return None;
        }
        if depth > self.max_depth {
            self.stop = Some(Stop::TooDeep);
            return None;
        }
        self.objects += 1;
        if self.objects > self.quota {
            self.stop = Some(Stop::Quota);
            return None;
        }
        Some(match t {
            Token::Int(i) => {
                // A reference is `int int R`; look ahead without consuming otherwise.
                let save = self.pos;
                if let (Ok(num), Some(Token::Int(g))) = (u32::try_from(i), self.next_token())
                    && let Some(Token::Keyword(b"R")) = self.next_token()
                    && let Ok(generation) = u16::try_from(g)
                {
                    return Some(Object::Ref(ObjRef::new(num, generation)));
                }
                self.pos = save;
                Object::Int(i)
            }
            Token::Real(r) => Object::Real(r),
            Token::Str(s) => Object::Str(s),
            Token::Name(n) => Object::Name(n),
            Token::ArrayStart => {
                let mut items = Vec::new();
                loop {
                    match self.next_token() {
                        None | Some(Token::ArrayEnd) => break,
                        Some(t) => {
                            if let Some(o) = self.object_from(t, depth + 1) {
                                items.push(o);
                            } else if self.stop.is_some() {
                                return None;
                            }
                        }
                    }
                }
                Object::Array(items)
            }
            Token::DictStart => {
                let mut d = Dict::new();
                loop {
                    match self.next_token() {
                        None | Some(Token::DictEnd) => break,
                        Some(Token::Name(k)) => {
                            let Some(t) = self.next_token() else { break };
                            if t == Token::DictEnd {
                                break;
                            }
                            match self.object_from(t, depth + 1) {
                                Some(v) => d.set(&k, v),
                                None if self.stop.is_some() => return None,
                                None => {}
                            }
                        }
                        Some(_) => {}
                    }
                }
                Object::Dict(d)
            }
            Token::Keyword(b"true") => Object::Bool(true),
            Token::Keyword(b"false") => Object::Bool(false),
            Token::Keyword(b"null") => Object::Null,
            Token::ArrayEnd | Token::DictEnd | Token::Keyword(_) => return None,
        })
    }
}

/// Finds `needle` in `hay` starting at `from`.
pub fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if needle.is_empty() || from >= hay.len() {
        return None;
    }
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Finds the last `needle` in `hay`.
pub fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    hay.windows(needle.len()).rposition(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Option<Object> {
        Lexer::new(s.as_bytes(), 0).parse_object()
    }

    #[test]
    fn parses_the_basic_objects() {
        let cases: &[(&str, Object)] = &[
            ("42", Object::Int(42)),
            ("-.5", Object::Real(-0.5)),
            ("(a\\(b\\)\\101)", Object::Str(b"a(b)A".to_vec())),
            ("<48 65 6c6>", Object::Str(b"Hel`".to_vec())),
            ("/A#20B", Object::Name(b"A B".to_vec())),
            ("12 0 R", Object::Ref(ObjRef::new(12, 0))),
            (
                "[1 2 R 3]",
                Object::Array(vec![Object::Ref(ObjRef::new(1, 2)), Object::Int(3)]),
            ),
            ("true", Object::Bool(true)),
        ];
        for (src, want) in cases {
            assert_eq!(parse(src).as_ref(), Some(want), "{src}");
        }
    }

    #[test]
    fn parses_nested_dicts() {
        let o = parse("<</A [1 (x) <</B 3 0 R>>] /C /D>>").expect("dict");
        let d = o.as_dict().expect("dict");
        assert_eq!(d.name(b"C"), Some(&b"D"[..]));
        assert_eq!(
            d.get(b"A").and_then(Object::as_array).map(<[_]>::len),
            Some(3)
        );
    }

    #[test]
    fn bounds_nesting() {
        let deep = "[".repeat(10_000);
        assert_eq!(parse(&deep), None);
        let deep = "<</A ".repeat(10_000);
        let mut lx = Lexer::new(deep.as_bytes(), 0);
        assert_eq!(lx.parse_object(), None);
        assert_eq!(lx.stopped(), Some(Stop::TooDeep));
    }

    #[test]
    fn stops_at_the_quota() {
        let many = format!("[{}]", "1 ".repeat(1000));
        let mut lx = Lexer::new(many.as_bytes(), 0);
        lx.limit(MAX_DEPTH, 100);
        assert_eq!(lx.parse_object(), None);
        assert_eq!(lx.stopped(), Some(Stop::Quota));
        let mut lx = Lexer::new(many.as_bytes(), 0);
        lx.limit(MAX_DEPTH, 1001);
        assert!(lx.parse_object().is_some());
        assert_eq!(lx.objects, 1001);
    }
}
