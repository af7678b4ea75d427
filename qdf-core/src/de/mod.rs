//! The serde [`Deserializer`]: a thin serde front over a [`Source`] (the input, the budget,
//! the depth and the Dense state, with the tag-level parsing), borrowing strings and byte
//! strings from the input. Features it hands values to: QPack sequences
//! ([`crate::qpack::decode`]), columnar rows ([`crate::columnar::row`]), Dense struct shapes
//! ([`shape`]).

mod access;
pub(crate) mod dupkeys;
mod num;
mod serde_impl;
mod shape;
mod text;

use serde::de::Visitor;

use crate::error::{Error, ErrorCode, Result};
use crate::options::Options;
use crate::source::Source;
use crate::wire::read::{Reference, Text};

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
    src: Source<'de>,
    /// Set by `Value`'s private newtype name; makes the next `deserialize_any` report enum
    /// variants and unit structs through `visit_enum` so `Value` keeps them.
    value_mode: bool,
}

impl<'de> Deserializer<'de> {
    /// A deserializer over a whole message (header, then one body) with default options.
    ///
    /// Errors: a bad header (`Syntax`) or a short one (`Eof`).
    pub fn from_slice(input: &'de [u8]) -> Result<Self> {
        Self::from_slice_with(input, Options::default())
    }

    /// [`Deserializer::from_slice`] with limits from `opts`.
    ///
    /// Errors: input shorter than the header (`UnexpectedEof`, `Eof`); a magic other than
    /// `QDF` (`BadMagic`) or a version other than 1 (`BadVersion`); reserved flag bits, or the
    /// stream-only checksum flag `10` ([`ErrorCode::BadFlags`](crate::ErrorCode::BadFlags)); all `Syntax`, at offset 0
    /// to 4 (`docs/SPEC.md` §1).
    pub fn from_slice_with(input: &'de [u8], opts: Options) -> Result<Self> {
        Ok(Deserializer {
            src: Source::message(input, &opts)?,
            value_mode: false,
        })
    }

    /// [`Deserializer::from_slice_with`] for a message that may name the pre-shared
    /// dictionary `dict` (header flag `20`, `docs/SPEC.md` §25): its body starts from the
    /// dictionary's entries. A message that names none is read as usual. The dictionary's
    /// strings are not in `input`: a borrowed target (`&'de str`) cannot hold one
    /// ([`from_slice_with_dictionary`](crate::from_slice_with_dictionary) says more).
    ///
    /// Errors: those of [`from_slice_with`](Self::from_slice_with), and
    /// [`ErrorCode::UnknownDictionary`](crate::ErrorCode::UnknownDictionary) (`Syntax`, at
    /// offset 5) when the message names another dictionary.
    pub fn from_slice_with_dictionary(
        input: &'de [u8],
        opts: Options,
        dict: &crate::Dictionary,
    ) -> Result<Self> {
        Ok(Deserializer {
            src: Source::message_with(input, &opts, Some(dict))?,
            value_mode: false,
        })
    }

    /// A deserializer over a headerless body whose first byte is at offset `base`.
    pub(crate) fn new(body: &'de [u8], base: u64, opts: &Options) -> Self {
        Deserializer {
            src: Source::new(body, base, opts),
            value_mode: false,
        }
    }

    /// Fails with [`ErrorCode::TrailingBytes`](crate::ErrorCode::TrailingBytes) (`Data`, at
    /// the first unread byte) unless all input was consumed; call it after the value.
    pub fn end(&self) -> Result<()> {
        self.src.end()
    }

    /// The input not consumed yet: after one value, the bytes that follow its body.
    pub fn remaining_input(&self) -> &'de [u8] {
        self.src.rest()
    }

    /// Offset of the next byte in the input (header included when built by `from_slice`).
    pub fn offset(&self) -> u64 {
        self.src.offset()
    }

    /// Adds the current offset to an error that has none (visitor errors).
    #[cold]
    pub(crate) fn locate(&self, e: Error) -> Error {
        self.src.locate(e)
    }
}

impl<'de> crate::columnar::row::RowDecoder<'de> for Deserializer<'de> {
    type Residual<'a>
        = &'a mut Deserializer<'de>
    where
        Self: 'a;

    #[inline(always)]
    fn source(&mut self) -> &mut Source<'de> {
        &mut self.src
    }

    #[inline(always)]
    fn residual(&mut self) -> &mut Deserializer<'de> {
        self
    }

    fn visit_unique_keys<A, V>(map: &mut A, at: u64, visitor: V) -> Result<V::Value>
    where
        A: serde::de::MapAccess<'de, Error = Error>,
        V: serde::de::Visitor<'de>,
    {
        visitor.visit_map(dupkeys::DupCheck::new(&mut dupkeys::FixedAt {
            inner: map,
            at,
        }))
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
    de.src.carry_dense(opts, dense.take());
    // Matched, not chained: each closure moved the value, a `memcpy` call for a large `T`.
    let r = match T::deserialize(&mut de) {
        Ok(v) => match de.end() {
            Ok(()) => Ok(v),
            Err(e) => Err(e),
        },
        Err(e) => Err(de.locate(e)),
    };
    *dense = de.src.into_dense();
    r
}

/// Passes a decoded string or byte string to `visitor`, borrowed when it lies in the input.
#[inline]
pub(crate) fn visit_text<'de, V: Visitor<'de>>(t: Text<'de, '_>, visitor: V) -> Result<V::Value> {
    match t {
        Text::Str(Reference::Borrowed(s)) => visitor.visit_borrowed_str(s),
        Text::Str(Reference::Copied(s)) => visitor.visit_str(s).map_err(not_in_input),
        Text::Bytes(Reference::Borrowed(b)) => visitor.visit_borrowed_bytes(b),
        Text::Bytes(Reference::Copied(b)) => visitor.visit_bytes(b),
    }
}

/// A `&str` target (serde's visitor expects "a borrowed string") over a string the decoder
/// rebuilt (hex text, `docs/SPEC.md` §9) or copied out of the intern table or a pre-shared
/// dictionary: the error also
/// says why and what to use instead, as a string column's does (`columnar::row`), which
/// matches on the unchanged `expected`.
#[cold]
fn not_in_input(e: Error) -> Error {
    match e.code() {
        ErrorCode::TypeMismatch { expected, found } if e.wants_borrowed_str() => Error::mismatch(
            expected.clone(),
            format!(
                "{found}, which the decoder rebuilt (hex text) or copied out of its intern \
                 table or dictionary and cannot lend from the input: use `String` or \
                 `#[serde(borrow)] Cow<'a, str>`"
            ),
        ),
        _ => e,
    }
}

#[cfg(test)]
mod tests;
