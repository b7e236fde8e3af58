//! Formulas of computed `number` fields (extensions E14): `"{qty} * {price}"`.
//!
//! The language is small on purpose: decimal numbers, field keys in braces, `+ - * /`, unary
//! minus, parentheses and `round(x, n)`. A formula is parsed when its field is made (bounded:
//! [`MAX_FORMULA_CHARS`], [`MAX_DEPTH`], [`MAX_TERMS`]) and evaluated by the service when the
//! field's owner finishes; the signing page evaluates the same tree ([`Formula::tree`]) to show
//! the value live.
//!
//! # Arithmetic
//! Exact decimal arithmetic on integers, so `0.1 + 0.2` is `0.3`. The page's script repeats it
//! with JavaScript's `BigInt`, and the rules are few so that both give the same digits:
//! - a value is an integer `m` and a scale `s` (`m / 10^s`), `s` at most [`MAX_SCALE`];
//! - `+` and `-` are exact (the larger scale); `*` is exact, then rounded to [`MAX_SCALE`]
//!   places when it has more;
//! - `/` is rounded to [`MAX_SCALE`] places, then loses trailing zeros down to the larger scale
//!   of its operands (`10 / 4` is `2.5`, `10.00 / 4` is `2.50`, `1 / 3` is `0.3333333333`);
//! - `round(x, n)` gives exactly `n` places (`round(2.5, 2)` is `2.50`), `n` from 0 to
//!   [`MAX_SCALE`];
//! - rounding is half away from zero (`round(-2.5, 0)` is `-3`);
//! - an input with more than [`MAX_SCALE`] places is rounded to [`MAX_SCALE`]; an empty input
//!   counts as 0;
//! - a value of more than [`MAX_WHOLE_DIGITS`] whole digits is too large, and division by zero
//!   has no value ([`EvalError`]).
//!
//! Hand-written rather than taken from `rust_decimal`: that crate rounds a quotient at 28
//! significant digits inside 96 bits, which a browser cannot repeat digit for digit; these rules
//! can be, in a few lines of `BigInt`, and the bounds keep every integer small.

use std::fmt;

use num_bigint::BigInt;
use serde_json::{Value, json};

/// Longest formula, in characters.
pub const MAX_FORMULA_CHARS: usize = 1000;
/// Deepest nesting of parentheses, calls and unary minus.
pub const MAX_DEPTH: usize = 32;
/// Most numbers and field keys in one formula.
pub const MAX_TERMS: usize = 100;
/// Most decimal places a value keeps.
pub const MAX_SCALE: u32 = 10;
/// Most whole digits a value may have (so that it prints in 40 characters with its sign and
/// [`MAX_SCALE`] places: the longest `number` value).
pub const MAX_WHOLE_DIGITS: u32 = 28;

/// An exact decimal: `m / 10^scale`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decimal {
    m: BigInt,
    scale: u32,
}

/// Why a formula could not be parsed; `Display` is the API's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// Longer than [`MAX_FORMULA_CHARS`].
    #[error("a formula has at most {MAX_FORMULA_CHARS} characters")]
    TooLong,
    /// Nested deeper than [`MAX_DEPTH`], or more than [`MAX_TERMS`] terms.
    #[error("the formula is too complex (at most {MAX_TERMS} terms, nested {MAX_DEPTH} deep)")]
    TooComplex,
    /// Something unexpected at a character position (from 1).
    #[error(
        "unexpected {found} at character {at}; a formula uses numbers, {{field keys}}, + - * /, parentheses and round(x, n)"
    )]
    Unexpected {
        /// What was found (`')'`, `the end`...).
        found: String,
        /// Its position, in characters from 1.
        at: usize,
    },
    /// A number literal with more than [`MAX_SCALE`] places or too many digits.
    #[error(
        "the number at character {at} has more than {MAX_SCALE} decimal places or {MAX_WHOLE_DIGITS} digits"
    )]
    Number {
        /// Its position, in characters from 1.
        at: usize,
    },
    /// `round`'s places that are not a whole number from 0 to [`MAX_SCALE`].
    #[error("round(x, n) takes n from 0 to {MAX_SCALE} (character {at})")]
    Places {
        /// Its position, in characters from 1.
        at: usize,
    },
    /// `{}` or a key with a control character.
    #[error("the field key at character {at} is empty")]
    Key {
        /// Its position, in characters from 1.
        at: usize,
    },
}

