//! Canonical number-text columns (`docs/SPEC.md` §22.1): a string column whose every value is
//! a canonical decimal integer is stored as an integer body (kind bit [`DECIMAL`]), one whose
//! every value is canonical fixed-length hex as packed bytes (kind bit [`HEX`]), one whose
//! every value is a date and time of one layout as instants (both bits); the decoder prints
//! the same strings back, byte for byte.
//!
//! - [`decimal`]: `"0"`, `"-12"`, `"1782036644636668325"` (no leading zeros, no `+`, no
//!   `"-0"`, within `i64`/`u64`: QPack's reach) as a QPack value or a plain array of integers;
//! - [`hex`]: `"4bf92f35…"` (even length, one length and one case over the column, empty
//!   strings allowed) as a case/mask flag byte, the byte length and the packed bytes;
//! - [`hexref`]: a hex column's values as references to a sibling hex column's (hex flag
//!   `04`: a span's parent id is another span's id);
//! - [`datetime`]: `"2010-01-01T01:00:00"`, `"10/Oct/2000:13:55:36 -0700"` (one layout over
//!   the column, both kind bits) as a layout byte, a suffix and one integer a value.
//!
//! The writer offers a column's strings to [`encode`] with the size of the block it would
//! write otherwise and takes the answer only when it is strictly smaller; a value that is not
//! canonical ends the check at once, so text columns pay one failed byte test. The reader
//! calls [`read`] for a string column with either bit and gets the values the decoder rebuilt
//! (never borrowed from the input), or a hex body's references, which [`resolve`] prints once
//! the column's siblings are read.

mod datetime;
mod decimal;
mod hex;
mod hexref;

pub(crate) use hex::{HexShape, Read};
pub(crate) use hexref::{HexCol, Pending, Refs, refer, resolve};

use crate::error::{Error, ErrorCode, Result};
use crate::options::Options;
use crate::source::Source;

/// Kind-byte bit of a string column stored as integers (canonical decimal text).
pub(crate) const DECIMAL: u8 = 0x10;
/// Kind-byte bit of a string column stored as packed bytes (canonical hex text).
pub(crate) const HEX: u8 = 0x20;

/// How a string column's values are stored.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub(crate) enum Form {
    /// As strings (a string block or per-value strings, `docs/SPEC.md` §20).
    #[default]
    Plain,
    /// As integers printed in decimal (kind bit [`DECIMAL`]).
    Decimal,
    /// As bytes printed in hex (kind bit [`HEX`]).
    Hex,
    /// As instants printed as dates and times of one layout (both bits).
    DateTime,
}

impl Form {
    /// The kind-byte bits of this form.
    pub(crate) fn bits(self) -> u8 {
        match self {
            Form::Plain => 0,
            Form::Decimal => DECIMAL,
            Form::Hex => HEX,
            Form::DateTime => DECIMAL | HEX,
        }
    }

    /// The form of a kind byte's bits `30`.
    pub(crate) fn from_kind(kind: u8) -> Form {
        match kind & (DECIMAL | HEX) {
            0 => Form::Plain,
            DECIMAL => Form::Decimal,
            HEX => Form::Hex,
            _ => Form::DateTime,
        }
    }
}

/// A string column's body in a number-text form.
pub(crate) struct Body {
    /// The form (its kind-byte bit).
    pub(crate) text: Form,
    /// The column's values as written after the masks.
    pub(crate) bytes: Vec<u8>,
    /// Decoded output the reader charges for it (`docs/SPEC.md` §13).
    pub(crate) units: u64,
}

/// The smallest number-text body of the string column `strs` (row order) when one is
/// strictly smaller than `beat` bytes, else `None` (some value is not canonical in any
/// form, or no body is smaller).
pub(crate) fn encode(strs: &[&[u8]], opts: &Options, beat: usize) -> Result<Option<Body>> {
    let mut best = hex::encode(strs, beat);
    let limit = best.as_ref().map_or(beat, |b| b.bytes.len());
    if let Some(d) = decimal::encode(strs, opts, limit)? {
        best = Some(d);
    }
    // A date-time has separators, so it is never hex or decimal text.
    if best.is_none() {
        best = datetime::encode(strs, opts, beat)?;
    }
    Ok(best)
}

/// Reads the body of a string column of form `text` (not [`Form::Plain`]) holding `v`
/// values, charging the rebuilt text to the output budget: the values with a hex column's
/// shape, or a hex body's references to resolve once its siblings are read. `indexed`: under
/// the column index (no references).
///
/// Errors (`BadCodec`, Syntax, at the failing byte): a decimal or date-time body that is not integers,
/// holds 128-bit values, mixes a negative with a value above `i64::MAX`, or a signed QPack
/// kind without a negative value; a hex body with unknown flag bits, a zero length, an empty
/// mask without a set bit or with padding bits, references under the column index or not
/// V − E unsigned integers; a date-time body with a bad layout byte or
/// suffix, or an instant outside the years 0000–9999; a count that differs from `v`; truncation
/// (`Eof`, `LengthOverrun`); the output limit.
pub(crate) fn read<'de>(
    src: &mut Source<'de>,
    text: Form,
    v: usize,
    indexed: bool,
) -> Result<Read<'de>> {
    match text {
        Form::Decimal => Ok(Read::Values(decimal::read(src, v)?, None)),
        Form::Hex => hex::read(src, v, indexed),
        Form::DateTime => Ok(Read::Values(datetime::read(src, v)?, None)),
        Form::Plain => Err(bad(
            src.offset(),
            "a plain string column has no number-text body",
        )),
    }
}

/// A layout error at `at`.
#[cold]
fn bad(at: u64, what: &'static str) -> Error {
    Error::at(ErrorCode::BadCodec(what), at)
}
