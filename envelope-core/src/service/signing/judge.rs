//! What a form's conditions and formulas make of its values (extensions E14): whether a field
//! applies, and what a computed field's value is. One judge for the server's every reading (a
//! signer's submission, the sender's data, the signing page's settled fields, the stamper), so
//! that they cannot disagree.
//!
//! A field's value as the form sees it is none while its condition does not hold, the formula's
//! result for a computed field (when the judge computes), and what was entered otherwise.
//! Conditions and formulas form no circle and no chain deeper than `fields::MAX_CHAIN` (refused
//! when fields are made); a record from elsewhere that has one still ends, after
//! [`MAX_STEPS`] reads, with no value.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::field::{Condition, ConditionValue, Field, PlacedField};
use crate::formula::{Decimal, EvalError, Formula};
use crate::model::SignerValue;

/// How many reads one question may take, following conditions and formulas.
const MAX_STEPS: usize = 64;

/// The values a judge reads: what was entered (or stored) for a key.
pub(crate) type Lookup<'a> = dyn Fn(&str) -> Option<&'a SignerValue> + 'a;

/// Judges one envelope's fields over one set of values.
pub(crate) struct Judge<'a> {
    fields: HashMap<&'a str, &'a Field>,
    raw: &'a Lookup<'a>,
    /// Computes formula fields; when false they read as stored, like any field.
    compute: bool,
    memo: RefCell<HashMap<String, Option<SignerValue>>>,
}

impl<'a> Judge<'a> {
    /// A judge that computes formula fields from `raw`'s values (a submission being checked).
    pub(crate) fn computing(all: &'a [PlacedField], raw: &'a Lookup<'a>) -> Judge<'a> {
        Judge::new(all, raw, true)
    }

    /// A judge that reads formula fields' stored values (a record being shown or stamped).
    pub(crate) fn stored(all: &'a [PlacedField], raw: &'a Lookup<'a>) -> Judge<'a> {
        Judge::new(all, raw, false)
    }

    fn new(all: &'a [PlacedField], raw: &'a Lookup<'a>, compute: bool) -> Judge<'a> {
        Judge {
            fields: all
                .iter()
                .map(|p| (p.field.key.as_str(), &p.field))
                .collect(),
            raw,
            compute,
            memo: RefCell::new(HashMap::new()),
        }
    }

    /// Whether `f` applies: it has no condition, or its condition holds over the value (as the
    /// form sees it) of the field it reads.
    pub(crate) fn applies(&self, f: &Field) -> bool {
        self.applies_at(f, 0)
    }

    /// The value of a computed field `f` that applies: `None` for a field without formula or
    /// one that does not apply.
    pub(crate) fn computed(&self, f: &Field) -> Option<Result<Decimal, EvalError>> {
        let src = f.formula.as_deref()?;
        if !self.applies(f) {
            return None;
        }
        let formula = Formula::parse(src).ok()?;
        Some(self.eval(&formula, 0))
    }

    fn applies_at(&self, f: &Field, depth: usize) -> bool {
        match &f.condition {
            None => true,
            Some(c) => holds(c, self.value_at(&c.field, depth + 1).as_ref()),
        }
    }

    fn value_at(&self, key: &str, depth: usize) -> Option<SignerValue> {
        if depth > MAX_STEPS {
            return None;
        }
        if let Some(v) = self.memo.borrow().get(key) {
            return v.clone();
        }
        let v = match self.fields.get(key) {
            Some(f) if !self.applies_at(f, depth) => None,
            Some(f) if self.compute && f.formula.is_some() => {
                let formula = f.formula.as_deref().and_then(|s| Formula::parse(s).ok());
                formula
                    .and_then(|formula| self.eval(&formula, depth).ok())
                    .map(|d| SignerValue::Text(d.to_string()))
            }
            _ => (self.raw)(key).cloned(),
        };
        self.memo.borrow_mut().insert(key.to_string(), v.clone());
        v
    }

    fn eval(&self, formula: &Formula, depth: usize) -> Result<Decimal, EvalError> {
        formula.eval(&|k| match self.value_at(k, depth + 1) {
            Some(SignerValue::Text(t)) => Decimal::parse(&t),
            _ => None,
        })
    }
}

/// Whether condition `c` holds for the value `v` of the field it reads.
pub(crate) fn holds(c: &Condition, v: Option<&SignerValue>) -> bool {
    let filled = match v {
        None => false,
        Some(SignerValue::Checkbox(b)) => *b,
        Some(SignerValue::Text(t) | SignerValue::Typed(t)) => !t.trim().is_empty(),
        Some(SignerValue::Drawn(_) | SignerValue::Attachment(_)) => true,
    };
    match (&c.equals, c.filled) {
        (Some(ConditionValue::Bool(want)), _) => {
            matches!(v, Some(SignerValue::Checkbox(b)) if b == want) || (!want && v.is_none())
        }
        (Some(ConditionValue::Text(want)), _) => {
            matches!(v, Some(SignerValue::Text(t) | SignerValue::Typed(t)) if t.trim() == want)
        }
        (None, Some(want)) => filled == want,
        (None, None) => true,
    }
}
