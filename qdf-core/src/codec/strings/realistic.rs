//! Realistic columns of 1000 rows: each block is the picker's choice on at least one of them
//! (the tag is asserted), and its size against the raw values and the per-value estimate is
//! pinned. Run with `--nocapture` to print the table.

use std::collections::HashSet;

use super::alpha::Alphabet;
use super::front::Front;
use super::fsst::FsstPlan;
use super::pick::{Pick, pick};
use super::slab::slab_cost;
use super::table::Dict;
use super::testutil::decode_all;
use super::{dict, dictq};
use crate::options::Features;
use crate::wire::tags;
use crate::wire::varint::uvarint_len;

/// A reproducible xorshift64 stream.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const ROWS: usize = 1000;

fn hex_ids(rng: &mut Rng) -> Vec<Vec<u8>> {
    (0..ROWS)
        .map(|_| format!("{:016x}{:016x}", rng.next(), rng.next()).into_bytes())
        .collect()
}

fn levels(rng: &mut Rng) -> Vec<Vec<u8>> {
    let names = [
        "TRACE", "DEBUG", "INFO", "INFO", "INFO", "INFO", "WARN", "ERROR",
    ];
    (0..ROWS)
        .map(|_| names[rng.below(names.len() as u64) as usize].into())
        .collect()
}

/// Levels of a log sorted by time and bursty: runs of 20–120 rows.
fn level_runs(rng: &mut Rng) -> Vec<Vec<u8>> {
    let names = ["INFO", "WARN", "ERROR", "DEBUG"];
    let mut col = Vec::with_capacity(ROWS);
    while col.len() < ROWS {
        let (name, run) = (names[rng.below(4) as usize], 20 + rng.below(100) as usize);
        col.extend(std::iter::repeat_n(
            name.as_bytes().to_vec(),
            run.min(ROWS - col.len()),
        ));
    }
    col
}

fn urls(rng: &mut Rng) -> Vec<Vec<u8>> {
    let parts = ["users", "orders", "items", "carts", "invoices"];
    (0..ROWS)
        .map(|_| {
            let p = parts[rng.below(5) as usize];
            // Skewed like real traffic: low ids are hot.
            let hot = 1 + rng.below(20);
            let id = rng.below(hot);
            format!("https://shop.example.com/api/v2/{p}/{id}/details").into_bytes()
        })
        .collect()
}

fn messages(rng: &mut Rng) -> Vec<Vec<u8>> {
    let verbs = [
        "logged in",
        "logged out",
        "changed password",
        "viewed invoice",
    ];
    (0..ROWS)
        .map(|_| {
            let (u, v) = (rng.below(100_000), verbs[rng.below(4) as usize]);
            let ip = (rng.below(256), rng.below(256));
            format!("user {u} {v} from 10.0.{}.{} session ok", ip.0, ip.1).into_bytes()
        })
        .collect()
}

fn binary(rng: &mut Rng) -> Vec<Vec<u8>> {
    (0..ROWS)
        .map(|_| (0..40 + rng.below(20)).map(|_| rng.next() as u8).collect())
        .collect()
}

/// Per-value Dense estimate: a repeat of an interned string (≥ 4 bytes) is a 2-byte ref,
/// a first sight is `E0 uvarint(len) bytes`, a short string is a plain str tag.
fn per_value(vals: &[&[u8]]) -> usize {
    let mut seen = HashSet::new();
    vals.iter()
        .map(|&v| {
            let l = v.len();
            if l >= 4 && !seen.insert(v) {
                2
            } else if l >= 4 {
                1 + uvarint_len(l as u64) + l
            } else {
                1 + l
            }
        })
        .sum()
}

/// Picks, encodes, decodes, and returns (tag, block size, raw Σlen, per-value estimate).
fn run(name: &str, col: &[Vec<u8>], features: Features) -> (u8, usize, usize, usize) {
    let vals: Vec<&[u8]> = col.iter().map(Vec::as_slice).collect();
    let raw: usize = vals.iter().map(|v| v.len()).sum();
    let est = per_value(&vals);
    let Pick::Block(block) = pick(&vals, features, est) else {
        panic!("{name}: picker fell back to per-value strings");
    };
    let mut out = Vec::new();
    block.encode(&mut out);
    assert_eq!(out.len(), block.cost());
    assert_eq!(decode_all(&out, vals.len()).unwrap(), vals);
    // The encoder's count of the block's decoded output is what the decoder charges.
    let mut budget = 1u64 << 40;
    super::decode_block(&out, 0, vals.len(), &mut budget).unwrap();
    assert_eq!((1u64 << 40) - budget, block.decoded_units(), "{name}");
    println!(
        "{name:<22} tag {:02X} {:>6} B  raw {:>6} B ({:.2}×)  per-value {:>6} B",
        out[0],
        out.len(),
        raw,
        out.len() as f64 / raw as f64,
        est
    );
    (out[0], out.len(), raw, est)
}

