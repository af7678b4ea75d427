//! QPack: codecs for slices of one numeric or boolean type (wire notes §2, `docs/SPEC.md`
//! §19). Each codec is a pure module with an encoder, a decoder and an exact cost; the
//! pickers in [`pick`] choose the smallest. No serde here.
//!
//! | tag | codec | module |
//! |---|---|---|
//! | `E3` | bit-packed bools | [`bools`] |
//! | `E4` | raw little-endian | [`raw`] |
//! | `E5` | frame-of-reference (FOR) | [`for_`] |
//! | `E6` | delta + FOR | [`delta`] |
//! | `EB` | run-length (RLE) | [`rle`] |
//! | `ED` | dictionary | [`dict`] |
//! | `EE` | patched FOR (PFOR) | [`pfor`] |
//! | `E7` | Gorilla XOR floats; kind `0F`: Chimp128 | [`gorilla`], [`chimp`] |
//! | `F4` | ALP decimal floats; kinds `0E`/`0F`: ALP-RD | [`alp`], [`alp_rd`] |
//! | `FE` | entropy-coded block (tANS) holding one of the above | [`entropy`], [`tans`] |
//!
//! Decoders check every count against the bytes that remain and charge the output budget
//! before allocating; malformed bodies are [`ErrorCode::BadCodec`] (a `Syntax` error) at the
//! failing byte, never a panic.

pub mod alp;
pub mod alp_rd;
pub mod bitpack;
pub mod bits;
pub mod bools;
pub mod chimp;
pub mod cursor;
pub mod delta;
pub mod dict;
pub mod entropy;
pub mod for_;
pub mod gorilla;
pub mod kind;
pub mod pfor;
pub mod pick;
pub mod raw;
pub mod rle;
pub(crate) mod strings;
pub mod tans;
#[cfg(test)]
mod tests;

pub use cursor::Cursor;
pub use kind::Kind;
pub use pick::{encode_bools, encode_f32s, encode_f64s, encode_i64s, encode_ints, encode_u64s};

use crate::error::{Error, ErrorCode, Result};
use crate::wire::tags;
use crate::wire::varint::{uvarint_len, write_uvarint, zigzag};

/// A decoded QPack body.
#[derive(Clone, Debug)]
pub enum Packed {
    /// From `E3`.
    Bools(Vec<bool>),
    /// Integers as two's-complement bits (sign-extended when the kind is signed), with the
    /// kind from the wire: the native kind for raw bodies, `U64`/`I64` for the others.
    Ints(Kind, Vec<u64>),
    /// `f32` values, bit-exact.
    F32s(Vec<f32>),
    /// `f64` values, bit-exact.
    F64s(Vec<f64>),
}

impl Packed {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Packed::Bools(v) => v.len(),
            Packed::Ints(_, v) => v.len(),
            Packed::F32s(v) => v.len(),
            Packed::F64s(v) => v.len(),
        }
    }

    /// True if there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The integer bits, if this is an integer body.
    pub fn ints(&self) -> Option<&[u64]> {
        match self {
            Packed::Ints(_, v) => Some(v),
            _ => None,
        }
    }
}

/// True for the tags that start a QPack body.
pub const fn is_qpack_tag(tag: u8) -> bool {
    matches!(
        tag,
        tags::QP_BOOL
            | tags::QP_RAW
            | tags::QP_FOR
            | tags::QP_DELTA
            | tags::QP_XOR
            | tags::QP_RLE
            | tags::QP_DICT
            | tags::QP_PFOR
            | tags::QP_ALP
            | tags::ENTROPY
    )
}

/// Appends a scalar: zigzag uvarint when `signed`, else uvarint of the bits.
#[inline]
pub fn write_scalar(out: &mut Vec<u8>, v: u64, signed: bool) {
    write_uvarint(out, if signed { zigzag(v as i64) } else { v });
}

/// Bytes [`write_scalar`] writes.
#[inline]
pub fn scalar_len(v: u64, signed: bool) -> usize {
    uvarint_len(if signed { zigzag(v as i64) } else { v })
}

/// Decodes the QPack value whose tag is at `buf[pos]`, charging `budget` (bytes of decoded
/// output) before allocating. Returns the values and the position after the body.
///
/// Errors (all with the failing byte's offset): [`ErrorCode::BadTag`] for a tag that is not
/// QPack, [`ErrorCode::BadCodec`] for a bad kind byte, width, index or count,
/// [`ErrorCode::UnexpectedEof`] for a truncated body, [`ErrorCode::OutputLimit`] (the charge
/// that did not fit, against the `budget` that remained).
pub fn decode(buf: &[u8], pos: usize, budget: &mut u64) -> Result<(Packed, usize)> {
    let mut cur = Cursor::new(buf, pos);
    let tag = cur.byte("a QPack tag")?;
    let packed = decode_tagged(tag, &mut cur, budget)?;
    Ok((packed, cur.pos()))
}

