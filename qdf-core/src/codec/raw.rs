//! Raw little-endian numbers, tag `E4`: `kind`, `uvarint(n)`, then `n × width` bytes.
//!
//! Any integer kind (the native width of the slice, values truncated to it) or `F32`/`F64`
//! (the IEEE-754 bits). The special kind Plane16 (`0x0D`) is not read by this library.
//!
//! ```text
//! [1, -2] as i16:  E4 05 02 01 00 FE FF
//! ```

use super::cursor::Cursor;
use super::{Kind, Packed};
use crate::error::Result;
use crate::wire::tags::QP_RAW;
use crate::wire::varint::{uvarint_len, write_uvarint};

/// Exact encoded size in bytes, tag included.
pub fn cost(n: usize, kind: Kind) -> usize {
    2 + uvarint_len(n as u64) + n.saturating_mul(kind.width())
}

/// Appends `vals` (integer bits, or float bits for float kinds) at `kind`'s width.
pub fn encode(vals: impl ExactSizeIterator<Item = u64>, kind: Kind, out: &mut Vec<u8>) {
    out.extend_from_slice(&[QP_RAW, kind.byte()]);
    write_uvarint(out, vals.len() as u64);
    // One loop per width: a copy of a constant length is a store, not a `memcpy` call.
    match kind.width() {
        1 => put::<1>(vals, out),
        2 => put::<2>(vals, out),
        4 => put::<4>(vals, out),
        _ => put::<8>(vals, out),
    }
}

/// Appends the low `W` little-endian bytes of each value: the room is zeroed once (a
/// `memset`), then each value is a store into its slot, without the per-value capacity
/// test of an `extend`.
#[inline(always)]
fn put<const W: usize>(vals: impl ExactSizeIterator<Item = u64>, out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + vals.len() * W, 0);
    for (slot, v) in out[start..].chunks_exact_mut(W).zip(vals) {
        slot.copy_from_slice(&v.to_le_bytes()[..W]);
    }
}

/// Reads the body after the kind byte: integers come out sign- or zero-extended to 64
/// bits, floats as floats. Errors: a count the remaining bytes cannot hold, the budget.
pub fn decode(cur: &mut Cursor<'_>, kind: Kind, budget: &mut u64) -> Result<Packed> {
    let w = kind.width();
    let n = cur.count(8 * w as u64, "the raw count")?;
    let at = cur.pos();
    let body = cur.take(n * w, "the raw body")?;
    cur.charge(budget, n, at)?;
    Ok(match kind {
        Kind::F64 => Packed::F64s(
            body.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                .collect(),
        ),
        Kind::F32 => Packed::F32s(
            body.chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                .collect(),
        ),
        _ => {
            // One loop per width so each is a plain load and extend the compiler unrolls.
            macro_rules! ints {
                ($u:ty, $i:ty) => {
                    body.chunks_exact(size_of::<$u>())
                        .map(|c| {
                            let b = <$u>::from_le_bytes(c.try_into().unwrap());
                            if kind.is_signed() {
                                b as $i as i64 as u64
                            } else {
                                b as u64
                            }
                        })
                        .collect()
                };
            }
            let ints = match w {
                1 => ints!(u8, i8),
                2 => ints!(u16, i16),
                4 => ints!(u32, i32),
                _ => ints!(u64, i64),
            };
            Packed::Ints(kind, ints)
        }
    })
}

#[cfg(test)]
mod tests;
