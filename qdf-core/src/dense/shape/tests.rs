use super::*;

// Test-only views of the state (kept out of the production impl).
impl ShapeTable {
    /// Everything a peer could observe, for state comparisons in tests.
    pub(crate) fn observable(&self) -> (Vec<u8>, Vec<usize>, Vec<usize>, u64) {
        (
            self.names.clone(),
            self.name_ends.clone(),
            self.shape_ends.clone(),
            self.charged,
        )
    }
}

fn declare(t: &mut ShapeTable, names: &[&str]) -> Result<u32> {
    t.begin_decl();
    for n in names {
        t.decl_name(n.as_bytes());
    }
    t.end_decl(10, 1000)
}

#[test]
fn nested_declarations_get_ids_on_completion() {
    let mut t = ShapeTable::default();
    t.begin_decl();
    t.decl_name(b"outer_a");
    assert_eq!(declare(&mut t, &["x", "y"]).unwrap(), 1);
    t.decl_name(b"outer_b");
    assert_eq!(t.end_decl(10, 1000).unwrap(), 2);
    assert_eq!(t.field_count(1), Some(2));
    assert_eq!(t.field_name(1, 1), Some(&b"y"[..]));
    assert_eq!(t.field_name(2, 0), Some(&b"outer_a"[..]));
    assert_eq!(t.field_name(2, 1), Some(&b"outer_b"[..]));
    assert_eq!(t.field_name(2, 2), None);
    assert_eq!(t.field_count(0), None);
    assert_eq!(t.field_count(3), None);
    assert_eq!(t.charged(), 2 + 14 + 4 * 4);
    assert_eq!(declare(&mut t, &[]).unwrap(), 3);
    assert_eq!(t.field_count(3), Some(0));
}

/// A table on a base: the base's shapes are ids `1..=n` and its names the first stored
/// names; own shapes and names follow; rollback and clear keep the base.
#[test]
fn shapes_on_a_base() {
    let base = Arc::new(BaseShapes::new([&[&b"x"[..], b"y"][..], &[b"x"]]));
    assert_eq!(base.len(), 2);
    let mut t = ShapeTable::default().on_base(Arc::clone(&base));
    assert_eq!((t.len(), t.own_len()), (2, 0));
    assert_eq!(t.name_range(1), Some(0..2));
    assert_eq!(t.name_range(2), Some(2..3));
    assert_eq!(t.name_at(1), Some(&b"y"[..]));
    assert_eq!(t.base_shape(2, b"x"), Some(1));
    assert_eq!(t.base_shape(1, b"x"), Some(2));
    assert_eq!((t.base_shape(3, b"x"), t.base_shape(2, b"y")), (None, None));
    let mark = t.mark();
    assert_eq!(declare(&mut t, &["a", "b"]).unwrap(), 3);
    assert_eq!(t.name_range(3), Some(3..5));
    assert_eq!(t.field_name(3, 1), Some(&b"b"[..]));
    assert_eq!((t.name_at(4), t.name_at(5)), (Some(&b"b"[..]), None));
    assert_eq!(t.field_count(4), None);
    // Only own names are charged.
    assert_eq!(t.charged(), 2 + 2 * NAME_OVERHEAD);
    t.rollback(&mark);
    assert_eq!((t.len(), t.field_count(3)), (2, None));
    assert_eq!(declare(&mut t, &["c"]).unwrap(), 3);
    t.clear();
    assert_eq!((t.len(), t.field_name(1, 0)), (2, Some(&b"x"[..])));
    // A declaration replaced by a reuse before its first name leaves no trace.
    t.begin_decl();
    t.abort_decl();
    assert_eq!((t.len(), t.open_count()), (2, 0));
    // Caps count the base's shapes.
    assert!(declare(&mut t, &["d"]).is_ok());
    assert!(declare(&mut t, &["e"]).is_ok());
    assert_eq!(t.len(), 4);
    t.begin_decl();
    assert!(t.end_decl(4, 1000).is_err());
}

