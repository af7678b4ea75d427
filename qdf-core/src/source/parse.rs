//! Tag-level parsing: numbers, strings, container lengths, the `F2` extension payloads. Every
//! check for the smallest form lives here (`docs/SPEC.md` §12).

use super::Source;
use crate::dense::NumVal;
use crate::error::{Error, ErrorCode, Result};
use crate::utf8::utf8;
use crate::wire::ext;
use crate::wire::read::{Reference, Text};
use crate::wire::tags::STR8 as STR8_TAG;
use crate::wire::tags::*;

/// A number as the wire holds it.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Num {
    U64(u64),
    I64(i64),
    U128(u128),
    I128(i128),
    F32(f32),
    F64(f64),
}

impl From<NumVal> for Num {
    /// A slot's number as the wire's plain token of it would read.
    fn from(v: NumVal) -> Num {
        match v {
            NumVal::Int(i) if i < 0 => Num::I64(i as i64),
            NumVal::Int(i) => Num::U64(i as u64),
            NumVal::F32(b) => Num::F32(f32::from_bits(b)),
            NumVal::F64(b) => Num::F64(f64::from_bits(b)),
        }
    }
}

/// 2^128 and 2^127 as `f64` (exact): the first floats past `u128::MAX` and `i128::MAX`.
const TWO_128: f64 = 340_282_366_920_938_463_463_374_607_431_768_211_456.0;
const TWO_127: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;

impl Num {
    /// `Ok` unless `self` is an integer that a float target (`f32` when `narrow`, else `f64`)
    /// cannot hold exactly (`docs/SPEC.md` §4): the integer must convert to the float and
    /// back to the same integer, so 2^53 + 1 is no `f64` and 2^24 + 1 no `f32`. Floats pass
    /// (their width follows serde's rules). The error is a `Data` error with no offset yet.
    #[inline]
    pub(crate) fn check_float_target(self, narrow: bool) -> Result<()> {
        // `as` rounds to the nearest float (saturating to infinity for `u128` into `f32`);
        // the widening to `f64` is exact, and the bound keeps the saturating cast back from
        // mapping a float past the integer range onto `MAX`.
        let exact = match self {
            Num::F32(_) | Num::F64(_) => return Ok(()),
            Num::U64(v) => {
                let f = if narrow { v as f32 as f64 } else { v as f64 };
                f < TWO_128 && f as u128 == v as u128
            }
            Num::U128(v) => {
                let f = if narrow { v as f32 as f64 } else { v as f64 };
                f < TWO_128 && f as u128 == v
            }
            Num::I64(v) => {
                let f = if narrow { v as f32 as f64 } else { v as f64 };
                f < TWO_127 && f as i128 == v as i128
            }
            Num::I128(v) => {
                let f = if narrow { v as f32 as f64 } else { v as f64 };
                f < TWO_127 && f as i128 == v
            }
        };
        if exact {
            return Ok(());
        }
        Err(self.inexact(narrow))
    }

    #[cold]
    fn inexact(self, narrow: bool) -> Error {
        let float = if narrow { "f32" } else { "f64" };
        let n = match self {
            Num::U64(v) => v.to_string(),
            Num::U128(v) => v.to_string(),
            Num::I64(v) => v.to_string(),
            Num::I128(v) => v.to_string(),
            Num::F32(v) => v.to_string(),
            Num::F64(v) => v.to_string(),
        };
        Error::mismatch(
            float,
            format!("integer {n}, which {float} cannot represent exactly"),
        )
    }
}

/// What a length announces: strings and byte strings (bytes), arrays (elements), maps
/// (entries).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Len {
    Str,
    Bin,
    Array,
    Map,
}

impl<'de> Source<'de> {
    /// An error at the offset of the byte just read (the tag).
    #[cold]
    pub(crate) fn error_at_tag(&self, code: ErrorCode) -> Error {
        Error::at(code, self.read.offset().saturating_sub(1))
    }

    /// A `BadTag` error for `tag` (already consumed) where `expected` was wanted.
    #[cold]
    pub(crate) fn bad_tag(&self, tag: u8, expected: &'static str) -> Error {
        self.error_at_tag(ErrorCode::BadTag {
            found: tag,
            expected,
        })
    }

    #[cold]
    fn non_minimal(&self, what: &'static str, back: u64) -> Error {
        Error::at(
            ErrorCode::NonMinimal(what),
            self.read.offset().saturating_sub(back),
        )
    }

    /// Reads the next tag byte.
    #[inline]
    pub(crate) fn next_tag(&mut self) -> Result<u8> {
        self.read.next("a tag")
    }

