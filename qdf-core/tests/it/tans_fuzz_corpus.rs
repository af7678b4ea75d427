//! Replays the committed tANS fuzz corpora (`fuzz/corpus/tans_*`) through the fuzz targets'
//! own checks on stable, so every `cargo test` runs them.

#[path = "../../../fuzz/src/tans_checks.rs"]
mod tans_checks;

use std::path::PathBuf;

#[test]
fn replay_tans_corpora() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    let mut files = 0;
    for (target, check) in [
        ("tans_decode", tans_checks::tans_decode as fn(&[u8])),
        ("tans_roundtrip", tans_checks::tans_roundtrip),
    ] {
        for entry in std::fs::read_dir(root.join(target)).unwrap() {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            check(&bytes);
            files += 1;
        }
    }
    assert!(files >= 8, "expected the committed seeds, found {files}");
}
