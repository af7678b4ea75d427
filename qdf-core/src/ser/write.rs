//! Byte-level forms: the smallest integer width, length headers, strings and byte strings
//! (`docs/SPEC.md` §Integers, §Strings, §Arrays and maps). Each function picks the one form
//! the strict decoder accepts.

use super::Serializer;
use crate::error::{Error, ErrorCode, Result};
use crate::short::{SHORT, as_uninit, copy_short};
use crate::wire::tags::*;
use crate::wire::{ext, varint};

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
    buf: [u8; 5],
    len: usize,
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

/// The Speed form of a number (`docs/SPEC.md` §Integers, §Floats): a tag and the
/// little-endian body, or one fixint byte. `buf[..len]` counts; the rest is padding, so that
/// every form is appended with one constant-size copy ([`Serializer::write_prefix`]).
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

impl Serializer {
    /// Writes an unsigned integer in its smallest form ([`Form::u64`]).
    #[inline]
    pub(crate) fn write_u64(&mut self, v: u64) {
        self.write_form(Form::u64(v));
    }

    /// Writes a signed integer in its smallest form ([`Form::i64`]).
    #[inline]
    pub(crate) fn write_i64(&mut self, v: i64) {
        self.write_form(Form::i64(v));
    }

    /// Appends `f` through [`Serializer::write_prefix`].
    #[inline(always)]
    pub(crate) fn write_form(&mut self, f: Form) {
        self.write_prefix(&f.buf, f.len);
    }

    /// Writes a 128-bit integer: a 64-bit form when it fits, else `F2 03` (u128) / `F2 04`
    /// (i128) and 16 bytes LE.
    pub(crate) fn write_i128(&mut self, v: i128) {
        if let Ok(u) = u64::try_from(v) {
            self.write_u64(u);
        } else if let Ok(i) = i64::try_from(v) {
            self.write_i64(i);
        } else if v > 0 {
            self.write_ext(ext::U128);
            self.out.extend_from_slice(&v.to_le_bytes());
        } else {
            self.write_ext(ext::I128);
            self.out.extend_from_slice(&v.to_le_bytes());
        }
    }

    /// Writes a u128 (see [`Serializer::write_i128`]).
    pub(crate) fn write_u128(&mut self, v: u128) {
        if let Ok(u) = u64::try_from(v) {
            self.write_u64(u);
        } else {
            self.write_ext(ext::U128);
            self.out.extend_from_slice(&v.to_le_bytes());
        }
    }

    /// Writes a timestamp: `F3 zigzag-uvarint(secs) uvarint(nanos)`. Errors (Data) if
    /// `nanos` is above 999 999 999.
    pub(crate) fn write_timestamp(&mut self, secs: i64, nanos: u32) -> Result<()> {
        if nanos > 999_999_999 {
            return Err(Error::mismatch(
                "timestamp nanoseconds at most 999 999 999",
                nanos.to_string(),
            ));
        }
        self.out.push(TIMESTAMP);
        varint::write_uvarint(&mut self.out, varint::zigzag(secs));
        varint::write_uvarint(&mut self.out, nanos as u64);
        Ok(())
    }

    /// Writes the `"secs.nanos"` text a `Value::Timestamp` carries as a timestamp.
    pub(crate) fn write_timestamp_text(&mut self, text: &str) -> Result<()> {
        let parsed = text.split_once('.').and_then(|(s, n)| {
            let nanos = if n.len() == 9 {
                n.parse::<u32>().ok()?
            } else {
                return None;
            };
            Some((s.parse::<i64>().ok()?, nanos))
        });
        match parsed {
            Some((secs, nanos)) => self.write_timestamp(secs, nanos),
            None => Err(Error::mismatch("a \"secs.nnnnnnnnn\" timestamp", text)),
        }
    }

    /// Writes a char: `F2 02 uvarint(scalar)`.
    pub(crate) fn write_char(&mut self, c: char) {
        self.write_ext(ext::CHAR);
        varint::write_uvarint(&mut self.out, c as u64);
    }

    /// Writes a length header.
    #[inline]
    pub(crate) fn write_header(&mut self, kind: Header, len: usize) -> Result<()> {
        // The common headers of arrays and of structs and maps, without the general table.
        match kind {
            Header::Array if len <= 31 => {
                self.out.push(FIXARR | len as u8);
                return Ok(());
            }
            Header::Map if len <= 0xFF => {
                self.write_prefix(&[MAP8, len as u8], 2);
                return Ok(());
            }
            _ => {}
        }
        let h = header_bytes(kind, len)?;
        self.write_header_bytes(&h);
        Ok(())
    }

