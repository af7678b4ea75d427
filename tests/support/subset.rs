//! The wide 16-column rows of the subset-decode benchmark (`benches/columnar.rs`, issue 6) and
//! the 3-column target, shared with `perf/src/bin/coldec_count.rs` (included with `#[path]`).
#![allow(dead_code)] // each target uses a part

use serde::{Deserialize, Serialize};

/// A row of 16 scalar columns: ints, floats, bools and four string columns of different codecs.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Wide {
    pub f00: u32,
    pub f01: String,
    pub f02: f64,
    pub f03: bool,
    pub f04: u32,
    pub f05: String,
    pub f06: i64,
    pub f07: f64,
    pub f08: u32,
    pub f09: String,
    pub f10: u64,
    pub f11: f32,
    pub f12: u32,
    pub f13: String,
    pub f14: i32,
    pub f15: bool,
}

/// The subset target: 3 of the 16 columns.
#[derive(Deserialize, Debug, PartialEq)]
pub struct Three {
    pub f02: f64,
    pub f09: String,
    pub f14: i32,
}

/// `n` rows.
pub fn wide(n: usize) -> Vec<Wide> {
    (0..n)
        .map(|i| Wide {
            f00: i as u32,
            f01: format!("host-{}", i % 10),
            f02: i as f64 * 1.25,
            f03: i % 3 == 0,
            f04: (i * 7 % 1000) as u32,
            f05: format!("user{}@example.com", i * 37),
            f06: -(i as i64) * 1000,
            f07: (i as f64).sqrt(),
            f08: 42,
            f09: format!("{:016x}", (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            f10: i as u64 * 1_000_000,
            f11: i as f32 / 3.0,
            f12: (i % 5) as u32,
            f13: ["GET", "POST", "PUT"][i % 3].to_string(),
            f14: -(i as i32 % 50),
            f15: true,
        })
        .collect()
}
