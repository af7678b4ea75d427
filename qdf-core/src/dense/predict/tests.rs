use super::*;

// Test-only views of the state (kept out of the production impl).
impl Predictors {
    /// Everything a peer could observe, for state comparisons in tests.
    pub(crate) fn observable(&self) -> (u32, Vec<u32>, Vec<u32>) {
        let ring = (0..self.filled as u64)
            .filter_map(|r| self.ring_at(r))
            .collect();
        // Trailing empty slots are not observable (slots are added lazily, see `grow`).
        let mut pairs = self.pairs.clone();
        while pairs.last() == Some(&0) {
            pairs.pop();
        }
        (self.last, ring, pairs)
    }
}

#[test]
fn ring_keeps_duplicates_and_wraps() {
    let mut p = Predictors::new();
    p.grow(300);
    for id in [5, 6, 5, 7] {
        p.touch(id);
    }
    assert_eq!(p.ring_at(0), Some(7));
    assert_eq!(p.ring_at(1), Some(5));
    assert_eq!(p.ring_at(2), Some(6));
    assert_eq!(p.ring_at(3), Some(5));
    assert_eq!(p.ring_at(4), None);
    assert_eq!(p.rank_of(5), Some(1));
    for id in 100..300 {
        p.touch(id);
    }
    assert_eq!(p.ring_at(0), Some(299));
    assert_eq!(p.ring_at(127), Some(172));
    assert_eq!(p.ring_at(128), None);
    assert_eq!(p.rank_of(5), None);
}

#[test]
fn pairs_and_repeat() {
    let mut p = Predictors::new();
    p.grow(10);
    p.touch(1);
    p.touch(2);
    assert_eq!(p.pair_after(1), Some(2));
    p.repeat(2);
    assert_eq!(p.pair_after(2), Some(2));
    assert_eq!(p.last(), Some(2));
    p.reset_last();
    p.touch(3);
    assert_eq!(p.pair_after(2), Some(2), "no pair across an inline value");
    assert_eq!(p.pair_after(9), None);
}

#[test]
fn rollback_restores_exactly() {
    let mut p = Predictors::new();
    p.grow(4);
    p.touch(0);
    p.touch(1);
    let before = p.observable();
    let m = p.mark();
    p.grow(6);
    p.touch(4);
    p.touch(0);
    p.repeat(0);
    p.touch(5);
    p.rollback(&m, 4);
    assert_eq!(p.observable(), before);
}

/// A checkpoint whose message pushes more than the ring holds (and wraps the physical
/// slots) still rolls back to the exact ranks, and so does a second checkpoint after it.
#[test]
fn rollback_after_more_pushes_than_the_ring() {
    let mut p = Predictors::new();
    p.grow(1000);
    for id in 0..200 {
        p.touch(id % 150);
    }
    for pushes in [0, 1, 127, 128, 129, 255, 256, 257, 600] {
        let before = p.observable();
        let m = p.mark();
        for k in 0..pushes {
            p.touch(500 + k % 400);
        }
        p.rollback(&m, 1000);
        assert_eq!(p.observable(), before, "{pushes} pushes");
    }
    // Committed pushes stay; a later rollback returns to the committed state.
    p.mark();
    for k in 0..300 {
        p.touch(k);
    }
    p.commit();
    let committed = p.observable();
    let m = p.mark();
    for k in 0..130 {
        p.touch(999 - k);
    }
    p.rollback(&m, 1000);
    assert_eq!(p.observable(), committed);
    assert_eq!(p.ring_at(0), Some(299));
    assert_eq!(p.ring_at(127), Some(172));
}
