use super::super::testutil::strs;
use super::*;

#[test]
fn ranks_counts_and_head() {
    let vals = strs(&[
        "b",
        "a",
        "b",
        "",
        "a",
        "b",
        "long value past the cache words",
    ]);
    let mut c = Census::new(&vals, 4);
    c.finish();
    assert_eq!(c.ids, [0, 1, 0, 2, 1, 0, 3]);
    assert_eq!(c.distinct(), 4);
    assert_eq!((c.distinct_in_head(3), c.distinct_in_head(64)), (2, 4));
    let counts: Vec<_> = c.counts().collect();
    assert_eq!(counts[..3], [(&b"b"[..], 3), (&b"a"[..], 2), (&b""[..], 1)]);
    let d = c.dict().unwrap();
    assert_eq!(
        d.entries,
        strs(&["b", "a", "", "long value past the cache words"])
    );
    assert_eq!(d.index, [0, 1, 0, 2, 1, 0, 3]);
    // Six short values inline (2 bytes each but `""`, 1), the long one defined.
    assert_eq!(c.per_value(), 5 * 2 + 1 + (1 + 1 + 31));
    assert_eq!(Census::new(&[], 4).distinct_in_head(64), 0);
}

/// A value the intern table already holds is a reference on its first sight too; the
/// others are still defined once.
#[test]
fn known_values_count_as_references() {
    let vals = strs(&["service-a", "service-b", "service-a", "new-value", "ab"]);
    let known = |v: &[u8]| v.starts_with(b"service");
    let mut c = Census::with_known(&vals, 4, Some(&known));
    // Three 2-byte references for `service-*`, `new-value` defined (1 + 1 + 9), `ab` inline.
    assert_eq!(c.per_value(), 3 * 2 + (1 + 1 + 9) + 3);
    let mut unknown = Census::new(&vals, 4);
    assert_eq!(unknown.per_value(), c.per_value() + 2 * (1 + 1 + 9 - 2));
}

/// Values that share their outer bytes and length share a cache slot: each is still
/// told apart by its bytes.
#[test]
fn cache_collisions_are_compared() {
    let owned: Vec<String> = (0..600)
        .map(|i| format!("abcdefgh{:04}ijklmnop", i % 300))
        .collect();
    let vals: Vec<&[u8]> = owned.iter().map(|s| s.as_bytes()).collect();
    let mut c = Census::new(&vals, 4);
    c.finish();
    assert_eq!(c.distinct(), 300);
    assert!(c.dict().is_none(), "above 256 distinct values");
    assert!(c.counts().all(|(_, n)| n == 2));
    assert_eq!(c.ids[300..], c.ids[..300]);
}

/// The per-value size counted lazily answers exactly what the full count answers, for
/// every threshold around it, and stops early when the answer is known.
#[test]
fn per_value_floor_is_exact_where_it_answers() {
    let owned: Vec<String> = (0..1000)
        .map(|i| format!("{:08x}", (i * 7919) % 600))
        .collect();
    let vals: Vec<&[u8]> = owned.iter().map(|s| s.as_bytes()).collect();
    let exact = Census::new(&vals, 4).per_value();
    let expected: usize = {
        let mut seen = std::collections::HashSet::new();
        vals.iter()
            .map(|v| if seen.insert(*v) { 1 + 1 + v.len() } else { 2 })
            .sum()
    };
    assert_eq!(exact, expected);
    for cost in [0, 2000, exact - 1, exact, exact + 1, 1 << 20] {
        assert_eq!(Census::new(&vals, 4).per_value_exceeds(cost), exact > cost);
    }
    let mut early = Census::new(&vals, 4);
    assert!(early.per_value_exceeds(2500));
    assert!(
        !early.complete(),
        "the floor passed 2500 before the last row"
    );
}