    /// Reads a little-endian length of `N` bytes and rejects one a shorter form could hold.
    #[inline(always)]
    fn len_field<const N: usize>(&mut self, min: u64, what: &'static str) -> Result<usize> {
        let b: [u8; N] = self.read.array(what)?;
        let mut v = 0u64;
        for (i, &x) in b.iter().enumerate() {
            v |= (x as u64) << (8 * i);
        }
        if v < min {
            return Err(self.non_minimal(what, N as u64 + 1));
        }
        Ok(v as usize)
    }

    /// The length a header tag announces, or `None` if `tag` is not a header of `kind`. Not
    /// yet checked against the remaining input.
    #[inline(always)]
    pub(crate) fn parse_len(&mut self, tag: u8, kind: Len) -> Result<Option<usize>> {
        Ok(Some(match (kind, tag) {
            (Len::Str, FIXSTR..=FIXSTR_MAX) => (tag & 0x1F) as usize,
            (Len::Str, STR8) => self.len_field::<1>(32, "a str8 length")?,
            (Len::Str, STR16) => self.len_field::<2>(0x100, "a str16 length")?,
            (Len::Str, STR32) => self.len_field::<4>(0x1_0000, "a str32 length")?,
            (Len::Bin, BIN8) => self.len_field::<1>(0, "a bin8 length")?,
            (Len::Bin, BIN16) => self.len_field::<2>(0x100, "a bin16 length")?,
            (Len::Bin, BIN32) => self.len_field::<4>(0x1_0000, "a bin32 length")?,
            (Len::Array, FIXARR..=FIXARR_MAX) => (tag & 0x1F) as usize,
            (Len::Array, ARR16) => self.len_field::<2>(32, "an arr16 count")?,
            (Len::Array, ARR32) => self.len_field::<4>(0x1_0000, "an arr32 count")?,
            (Len::Map, MAP8) => self.len_field::<1>(0, "a map8 count")?,
            (Len::Map, MAP16) => self.len_field::<2>(0x100, "a map16 count")?,
            (Len::Map, MAP32) => self.len_field::<4>(0x1_0000, "a map32 count")?,
            _ => return Ok(None),
        }))
    }

    /// Reads the element count of an array header `tag`, checks it against the remaining
    /// input (each element takes at least one byte) and charges it. `None` if `tag` is not an
    /// array header.
    #[inline]
    pub(crate) fn array_len(&mut self, tag: u8) -> Result<Option<usize>> {
        match self.parse_len(tag, Len::Array)? {
            Some(n) => {
                self.read.check_count(n as u64, 1)?;
                self.charge(n as u64)?;
                Ok(Some(n))
            }
            None => Ok(None),
        }
    }

    /// Like [`Source::array_len`] for maps (each entry takes at least two bytes).
    #[inline]
    pub(crate) fn map_len(&mut self, tag: u8) -> Result<Option<usize>> {
        match self.parse_len(tag, Len::Map)? {
            Some(n) => {
                self.read.check_count(n as u64, 2)?;
                self.charge(n as u64)?;
                Ok(Some(n))
            }
            None => Ok(None),
        }
    }

    /// [`Source::map_len`] after a `map8` tag (already consumed), inlined: the entry
    /// count byte, checked and charged the same way.
    #[inline(always)]
    pub(crate) fn map8_len(&mut self) -> Result<usize> {
        let n = self.read.next("a map8 count")? as usize;
        self.read.check_count(n as u64, 2)?;
        self.charge(n as u64)?;
        Ok(n)
    }

    /// Reads the string or byte string that `tag` (already consumed) starts; `None` if `tag`
    /// starts neither.
    ///
    /// Hook: EVERY string and byte-string read goes through here — values, map keys, struct
    /// field names, variant names. The Dense dialect resolves intern tags (E0/E1/E2/E8/E9/EA)
    /// here and returns [`Reference::Copied`] for table entries; the hex forms `F2 0B` /
    /// `F2 0C` (`docs/SPEC.md` §9) are read here too (the subtype is consumed only then),
    /// so they stand wherever a string may.
    #[inline]
    pub(crate) fn read_text(&mut self, tag: u8) -> Result<Option<Text<'de, '_>>> {
        let (len, is_str) = match tag {
            FIXSTR..=FIXSTR_MAX => ((tag & 0x1F) as usize, true),
            STR8 | STR16 | STR32 => (self.parse_len(tag, Len::Str)?.unwrap_or(0), true),
            BIN8 | BIN16 | BIN32 => (self.parse_len(tag, Len::Bin)?.unwrap_or(0), false),
            t if is_dense_text(t) => return self.read_dense_text(tag).map(Some),
            EXT => match self.read.peek() {
                Some(sub) if ext::is_hex(sub) => {
                    let _ = self.read.next("");
                    return self.read_hex(sub).map(Some);
                }
                _ => return Ok(None),
            },
            _ => return Ok(None),
        };
        if is_str {
            return Ok(Some(Text::Str(Reference::Borrowed(self.str_body(len)?))));
        }
        Ok(Some(Text::Bytes(Reference::Borrowed(self.text_body(len)?))))
    }