/// Why a formula has no value for the values given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EvalError {
    /// A division by zero.
    #[error("its formula divides by zero with the values given")]
    DivisionByZero,
    /// A value of more than [`MAX_WHOLE_DIGITS`] whole digits, on the way or at the end.
    #[error("its formula's result is too large (at most {MAX_WHOLE_DIGITS} whole digits)")]
    TooLarge,
}

/// A parsed formula.
#[derive(Debug, Clone, PartialEq)]
pub struct Formula {
    root: Expr,
}

#[derive(Debug, Clone, PartialEq)]
enum Expr {
    Number(Decimal),
    Field(String),
    Neg(Box<Expr>),
    Op(char, Box<Expr>, Box<Expr>),
    Round(Box<Expr>, u32),
}

impl Formula {
    /// Parses `src`, within the bounds of this module.
    pub fn parse(src: &str) -> Result<Formula, ParseError> {
        if src.chars().count() > MAX_FORMULA_CHARS {
            return Err(ParseError::TooLong);
        }
        let mut p = Parser {
            chars: src.chars().collect(),
            at: 0,
            depth: 0,
            terms: 0,
        };
        let root = p.sum()?;
        p.space();
        if p.at < p.chars.len() {
            return Err(p.unexpected());
        }
        Ok(Formula { root })
    }

    /// The field keys the formula reads, each once, in order of first appearance.
    pub fn fields(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        fn walk<'a>(e: &'a Expr, out: &mut Vec<&'a str>) {
            match e {
                Expr::Number(_) => {}
                Expr::Field(k) => {
                    if !out.contains(&k.as_str()) {
                        out.push(k);
                    }
                }
                Expr::Neg(a) | Expr::Round(a, _) => walk(a, out),
                Expr::Op(_, a, b) => {
                    walk(a, out);
                    walk(b, out);
                }
            }
        }
        walk(&self.root, &mut out);
        out
    }

    /// The value for the fields' values `value` gives (`None`: empty, counted as 0).
    pub fn eval(&self, value: &dyn Fn(&str) -> Option<Decimal>) -> Result<Decimal, EvalError> {
        eval(&self.root, value)
    }

    /// The tree as JSON arrays, for the signing page's script: `["n", "1.5"]`, `["f", key]`,
    /// `["neg", x]`, `["+", a, b]` (and `-`, `*`, `/`), `["round", x, places]`.
    pub fn tree(&self) -> Value {
        fn tree(e: &Expr) -> Value {
            match e {
                Expr::Number(d) => json!(["n", d.to_string()]),
                Expr::Field(k) => json!(["f", k]),
                Expr::Neg(a) => json!(["neg", tree(a)]),
                Expr::Op(op, a, b) => json!([op.to_string(), tree(a), tree(b)]),
                Expr::Round(a, n) => json!(["round", tree(a), n]),
            }
        }
        tree(&self.root)
    }
}

fn eval(e: &Expr, value: &dyn Fn(&str) -> Option<Decimal>) -> Result<Decimal, EvalError> {
    let d = match e {
        Expr::Number(d) => d.clone(),
        Expr::Field(k) => value(k).unwrap_or_else(Decimal::zero),
        Expr::Neg(a) => {
            let a = eval(a, value)?;
            Decimal {
                m: -a.m,
                scale: a.scale,
            }
        }
        Expr::Op(op, a, b) => {
            let (a, b) = (eval(a, value)?, eval(b, value)?);
            match op {
                '+' => a.add(&b, false),
                '-' => a.add(&b, true),
                '*' => a.mul(&b),
                _ => a.div(&b)?,
            }
        }
        Expr::Round(a, n) => eval(a, value)?.round(*n),
    };
    d.checked()
}

fn pow10(n: u32) -> BigInt {
    BigInt::from(10u32).pow(n)
}

/// `n / d` rounded half away from zero.
fn div_round(n: &BigInt, d: &BigInt) -> BigInt {
    let q = n / d;
    let r = n % d;
    let zero = BigInt::from(0);
    if (&r * 2u32).magnitude() >= d.magnitude() {
        if (n < &zero) == (d < &zero) {
            q + 1u32
        } else {
            q - 1u32
        }
    } else {
        q
    }
}

