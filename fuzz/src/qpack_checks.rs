//! The checks of the QPack fuzz targets, shared verbatim with the stable replay test
//! (`qdf-core/tests/it/qpack_fuzz_corpus.rs` includes this file), so the committed corpora
//! `fuzz/corpus/qpack_*` run on every `cargo test`.

use qdf_core::__qpack::{
    Kind, Packed, decode, encode_bools, encode_f32s, encode_f64s, encode_ints,
};
use qdf_core::Features;

/// The nine QPack tags; the first fuzz byte selects one so every decoder is reached.
const TAGS: [u8; 9] = [0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xEB, 0xED, 0xEE, 0xF4];

fn same(a: &Packed, b: &Packed) -> bool {
    let f64s = |v: &[f64]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    let f32s = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    match (a, b) {
        (Packed::Bools(x), Packed::Bools(y)) => x == y,
        (Packed::Ints(_, x), Packed::Ints(_, y)) => x == y,
        (Packed::F64s(x), Packed::F64s(y)) => f64s(x) == f64s(y),
        (Packed::F32s(x), Packed::F32s(y)) => f32s(x) == f32s(y),
        _ => false,
    }
}

/// Decodes `[tag selector, body…]`: never a panic, never more output than the budget; a body
/// that decodes is re-encoded by the pickers and must decode to the same values.
pub fn qpack_decode(data: &[u8]) {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let mut input = vec![TAGS[sel as usize % TAGS.len()]];
    input.extend_from_slice(body);
    let start = 1u64 << 20;
    let mut budget = start;
    let Ok((packed, end)) = decode(&input, 0, &mut budget) else {
        return;
    };
    assert!(end <= input.len() && budget <= start);
    let mut again = Vec::new();
    match &packed {
        Packed::Bools(v) => encode_bools(v, &mut again),
        Packed::Ints(kind, v) => encode_ints(v, *kind, &mut again),
        Packed::F64s(v) => encode_f64s(v, &mut again, Features::COMPRESSION),
        Packed::F32s(v) => encode_f32s(v, &mut again, Features::COMPRESSION),
    }
    let (back, used) = decode(&again, 0, &mut u64::MAX.clone()).expect("re-encoded body decodes");
    assert_eq!(used, again.len());
    assert!(
        same(&packed, &back),
        "re-encoded body decodes to other values"
    );
}

/// Encodes `[type selector, little-endian words…]` with the pickers (Balanced, or Compression
/// when bit 7 is set): the decode is bit-exact and integers are never larger than raw.
pub fn qpack_roundtrip(data: &[u8]) {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let words: Vec<u64> = body
        .chunks(8)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect();
    let feats = if sel & 0x80 != 0 {
        Features::COMPRESSION
    } else {
        Features::BALANCED
    };
    let mut out = Vec::new();
    let want = match sel % 4 {
        0 => {
            encode_ints(&words, Kind::U64, &mut out);
            assert!(out.len() <= 2 + 10 + 8 * words.len());
            Packed::Ints(Kind::U64, words)
        }
        1 => {
            encode_ints(&words, Kind::I64, &mut out);
            Packed::Ints(Kind::I64, words)
        }
        2 => {
            let vals: Vec<f64> = words.iter().map(|&w| f64::from_bits(w)).collect();
            encode_f64s(&vals, &mut out, feats);
            Packed::F64s(vals)
        }
        _ => {
            let vals: Vec<f32> = words.iter().map(|&w| f32::from_bits(w as u32)).collect();
            encode_f32s(&vals, &mut out, feats);
            Packed::F32s(vals)
        }
    };
    let (got, used) = decode(&out, 0, &mut u64::MAX.clone()).expect("encoded body decodes");
    assert_eq!(used, out.len());
    assert!(same(&want, &got), "round trip changed the values");
}
