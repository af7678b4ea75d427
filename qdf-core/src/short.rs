//! Copies of short byte strings (field names, ids, enum-like values) without a `memcpy`
//! call: two overlapping fixed-size moves, chosen by length class. For strings of a few
//! bytes the call and `memcpy`'s own size dispatch cost more than the copy. The encoder
//! appends its strings with them; the decoder builds owned `String`s with them. Equality of
//! short byte strings ([`eq_short`], the encoder's intern and shape-name lookups) follows the
//! same plan instead of a `memcmp` call.

use std::mem::MaybeUninit;

/// Lengths up to this are copied with fixed-size moves (longer ones by `copy_from_slice`).
pub(crate) const SHORT: usize = 64;

/// `b` as a slice of `MaybeUninit<u8>`, the element type of a `Vec`'s spare capacity.
#[inline(always)]
pub(crate) fn as_uninit(b: &[u8]) -> &[MaybeUninit<u8>] {
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`, every initialised byte is a valid
    // `MaybeUninit<u8>`, and the result is only read (shared borrow of `b`).
    unsafe { &*(b as *const [u8] as *const [MaybeUninit<u8>]) }
}

/// Copies `src` to the front of `dst` (`src.len() <= dst.len()`): up to [`SHORT`] elements
/// with two overlapping fixed-size copies (three single elements below 4), no loop and no
/// call; longer ones with `copy_from_slice`. Writes only `dst[..src.len()]`.
#[inline(always)]
pub(crate) fn copy_short<T: Copy>(dst: &mut [T], src: &[T]) {
    let n = src.len();
    match n {
        0 => {}
        1..=3 => {
            let (a, b, c) = (src[0], src[n / 2], src[n - 1]);
            dst[0] = a;
            dst[n / 2] = b;
            dst[n - 1] = c;
        }
        4..=7 => two_moves::<T, 4>(dst, src),
        8..=16 => two_moves::<T, 8>(dst, src),
        17..=32 => two_moves::<T, 16>(dst, src),
        33..=SHORT => two_moves::<T, 32>(dst, src),
        _ => dst[..n].copy_from_slice(src),
    }
}

/// The first and the last `K` elements of `src` (`K <= src.len() <= 2K`), both loaded before
/// either is stored, so that the two moves stay register moves (the compiler otherwise merges
/// the length classes back into one `memcpy` call of variable size).
#[inline(always)]
fn two_moves<T: Copy, const K: usize>(dst: &mut [T], src: &[T]) {
    let n = src.len();
    let head: [T; K] = src[..K].try_into().expect("K elements");
    let tail: [T; K] = src[n - K..].try_into().expect("K elements");
    dst[..K].copy_from_slice(&head);
    dst[n - K..n].copy_from_slice(&tail);
}

/// `a == b`, for strings of up to 32 bytes with two to four overlapping word compares
/// (single bytes below 4) and no call or loop; longer ones with the slice comparison.
#[inline(always)]
pub(crate) fn eq_short(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let w64 = |x: &[u8], i: usize| u64::from_le_bytes(x[i..i + 8].try_into().expect("8 bytes"));
    let w32 = |x: &[u8], i: usize| u32::from_le_bytes(x[i..i + 4].try_into().expect("4 bytes"));
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => (w32(a, 0) ^ w32(b, 0)) | (w32(a, n - 4) ^ w32(b, n - 4)) == 0,
        8..=16 => (w64(a, 0) ^ w64(b, 0)) | (w64(a, n - 8) ^ w64(b, n - 8)) == 0,
        17..=32 => {
            (w64(a, 0) ^ w64(b, 0))
                | (w64(a, 8) ^ w64(b, 8))
                | (w64(a, n - 16) ^ w64(b, n - 16))
                | (w64(a, n - 8) ^ w64(b, n - 8))
                == 0
        }
        _ => a == b,
    }
}

/// A cheap unseeded hash of the length and up to 16 outer bytes of `bytes`, with `salt`
/// folded in; its high bits are the slot of a direct-mapped cache. Only a hint: callers
/// compare the bytes on every hit and fall back to a seeded hash table.
#[inline(always)]
pub(crate) fn outer_hash(bytes: &[u8], salt: u64) -> u64 {
    let n = bytes.len();
    let w64 = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
    let w32 = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes")) as u64;
    let x = match n {
        0 => 0,
        1..=3 => bytes[0] as u64 | (bytes[n / 2] as u64) << 8 | (bytes[n - 1] as u64) << 16,
        4..=7 => w32(0) | w32(n - 4) << 32,
        _ => w64(0) ^ w64(n - 8).rotate_left(29),
    };
    (x ^ (n as u64) << 48 ^ salt).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// `s` as an owned `String` with capacity exactly `s.len()` (what `to_owned` gives), copied
/// by [`copy_short`].
#[inline(always)]
pub(crate) fn owned_str(s: &str) -> String {
    let n = s.len();
    let mut v: Vec<u8> = Vec::with_capacity(n);
    copy_short(&mut v.spare_capacity_mut()[..n], as_uninit(s.as_bytes()));
    // SAFETY: the `n` bytes of capacity `with_capacity` gave were all written just above.
    unsafe { v.set_len(n) };
    // SAFETY: `v` holds a byte-for-byte copy of the `str` `s`, so it is UTF-8.
    unsafe { String::from_utf8_unchecked(v) }
}

#[cfg(test)]
mod tests;
