//! The serde [`Deserializer`]: reads the row form over a [`SliceRead`](read::SliceRead),
//! borrowing strings and byte strings from the input.
//!
//! Strict: each value has one encoding (smallest integer and length forms, minimal varints,
//! `F2 05` only where needed); anything else is a `Syntax` error. Bounded: every count is
//! checked against the remaining input before it is used, nesting is limited per container
//! exactly as the encoder counts it, and materialised output is charged to an output budget in
//! one place ([`Deserializer::charge`]).

mod access;
mod dense;
pub(crate) mod dupkeys;
mod parse;
mod qpack;
pub(crate) mod read;
mod serde_impl;
mod shape;

use crate::error::{Error, ErrorCode, Result};
use crate::options::Options;
use crate::wire::header;
use read::SliceRead;

pub(crate) use dense::DecState;
pub(crate) use parse::Num;

/// A qdf deserializer over a byte slice.
///
/// ```
/// use serde::Deserialize;
/// let bytes = qdf_core::to_vec(&("hi", 7u32)).unwrap();
/// let mut de = qdf_core::Deserializer::from_slice(&bytes).unwrap();
/// let v: (&str, u32) = Deserialize::deserialize(&mut de).unwrap();
/// de.end().unwrap();
/// assert_eq!(v, ("hi", 7));
/// ```
#[derive(Debug)]
pub struct Deserializer<'de> {
    pub(crate) read: SliceRead<'de>,
    depth: u32,
    max_depth: u32,
    pub(crate) budget_left: u64,
    budget: u64,
    /// Set by `Value`'s private newtype name; makes the next `deserialize_any` report enum
    /// variants and unit structs through `visit_enum` so `Value` keeps them.
    value_mode: bool,
    pub(crate) state: DecState<'de>,
    /// Header flag `08`: every `EF` container carries a column index.
    pub(crate) col_index: bool,
    /// [`Options::deny_duplicate_keys`]: map targets refuse a repeated key.
    pub(crate) dup_keys: bool,
}

impl<'de> Deserializer<'de> {
    /// A deserializer over a whole message (header, then one body) with default options.
    ///
    /// Errors: a bad header (`Syntax`) or a short one (`Eof`).
    pub fn from_slice(input: &'de [u8]) -> Result<Self> {
        Self::from_slice_with(input, Options::default())
    }

    /// [`Deserializer::from_slice`] with limits from `opts`.
    pub fn from_slice_with(input: &'de [u8], opts: Options) -> Result<Self> {
        let flags = header::read_header(input)?;
        // The checksum flag describes frames: a single message has none.
        if flags & header::FLAG_CHECKSUM != 0 {
            return Err(Error::at(ErrorCode::BadFlags(flags), 4));
        }
        let body = &input[header::HEADER_LEN..];
        let mut de = Self::new(body, header::HEADER_LEN as u64, &opts);
        de.col_index = flags & header::FLAG_COL_INDEX != 0;
        Ok(de)
    }

    /// A deserializer over a headerless body whose first byte is at offset `base`.
    pub(crate) fn new(body: &'de [u8], base: u64, opts: &Options) -> Self {
        let budget = opts.output_budget(body.len() as u64);
        Deserializer {
            read: SliceRead::new(body, base),
            depth: 0,
            max_depth: opts.depth_limit(),
            budget_left: budget,
            budget,
            value_mode: false,
            state: DecState::new(opts, None, false),
            col_index: false,
            dup_keys: opts.denies_duplicate_keys(),
        }
    }

    /// Fails with `TrailingBytes` unless all input was consumed.
    pub fn end(&self) -> Result<()> {
        match self.read.remaining() {
            0 => Ok(()),
            n => Err(self.read.error(ErrorCode::TrailingBytes(n as u64))),
        }
    }

