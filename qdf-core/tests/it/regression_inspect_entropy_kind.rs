//! The inspect walker names the element kind of a QPack value inside an `FE` block (the kind
//! byte is inside the coded bytes), instead of reporting none, which `qdf inspect` printed as
//! "× bool" for 400 integers.

use qdf_core::Options;
use qdf_core::inspect::{self, EventKind};

fn packed_kinds<T: serde::Serialize>(v: &T) -> Vec<(String, Option<u8>, u64)> {
    let msg = qdf_core::to_vec_with(v, Options::compression()).unwrap();
    assert_eq!(msg[5], 0xFE, "the body is one FE block");
    let mut out = Vec::new();
    inspect::message(&msg, &Options::compression(), &mut |e| {
        if let EventKind::Packed { codec, kind, count } = &e.kind {
            out.push((codec.to_string(), *kind, *count));
        }
    })
    .unwrap();
    out
}

#[test]
fn entropy_coded_ints_and_bools_report_their_kind() {
    let ints: Vec<u64> = (0..400u64).map(|i| (i * 7) % 4 * 1000 + i % 3).collect();
    assert_eq!(
        packed_kinds(&ints),
        [("tANS-coded".to_string(), Some(0x03), 400)]
    );
    let bools: Vec<bool> = (0..4000).map(|i| i % 97 == 0).collect();
    assert_eq!(
        packed_kinds(&bools),
        [("tANS-coded".to_string(), None, 4000)]
    );
}
