//! Replays the committed fuzz corpora (`fuzz/corpus/<target>/`) through the fuzz targets' own
//! checks on stable, so every `cargo test` runs them.
//!
//! Regenerate the seed files from the test encodings with
//! `QDF_WRITE_FUZZ_CORPUS=1 cargo test -p qdf-core --test fuzz_corpus`.

#[path = "../../../fuzz/src/checks.rs"]
#[allow(dead_code)]
mod checks;
mod common;

use std::path::PathBuf;

use common::*;

fn corpus_dir(target: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target)
}

/// Seed bodies: the test encodings, without their header.
fn seeds() -> Vec<Vec<u8>> {
    let body = |b: Vec<u8>| b[5..].to_vec();
    vec![
        body(qdf_core::to_vec(&sample()).unwrap()),
        body(qdf_core::to_vec(&sample().enums).unwrap()),
        body(qdf_core::to_vec(&vec![Some(Some(())), None, Some(None)]).unwrap()),
        body(qdf_core::to_vec(&(u128::MAX, i128::MIN, '🦀', -0.0f32, f64::NAN)).unwrap()),
        body(
            qdf_core::to_vec(&vec![
                checks::Shape::Empty,
                checks::Shape::Num(-300),
                checks::Shape::Pair(None, "p".into()),
                checks::Shape::Rec {
                    data: vec![0xC0, 0xF2],
                    inner: Some(Box::new(checks::Shape::Num(1))),
                },
            ])
            .unwrap(),
        ),
        body(qdf_core::to_vec(&vec![vec![vec![E::N(Box::new(E::A))]]]).unwrap()),
    ]
}

#[test]
fn replay_corpora() {
    if std::env::var_os("QDF_WRITE_FUZZ_CORPUS").is_some() {
        for target in ["decode_value", "round_trip"] {
            let dir = corpus_dir(target);
            std::fs::create_dir_all(&dir).unwrap();
            for (i, s) in seeds().iter().enumerate() {
                std::fs::write(dir.join(format!("seed-{i:02}")), s).unwrap();
            }
        }
    }
    let mut files = 0;
    for (target, check) in [
        ("decode_value", checks::decode_value as fn(&[u8])),
        ("round_trip", checks::round_trip),
    ] {
        let dir = corpus_dir(target);
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            let data = std::fs::read(&path).unwrap();
            check(&data);
            files += 1;
        }
    }
    assert!(
        files >= 2 * seeds().len(),
        "corpora hold only {files} files"
    );
}

#[test]
fn seeds_pass_the_checks() {
    for s in seeds() {
        checks::decode_value(&s);
        checks::round_trip(&s);
    }
}
