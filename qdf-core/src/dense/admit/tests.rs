use super::*;

#[test]
fn second_sighting_is_admitted() {
    let mut a = Admission::new(true);
    let h = fingerprint(b"user-000123", false);
    assert!(!a.sighted(h));
    assert!(a.sighted(h));
    // Kinds and lengths are separate values.
    assert_ne!(fingerprint(b"user-000123", true), h);
    assert_ne!(fingerprint(b"user-000123\0", false), h);
}

#[test]
fn fingerprint_is_unseeded() {
    // Pinned: encoder output depends on it.
    assert_eq!(fingerprint(b"", false), 0);
    assert_eq!(fingerprint(b"abcd", false), fingerprint(b"abcd", false));
    assert_eq!(fingerprint(b"abcd", false), 0x17c7_0602_6130_9d42);
}

#[test]
fn a_slot_keeps_the_latest_value() {
    let mut a = Admission::new(true);
    // Find two values sharing a slot.
    let h0 = fingerprint(b"v0", false);
    let other = (1..)
        .map(|i| fingerprint(format!("v{i}").as_bytes(), false))
        .find(|h| split(*h).0 == split(h0).0)
        .unwrap();
    assert!(!a.sighted(h0));
    assert!(!a.sighted(other));
    assert!(!a.sighted(h0), "evicted by the colliding value");
    a.remember(other);
    assert!(a.sighted(other));
}
