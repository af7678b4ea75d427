use super::*;

/// Every length through every class and past [`SHORT`], with a distinct byte at every
/// position: the overlapping moves must cover each byte and write nothing after `n`.
#[test]
fn copies_every_length_exactly() {
    for n in 0..=SHORT + 40 {
        let src: Vec<u8> = (0..n).map(|i| (i % 251) as u8 + 1).collect();
        let mut dst = vec![0u8; n + 8];
        copy_short(&mut dst, &src);
        assert_eq!(dst[..n], src[..], "length {n}");
        assert!(dst[n..].iter().all(|&b| b == 0), "wrote past {n}");
        let s: String = (0..n).map(|i| char::from(b'!' + (i % 90) as u8)).collect();
        let owned = owned_str(&s);
        assert_eq!((owned.as_str(), owned.capacity()), (s.as_str(), n));
    }
}

/// Every length through every class: equal strings compare equal, and a difference at
/// any single position, or in the length, is seen.
#[test]
fn eq_short_sees_every_byte() {
    for n in 0..=SHORT + 8 {
        let a: Vec<u8> = (0..n).map(|i| (i % 251) as u8 + 1).collect();
        assert!(eq_short(&a, &a.clone()), "length {n}");
        for i in 0..n {
            let mut b = a.clone();
            b[i] ^= 0x40;
            assert!(!eq_short(&a, &b), "length {n}, byte {i}");
        }
        assert!(!eq_short(&a, &a[..n.saturating_sub(1)]) || n == 0);
        let mut longer = a.clone();
        longer.push(0);
        assert!(!eq_short(&a, &longer));
    }
}
