//! Property round trips of every block: encode, decode, compare; and the cost estimate equals
//! the bytes written. Columns cover empty strings, one value, all-equal, all-distinct, long
//! strings, non-ASCII UTF-8 and arbitrary bytes.

use proptest::collection::vec;
use proptest::prelude::*;

use super::alpha::Alphabet;
use super::front::Front;
use super::fsst::FsstPlan;
use super::pick::{Pick, StrBlock, pick};
use super::table::Dict;
use super::testutil::{block_bytes, decode_all};
use super::{dictq, is_block_tag};
use crate::options::Features;

/// One value: short ASCII, UTF-8 text, raw bytes, or long.
fn value() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        "[a-c]{0,4}".prop_map(String::into_bytes),
        any::<String>().prop_map(String::into_bytes),
        vec(any::<u8>(), 0..12),
        vec(any::<u8>(), 200..400),
    ]
}

/// A column: arbitrary values, or values drawn from a small pool (repeats), or one value.
fn column() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop_oneof![
        vec(value(), 0..40),
        (
            vec(value(), 1..20),
            vec(any::<prop::sample::Index>(), 0..80)
        )
            .prop_map(|(pool, picks)| picks.iter().map(|i| i.get(&pool).clone()).collect()),
        (value(), 1..50usize).prop_map(|(v, n)| vec![v; n]),
    ]
}

/// Values over a random alphabet of 2..=64 bytes.
fn alphabet_column() -> impl Strategy<Value = Vec<Vec<u8>>> {
    (vec(any::<u8>(), 2..=64), 0..6usize).prop_flat_map(|(alpha, fixed)| {
        let sym = prop::sample::select(alpha);
        let lens = if fixed > 0 { fixed..fixed + 1 } else { 0..40 };
        vec(vec(sym, lens), 0..60)
    })
}

fn views(col: &[Vec<u8>]) -> Vec<&[u8]> {
    col.iter().map(Vec::as_slice).collect()
}

/// Encodes `block` (its cost must be exact), decodes it and compares with `vals`.
fn round_trip(block: &StrBlock<'_>, vals: &[&[u8]]) -> Result<(), TestCaseError> {
    let out = block_bytes(block);
    prop_assert!(is_block_tag(out[0]) && out[0] == block.tag());
    let back = decode_all(&out, vals.len()).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(back, vals);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn slab_round_trips(col in column()) {
        let vals = views(&col);
        round_trip(&StrBlock::Slab(&vals), &vals)?;
    }

    #[test]
    fn const_round_trips(v in value(), n in 0..300usize) {
        round_trip(&StrBlock::Const { value: &v, n }, &vec![v.as_slice(); n])?;
    }

    #[test]
    fn dict_and_front_round_trip(col in column(), prefix in "[a-z/:]{2,6}") {
        let vals = views(&col);
        if let Some(d) = Dict::build(&vals).filter(|d| d.entries.len() >= 2) {
            if let Some(idx) = dictq::index_block(&d) {
                let dq = Dict::build(&vals).unwrap();
                round_trip(&StrBlock::DictQ(dq, idx), &vals)?;
            }
            round_trip(&StrBlock::Dict(d), &vals)?;
        }
        let prefixed: Vec<Vec<u8>> =
            col.iter().map(|v| [prefix.as_bytes(), v].concat()).collect();
        let vals = views(&prefixed);
        if let Some(d) = Dict::build(&vals).filter(|d| d.entries.len() >= 2) {
            let f = Front::build(&d).expect("shared prefix");
            round_trip(&StrBlock::Front(d, f), &vals)?;
        }
    }

    #[test]
    fn alphabet_round_trips(col in alphabet_column()) {
        let vals = views(&col);
        if let Some(a) = Alphabet::build(&vals) {
            round_trip(&StrBlock::Alpha(a), &vals)?;
        }
    }

    #[test]
    fn fsst_round_trips(col in column()) {
        let vals = views(&col);
        round_trip(&StrBlock::Fsst(FsstPlan::train(&vals)), &vals)?;
    }

    #[test]
    fn picked_blocks_round_trip(col in column(), compression in any::<bool>(), slack in 0..64usize) {
        let vals = views(&col);
        let features = if compression { Features::COMPRESSION } else { Features::BALANCED };
        let per_value: usize = vals.iter().map(|v| v.len() + 2).sum::<usize>() + slack;
        match pick(&vals, features, per_value) {
            Pick::Block(b) => {
                prop_assert!(b.cost() < per_value);
                round_trip(&b, &vals)?;
            }
            Pick::PerValue => {}
        }
        // Without Dense some block is always returned.
        let Pick::Block(b) = pick(&vals, Features::NONE, 0) else {
            return Err(TestCaseError::fail("no block without Dense"));
        };
        let fallback_form = matches!(b, StrBlock::Const { .. } | StrBlock::Slab(_));
        prop_assert!(fallback_form || vals.len() >= 16);
        round_trip(&b, &vals)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Arbitrary bodies behind every block tag decode or fail, never panic, and a success
    /// has exactly `n` rows within the bytes given.
    #[test]
    fn arbitrary_bodies_never_panic(
        tag in prop::sample::select(vec![0xF5u8, 0xF6, 0xF8, 0xF9, 0xFA, 0xFB, 0xFC]),
        body in vec(any::<u8>(), 0..160),
        n in 0..40usize,
    ) {
        let mut block = vec![tag];
        block.extend_from_slice(&body);
        let mut budget = 1 << 16;
        if let Ok((col, used)) = super::decode_block(&block, 0, n, &mut budget) {
            prop_assert!(used <= block.len());
            prop_assert_eq!(col.iter().count(), n);
        }
    }
}
