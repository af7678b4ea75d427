use super::*;
use crate::options::Options;

fn walk(s: &mut DenseState, fields: &[&'static str]) -> (StructStart, Vec<FieldStep>, EndStep) {
    let (mut cur, start) = s.struct_begin("Rec", 3);
    let steps = fields
        .iter()
        .map(|f| s.struct_field(&mut cur, f.as_bytes(), 0).unwrap())
        .collect();
    (start, steps, s.struct_end(cur).unwrap())
}

#[test]
fn declare_reuse_escape_and_follow() {
    use FieldStep::*;
    let mut s = DenseState::new_encoder(&Options::balanced());
    let abc = ["a", "b", "c"];
    let abd = ["a", "b", "d"];
    assert_eq!(
        walk(&mut s, &abc),
        (StructStart::Declare, vec![Name; 3], EndStep::Nothing)
    );
    assert_eq!(
        walk(&mut s, &abc),
        (StructStart::Reuse(1), vec![ValueOnly; 3], EndStep::Nothing)
    );
    assert_eq!(
        walk(&mut s, &abd),
        (
            StructStart::Reuse(1),
            vec![ValueOnly, ValueOnly, EscapeThenName],
            EndStep::End
        )
    );
    // Unknown names: the first escape keeps the prediction, the second one makes the
    // next record declare them.
    assert_eq!(walk(&mut s, &abd).2, EndStep::End);
    assert_eq!(walk(&mut s, &abd).0, StructStart::Declare);
    assert_eq!(walk(&mut s, &abd).0, StructStart::Reuse(2));
    // Back to the first list: one escape, then the known shape 1 is predicted again.
    assert_eq!(walk(&mut s, &abc).2, EndStep::End);
    assert_eq!(walk(&mut s, &abc).0, StructStart::Reuse(1));
    // Missing fields.
    assert_eq!(
        walk(&mut s, &["a", "b"]),
        (
            StructStart::Reuse(1),
            vec![ValueOnly, ValueOnly],
            EndStep::EscapeThenEnd
        )
    );
}

#[test]
fn first_field_mismatch_restarts_instead_of_escaping() {
    use FieldStep::*;
    let mut s = DenseState::new_encoder(&Options::balanced());
    walk(&mut s, &["a", "b", "c"]);
    walk(&mut s, &["x", "b", "c"]);
    // Predicted (x, b, c); the record starts with `a`: shape 1 starts with `a`.
    assert_eq!(
        walk(&mut s, &["a", "b", "c"]),
        (
            StructStart::Reuse(2),
            vec![Restart(StructStart::Reuse(1)), ValueOnly, ValueOnly],
            EndStep::Nothing
        )
    );
    // No shape starts with `q`: a new declaration replaces the header.
    assert_eq!(
        walk(&mut s, &["q", "r", "s"]),
        (
            StructStart::Reuse(1),
            vec![Restart(StructStart::Declare), Name, Name],
            EndStep::Nothing
        )
    );
    assert_eq!(s.shapes().len(), 3);
    assert_eq!(s.shapes().field_name(3, 0), Some(&b"q"[..]));
}

#[test]
fn restart_without_room_is_a_counted_plain_map() {
    use FieldStep::*;
    let mut s = DenseState::new_encoder(&Options::balanced().max_shapes(1));
    walk(&mut s, &["a", "b", "c"]);
    assert_eq!(
        walk(&mut s, &["x", "y", "z"]),
        (
            StructStart::Reuse(1),
            vec![Restart(StructStart::Plain), Name, Name],
            EndStep::Nothing
        )
    );
    // The map header announced 3 entries and got 1: it is rewritten.
    assert_eq!(
        walk(&mut s, &["x"]).2,
        EndStep::Recount {
            was: StructStart::Plain,
            now: StructStart::Plain,
            count: 1,
            end: false
        }
    );
}

#[test]
fn wrong_announced_lengths_recount_or_open_the_reuse() {
    use FieldStep::*;
    let mut s = DenseState::new_encoder(&Options::balanced());
    // Announced 3, declared with 2 names: the header count is rewritten.
    let recount = |count| EndStep::Recount {
        was: StructStart::Declare,
        now: StructStart::Declare,
        count,
        end: false,
    };
    assert_eq!(
        walk(&mut s, &["a", "b"]),
        (StructStart::Declare, vec![Name; 2], recount(2))
    );
    assert_eq!(s.shapes().field_count(1), Some(2));
    // The reuse of that 2-field shape: a third field opens it, no field empties it.
    assert_eq!(
        walk(&mut s, &["a", "b", "c"]),
        (
            StructStart::Reuse(1),
            vec![ValueOnly, ValueOnly, OpenThenName(1)],
            EndStep::End
        )
    );
    assert_eq!(
        walk(&mut s, &[]).2,
        EndStep::Recount {
            was: StructStart::Reuse(1),
            now: StructStart::Plain,
            count: 0,
            end: false
        }
    );
    // More fields than announced in a declaration.
    let (mut cur, start) = s.struct_begin("One", 1);
    assert_eq!(start, StructStart::Declare);
    for f in ["p", "q", "r"] {
        assert_eq!(s.struct_field(&mut cur, f.as_bytes(), 0).unwrap(), Name);
    }
    assert_eq!(s.struct_end(cur).unwrap(), recount(3));
    assert_eq!(s.shapes().field_count(2), Some(3));
    assert_eq!(s.shapes().open_count(), 0);
}

#[test]
fn map_shapes_declare_reuse_and_escape_other_keys() {
    use FieldStep::*;
    let opts = Options::balanced().features(Features::BALANCED.with(Features::MAP_SHAPE));
    let mut s = DenseState::new_encoder(&opts);
    let mut plain = DenseState::new_encoder(&Options::balanced());
    assert!(plain.map_begin(Some(2), b"k").is_none());
    let (mut cur, start) = s.map_begin(Some(2), b"k").unwrap();
    assert_eq!(start, StructStart::Declare);
    assert_eq!(s.struct_field(&mut cur, b"k", 0).unwrap(), Name);
    assert_eq!(s.struct_field(&mut cur, b"v", 0).unwrap(), Name);
    assert_eq!(s.struct_end(cur).unwrap(), EndStep::Nothing);
    let (mut cur, start) = s.map_begin(Some(2), b"k").unwrap();
    assert_eq!(start, StructStart::Reuse(1));
    assert_eq!(s.struct_field(&mut cur, b"k", 0).unwrap(), ValueOnly);
    let marked = |open, escape| Key {
        open,
        escape,
        marked: true,
    };
    assert_eq!(s.other_key(&mut cur).unwrap(), marked(None, true));
    assert_eq!(s.other_key(&mut cur).unwrap(), marked(None, false));
    assert_eq!(s.struct_end(cur).unwrap(), EndStep::End);
    // A different first key with the same length: a new declaration; a non-string key
    // there ends its names.
    let (mut cur, start) = s.map_begin(Some(2), b"z").unwrap();
    assert_eq!(start, StructStart::Declare);
    s.struct_field(&mut cur, b"z", 0).unwrap();
    assert_eq!(s.other_key(&mut cur).unwrap(), marked(None, true));
    assert_eq!(s.shapes().field_count(2), Some(1));
    assert_eq!(
        s.struct_end(cur).unwrap(),
        EndStep::Recount {
            was: StructStart::Declare,
            now: StructStart::Declare,
            count: 2,
            end: true
        }
    );
}

#[test]
fn shape_cap_falls_back_to_plain() {
    let mut s = DenseState::new_encoder(&Options::balanced().max_shapes(1));
    assert_eq!(walk(&mut s, &["a", "b", "c"]).0, StructStart::Declare);
    let (cur, start) = s.struct_begin("Other", 0);
    assert_eq!(start, StructStart::Plain);
    assert_eq!(s.struct_end(cur).unwrap(), EndStep::Nothing);
    let speed = Options::speed();
    let mut s = DenseState::new_encoder(&speed);
    assert_eq!(walk(&mut s, &["a", "b", "c"]).0, StructStart::Plain);
}
