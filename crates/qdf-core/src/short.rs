//! Copies of short byte strings (field names, ids, enum-like values) without a `memcpy`
//! call: two overlapping fixed-size moves, chosen by length class. For strings of a few
//! bytes the call and `memcpy`'s own size dispatch cost more than the copy (the encoder's
//! strings and headers).

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
            dst[0] = src[0];
            dst[n / 2] = src[n / 2];
            dst[n - 1] = src[n - 1];
        }
        4..=7 => {
            dst[..4].copy_from_slice(&src[..4]);
            dst[n - 4..n].copy_from_slice(&src[n - 4..]);
        }
        8..=16 => {
            dst[..8].copy_from_slice(&src[..8]);
            dst[n - 8..n].copy_from_slice(&src[n - 8..]);
        }
        17..=32 => {
            dst[..16].copy_from_slice(&src[..16]);
            dst[n - 16..n].copy_from_slice(&src[n - 16..]);
        }
        33..=SHORT => {
            dst[..32].copy_from_slice(&src[..32]);
            dst[n - 32..n].copy_from_slice(&src[n - 32..]);
        }
        _ => dst[..n].copy_from_slice(src),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length through every class and past [`SHORT`], with a distinct byte at every
    /// position: the overlapping moves must cover each byte and write nothing after `n`.
    #[test]
    fn copies_every_length_exactly() {
        for n in 0..=SHORT + 40 {
            let src: Vec<u8> = (0..n).map(|i| (i % 251) as u8 + 1).collect();
            let mut dst = vec![0u8; n + 8];
            copy_short(&mut dst, &src);
            assert_eq!(dst[..n], src[..], "length {n}");
            assert!(dst[n..].iter().all(|&b| b == 0), "wrote past {n}");
        }
    }
}
