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