impl Decimal {
    /// Zero, with no places.
    pub fn zero() -> Decimal {
        Decimal {
            m: BigInt::from(0),
            scale: 0,
        }
    }

    /// A `number` field's value ([`crate::field::parse_number`]'s form), rounded to
    /// [`MAX_SCALE`] places; `None` when it is not such a number or is too large.
    pub fn parse(text: &str) -> Option<Decimal> {
        Decimal::read(text)?.round_down_to(MAX_SCALE).checked().ok()
    }

    /// A number in [`crate::field::parse_number`]'s form, exactly as written.
    fn read(text: &str) -> Option<Decimal> {
        let t = crate::field::parse_number(text)?;
        let (neg, digits) = match t.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, t),
        };
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        let m: BigInt = format!("{whole}{fraction}").parse().ok()?;
        Some(Decimal {
            m: if neg { -m } else { m },
            scale: fraction.len() as u32,
        })
    }

    fn at_scale(&self, scale: u32) -> BigInt {
        &self.m * pow10(scale - self.scale)
    }

    fn add(&self, other: &Decimal, minus: bool) -> Decimal {
        let scale = self.scale.max(other.scale);
        let b = other.at_scale(scale);
        Decimal {
            m: if minus {
                self.at_scale(scale) - b
            } else {
                self.at_scale(scale) + b
            },
            scale,
        }
    }

    fn mul(&self, other: &Decimal) -> Decimal {
        Decimal {
            m: &self.m * &other.m,
            scale: self.scale + other.scale,
        }
        .round_down_to(MAX_SCALE)
    }

    fn div(&self, other: &Decimal) -> Result<Decimal, EvalError> {
        if other.m == BigInt::from(0) {
            return Err(EvalError::DivisionByZero);
        }
        // self / other = (a * 10^sb) / (b * 10^sa); at MAX_SCALE places: times 10^MAX_SCALE.
        let n = &self.m * pow10(other.scale + MAX_SCALE);
        let d = &other.m * pow10(self.scale);
        let mut q = Decimal {
            m: div_round(&n, &d),
            scale: MAX_SCALE,
        };
        let keep = self.scale.max(other.scale);
        let ten = BigInt::from(10u32);
        while q.scale > keep && (&q.m % &ten) == BigInt::from(0) {
            q.m /= &ten;
            q.scale -= 1;
        }
        Ok(q)
    }

    /// Exactly `places` decimal places.
    fn round(&self, places: u32) -> Decimal {
        if self.scale > places {
            self.round_down_to(places)
        } else {
            Decimal {
                m: self.at_scale(places),
                scale: places,
            }
        }
    }

    /// At most `places` decimal places, rounding half away from zero.
    fn round_down_to(&self, places: u32) -> Decimal {
        if self.scale <= places {
            return self.clone();
        }
        Decimal {
            m: div_round(&self.m, &pow10(self.scale - places)),
            scale: places,
        }
    }

    fn checked(self) -> Result<Decimal, EvalError> {
        if self.m.magnitude() >= pow10(MAX_WHOLE_DIGITS + self.scale).magnitude() {
            return Err(EvalError::TooLarge);
        }
        Ok(self)
    }
}

impl fmt::Display for Decimal {
    /// `-12.50`: a minus for negative values only (never `-0`), the scale's places.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.m.magnitude().to_string();
        let scale = self.scale as usize;
        let digits = if digits.len() <= scale {
            format!("{}{digits}", "0".repeat(scale + 1 - digits.len()))
        } else {
            digits
        };
        if self.m < BigInt::from(0) {
            f.write_str("-")?;
        }
        let (whole, fraction) = digits.split_at(digits.len() - scale);
        f.write_str(whole)?;
        if scale > 0 {
            write!(f, ".{fraction}")?;
        }
        Ok(())
    }
}

struct Parser {
    chars: Vec<char>,
    at: usize,
    depth: usize,
    terms: usize,
}