    /// The hex text of `F2 sub` (tag and subtype consumed; `sub` is `0B` or `0C`,
    /// `docs/SPEC.md` §9): a string the decoder prints, so it comes out copied.
    pub(crate) fn read_hex(&mut self, sub: u8) -> Result<Text<'de, '_>> {
        self.state
            .read_hex(&mut self.read, &mut self.budget, sub == ext::HEX_DEF)
    }

    /// Reads the string or bytes that Dense tag `tag` (already consumed) stands for.
    #[inline(always)]
    pub(crate) fn read_dense_text(&mut self, tag: u8) -> Result<Text<'de, '_>> {
        self.state.read_text(&mut self.read, &mut self.budget, tag)
    }

    /// The string that the fixstr or str8 tag `tag` (already consumed) starts; `None` for
    /// any other tag. The inlined fast path of struct field names and short string values;
    /// every other form goes through [`Source::read_text`].
    #[inline(always)]
    pub(crate) fn read_short_str(&mut self, tag: u8) -> Result<Option<&'de str>> {
        let len = match tag {
            FIXSTR..=FIXSTR_MAX => (tag & 0x1F) as usize,
            STR8 => self.len_field::<1>(32, "a str8 length")?,
            _ => return Ok(None),
        };
        self.str_body(len).map(Some)
    }

    /// The fixstr (or, with `STR8`, also the str8) at the front of the input, header and body
    /// consumed in one step; `None` (and nothing consumed) when the input does not start with
    /// a complete one in its smallest form, and the caller falls back to
    /// [`Source::next_tag`] + [`Source::read_short_str`], which report a truncated
    /// or non-minimal one. The hot path of field names (fixstr only) and string values: one
    /// bounds check and one cursor update instead of two each.
    #[inline(always)]
    pub(crate) fn peek_str<const STR8: bool>(&mut self) -> Option<Result<&'de str>> {
        let rest = self.read.rest();
        let &tag = rest.first()?;
        let (head, len) = if tag & !0x1F == FIXSTR {
            (1, (tag & 0x1F) as usize)
        } else if STR8 && tag == STR8_TAG {
            match rest.get(1) {
                Some(&n) if n >= 32 => (2, n as usize),
                _ => return None,
            }
        } else {
            return None;
        };
        let bytes = rest.get(head..head + len)?;
        // Cannot fail: `head + len` bytes were just seen.
        let _ = self.read.take(head + len, "");
        self.state.note_inline();
        if let Err(e) = self.charge(len as u64) {
            return Some(Err(e));
        }
        Some(utf8(bytes).map_err(|e| self.invalid_utf8(len, e)))
    }

    /// The 8 bytes after the (peeked, not consumed) tag at the front of the input, if the
    /// input holds them; nothing is consumed.
    #[inline(always)]
    pub(crate) fn peek_payload8(&self) -> Option<[u8; 8]> {
        self.read.rest().get(1..9)?.try_into().ok()
    }

    /// The `len` UTF-8 bytes of an inline string whose header was read.
    #[inline(always)]
    fn str_body(&mut self, len: usize) -> Result<&'de str> {
        let bytes = self.text_body(len)?;
        utf8(bytes).map_err(|e| self.invalid_utf8(len, e))
    }

    /// The error for the string of `len` bytes just consumed, at its first invalid byte
    /// (computed here, off the hot path).
    #[cold]
    fn invalid_utf8(&self, len: usize, e: std::str::Utf8Error) -> Error {
        let start = self.read.offset() - len as u64;
        Error::at(ErrorCode::InvalidUtf8, start + e.valid_up_to() as u64)
    }

    /// The `len` bytes of an inline string or byte string whose header was read, charged to
    /// the output budget.
    #[inline(always)]
    fn text_body(&mut self, len: usize) -> Result<&'de [u8]> {
        self.state.note_inline();
        let bytes = self.read.take(len, "string bytes")?;
        self.charge(len as u64)?;
        Ok(bytes)
    }

    /// Reads the number that `tag` (already consumed) starts; `None` if it starts none.
    /// Handles the `F2 03`/`F2 04` 128-bit forms when `tag` is `F2` and the subtype matches
    /// (the subtype is only consumed then). Always inlined: the caller's match on [`Num`]
    /// then folds into this one, so no `Num` is built on the hot path.
    #[inline(always)]
    pub(crate) fn read_num(&mut self, tag: u8) -> Result<Option<Num>> {
        Ok(Some(match tag {
            0..=FIXINT_MAX => Num::U64(tag as u64),
            NEGFIXINT..=NEGFIXINT_MAX => Num::I64(-((tag & 7) as i64) - 1),
            U8 => {
                let v = self.read.next("a u8")?;
                if v <= FIXINT_MAX {
                    return Err(self.non_minimal("a u8 holding a fixint", 2));
                }
                Num::U64(v as u64)
            }
            U16 => {
                let v = u16::from_le_bytes(self.read.array("a u16")?);
                if v <= 0xFF {
                    return Err(self.non_minimal("a u16 holding a u8", 3));
                }
                Num::U64(v as u64)
            }
            U32 => {
                let v = u32::from_le_bytes(self.read.array("a u32")?);
                if v <= 0xFFFF {
                    return Err(self.non_minimal("a u32 holding a u16", 5));
                }
                Num::U64(v as u64)
            }
            U64 => {
                let v = u64::from_le_bytes(self.read.array("a u64")?);
                if v <= u32::MAX as u64 {
                    return Err(self.non_minimal("a u64 holding a u32", 9));
                }
                Num::U64(v)
            }
            I8 => {
                let v = self.read.next("an i8")? as i8;
                if v >= -8 {
                    return Err(self.non_minimal("an i8 holding a fixint or unsigned value", 2));
                }
                Num::I64(v as i64)
            }
            I16 => {
                let v = i16::from_le_bytes(self.read.array("an i16")?);
                if v >= i8::MIN as i16 {
                    return Err(self.non_minimal("an i16 holding an i8 or unsigned value", 3));
                }
                Num::I64(v as i64)
            }
            I32 => {
                let v = i32::from_le_bytes(self.read.array("an i32")?);
                if v >= i16::MIN as i32 {
                    return Err(self.non_minimal("an i32 holding an i16 or unsigned value", 5));
                }
                Num::I64(v as i64)
            }
            I64 => {
                let v = i64::from_le_bytes(self.read.array("an i64")?);
                if v >= i32::MIN as i64 {
                    return Err(self.non_minimal("an i64 holding an i32 or unsigned value", 9));
                }
                Num::I64(v)
            }
            F32 => Num::F32(f32::from_bits(u32::from_le_bytes(
                self.read.array("an f32")?,
            ))),
            F64 => Num::F64(f64::from_bits(u64::from_le_bytes(
                self.read.array("an f64")?,
            ))),
            EXT => match self.read.peek() {
                None => return Err(self.read.eof("an extension subtype")),
                Some(ext::U128) | Some(ext::I128) => {
                    let sub = self.read.next("a subtype")?;
                    self.read_wide(sub)?
                }
                _ => return Ok(None),
            },
            _ => return Ok(None),
        }))
    }

    /// The 16-byte payload of `F2 03` / `F2 04` (subtype consumed).
    pub(crate) fn read_wide(&mut self, sub: u8) -> Result<Num> {
        let b: [u8; 16] = self.read.array("a 128-bit integer")?;
        if sub == ext::U128 {
            let v = u128::from_le_bytes(b);
            if v <= u64::MAX as u128 {
                return Err(self.non_minimal("a u128 that fits 64 bits", 18));
            }
            Ok(Num::U128(v))
        } else {
            let v = i128::from_le_bytes(b);
            if v >= i64::MIN as i128 {
                return Err(self.non_minimal("an i128 that fits 64 bits or is not negative", 18));
            }
            Ok(Num::I128(v))
        }
    }

    /// The payload of tag `F3` (tag consumed): `zigzag-uvarint(seconds) uvarint(nanoseconds)`
    /// with nanoseconds at most 999 999 999 (`docs/SPEC.md` §10).
    pub(crate) fn read_timestamp(&mut self) -> Result<(i64, u32)> {
        let secs = crate::wire::varint::unzigzag(self.read.uvarint()?);
        let at = self.read.offset();
        let nanos = self.read.uvarint()?;
        if nanos > 999_999_999 {
            return Err(Error::at(
                ErrorCode::BadCodec("timestamp nanoseconds above 999 999 999"),
                at,
            ));
        }
        Ok((secs, nanos as u32))
    }

    /// The payload of `F2 02` (subtype consumed).
    pub(crate) fn read_char(&mut self) -> Result<char> {
        let at = self.read.offset();
        let v = self.read.uvarint()?;
        u32::try_from(v)
            .ok()
            .and_then(char::from_u32)
            .ok_or_else(|| Error::at(ErrorCode::InvalidChar(v), at))
    }

    /// After `F2 05`: checks that the wrapped value starts with `C0` or `F2`, not with hex
    /// text `F2 0B`/`F2 0C` (else the wrapper was not needed and the form is not the
    /// smallest one).
    pub(crate) fn check_some_wrapper(&mut self) -> Result<()> {
        match self.read.peek() {
            None => Err(self.read.eof("the value inside Some")),
            Some(b) if ext::some_needs_wrapper(b, self.read.rest().get(1).copied()) => Ok(()),
            Some(_) => Err(self.non_minimal("a Some wrapper around a value that needs none", 2)),
        }
    }

    /// Before a tuple or struct variant's payload: it must be an array or a map.
    ///
    /// Hook: the Dense dialect also accepts a struct shape (EC) for struct variants.
    pub(crate) fn check_payload(&self, kind: u8) -> Result<()> {
        let ok: fn(u8) -> bool = match kind {
            ext::TUPLE_VARIANT => |t| matches!(t, FIXARR..=FIXARR_MAX | ARR16 | ARR32),
            ext::STRUCT_VARIANT => |t| matches!(t, MAP8..=MAP32 | SHAPE),
            _ => return Ok(()),
        };
        match self.read.peek() {
            None => Err(self.read.eof("a variant payload")),
            Some(t) if ok(t) => Ok(()),
            Some(t) => Err(self.read.error(ErrorCode::BadTag {
                found: t,
                expected: if kind == ext::TUPLE_VARIANT {
                    "an array (tuple variant fields)"
                } else {
                    "a map (struct variant fields)"
                },
            })),
        }
    }

    /// The error for a tag (already consumed) that is valid but not what the target wants
    /// (`Data`), or not a value tag at all (`Syntax`).
    #[cold]
    pub(crate) fn unexpected(&self, tag: u8, expected: &'static str) -> Error {
        self.unexpected_as(tag, expected, &expected)
    }

    /// [`unexpected`](Self::unexpected), saying what was wanted in the target's own words
    /// (serde's `Expected` of its visitor: "struct Span", "enum Level"); `fallback` names it
    /// for a tag that starts no value.
    #[cold]
    pub(crate) fn unexpected_as(
        &self,
        tag: u8,
        fallback: &'static str,
        expected: &dyn std::fmt::Display,
    ) -> Error {
        if tag == EXT && self.read.remaining() == 0 {
            // Which extension it is cannot be known yet: the input is cut after `F2`.
            return self.read.eof("an extension subtype");
        }
        // An `F2` value is named by its subtype, in serde's terms ("a unit variant").
        let found = match (tag, self.read.peek()) {
            (EXT, Some(sub)) => Some(crate::wire::ext::subtype_name(sub)),
            _ => describe_tag(tag),
        };
        match found {
            Some(found) => self.error_at_tag(ErrorCode::TypeMismatch {
                expected: expected.to_string().into(),
                found: found.into(),
            }),
            None => self.bad_tag(tag, fallback),
        }
    }
}

/// A short name for what a value tag starts, or `None` for a tag that starts no value in
/// this dialect.
pub(crate) fn describe_tag(tag: u8) -> Option<&'static str> {
    Some(match tag {
        0..=FIXINT_MAX | U8..=I64 | NEGFIXINT..=NEGFIXINT_MAX => "an integer",
        F32 | F64 => "a float",
        FIXSTR..=FIXSTR_MAX | STR8..=STR32 | INTERN_STR => "a string",
        BIN8..=BIN32 | INTERN_BIN => "a byte string",
        STATE_REF | REPEAT | MTF | PAIR => "an interned string or byte string",
        SHAPE => "a struct",
        FIXARR..=FIXARR_MAX | ARR16 | ARR32 => "an array",
        MAP8..=MAP32 => "a map",
        NIL => "nil",
        FALSE | TRUE => "a bool",
        EXT => "an extension value (unit, char, 128-bit integer, Some or enum variant)",
        TIMESTAMP => "a timestamp",
        _ => return None,
    })
}
