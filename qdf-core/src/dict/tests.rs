use std::sync::Arc;

use super::*;
use crate::dense::DenseState;

fn dict() -> Dictionary {
    Dictionary::from_strs(["alpha", "beta", "gamma"])
        .unwrap()
        .with_shapes([["x", "y"]])
        .unwrap()
}

/// A table on a base: the base's ids first, own entries after, lookups through both, and
/// rollback and renewal never touch the base.
#[test]
fn intern_table_on_a_base() {
    let d = dict();
    let mut t = InternTable::new(true).on_base(d.base().entries);
    assert_eq!((t.len(), t.base_len(), t.byte_len()), (3, 3, 0));
    assert_eq!(t.find(b"beta", Kind::Str), Some(1));
    assert_eq!(t.find(b"beta", Kind::Bin), None);
    assert_eq!(t.push(b"delta", Kind::Str), 3);
    assert_eq!(t.find(b"delta", Kind::Str), Some(3));
    assert_eq!(t.cached(b"beta", Kind::Str), Some(1));
    assert_eq!(t.get(0), Some((&b"alpha"[..], Kind::Str)));
    assert_eq!(t.get(3), Some((&b"delta"[..], Kind::Str)));
    assert_eq!(t.get(4), None);
    assert!(t.index_consistent());
    t.truncate(0);
    assert_eq!((t.len(), t.find(b"gamma", Kind::Str)), (3, Some(2)));
    t.push(b"epsilon", Kind::Str);
    t.clear();
    assert_eq!((t.len(), t.find(b"epsilon", Kind::Str)), (3, None));
    // A decoder's table that keeps no bytes still serves the base.
    let u = InternTable::new_uncopied().on_base(d.base().entries);
    assert_eq!(u.get(2), Some((&b"gamma"[..], Kind::Str)));
}

/// Starting from a dictionary shares its tables: no copy, one more `Arc` holder of the
/// entries and of the shapes per state.
#[test]
fn starting_from_a_dictionary_is_o1() {
    let d = dict();
    let before = (Arc::strong_count(&d.entries), Arc::strong_count(&d.shapes));
    let states: Vec<DenseState> = (0..4)
        .map(|_| DenseState::new_decoder(&Options::balanced(), false).on_base(d.base()))
        .collect();
    let held = (Arc::strong_count(&d.entries), Arc::strong_count(&d.shapes));
    assert_eq!(held, (before.0 + 4, before.1 + 4));
    // The heap of a state on the dictionary is that of an empty one.
    let empty = DenseState::new_decoder(&Options::balanced(), false);
    assert_eq!(states[0].heap_bytes(), empty.heap_bytes());
    assert_eq!(states[0].shapes().field_name(1, 1), Some(&b"y"[..]));
    drop(states);
    let after = (Arc::strong_count(&d.entries), Arc::strong_count(&d.shapes));
    assert_eq!(after, before);
}

/// Pair predictions after dictionary ids grow the pair table only when recorded, and an
/// encoder and a decoder on the same base stay in step.
#[test]
fn encoder_and_decoder_mirror_on_a_base() {
    let d = dict();
    let opts = Options::balanced();
    let mut enc = DenseState::new_encoder(&opts).on_base(d.base());
    let mut dec = DenseState::new_decoder(&opts, true).on_base(d.base());
    let items: [&[u8]; 6] = [b"gamma", b"alpha", b"gamma", b"alpha", b"zeta!", b"zeta!"];
    let mut out = Vec::new();
    for b in items {
        let e = enc.encode_str(b, Kind::Str);
        out.push(e);
        match e {
            crate::dense::Emission::Intern => {
                dec.define(b, Kind::Str).unwrap();
            }
            crate::dense::Emission::Ref(id) => {
                let mut buf = Vec::new();
                crate::wire::varint::write_uvarint(&mut buf, id.into());
                assert_eq!(
                    dec.resolve(crate::wire::tags::STATE_REF, &buf).unwrap().0,
                    id
                );
            }
            crate::dense::Emission::Repeat => {
                dec.resolve(crate::wire::tags::REPEAT, &[]).unwrap();
            }
            other => panic!("{other:?}"),
        }
    }
    use crate::dense::Emission::*;
    assert_eq!(out, [Ref(2), Ref(0), Ref(2), Ref(0), Intern, Repeat]);
    assert_eq!(dec.entry(3), Some((&b"zeta!"[..], Kind::Str)));
    assert_eq!(enc.stats().intern_entries, 1);
}

/// The file of `to_bytes` reads back to the same dictionary, and the id is its hash.
#[test]
fn file_round_trip() {
    let d =
        Dictionary::from_bytes(&[b'Q', b'D', b'F', b'D', 1, 2, 2, b'a', 5, 0xFF, 0x00]).unwrap();
    assert_eq!(d.entry(1), Some((&[0xFF, 0x00][..], false)));
    let again = Dictionary::from_bytes(&d.to_bytes()).unwrap();
    assert_eq!((again.id(), again.sha256()), (d.id(), d.sha256()));
    assert_eq!(DictionaryId::of_file(&d.to_bytes()).0, d.id());
    assert!(format!("{d:?}").contains(&d.id().to_string()));
}