#[test]
fn caps_refuse_and_drop_the_declaration() {
    let mut t = ShapeTable::default();
    t.begin_decl();
    t.decl_name(b"abc");
    assert_eq!(
        t.end_decl(0, 1000).unwrap_err().code(),
        &ErrorCode::SessionCap {
            what: "shape table entries",
            cap: 0,
            limit: "max_shapes",
        }
    );
    t.begin_decl();
    t.decl_name(b"abc");
    assert_eq!(
        t.end_decl(5, 6).unwrap_err().code(),
        &ErrorCode::SessionCap {
            what: "shape table bytes",
            cap: 6,
            limit: "max_intern_bytes",
        }
    );
    assert_eq!(t.len(), 0);
    assert_eq!(t.open_count(), 0);
    assert_eq!(t.end_decl_ok_after_caps(), 1);
}

impl ShapeTable {
    fn end_decl_ok_after_caps(&mut self) -> u32 {
        self.begin_decl();
        self.decl_name(b"abc");
        self.end_decl(5, 7).unwrap()
    }
}

/// `escaped_once` stays within its cap between messages (sessions) and within one
/// message outside a checkpoint, and a list that escapes twice in a row is still declared
/// across a clearing.
#[test]
fn escaped_once_is_capped() {
    let mut p = ShapePredictor::default();
    let k = (Owner::Map, 2, None);
    let list = |p: &ShapePredictor, i: usize| p.feed(NamesHash::default(), &i.to_le_bytes());
    p.declared(k, None, list(&p, usize::MAX), 1);
    for i in 0..3 * ESCAPED_ONCE_CAP {
        p.mark();
        let h = list(&p, i);
        p.escaped(k, h);
        p.commit();
        assert!(p.escaped_once.len() <= ESCAPED_ONCE_CAP, "{i}");
    }
    // Twice in a row: the next record declares the list, unless the set was cleared
    // between the two (once per clearing).
    let mut missed = 0;
    for i in 0..3 * ESCAPED_ONCE_CAP {
        let h = list(&p, i);
        p.escaped(k, h);
        assert!(p.escaped_once.len() <= ESCAPED_ONCE_CAP, "{i}");
        p.escaped(k, h);
        missed += usize::from(p.predict(k).is_some());
        p.declared(k, None, list(&p, usize::MAX), 1);
    }
    assert!(missed <= 6, "{missed}");
    let bytes = p.heap_bytes();
    for i in 0..4 * ESCAPED_ONCE_CAP {
        p.mark();
        let h = list(&p, i + 10 * ESCAPED_ONCE_CAP);
        p.escaped(k, h);
        p.commit();
    }
    assert_eq!(p.heap_bytes(), bytes, "flat once the cap was reached");
}

#[test]
fn predictor_follows_escapes_and_rolls_back() {
    let mut p = ShapePredictor::default();
    let ha = ["a", "b"]
        .iter()
        .fold(NamesHash::default(), |h, n| p.feed(h, n.as_bytes()));
    let hb = ["a", "c"]
        .iter()
        .fold(NamesHash::default(), |h, n| p.feed(h, n.as_bytes()));
    assert_ne!(ha, hb);
    let k = (Owner::Struct("S"), 2, None);
    p.declared(k, None, ha, 1);
    assert_eq!(p.predict(k), Some(1));
    p.mark();
    p.escaped(k, hb);
    assert_eq!(p.predict(k), Some(1), "first escape to unknown names");
    p.escaped(k, hb);
    assert_eq!(p.predict(k), None, "second escape: declare next time");
    p.declared(k, None, hb, 2);
    p.escaped(k, ha);
    assert_eq!(p.predict(k), Some(1));
    p.rollback(1);
    assert_eq!(p.predict(k), Some(1));
    p.escaped(k, hb);
    assert_eq!(
        p.predict(k),
        Some(1),
        "shape 2 and the first escape rolled back"
    );
    p.escaped(k, hb);
    assert_eq!(p.predict(k), None);
}
