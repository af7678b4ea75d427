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

/// SplitMix64 (Steele, Lea, Flood, "Fast Splittable Pseudorandom Number Generators", OOPSLA
/// 2014; constants of Vigna's `splitmix64.c`): the bit source of the codec benches and of the
/// QPack size tests, whose inputs were drawn from it before they moved here, so their bytes stay
/// as they were. New fixtures use [`Rng`].
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// The stream that starts after state `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// `n` values of the stream of `seed`.
    pub fn u64s(seed: u64, n: usize) -> Vec<u64> {
        let mut r = SplitMix64::new(seed);
        (0..n).map(|_| r.next_u64()).collect()
    }

    /// The next uniform `u64`.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform `f64` in `[0, 1)` with 53 random bits.
    pub fn float(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A standard normal `f64` by Box–Muller (one value per two uniforms). It calls `ln` and
    /// `cos`, so unlike [`Rng::norm`] its last bits may differ between platform libms.
    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.float().max(1e-300), self.float());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

/// The two draws a generator shared by both bit sources makes: a uniform float and a uniform
/// integer below a bound (Lemire's method on [`Rng`], `u64 % n` on [`SplitMix64`], as each
/// stream was first drawn).
pub trait Draw {
    /// A uniform `f64` in `[0, 1)`.
    fn float(&mut self) -> f64;
    /// A uniform integer in `0..n`; `n > 0`.
    fn below(&mut self, n: u64) -> u64;
    /// A uniform element of `pool` (not empty).
    fn pick<'a>(&mut self, pool: &[&'a str]) -> &'a str {
        pool[self.below(pool.len() as u64) as usize]
    }
}

impl Draw for Rng {
    fn float(&mut self) -> f64 {
        Rng::float(self)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.int_n(n)
    }
}

impl Draw for SplitMix64 {
    fn float(&mut self) -> f64 {
        SplitMix64::float(self)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
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
    fn splitmix_matches_the_reference() {
        // Vigna's splitmix64.c from state 0: the first outputs.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(SplitMix64::u64s(0, 2)[1], 0x6E78_9E6A_A1B9_65F4);
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
