//! `to_vec_into`: appends exactly `to_vec_with`'s message to a caller's buffer, on every tier,
//! keeps what the buffer held, reuses its capacity, and leaves it as it was on error.

use qdf_core::{Category, Options};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Row {
    id: u64,
    service: String,
    level: String,
    latency_ms: f64,
    tags: Vec<String>,
}

fn rows(n: usize) -> Vec<Row> {
    (0..n)
        .map(|i| Row {
            id: 1_000_000 + 7 * i as u64,
            service: format!("svc-{}", i % 5),
            level: ["info", "warn", "error"][i % 3].to_owned(),
            latency_ms: (i % 97) as f64 * 0.25,
            tags: (0..i % 3).map(|t| format!("t{t}")).collect(),
        })
        .collect()
}

fn tiers() -> [(&'static str, Options); 3] {
    [
        ("speed", Options::speed()),
        ("balanced", Options::balanced()),
        ("compression", Options::compression()),
    ]
}

/// Every tier, a one-row value (Dense, no columns) and a 600-row batch (columnar, QPack on
/// Compression): the buffer ends with `to_vec_with`'s bytes after a prefix that is kept.
#[test]
fn appends_the_same_bytes_as_to_vec_with() {
    let small = rows(1);
    let batch = rows(600);
    for (tier, opts) in tiers() {
        for (what, value) in [("1 row", &small), ("600 rows", &batch)] {
            let want = qdf_core::to_vec_with(value, opts).unwrap();
            let mut empty = Vec::new();
            qdf_core::to_vec_into(value, opts, &mut empty).unwrap();
            assert_eq!(empty, want, "{tier}, {what}, empty buffer");
            let mut buf = b"prefix".to_vec();
            qdf_core::to_vec_into(value, opts, &mut buf).unwrap();
            assert_eq!(&buf[..6], b"prefix", "{tier}, {what}");
            assert_eq!(buf[6..], want[..], "{tier}, {what}, after a prefix");
            let back: Vec<Row> = qdf_core::from_slice_with(&buf[6..], opts).unwrap();
            assert_eq!(&back, value, "{tier}, {what}, round trip");
        }
    }
}

/// The QPack hint (header flag `02`) lands in the appended message's header, not at the
/// buffer's byte 4, when the body holds a QPack tag.
#[test]
fn qpack_hint_is_set_in_the_appended_header() {
    let batch = rows(600);
    let want = qdf_core::to_vec_with(&batch, Options::compression()).unwrap();
    assert_eq!(
        want[4] & 0x02,
        0x02,
        "the fixture must take QPack on Compression"
    );
    let mut buf = vec![0u8; 9];
    qdf_core::to_vec_into(&batch, Options::compression(), &mut buf).unwrap();
    assert_eq!(buf[..9], [0u8; 9]);
    assert_eq!(buf[9..], want[..]);
}

/// Clearing and encoding again reuses the allocation: same pointer, same capacity, and the
/// bytes of a fresh `to_vec_with` each time.
#[test]
fn capacity_is_reused_after_clear() {
    for (tier, opts) in tiers() {
        let mut buf = Vec::new();
        qdf_core::to_vec_into(&rows(300), opts, &mut buf).unwrap();
        let (ptr, cap) = (buf.as_ptr(), buf.capacity());
        assert!(cap >= buf.len() && !buf.is_empty());
        for n in [300, 120, 1, 299] {
            let value = rows(n);
            buf.clear();
            qdf_core::to_vec_into(&value, opts, &mut buf).unwrap();
            assert_eq!(
                buf,
                qdf_core::to_vec_with(&value, opts).unwrap(),
                "{tier}, {n}"
            );
            assert_eq!(
                (buf.as_ptr(), buf.capacity()),
                (ptr, cap),
                "{tier}, {n} rows"
            );
        }
    }
}

/// A value the encoder refuses (deeper than the depth limit) leaves the buffer exactly as it
/// was, on every tier.
#[test]
fn error_leaves_the_buffer_as_it_was() {
    let deep = vec![vec![vec![vec![vec![1u8]]]]];
    for (tier, opts) in tiers() {
        let mut buf = b"kept".to_vec();
        let err = qdf_core::to_vec_into(&deep, opts.max_depth(4), &mut buf).unwrap_err();
        assert_eq!(err.classify(), Category::Limit, "{tier}");
        assert_eq!(buf, b"kept", "{tier}");
    }
}
