use super::capture::{TapeSer, misordered};
use super::*;
use serde::{Serialize, ser, ser::SerializeMap as _};
use std::collections::BTreeMap;

#[derive(Serialize)]
enum E {
    U,
    N(u8),
    T(u8, String),
    S { a: Option<Option<u8>> },
}

#[derive(Serialize)]
struct Deep {
    c: char,
    b: serde_bytes::ByteBuf,
    e: Vec<E>,
    m: BTreeMap<String, (i128, u128)>,
    u: (),
    o: Option<Option<()>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<u8>,
    n: Nt,
    us: Us,
    ts: Ts,
}

#[derive(Serialize)]
struct Nt(i8);
#[derive(Serialize)]
struct Us;
#[derive(Serialize)]
struct Ts(f32, f64, bool);

fn deep() -> Deep {
    let mut m = BTreeMap::new();
    m.insert("k".to_string(), (i128::MIN, u128::MAX));
    m.insert("l".to_string(), (-1, 2));
    Deep {
        c: '€',
        b: serde_bytes::ByteBuf::from(vec![0, 1]),
        e: vec![E::U, E::N(3), E::T(1, "x".into()), E::S { a: Some(None) }],
        m,
        u: (),
        o: Some(None),
        skipped: None,
        n: Nt(-4),
        us: Us,
        ts: Ts(1.5, -2.25, true),
    }
}

fn d(limit: u32) -> Depth {
    Depth { depth: 0, limit }
}

/// Replaying a capture writes exactly the bytes of direct serialization, for a value
/// and for a second value after it on the same tape.
#[test]
fn replay_is_byte_identical() {
    let v = deep();
    let mut tape = Tape::default();
    let first = tape.evs.len() as u32;
    v.serialize(TapeSer {
        tape: &mut tape,
        depth: d(128),
    })
    .unwrap();
    let second = tape.evs.len() as u32;
    (7u8, "s")
        .serialize(TapeSer {
            tape: &mut tape,
            depth: d(128),
        })
        .unwrap();
    assert_eq!(tape.next(first as usize), second as usize);
    for opts in [crate::Options::speed(), crate::Options::balanced()] {
        let at = |at| EvRef { tape: &tape, at };
        assert_eq!(
            crate::to_vec_with(&at(first), opts).unwrap(),
            crate::to_vec_with(&v, opts).unwrap()
        );
        assert_eq!(
            crate::to_vec_with(&at(second), opts).unwrap(),
            crate::to_vec_with(&(7u8, "s"), opts).unwrap()
        );
    }
    let mut shallow = Tape::default();
    let err = v
        .serialize(TapeSer {
            tape: &mut shallow,
            depth: d(2),
        })
        .unwrap_err();
    assert!(matches!(err.code(), ErrorCode::DepthLimit(2)));
}

/// A rewind drops a failed capture; the tape goes on as if it never happened.
#[test]
fn rewind_drops_a_failed_capture() {
    let mut tape = Tape::default();
    (1u8, "a")
        .serialize(TapeSer {
            tape: &mut tape,
            depth: d(128),
        })
        .unwrap();
    let mark = tape.mark();
    let before = (tape.evs.clone(), tape.arena.clone());
    deep()
        .serialize(TapeSer {
            tape: &mut tape,
            depth: d(3),
        })
        .unwrap_err();
    tape.rewind(mark);
    assert_eq!((tape.evs.clone(), tape.arena.clone()), before);
    assert_eq!(tape.names.len(), 0);
    assert_eq!(tape.variants.len(), 0);
}

/// Keys and values that do not alternate are refused, as the real serializer refuses
/// them.
#[test]
fn misordered_maps_are_refused() {
    struct Keys(bool);
    impl Serialize for Keys {
        fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(None)?;
            m.serialize_key("a")?;
            if self.0 {
                m.serialize_key("b")?;
            }
            m.end()
        }
    }
    for twice in [false, true] {
        let mut tape = Tape::default();
        let cap = Keys(twice).serialize(TapeSer {
            tape: &mut tape,
            depth: d(128),
        });
        assert_eq!(cap.unwrap_err().code(), misordered().code());
        assert!(crate::to_vec(&Keys(twice)).is_err());
    }
}

#[test]
fn cells_of_primitives_and_some() {
    let mut tape = Tape::default();
    let mut cell = |v: &dyn erased::Ser| v.cell(&mut tape, d(128));
    assert_eq!(cell(&Some(5u8)), Cell::Int(5, false));
    assert_eq!(cell(&-3i16), Cell::Int(-3i64 as u64, true));
    assert_eq!(cell(&Some("ab")), Cell::Str(0, 2));
    assert_eq!(cell(&None::<u8>), Cell::Null);
    assert_eq!(cell(&Some(None::<u8>)), Cell::Other(0));
    assert_eq!(cell(&1.5f32), Cell::F32(1.5f32.to_bits()));
    assert_eq!(cell(&u128::MAX), Cell::Other(2));
    assert_eq!(cell(&'x'), Cell::Other(3));
    assert_eq!(cell(&Some(vec![1u8])), Cell::Other(4));
    assert_eq!(
        tape.evs,
        [
            Ev::Some,
            Ev::None,
            Ev::U128(2),
            Ev::Char('x'),
            Ev::Some,
            Ev::Open(Open::Seq(1), 7),
            Ev::U64(1),
            Ev::End(1)
        ]
    );
    let speed = |v: &dyn erased::Enc| v.enc();
    assert_eq!(
        speed(&EvRef { tape: &tape, at: 0 }),
        speed(&Some(None::<u8>))
    );
    assert_eq!(
        speed(&EvRef { tape: &tape, at: 4 }),
        speed(&Some(vec![1u8]))
    );
}

mod erased {
    use super::*;
    pub(super) trait Enc {
        fn enc(&self) -> Vec<u8>;
    }
    impl<T: Serialize> Enc for T {
        fn enc(&self) -> Vec<u8> {
            crate::to_vec_with(self, crate::Options::speed()).unwrap()
        }
    }
    pub(super) trait Ser {
        fn cell(&self, tape: &mut Tape, d: Depth) -> Cell;
    }
    impl<T: Serialize> Ser for T {
        fn cell(&self, tape: &mut Tape, depth: Depth) -> Cell {
            self.serialize(CellSer { tape, depth }).unwrap()
        }
    }
}

/// `Depth::enter` refuses exactly where entering one level at a time refuses (the real
/// serializer's rule), and otherwise lands at the same depth.
#[test]
fn entering_levels_at_once_refuses_where_one_at_a_time_does() {
    for limit in 0..5u32 {
        for depth in 0..7u32 {
            for levels in 0..4u32 {
                let one_by_one = (0..levels).try_fold(depth, |d, _| (d < limit).then_some(d + 1));
                let got = Depth { depth, limit }.enter(levels);
                match one_by_one {
                    Some(d) => assert_eq!(got.unwrap().depth, d, "{depth} {levels} {limit}"),
                    None => assert!(
                        matches!(got.unwrap_err().code(), ErrorCode::DepthLimit(l) if *l == limit),
                        "{depth} {levels} {limit}"
                    ),
                }
            }
        }
    }
}
