use super::*;

// Test-only views of the state (kept out of the production impl).
impl InternTable {
    /// Everything a peer could observe, for state comparisons in tests.
    pub(crate) fn observable(&self) -> (Vec<u8>, Vec<usize>, Vec<Kind>) {
        (self.arena.clone(), self.ends.clone(), self.kinds.clone())
    }

    /// Checks the index holds exactly the ids of the table (tests).
    pub(crate) fn index_consistent(&self) -> bool {
        let Some(index) = self.index.as_ref() else {
            return true;
        };
        index.table.len() == self.ends.len()
            && (self.base_len..self.len()).all(|id| {
                let (b, k) = self.get(id).unwrap();
                self.find_indexed(self.hash(b, k), b, k) == Some(id)
            })
    }
}

#[test]
fn ids_are_sequential_and_kinds_separate() {
    let mut t = InternTable::new(true);
    assert_eq!(t.push(b"alpha", Kind::Str), 0);
    assert_eq!(t.push(b"alpha", Kind::Bin), 1);
    assert_eq!(t.push(b"", Kind::Str), 2);
    assert_eq!(t.find(b"alpha", Kind::Str), Some(0));
    assert_eq!(t.find(b"alpha", Kind::Bin), Some(1));
    assert_eq!(t.find(b"", Kind::Str), Some(2));
    assert_eq!(t.find(b"beta", Kind::Str), None);
    assert_eq!(t.get(1), Some((&b"alpha"[..], Kind::Bin)));
    assert_eq!(t.get(3), None);
    assert_eq!(t.byte_len(), 10);
}

#[test]
fn truncate_removes_from_index() {
    let mut t = InternTable::new(true);
    for i in 0..100u32 {
        t.push(format!("value-{i}").as_bytes(), Kind::Str);
    }
    t.truncate(40);
    assert_eq!(t.len(), 40);
    assert_eq!(t.find(b"value-39", Kind::Str), Some(39));
    assert_eq!(t.find(b"value-40", Kind::Str), None);
    assert_eq!(t.byte_len(), 10 * 7 + 30 * 8);
    assert!(t.index_consistent());
    assert_eq!(t.push(b"value-99", Kind::Str), 40);
    assert!(t.index_consistent());
}

/// More entries than cache slots, of every length class, looked up twice (misses that
/// fill slots, then hits or collisions): every lookup finds its own id, and a slot left
/// by a rollback or holding a colliding entry never answers for other content.
#[test]
fn front_cache_is_only_a_hint() {
    let mut t = InternTable::new(true);
    let value = |i: usize| format!("{}{i}", "v".repeat(i % 40));
    for i in 0..1000 {
        assert_eq!(t.push(value(i).as_bytes(), Kind::Str), i as u32);
    }
    for _ in 0..2 {
        for i in 0..1000 {
            assert_eq!(t.find(value(i).as_bytes(), Kind::Str), Some(i as u32));
            assert_eq!(t.find(value(i).as_bytes(), Kind::Bin), None);
        }
    }
    t.truncate(500);
    for i in 0..1000 {
        let want = (i < 500).then_some(i as u32);
        assert_eq!(t.find(value(i).as_bytes(), Kind::Str), want, "{i}");
    }
    // Re-defined ids with other content: the old slots must not answer.
    for i in 500..1000 {
        t.push(format!("other-{i}").as_bytes(), Kind::Str);
    }
    for i in 500..1000 {
        assert_eq!(t.find(value(i).as_bytes(), Kind::Str), None);
        assert_eq!(
            t.find(format!("other-{i}").as_bytes(), Kind::Str),
            Some(i as u32)
        );
    }
    assert!(t.index_consistent());
}

#[test]
fn decoder_table_has_no_index() {
    let mut t = InternTable::new(false);
    t.push(b"abcd", Kind::Str);
    assert_eq!(t.find(b"abcd", Kind::Str), None);
    assert_eq!(t.get(0), Some((&b"abcd"[..], Kind::Str)));
}

/// `find_or_hash` then `push_hashed` (one hash per new value) builds the same table as
/// `push`: same ids, same observable state, a consistent index that finds every entry, on
/// its own and on a base (whose entries are found, never re-defined).
#[test]
fn push_hashed_matches_push() {
    let value = |i: usize| format!("{}{i}", "w".repeat(i % 33));
    let mut base = InternTable::new(true);
    for i in 0..50 {
        base.push(value(i).as_bytes(), Kind::Str);
    }
    let base = Arc::new(base);
    for on_base in [false, true] {
        let fresh = || match on_base {
            true => InternTable::new(true).on_base(base.clone()),
            false => InternTable::new(true),
        };
        let (mut a, mut b) = (fresh(), fresh());
        let mut distinct = std::collections::HashSet::new();
        for i in 0..700 {
            let kind = [Kind::Str, Kind::Bin][i % 7 / 6];
            let bytes = value(i % 400);
            let id = match a.find_or_hash(bytes.as_bytes(), kind) {
                Ok(id) => id,
                Err(miss) => a.push_hashed(bytes.as_bytes(), kind, miss),
            };
            let want = match b.find(bytes.as_bytes(), kind) {
                Some(id) => id,
                None => b.push(bytes.as_bytes(), kind),
            };
            assert_eq!(id, want, "value {i}, on base: {on_base}");
            assert_eq!(a.find(bytes.as_bytes(), kind), Some(id));
            distinct.insert((bytes, kind));
        }
        assert_eq!(a.len(), b.len());
        assert_eq!(a.observable(), b.observable());
        assert!(a.index_consistent());
        // On the base, its 50 strings were found there (ids 0..50), none defined again:
        // one entry per distinct `(value, kind)` in all (the base's 50 among them).
        assert_eq!(a.find(value(3).as_bytes(), Kind::Str), Some(3));
        assert_eq!(a.len() as usize, distinct.len());
    }
}

#[test]
fn decoder_table_misses_and_pushes_hashed() {
    let mut t = InternTable::new(false);
    let miss = t.find_or_hash(b"abcd", Kind::Str).unwrap_err();
    assert_eq!(t.push_hashed(b"abcd", Kind::Str, miss), 0);
    assert_eq!(t.get(0), Some((&b"abcd"[..], Kind::Str)));
    assert!(t.find_or_hash(b"abcd", Kind::Str).is_err());
}