    /// Appends `h`: a `memcpy` call for a 1–5 byte header would cost more than the header.
    #[inline(always)]
    fn write_header_bytes(&mut self, h: &HeaderBytes) {
        self.write_prefix(&h.buf, h.len);
    }

    /// Appends the first `n` bytes of `buf` (`n <= W`) as one constant-size copy of all `W`
    /// into the spare capacity, then commits `n`: one capacity check, no `memcpy` call.
    #[inline(always)]
    pub(crate) fn write_prefix<const W: usize>(&mut self, buf: &[u8; W], n: usize) {
        let n = n.min(W);
        self.out.reserve(W);
        self.out.spare_capacity_mut()[..W].copy_from_slice(as_uninit(buf));
        // SAFETY: `W >= n` bytes after the old length were written just above, inside the
        // capacity `reserve` guaranteed.
        unsafe { self.out.set_len(self.out.len() + n) };
    }

    /// Writes a string: fixstr up to 31 bytes, else str8/16/32.
    ///
    /// Hook: EVERY string goes through here — values, map keys, struct field names and enum
    /// variant names. The Dense dialect interns here (tags E0/E1/E8/E9/EA).
    #[inline]
    pub(crate) fn write_str(&mut self, s: &str) -> Result<()> {
        let b = s.as_bytes();
        // Inline, defined or referenced: the decoder hands out (and charges) every byte.
        self.count_output(b.len() as u64);
        if self.state.dense.is_some() {
            return self.write_str_dense(b);
        }
        self.write_plain_str(b)
    }

    /// [`Serializer::write_str`] with a Dense state: intern, else the plain form. Out of line
    /// so that the Speed path inlines without the intern table's register pressure.
    #[inline(never)]
    fn write_str_dense(&mut self, b: &[u8]) -> Result<()> {
        if self.write_dense(b, crate::dense::Kind::Str) {
            return Ok(());
        }
        self.write_plain_str_cold(b)
    }

    /// [`write_plain_str`](Self::write_plain_str) out of line, for the Dense path (where an
    /// inline string is the rare case).
    #[inline(never)]
    fn write_plain_str_cold(&mut self, b: &[u8]) -> Result<()> {
        self.write_plain_str(b)
    }

    /// A string in its plain form: fixstr or str8/16/32 header, then the bytes.
    #[inline(always)]
    fn write_plain_str(&mut self, b: &[u8]) -> Result<()> {
        if b.len() <= 31 {
            self.write_short(&[FIXSTR | b.len() as u8], b);
        } else if b.len() <= SHORT - 2 {
            self.write_short(&[STR8, b.len() as u8], b);
        } else {
            let h = header_bytes(Header::Str, b.len())?;
            self.out.reserve(h.len + b.len());
            self.out.extend_from_slice(h.as_slice());
            self.out.extend_from_slice(b);
        }
        Ok(())
    }

    /// Writes `header` (1 or 2 bytes) and `b` (at most `SHORT - header.len()` bytes) with
    /// fixed-size copies into the spare capacity: one capacity check for a `SHORT`-byte
    /// window, then [`copy_short`], then the length. A `memcpy` call for a field name or a
    /// short value costs more than the bytes it copies.
    #[inline(always)]
    fn write_short(&mut self, header: &[u8], b: &[u8]) {
        let n = header.len() + b.len();
        self.out.reserve(SHORT);
        let window = &mut self.out.spare_capacity_mut()[..SHORT];
        copy_short(&mut window[..header.len()], as_uninit(header));
        copy_short(&mut window[header.len()..], as_uninit(b));
        // SAFETY: the `n` bytes after the old length were written just above (the header,
        // then `b`), and `n <= SHORT` lies inside the capacity `reserve` guaranteed.
        unsafe { self.out.set_len(self.out.len() + n) };
    }

    /// Writes a byte string: bin8/16/32.
    ///
    /// Hook: EVERY byte string goes through here. The Dense dialect interns here (tag E2).
    #[inline]
    pub(crate) fn write_bytes(&mut self, b: &[u8]) -> Result<()> {
        self.count_output(b.len() as u64);
        if self.write_dense(b, crate::dense::Kind::Bin) {
            return Ok(());
        }
        let h = header_bytes(Header::Bin, b.len())?;
        self.out.reserve(h.len + b.len());
        self.out.extend_from_slice(h.as_slice());
        self.out.extend_from_slice(b);
        Ok(())
    }
}