impl Parser {
    fn space(&mut self) {
        while self.chars.get(self.at).is_some_and(|c| c.is_whitespace()) {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.space();
        self.chars.get(self.at).copied()
    }

    fn unexpected(&self) -> ParseError {
        ParseError::Unexpected {
            found: match self.chars.get(self.at) {
                Some(c) => format!("'{c}'"),
                None => "the end".into(),
            },
            at: self.at + 1,
        }
    }

    fn expect(&mut self, c: char) -> Result<(), ParseError> {
        if self.peek() == Some(c) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    fn deeper(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError::TooComplex);
        }
        Ok(())
    }

    /// sum := product (('+' | '-') product)*
    fn sum(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.product()?;
        while let Some(op @ ('+' | '-')) = self.peek() {
            self.at += 1;
            e = Expr::Op(op, Box::new(e), Box::new(self.product()?));
        }
        Ok(e)
    }

    /// product := unary (('*' | '/') unary)*
    fn product(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.unary()?;
        while let Some(op @ ('*' | '/')) = self.peek() {
            self.at += 1;
            e = Expr::Op(op, Box::new(e), Box::new(self.unary()?));
        }
        Ok(e)
    }

    /// unary := '-' unary | atom
    fn unary(&mut self) -> Result<Expr, ParseError> {
        if self.peek() == Some('-') {
            self.at += 1;
            self.deeper()?;
            let e = Expr::Neg(Box::new(self.unary()?));
            self.depth -= 1;
            return Ok(e);
        }
        self.atom()
    }

    /// atom := number | '{' key '}' | '(' sum ')' | 'round' '(' sum ',' places ')'
    fn atom(&mut self) -> Result<Expr, ParseError> {
        let start = self.at;
        match self.peek() {
            Some('(') => {
                self.at += 1;
                self.deeper()?;
                let e = self.sum()?;
                self.expect(')')?;
                self.depth -= 1;
                Ok(e)
            }
            Some('{') => {
                self.term()?;
                self.at += 1;
                let from = self.at;
                while self.chars.get(self.at).is_some_and(|&c| c != '}') {
                    self.at += 1;
                }
                if self.at >= self.chars.len() {
                    return Err(self.unexpected());
                }
                let key: String = self.chars[from..self.at].iter().collect();
                self.at += 1;
                if key.is_empty() || key.chars().any(char::is_control) {
                    return Err(ParseError::Key { at: from + 1 });
                }
                Ok(Expr::Field(key))
            }
            Some(c) if c.is_ascii_digit() => {
                self.term()?;
                let start = self.at;
                let text = self.digits();
                Decimal::read(&text)
                    .filter(|d| d.scale <= MAX_SCALE)
                    .and_then(|d| d.checked().ok())
                    .map(Expr::Number)
                    .ok_or(ParseError::Number { at: start + 1 })
            }
            Some('r') if self.word("round") => {
                self.expect('(')?;
                self.deeper()?;
                let e = self.sum()?;
                self.expect(',')?;
                self.space();
                let at = self.at;
                let places = self.digits();
                let places = places
                    .parse::<u32>()
                    .ok()
                    .filter(|n| *n <= MAX_SCALE && !places.contains('.'))
                    .ok_or(ParseError::Places { at: at + 1 })?;
                self.expect(')')?;
                self.depth -= 1;
                Ok(Expr::Round(Box::new(e), places))
            }
            _ => {
                self.at = start.max(self.at);
                Err(self.unexpected())
            }
        }
    }

    fn term(&mut self) -> Result<(), ParseError> {
        self.terms += 1;
        if self.terms > MAX_TERMS {
            return Err(ParseError::TooComplex);
        }
        Ok(())
    }

    /// Digits with at most one point (`12`, `3.50`), as written.
    fn digits(&mut self) -> String {
        let from = self.at;
        let mut point = false;
        while let Some(&c) = self.chars.get(self.at) {
            if c.is_ascii_digit() || (c == '.' && !point) {
                point |= c == '.';
                self.at += 1;
            } else {
                break;
            }
        }
        self.chars[from..self.at].iter().collect()
    }

    /// Consumes `w` when it comes next.
    fn word(&mut self, w: &str) -> bool {
        let n = w.chars().count();
        if self.chars.len() >= self.at + n
            && self.chars[self.at..self.at + n]
                .iter()
                .copied()
                .eq(w.chars())
        {
            self.at += n;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests;
