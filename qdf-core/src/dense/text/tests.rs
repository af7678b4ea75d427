use super::*;

fn own(t: &TextSlots, k: usize) -> Option<Vec<u8>> {
    match t.get(k) {
        Text::Own { off, len } => Some(t.own(off, len).to_vec()),
        _ => None,
    }
}

#[test]
fn common_prefix_stops_at_a_character_boundary() {
    assert_eq!(common_prefix(b"abcdef", b"abcxyz"), 3);
    assert_eq!(common_prefix(b"abc", b"abc"), 3);
    assert_eq!(common_prefix(b"", b"abc"), 0);
    // "é" is C3 A9, "è" is C3 A8: the common C3 is half a character.
    assert_eq!(common_prefix("aé".as_bytes(), "aè".as_bytes()), 1);
    assert_eq!(common_prefix("€1".as_bytes(), "€2".as_bytes()), 3);
}

#[test]
fn inline_str_reads_each_header() {
    assert_eq!(inline_str(&[0x82, b'h', b'i']), Some((1, 2)));
    assert_eq!(inline_str(&[0x82, b'h']), None);
    let mut b = vec![0xCD, 40];
    b.extend([b'a'; 40]);
    assert_eq!(inline_str(&b), Some((2, 40)));
    assert_eq!(inline_str(&[0xCE, 3, 0, 1, 2, 3]), Some((3, 3)));
    assert_eq!(inline_str(&[0xD0, 0]), None);
}

#[test]
fn live_bound_empties_a_slot_that_would_pass_it() {
    let mut t = TextSlots::default();
    t.set_own(0, &vec![b'a'; LIVE_MAX - 10]);
    t.set_own(1, &[b'b'; 10]);
    assert_eq!(t.live(), LIVE_MAX);
    // One byte more than the bound: slot 2 stays empty, the others keep theirs.
    t.set_own(2, b"c");
    assert_eq!(t.get(2), Text::Empty);
    assert_eq!(t.live(), LIVE_MAX);
    // Replacing slot 1's own bytes counts its old ones out first.
    t.set_own(1, &[b'd'; 10]);
    assert_eq!(own(&t, 1), Some(vec![b'd'; 10]));
    // An entry frees slot 0's bytes.
    t.set_entry(0, 7);
    assert_eq!(t.live(), 10);
    t.set_own(2, b"c");
    assert_eq!(own(&t, 2), Some(b"c".to_vec()));
}

#[test]
fn arena_is_compacted_and_stays_bounded() {
    let mut t = TextSlots::default();
    for i in 0..10_000u32 {
        t.set_own(
            (i % 3) as usize,
            format!("https://example.org/{i}").as_bytes(),
        );
    }
    assert_eq!(own(&t, 0), Some(b"https://example.org/9999".to_vec()));
    assert_eq!(own(&t, 2), Some(b"https://example.org/9998".to_vec()));
    assert!(
        t.arena.len() <= 2 * t.live() + SLACK + 64,
        "{}",
        t.arena.len()
    );
}

#[test]
fn rollback_and_trials_restore_texts_exactly() {
    let mut t = TextSlots::default();
    t.set_own(0, b"first");
    t.set_entry(1, 3);
    t.mark();
    t.set_own(0, b"second");
    t.set_own(4, b"new");
    let tr = t.trial();
    t.set_entry(0, 9);
    t.trial_rollback(tr);
    assert_eq!(own(&t, 0), Some(b"second".to_vec()));
    let tr = t.trial();
    t.set_own(1, b"kept");
    t.trial_keep(tr);
    assert_eq!(own(&t, 1), Some(b"kept".to_vec()));
    t.rollback();
    assert_eq!(own(&t, 0), Some(b"first".to_vec()));
    assert_eq!(t.get(1), Text::Entry(3));
    assert_eq!(t.get(4), Text::Empty);
    assert_eq!(t.live(), 5);
    assert_eq!(t.arena.len(), 5);
    // A commit keeps, and a renewal empties everything.
    t.mark();
    t.set_own(2, b"x");
    t.commit();
    assert_eq!(own(&t, 2), Some(b"x".to_vec()));
    t.clear();
    assert_eq!(
        (t.get(0), t.get(2), t.live()),
        (Text::Empty, Text::Empty, 0)
    );
}
