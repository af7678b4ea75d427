//! The checks of the tANS fuzz targets, shared verbatim with the stable replay test
//! (`qdf-core/tests/it/tans_fuzz_corpus.rs` includes this file), so the committed corpora
//! `fuzz/corpus/tans_*` run on every `cargo test`.

use qdf_core::__qpack::{Cursor, Packed, decode, tans};

/// Decodes arbitrary bytes as a tANS block (first byte even) or as an entropy-coded QPack
/// value `FE …` (first byte odd): never a panic, never more output than the budget, never
/// more than `n` loop steps; a block that decodes re-encodes to bytes that decode the same.
pub fn tans_decode(data: &[u8]) {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let start = 1u64 << 20;
    let mut budget = start;
    if sel & 1 == 1 {
        let mut input = vec![0xFE];
        input.extend_from_slice(body);
        if let Ok((packed, end)) = decode(&input, 0, &mut budget) {
            assert!(end <= input.len() && budget <= start);
            let _ = matches!(packed, Packed::Bools(_));
        }
        return;
    }
    let mut cur = Cursor::new(body, 0);
    let Ok(out) = tans::decode(&mut cur, &mut budget) else {
        return;
    };
    assert_eq!(
        budget,
        start - out.len() as u64,
        "decoded bytes are charged"
    );
    let mut again = Vec::new();
    tans::encode(&out, &mut again);
    assert_eq!(again.len(), tans::cost(&out));
    let mut cur = Cursor::new(&again, 0);
    let back = tans::decode(&mut cur, &mut u64::MAX.clone()).expect("re-encoded block decodes");
    assert_eq!(back, out);
}

/// Builds an adversarial byte string from `data` and checks the exact round trip and the
/// exact cost. The first byte picks the shape: 0 the bytes as they are; 1 runs (pairs of
/// byte and run length × 16); 2 one symbol repeated; 3 every byte value once, then the rest
/// skewed to one symbol; 4 two symbols with a 1 : 4095 split; others a permutation-skewed
/// mix where byte `b` occurs `b`-th-power-of-two fewer times.
pub fn tans_roundtrip(data: &[u8]) {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let src: Vec<u8> = match sel % 6 {
        0 => body.to_vec(),
        1 => body
            .chunks_exact(2)
            .flat_map(|p| std::iter::repeat_n(p[0], 1 + p[1] as usize * 16))
            .collect(),
        2 => vec![body.first().copied().unwrap_or(0); body.len() * 37],
        3 => {
            let mut v: Vec<u8> = (0..=255u8).collect();
            v.extend(std::iter::repeat_n(
                body.first().copied().unwrap_or(1),
                body.len() * 50,
            ));
            v
        }
        4 => {
            let mut v = vec![body.first().copied().unwrap_or(3); 4095];
            v.insert(body.len() % 4096, body.get(1).copied().unwrap_or(4));
            v
        }
        _ => body
            .iter()
            .flat_map(|&b| std::iter::repeat_n(b, 1usize << (b.trailing_zeros().min(8) as usize)))
            .collect(),
    };
    let mut out = Vec::new();
    tans::encode(&src, &mut out);
    assert_eq!(out.len(), tans::cost(&src), "cost is exact");
    let mut cur = Cursor::new(&out, 0);
    let back = tans::decode(&mut cur, &mut u64::MAX.clone()).expect("encoded block decodes");
    assert_eq!(back, src, "round trip");
    assert_eq!(cur.pos(), out.len(), "block consumed exactly");
}
