//! Decimal-text columns (kind bit `10`, `docs/SPEC.md` §22.1): every value is a canonical
//! decimal integer — `0`, or an optional `-` and a digit 1–9 followed by digits — within
//! `u64` (no value negative) or `i64` (some value negative), the integers QPack packs. The
//! body is what Balanced writes for a sequence of those integers: a QPack value when it is
//! smaller, else a plain array (an entropy-coded block around the QPack value in the
//! Compression tier when that is smaller still).
//!
//! 128-bit values stay strings: QPack has no 128-bit kind, and a plain array of 17-byte
//! `F2` forms is never smaller than the digits it replaces by enough to matter.

use super::{Body, Form, bad};
use crate::codec::cursor::ELEMENT_CHARGE;
use crate::codec::strings::CheckedStrs;
use crate::codec::{self, Packed};
use crate::error::Result;
use crate::options::{Features, Options};
use crate::qpack::decode::read_packed;
use crate::qpack::encode::{PackBuf, PackClass};
use crate::source::{Num, Source};
use crate::wire::tags::{self, FIXARR, FIXARR_MAX};

/// Most digits of a `u64` (`18446744073709551615`).
const MAX_DIGITS: usize = 20;

/// The integer a canonical decimal string spells, as its 64-bit pattern (two's complement
/// when negative) and whether it is negative; `None` for anything else: `""`, `"-"`,
/// `"007"`, `"+1"`, `"-0"`, `"1e3"`, `" 1"`, values above `u64::MAX` or below `i64::MIN`.
pub(super) fn parse(s: &[u8]) -> Option<(u64, bool)> {
    let (neg, digits) = match s {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, s),
    };
    match digits {
        [] => return None,
        [b'0'] => return (!neg).then_some((0, false)),
        [b'0', ..] => return None,
        _ if digits.len() > MAX_DIGITS => return None,
        _ => {}
    }
    let mut v: u64 = 0;
    for &c in digits {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    if !neg {
        return Some((v, false));
    }
    // -2^63 is the most negative i64: its magnitude's pattern is its own.
    (v <= 1 << 63).then_some((v.wrapping_neg(), true))
}

/// Digits (and sign) of `x` printed in decimal, signed when `signed`.
fn text_len(x: u64, signed: bool) -> usize {
    let neg = signed && (x as i64) < 0;
    let mag = if neg { (x as i64).unsigned_abs() } else { x };
    usize::from(neg) + mag.checked_ilog10().map_or(1, |l| l as usize + 1)
}

/// Appends `x` printed in decimal, signed when `signed`.
fn print(out: &mut Vec<u8>, x: u64, signed: bool) {
    let neg = signed && (x as i64) < 0;
    let mut mag = if neg { (x as i64).unsigned_abs() } else { x };
    let mut buf = [0u8; MAX_DIGITS];
    let mut i = MAX_DIGITS;
    loop {
        i -= 1;
        buf[i] = b'0' + (mag % 10) as u8;
        mag /= 10;
        if mag == 0 {
            break;
        }
    }
    if neg {
        out.push(b'-');
    }
    out.extend_from_slice(&buf[i..]);
}

/// The decimal body of `strs` when every value is canonical and it is strictly smaller than
/// `beat` bytes.
pub(super) fn encode(strs: &[&[u8]], opts: &Options, beat: usize) -> Result<Option<Body>> {
    // The first value decides most columns without allocating.
    if strs.first().is_none_or(|s| parse(s).is_none()) {
        return Ok(None);
    }
    let mut vals = Vec::with_capacity(strs.len());
    let (mut neg, mut big, mut chars) = (false, false, 0u64);
    for s in strs {
        let Some((v, n)) = parse(s) else {
            return Ok(None);
        };
        neg |= n;
        big |= !n && v > i64::MAX as u64;
        chars += s.len() as u64;
        vals.push(v);
    }
    // No QPack kind holds both.
    if neg && big {
        return Ok(None);
    }
    let (bytes, units) = int_body(vals, neg, opts)?;
    let units = units + chars;
    Ok((bytes.len() < beat).then_some(Body {
        text: Form::Decimal,
        bytes,
        units,
    }))
}

/// The body of `vals` (64-bit patterns, signed when `neg`) as Balanced writes a sequence of
/// integers: a QPack value when smaller, else a plain array (an entropy-coded block around the
/// QPack value when the options have `ENTROPY` and it is smaller still); with the output units
/// [`read_ints`] charges for it.
pub(super) fn int_body(vals: Vec<u64>, neg: bool, opts: &Options) -> Result<(Vec<u8>, u64)> {
    let v = vals.len() as u64;
    let mut bytes = PackBuf::of(PackClass::Int, vals, neg).encode_seq(opts)?;
    let packed = bytes.first().is_some_and(|&t| codec::is_qpack_tag(t));
    // As `read_ints` charges: 8 units a value (a plain array also its count).
    let mut units = v.saturating_mul(ELEMENT_CHARGE + u64::from(!packed));
    if packed
        && opts.feature_bits().contains(Features::ENTROPY)
        && let Some(w) = codec::entropy::wrap(&bytes)
    {
        units += bytes.len() as u64;
        bytes = w;
    }
    Ok((bytes, units))
}