    /// The input not consumed yet.
    pub fn remaining_input(&self) -> &'de [u8] {
        self.read.rest()
    }

    /// Offset of the next byte in the input (header included when built by `from_slice`).
    pub fn offset(&self) -> u64 {
        self.read.offset()
    }

    /// Adds the current offset to an error that has none (visitor errors).
    #[cold]
    pub(crate) fn locate(&self, e: Error) -> Error {
        e.with_offset(self.read.offset())
    }

    /// Charges `units` of materialised output (bytes of strings, elements of containers)
    /// against the message's decoded-output limit (`docs/SPEC.md` §13).
    ///
    /// Hook: the ONE place output is charged; Dense back-references and QPack runs charge
    /// their expansion here too.
    #[inline]
    pub(crate) fn charge(&mut self, units: u64) -> Result<()> {
        if units > self.budget_left {
            return Err(self.over_limit(units));
        }
        self.budget_left -= units;
        Ok(())
    }

    /// Gives back `units` charged for output that will not be produced (the fields of a
    /// shape after an escape). Never more than was charged.
    #[inline]
    pub(crate) fn refund(&mut self, units: u64) {
        self.budget_left = self.budget_left.saturating_add(units).min(self.budget);
    }

    /// The [`ErrorCode::OutputLimit`] error for a charge of `units` that does not fit, at the
    /// current offset: the configured limit and what the message asked for so far.
    #[cold]
    pub(crate) fn over_limit(&self, units: u64) -> Error {
        self.read.error(self.limit_code(units))
    }

    #[cold]
    fn limit_code(&self, units: u64) -> ErrorCode {
        let used = self.budget - self.budget_left;
        ErrorCode::OutputLimit {
            needed: used.saturating_add(units),
            limit: self.budget,
        }
    }

    /// Rewrites an [`ErrorCode::OutputLimit`] raised by a codec that was lent
    /// [`budget_left`](Self::budget_left) (it reports the charge that failed against what
    /// remained) in terms of the whole message: what was asked for, and the configured limit.
    #[cold]
    pub(crate) fn rebase_limit(&self, e: Error) -> Error {
        match *e.code() {
            ErrorCode::OutputLimit { needed, .. } => {
                let code = self.limit_code(needed);
                match e.offset() {
                    Some(at) => Error::at(code, at),
                    None => self.read.error(code),
                }
            }
            _ => e,
        }
    }

    /// Enters one container level (array, map, `Some`, enum variant with a payload).
    #[inline]
    pub(crate) fn enter(&mut self) -> Result<()> {
        if self.depth >= self.max_depth {
            return Err(self.read.error(ErrorCode::DepthLimit(self.max_depth)));
        }
        self.depth += 1;
        Ok(())
    }

    /// Leaves one container level.
    #[inline]
    pub(crate) fn leave(&mut self) {
        self.depth -= 1;
    }
}

/// Decodes one value occupying all of `body` (no header); trailing bytes are an error. The
/// output budget is computed from `body.len()`. Offsets in errors are relative to `body`.
///
/// Hook for sessions and framing: the one place a body is consumed.
#[allow(dead_code)] // used by the session framing
pub(crate) fn decode_body<'de, T: serde::Deserialize<'de>>(
    body: &'de [u8],
    opts: &Options,
) -> Result<T> {
    decode_body_with_state(body, opts, &mut None)
}

/// [`decode_body`] continuing a session's Dense state (taken and given back, also on error:
/// the caller decides whether a failed body breaks the session).
#[inline]
pub(crate) fn decode_body_with_state<'de, T: serde::Deserialize<'de>>(
    body: &'de [u8],
    opts: &Options,
    dense: &mut Option<Box<crate::dense::DenseState>>,
) -> Result<T> {
    let mut de = Deserializer::new(body, 0, opts);
    de.state = DecState::new(opts, dense.take(), true);
    let r = T::deserialize(&mut de)
        .map_err(|e| de.locate(e))
        .and_then(|v| de.end().map(|()| v));
    *dense = de.state.into_dense();
    r
}

#[cfg(test)]
mod tests;