/// Decodes the body of a QPack value whose tag (already consumed) was `tag`, from the front
/// of `body`, whose first byte is at offset `base` of the message. Returns the values and the
/// bytes of `body` used. Errors as [`decode`]; a `tag` that is not QPack is
/// [`ErrorCode::BadTag`] at `base − 1`.
pub fn decode_body(tag: u8, body: &[u8], base: u64, budget: &mut u64) -> Result<(Packed, usize)> {
    let mut cur = Cursor::with_base(body, base);
    let packed = decode_tagged(tag, &mut cur, budget)?;
    Ok((packed, cur.pos()))
}

fn decode_tagged(tag: u8, cur: &mut Cursor<'_>, budget: &mut u64) -> Result<Packed> {
    let cur = &mut *cur;
    Ok(match tag {
        tags::QP_BOOL => Packed::Bools(bools::decode(cur, budget)?),
        tags::QP_RAW => {
            let at = cur.pos();
            let b = cur.byte("a kind byte")?;
            let kind = Kind::from_byte(b).ok_or_else(|| cur.bad_at(at, "raw kind byte"))?;
            raw::decode(cur, kind, budget)?
        }
        tags::QP_FOR | tags::QP_DELTA | tags::QP_RLE | tags::QP_DICT | tags::QP_PFOR => {
            let kind = int_kind(cur)?;
            let vals = match tag {
                tags::QP_FOR => for_::decode(cur, kind, budget)?,
                tags::QP_DELTA => delta::decode(cur, kind, budget)?,
                tags::QP_RLE => rle::decode(cur, kind, budget)?,
                tags::QP_DICT => dict::decode(cur, kind, budget)?,
                _ => pfor::decode(cur, kind, budget)?,
            };
            Packed::Ints(kind, vals)
        }
        tags::QP_XOR => {
            let at = cur.pos();
            match cur.byte("a kind byte")? {
                0x0B => Packed::F64s(gorilla::decode_f64(cur, budget)?),
                0x0A => Packed::F32s(gorilla::decode_f32(cur, budget)?),
                chimp::KIND => Packed::F64s(chimp::decode(cur, budget)?),
                _ => return Err(cur.bad_at(at, "XOR float kind byte")),
            }
        }
        tags::QP_ALP => {
            let at = cur.pos();
            match cur.byte("a kind byte")? {
                0x0B => Packed::F64s(alp::decode::<f64>(cur, budget)?),
                0x0A => Packed::F32s(alp::decode::<f32>(cur, budget)?),
                alp_rd::KIND_F64 => Packed::F64s(alp_rd::decode::<f64>(cur, budget)?),
                alp_rd::KIND_F32 => Packed::F32s(alp_rd::decode::<f32>(cur, budget)?),
                _ => return Err(cur.bad_at(at, "ALP kind byte")),
            }
        }
        tags::ENTROPY => {
            let base = cur.offset();
            let (inner, used) = entropy::unwrap(cur.rest(), base, budget)?;
            cur.take(used, "an entropy-coded block")?;
            let mut c = Cursor::new(&inner, 0);
            let r = c
                .byte("a QPack tag")
                .and_then(|t| decode_tagged(t, &mut c, budget))
                .map(|p| (p, c.pos()));
            entropy::finish(r, &inner, base)?
        }
        found => {
            let code = ErrorCode::BadTag {
                found,
                expected: "a QPack tag",
            };
            return Err(Error::at(code, cur.offset().saturating_sub(1)));
        }
    })
}

/// Reads the kind byte of an integer codec other than raw: `U64` or `I64` only.
fn int_kind(cur: &mut Cursor<'_>) -> Result<Kind> {
    let at = cur.pos();
    match Kind::from_byte(cur.byte("a kind byte")?) {
        Some(k @ (Kind::U64 | Kind::I64)) => Ok(k),
        _ => Err(cur.bad_at(at, "integer codec kind byte (expected U64 or I64)")),
    }
}

/// Decodes exactly one QPack value filling `buf`, with an unlimited budget (tests).
#[cfg(test)]
pub fn decode_one(buf: &[u8]) -> Result<Packed> {
    let (p, end) = decode(buf, 0, &mut u64::MAX.clone())?;
    if end != buf.len() {
        return Err(Error::new(ErrorCode::TrailingBytes(
            (buf.len() - end) as u64,
        )));
    }
    Ok(p)
}