/// Reads a decimal body of `v` values and prints them.
pub(super) fn read<'de>(src: &mut Source<'de>, v: usize) -> Result<CheckedStrs<'de>> {
    let at = src.offset();
    let (vals, signed) = read_ints(src, v)?;
    let total: u64 = vals.iter().map(|&x| text_len(x, signed) as u64).sum();
    src.charge(total)?;
    let mut store = Vec::with_capacity(total as usize);
    for &x in &vals {
        print(&mut store, x, signed);
    }
    CheckedStrs::rebuilt(store, vals.iter().map(|&x| text_len(x, signed)))
        .map_err(|e| e.with_offset(at))
}

/// Reads the `v` integers of an [`int_body`]: their 64-bit patterns and whether they are
/// signed (a signed QPack kind, or a plain array holding a negative value).
///
/// Errors (`BadCodec` at the body's first byte unless said): not a QPack integer value or a
/// plain array of 64-bit integers (at the failing value); a signed QPack kind without a
/// negative value; a plain array mixing a negative value with one above `i64::MAX`; a count
/// other than `v`; truncation; the output limit.
pub(super) fn read_ints(src: &mut Source<'_>, v: usize) -> Result<(Vec<u64>, bool)> {
    let at = src.offset();
    let tag = src.next_tag()?;
    let (vals, signed) = if codec::is_qpack_tag(tag) {
        match read_packed(src, tag)? {
            Packed::Ints(k, vals) => {
                let signed = k.is_signed();
                if signed && !vals.iter().any(|&x| (x as i64) < 0) {
                    return Err(bad(at, "a signed decimal column without a negative value"));
                }
                (vals, signed)
            }
            _ => return Err(bad(at, "a decimal column's values must be integers")),
        }
    } else if matches!(tag, FIXARR..=FIXARR_MAX | tags::ARR16 | tags::ARR32) {
        let n = src.array_len(tag)?.unwrap_or(0);
        if n != v {
            return Err(bad(at, "column value count differs from its masks"));
        }
        src.charge((n as u64).saturating_mul(ELEMENT_CHARGE))?;
        let mut vals = Vec::with_capacity(n);
        let (mut neg, mut big) = (false, false);
        for _ in 0..n {
            let t = src.next_tag()?;
            match src.read_num(t)? {
                Some(Num::U64(x)) => {
                    big |= x > i64::MAX as u64;
                    vals.push(x);
                }
                Some(Num::I64(x)) => {
                    neg |= x < 0;
                    vals.push(x as u64);
                }
                _ => {
                    let at = src.offset().saturating_sub(1);
                    return Err(bad(
                        at,
                        "a decimal column value that is not a 64-bit integer",
                    ));
                }
            }
        }
        if neg && big {
            return Err(bad(
                at,
                "a decimal column mixes a negative value with one above i64::MAX",
            ));
        }
        (vals, neg)
    } else {
        return Err(bad(
            at,
            "decimal column values that are not a QPack value or an array",
        ));
    };
    if vals.len() != v {
        return Err(bad(at, "column value count differs from its masks"));
    }
    Ok((vals, signed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_accepts_only_canonical_integers() {
        assert_eq!(parse(b"0"), Some((0, false)));
        assert_eq!(parse(b"200"), Some((200, false)));
        assert_eq!(parse(b"-1"), Some((u64::MAX, true)));
        assert_eq!(parse(b"18446744073709551615"), Some((u64::MAX, false)));
        assert_eq!(parse(b"-9223372036854775808"), Some((1 << 63, true)));
        for s in [
            &b""[..],
            b"-",
            b"-0",
            b"007",
            b"00",
            b"+1",
            b"1e3",
            b" 1",
            b"1 ",
            b"1.0",
            b"18446744073709551616",
            b"-9223372036854775809",
            b"340282366920938463463374607431768211456",
            b"\xd9\xa1",
        ] {
            assert_eq!(parse(s), None, "{:?}", String::from_utf8_lossy(s));
        }
    }

    #[test]
    fn print_is_parse_inverse() {
        for (x, signed) in [
            (0, false),
            (9, false),
            (10, false),
            (u64::MAX, false),
            (u64::MAX, true),
            (1 << 63, true),
            (i64::MAX as u64, true),
        ] {
            let mut out = Vec::new();
            print(&mut out, x, signed);
            assert_eq!(out.len(), text_len(x, signed));
            let (back, neg) = parse(&out).unwrap();
            assert_eq!((back, neg), (x, signed && (x as i64) < 0));
        }
    }
}
