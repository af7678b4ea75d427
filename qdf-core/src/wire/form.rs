//! Byte-level forms of the row form (`docs/SPEC.md` §3, §6, §7):
//! the smallest integer width and length header, each the one form the strict decoder
//! accepts, and their sizes. Pure functions of a value, shared by the serializer, QPack and
//! the columnar writer, and by the codecs' cost estimates.

use crate::error::{Error, ErrorCode, Result};
use crate::wire::tags::*;

/// Which length header: strings, byte strings, arrays or maps.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Header {
    Str,
    Bin,
    Array,
    Map,
}

/// A length header: up to 5 bytes.
pub(crate) struct HeaderBytes {
    pub(crate) buf: [u8; 5],
    pub(crate) len: usize,
}

impl HeaderBytes {
    #[inline]
    pub(crate) fn as_slice(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// The smallest header for `len` items of `kind`. Errors above `u32::MAX`.
#[inline]
pub(crate) fn header_bytes(kind: Header, len: usize) -> Result<HeaderBytes> {
    // (fix base, fix max, 8-bit tag, 16-bit tag, 32-bit tag); a fix max of 0 = no fix form.
    let (fix, fix_max, t8, t16, t32) = match kind {
        Header::Str => (FIXSTR, 31, Some(STR8), STR16, STR32),
        Header::Bin => (0, 0, Some(BIN8), BIN16, BIN32),
        Header::Array => (FIXARR, 31, None, ARR16, ARR32),
        Header::Map => (0, 0, Some(MAP8), MAP16, MAP32),
    };
    let mut buf = [0u8; 5];
    let n = if fix_max > 0 && len <= fix_max {
        buf[0] = fix | len as u8;
        1
    } else if let (Some(t8), true) = (t8, len <= 0xFF) {
        buf[0] = t8;
        buf[1] = len as u8;
        2
    } else if len <= 0xFFFF {
        buf[0] = t16;
        buf[1..3].copy_from_slice(&(len as u16).to_le_bytes());
        3
    } else if len <= u32::MAX as usize {
        buf[0] = t32;
        buf[1..5].copy_from_slice(&(len as u32).to_le_bytes());
        5
    } else {
        return Err(Error::new(ErrorCode::Unsupported(
            "a string, byte string, array or map longer than u32::MAX",
        )));
    };
    Ok(HeaderBytes { buf, len: n })
}

/// The Speed form of a number (`docs/SPEC.md` §3, §4): a tag and the
/// little-endian body, or one fixint byte. `buf[..len]` counts; the rest is padding, so that
/// every form is appended with one constant-size copy (`Sink::write_prefix`).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Form {
    pub(crate) buf: [u8; 9],
    pub(crate) len: usize,
}

impl Form {
    /// The widest form: a tag and 8 bytes.
    pub(crate) const MAX: usize = 9;

    /// `tag`, then the first `len - 1` bytes of `le` (a little-endian value) count. The whole
    /// body is always copied, so that the width only changes `len`.
    #[inline(always)]
    fn new(tag: u8, le: [u8; 8], len: usize) -> Form {
        let mut buf = [tag; 9];
        buf[1..].copy_from_slice(&le);
        Form { buf, len }
    }

    /// `true` or `false`.
    #[inline(always)]
    pub(crate) fn bool(b: bool) -> Form {
        Form::new(if b { TRUE } else { FALSE }, [0; 8], 1)
    }

    /// An unsigned integer in its smallest form: fixint, u8, u16, u32, u64.
    ///
    /// A two-level comparison tree (two or three comparisons to any width, small or large);
    /// with callgrind it took fewer instructions than a table by leading zeros.
    #[inline(always)]
    pub(crate) fn u64(v: u64) -> Form {
        let (tag, len) = if v <= 0xFFFF {
            if v <= FIXINT_MAX as u64 {
                (v as u8, 1)
            } else if v <= 0xFF {
                (U8, 2)
            } else {
                (U16, 3)
            }
        } else if v <= u32::MAX as u64 {
            (U32, 5)
        } else {
            (U64, 9)
        };
        Form::new(tag, v.to_le_bytes(), len)
    }

    /// A signed integer: `≥ 0` as unsigned, −1..=−8 as negfixint, else the smallest of i8,
    /// i16, i32, i64 (the low bytes of the two's complement, little-endian).
    #[inline(always)]
    pub(crate) fn i64(v: i64) -> Form {
        if v >= 0 {
            return Form::u64(v as u64);
        }
        let (tag, len) = if v >= i16::MIN as i64 {
            if v >= -8 {
                (NEGFIXINT | (-v - 1) as u8, 1)
            } else if v >= i8::MIN as i64 {
                (I8, 2)
            } else {
                (I16, 3)
            }
        } else if v >= i32::MIN as i64 {
            (I32, 5)
        } else {
            (I64, 9)
        };
        Form::new(tag, v.to_le_bytes(), len)
    }

    /// An `f32`: never narrowed, the raw IEEE-754 bits.
    #[inline(always)]
    pub(crate) fn f32(v: f32) -> Form {
        Form::new(F32, (v.to_bits() as u64).to_le_bytes(), 5)
    }

    /// An `f64`: the raw IEEE-754 bits.
    #[inline(always)]
    pub(crate) fn f64(v: f64) -> Form {
        Form::new(F64, v.to_bits().to_le_bytes(), 9)
    }
}

/// Bytes of an integer in its Speed form (`docs/SPEC.md` §3): `v` is the value's bits, `neg`
/// says it is negative (then `v as i64` is the value).
pub(crate) fn int_len(v: u64, neg: bool) -> usize {
    if neg {
        match v as i64 {
            -8..=-1 => 1,
            i if i >= i8::MIN as i64 => 2,
            i if i >= i16::MIN as i64 => 3,
            i if i >= i32::MIN as i64 => 5,
            _ => 9,
        }
    } else {
        match v {
            0..=0x7F => 1,
            0x80..=0xFF => 2,
            0x100..=0xFFFF => 3,
            _ if v <= u32::MAX as u64 => 5,
            _ => 9,
        }
    }
}

/// Bytes of the plain (Speed) form of a string (`is_str`) or byte string of `len` bytes:
/// its length header, then the bytes.
#[inline]
pub(crate) fn text_len(len: usize, is_str: bool) -> usize {
    let header = match (is_str, len) {
        (true, 0..=31) => 1,
        (_, 0..=0xFF) => 2,
        (_, 0..=0xFFFF) => 3,
        _ => 5,
    };
    header + len
}