#[test]
fn picker_chooses_each_block_on_a_realistic_column() {
    let b = Features::BALANCED;
    let c = Features::COMPRESSION;
    let got = [
        run("1000 log levels", &levels(&mut Rng(1)), b),
        run("1000 URLs", &urls(&mut Rng(2)), b),
        run("1000 levels in runs", &level_runs(&mut Rng(6)), b),
        run("1000 hex32 trace ids", &hex_ids(&mut Rng(3)), b),
        run("1000 hex32 ids (FSST)", &hex_ids(&mut Rng(3)), c),
        run("1000 log messages", &messages(&mut Rng(4)), c),
        run("1000 binary blobs", &binary(&mut Rng(5)), b),
        run("1000 × us-east-1", &vec![b"us-east-1".to_vec(); ROWS], b),
    ];
    let tags: Vec<u8> = got.iter().map(|g| g.0).collect();
    assert_eq!(
        tags,
        [
            tags::COL_STR_DICT,
            tags::COL_STR_FRONT,
            tags::COL_STR_DICTQ,
            tags::COL_STR_ALPHA,
            tags::COL_STR_ALPHA,
            tags::COL_STR_FSST,
            tags::COL_STR_SLAB,
            tags::COL_STR_CONST,
        ]
    );
    // Pinned sizes (the F6 one follows fsst-rs 0.7's deterministic training).
    let sizes: Vec<usize> = got.iter().map(|g| g.1).collect();
    assert_eq!(sizes, [407, 1956, 53, 16022, 16022, 14237, 50817, 13]);
}

/// Every applicable block's size on each column, for the report (`--nocapture`).
#[test]
fn every_block_size_on_realistic_columns() {
    let cols = [
        ("levels", levels(&mut Rng(1))),
        ("URLs", urls(&mut Rng(2))),
        ("lvl runs", level_runs(&mut Rng(6))),
        ("hex32 ids", hex_ids(&mut Rng(3))),
        ("messages", messages(&mut Rng(4))),
    ];
    for (name, col) in &cols {
        let vals: Vec<&[u8]> = col.iter().map(Vec::as_slice).collect();
        let raw: usize = vals.iter().map(|v| v.len()).sum();
        let mut line = format!("{name:<10} raw {raw:>6}");
        let dict = Dict::build(&vals);
        if let Some(d) = &dict {
            line += &format!("  F5 {:>6}", dict::cost(d));
            if let Some(f) = Front::build(d) {
                line += &format!("  FA {:>6}", f.cost(d));
            }
            if let Some(idx) = dictq::index_block(d) {
                line += &format!("  FC {:>6}", dictq::cost(d, &idx));
            }
        }
        line += &format!("  F6 {:>6}", FsstPlan::train(&vals).cost());
        if let Some(a) = Alphabet::build(&vals) {
            line += &format!("  FB {:>6}", a.cost());
        }
        line += &format!("  F8 {:>6}", slab_cost(&vals));
        println!("{line}");
        assert!(slab_cost(&vals) > raw);
    }
}

#[test]
fn short_or_cheap_columns_fall_back_to_per_value() {
    let fifteen: Vec<Vec<u8>> = (0..15).map(|i| format!("value-{i}").into_bytes()).collect();
    let vals: Vec<&[u8]> = fifteen.iter().map(Vec::as_slice).collect();
    assert!(matches!(
        pick(&vals, Features::BALANCED, per_value(&vals)),
        Pick::PerValue
    ));
    // A level column costs nothing per value when the caller says so.
    let col = levels(&mut Rng(9));
    let vals: Vec<&[u8]> = col.iter().map(Vec::as_slice).collect();
    assert!(matches!(
        pick(&vals, Features::BALANCED, 10),
        Pick::PerValue
    ));
}
