//! The seeded random source and the sampling code every generator uses.
//!
//! The bit source is PCG-DXSM 128/64 ([`rand_pcg::Pcg64Dxsm`], O'Neill, "PCG: A Family of Simple
//! Fast Space-Efficient Statistically Good Algorithms for Random Number Generation", 2014; the
//! DXSM output function is the one Go's `math/rand/v2` PCG uses). Seeds are the Go fixtures'
//! seed pairs, so each fixture names its seed the way the Go benchmark does; the values differ
//! from Go's (the notes say bit-identical data is not needed).
//!
//! Sampling is written here rather than taken from `rand`'s distributions so that the streams
//! stay fixed across crate upgrades and machines: only integer arithmetic and IEEE-754 additions
//! and multiplications (exactly rounded everywhere), no `ln`/`exp` from a platform libm.

use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Dxsm;

/// Lowercase hex digits, the alphabet of every `hexN` id.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// A deterministic random source with the Go fixtures' sampling vocabulary.
#[derive(Clone, Debug)]
pub struct Rng(Pcg64Dxsm);

impl Rng {
    /// A PCG stream for the Go seed pair `(s1, s2)` (Go `rand.NewPCG(s1, s2)`): `s1` is the
    /// state, `s2` selects the stream.
    pub fn pcg(s1: u64, s2: u64) -> Rng {
        Rng(Pcg64Dxsm::new(u128::from(s1), u128::from(s2)))
    }

    /// The stand-in for Go's v1 `rand.NewSource(seed)`: PCG seeded from `seed` alone.
    pub fn v1(seed: u64) -> Rng {
        Rng(Pcg64Dxsm::seed_from_u64(seed))
    }

    /// A uniform `u64` (Go `Uint64`).
    pub fn u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A uniform integer in `0..n` (Go `IntN`), unbiased by Lemire's multiply-and-reject method
    /// (D. Lemire, "Fast Random Integer Generation in an Interval", ACM TOMACS 2019).
    ///
    /// # Panics
    /// If `n == 0` (a bug in a generator, never data-dependent).
    pub fn int_n(&mut self, n: u64) -> u64 {
        assert!(n > 0, "int_n(0)");
        let mut m = u128::from(self.u64()) * u128::from(n);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = u128::from(self.u64()) * u128::from(n);
            }
        }
        (m >> 64) as u64
    }

    /// [`Rng::int_n`] as `usize`, for indexing pools.
    pub fn index(&mut self, n: usize) -> usize {
        self.int_n(n as u64) as usize
    }

    /// [`Rng::int_n`] as `i64`.
    pub fn int(&mut self, n: u64) -> i64 {
        self.int_n(n) as i64
    }

    /// A uniform element of `pool`.
    ///
    /// # Panics
    /// If `pool` is empty (a bug in a generator).
    pub fn pick<'a>(&mut self, pool: &[&'a str]) -> &'a str {
        pool[self.index(pool.len())]
    }

    /// A uniform `f64` in `[0, 1)` with 53 random bits (Go `Float64`).
    pub fn float(&mut self) -> f64 {
        (self.u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// An approximately standard normal `f64` (mean 0, variance 1, bounded to ±6): the
    /// Irwin–Hall sum of 12 uniforms minus 6. Chosen over Box–Muller or Go's ziggurat because it
    /// needs no `ln`, so it gives the same bits on every platform.
    pub fn norm(&mut self) -> f64 {
        (0..12).map(|_| self.float()).sum::<f64>() - 6.0
    }

    /// `n` lowercase hex digits (Go `hexN`: `n` × `IntN(16)`).
    pub fn hex(&mut self, n: usize) -> String {
        (0..n).map(|_| char::from(HEX[self.index(16)])).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_pinned() {
        // Pins the bit source and sampling: a change here changes every fixture's sizes.
        let mut r = Rng::pcg(42, 7);
        let ints: Vec<u64> = (0..6).map(|_| r.int_n(10)).collect();
        let hex = r.hex(16);
        let f = r.float();
        assert_eq!(ints, [8, 5, 5, 4, 3, 6]);
        assert_eq!(hex, "ffdc848297d13186");
        assert_eq!(f.to_bits(), 4606465147386474983);
    }

    #[test]
    fn int_n_stays_in_range_and_hits_every_value() {
        let mut r = Rng::v1(1);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            seen[r.index(7)] += 1;
        }
        assert!(seen.iter().all(|&c| (800..1200).contains(&c)), "{seen:?}");
    }

    #[test]
    fn norm_has_unit_spread() {
        let mut r = Rng::v1(2);
        let xs: Vec<f64> = (0..20_000).map(|_| r.norm()).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / xs.len() as f64;
        assert!(
            mean.abs() < 0.05 && (var - 1.0).abs() < 0.05,
            "{mean} {var}"
        );
        assert!(xs.iter().all(|x| x.abs() <= 6.0));
    }
}
