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
                self.find_indexed(b, k) == Some(id)
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
