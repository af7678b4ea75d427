//! Replays the committed QPack fuzz corpora (`fuzz/corpus/qpack_*`) through the fuzz
//! targets' own checks on stable, so every `cargo test` runs them.

#[path = "../../../fuzz/src/qpack_checks.rs"]
mod qpack_checks;

use std::path::PathBuf;

#[test]
fn replay_qpack_corpora() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    let mut files = 0;
    for (target, check) in [
        ("qpack_decode", qpack_checks::qpack_decode as fn(&[u8])),
        ("qpack_roundtrip", qpack_checks::qpack_roundtrip),
    ] {
        for entry in std::fs::read_dir(root.join(target)).unwrap() {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            check(&bytes);
            files += 1;
        }
    }
    assert!(files >= 13, "expected the committed seeds, found {files}");
}

/// The ALP-RD seeds reach the codec: the decode seeds' bodies are ALP-RD (two valid, one
/// with a code past its dictionary), and the round-trip seeds' floats, uniform in
/// [−1, 1), are written as ALP-RD in Balanced and Compression.
#[test]
fn alp_rd_seeds_reach_the_codec() {
    use qdf_core::__qpack::{decode, encode_f32s, encode_f64s};
    use qdf_core::Features;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    let read = |p: &str| std::fs::read(root.join(p)).unwrap();
    let body = |p: &str| {
        let seed = read(p);
        assert_eq!(seed[0], 8, "{p}: the selector of F4");
        [&[0xF4][..], &seed[1..]].concat()
    };
    for (p, n) in [
        ("qpack_decode/alp_rd_f32_golden.bin", 16),
        ("qpack_decode/alp_rd_f64_exception.bin", 3),
    ] {
        let b = body(p);
        let (packed, end) = decode(&b, 0, &mut u64::MAX.clone()).unwrap();
        assert_eq!((packed.len(), end), (n, b.len()), "{p}");
    }
    assert!(
        decode(
            &body("qpack_decode/alp_rd_bad_code.bin"),
            0,
            &mut u64::MAX.clone()
        )
        .is_err()
    );
    for (p, kind) in [
        ("qpack_roundtrip/alp_rd_mesh_f32_balanced.bin", 0x0E),
        ("qpack_roundtrip/alp_rd_mesh_f32_compression.bin", 0x0E),
        ("qpack_roundtrip/alp_rd_mesh_f64_balanced.bin", 0x0F),
    ] {
        let seed = read(p);
        let feats = if seed[0] & 0x80 != 0 {
            Features::COMPRESSION
        } else {
            Features::BALANCED
        };
        let mut out = Vec::new();
        let words = seed[1..].chunks(8);
        if kind == 0x0E {
            let v: Vec<f32> = words
                .map(|w| f32::from_le_bytes(w[..4].try_into().unwrap()))
                .collect();
            encode_f32s(&v, &mut out, feats);
        } else {
            let v: Vec<f64> = words
                .map(|w| f64::from_le_bytes(w.try_into().unwrap()))
                .collect();
            encode_f64s(&v, &mut out, feats);
        }
        assert_eq!(out[..2], [0xF4, kind], "{p}");
    }
}
