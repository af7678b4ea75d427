use super::*;

#[derive(Serialize)]
struct Ab {
    a: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    b: Option<&'static str>,
    c: i32,
}

fn d() -> Depth {
    Depth {
        depth: 1,
        limit: 128,
    }
}

#[test]
fn plan_inserts_at_the_cursor_and_detects_conflicts() {
    let mut b = Batch::default();
    assert_eq!(
        b.offer(
            &Ab {
                a: 1,
                b: None,
                c: -2
            },
            d()
        ),
        Offer::Taken
    );
    assert_eq!(
        b.offer(
            &Ab {
                a: 2,
                b: Some("x"),
                c: 3
            },
            d()
        ),
        Offer::Taken
    );
    let names: Vec<_> = b.order.iter().map(|&i| b.cols[i as usize]).collect();
    assert_eq!(names, ["a", "b", "c"]);
    let cols = b.columns();
    assert_eq!(cols[1], [(1, 3)]);
    assert_eq!(cols[0], [(0, 0), (1, 2)]);
    assert_eq!(b.scan(cols[0]).class, Class::Int { neg: false });
    assert_eq!(b.scan(cols[0]).vals, [1, 2]);
    assert_eq!(b.scan(cols[2]).class, Class::Int { neg: true });
    assert_eq!(b.scan(cols[1]).class, Class::Str);
    assert_eq!(b.scan(cols[1]).strs, [b"x"]);
    assert_eq!(b.offer(&5u8, d()), Offer::Refused);
    assert_eq!(b.cells.len(), 5);
    let mut m = std::collections::BTreeMap::new();
    m.insert("c", 1);
    assert_eq!(b.offer(&m, d()), Offer::Refused);
    #[derive(Serialize)]
    struct Ca {
        c: u8,
        a: u8,
    }
    assert_eq!(b.offer(&Ca { c: 1, a: 2 }, d()), Offer::Conflict);
    assert_eq!(b.rows.len(), 3, "the conflicting row is kept for replay");
}

/// Everything of a batch that planning and writing read (not the spare capacity).
fn state(b: &Batch) -> String {
    format!(
        "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        b.rows, b.cells, b.cols, b.order, b.pos, b.present, b.conflict, b.hint, b.tape,
    )
}

#[derive(Serialize)]
enum Act {
    Idle,
    Move { dx: i16 },
}

#[derive(Serialize)]
struct Wide {
    z: Vec<u16>,
    name: String,
    act: Act,
    t: (u8, Option<u32>),
    m: std::collections::BTreeMap<String, u8>,
}

/// A recycled batch captures the next sequence exactly as a fresh one: the same rows, cells,
/// columns and tape, whatever the sequence before it held (other fields, a conflict, a
/// refused element, checked map keys).
#[test]
fn a_recycled_batch_captures_as_a_fresh_one() {
    let wide = |i: u8| Wide {
        z: (0..i as u16).collect(),
        name: "n".repeat(i as usize),
        act: if i.is_multiple_of(2) {
            Act::Idle
        } else {
            Act::Move { dx: -(i as i16) }
        },
        t: (i, i.is_multiple_of(3).then_some(7)),
        m: (0..i % 4).map(|k| (format!("k{k}"), k)).collect(),
    };
    let ab = |i: u8| Ab {
        a: i,
        b: (i % 2 == 1).then_some("x"),
        c: -(i as i32),
    };
    // Each sequence: its announced length, key checking, and what to offer.
    type Fill = fn(&mut Batch, &dyn Fn(u8) -> Wide, &dyn Fn(u8) -> Ab);
    let seqs: [(usize, bool, Fill); 5] = [
        (5, false, |b, w, _| {
            (0..5).for_each(|i| {
                let _ = b.offer(&w(i), d());
            })
        }),
        (3, true, |b, _, a| {
            (0..3).for_each(|i| {
                let _ = b.offer(&a(i), d());
            })
        }),
        (9, true, |b, w, a| {
            (0..4).for_each(|i| {
                let _ = b.offer(&w(i), d());
            });
            assert_eq!(b.offer(&5u8, d()), Offer::Refused);
            {
                let _ = b.offer(&a(1), d());
            };
        }),
        (7, false, |b, _, a| {
            (0..7).for_each(|i| {
                let _ = b.offer(&a(i), d());
            });
        }),
        (2, true, |b, w, _| {
            (3..5).for_each(|i| {
                let _ = b.offer(&w(i), d());
            })
        }),
    ];
    let mut reused = Batch::new(0, false);
    for (k, &(len, keys, fill)) in seqs.iter().enumerate() {
        let mut fresh = Batch::new(len, keys);
        fill(&mut fresh, &wide, &ab);
        assert!(reused.recycle());
        reused.reuse(len, keys);
        fill(&mut reused, &wide, &ab);
        assert_eq!(state(&reused), state(&fresh), "sequence {k}");
        assert!(!fresh.rows.is_empty());
    }
    // Past the kept size a batch is not recycled (the caller drops it): here the rows a
    // sequence of unknown length reserves.
    assert!(!Batch::new(usize::MAX, false).recycle());
    let mut big = Batch::new(0, false);
    big.tape.arena.reserve(MAX_KEPT + 1);
    assert!(!big.recycle());
}

#[derive(Serialize)]
struct Nt(u8);

#[derive(Serialize)]
struct Inner {
    k: i8,
    #[serde(skip_serializing_if = "Option::is_none")]
    opt: Option<u16>,
    some: Option<Option<u8>>,
    act: Act,
    t: (u8, Vec<bool>),
    s: String,
    big: i128,
}

#[derive(Serialize)]
struct Ba {
    b: u8,
    a: u8,
}

#[derive(Serialize)]
struct Holder<T> {
    rows: Vec<T>,
}

/// A batch's cells as the values they stand for (Speed bytes of their replay), so batches
/// over different tapes compare.
fn values(b: &Batch, tape: &Tape) -> Vec<Vec<u8>> {
    let opts = crate::Options::speed();
    let cell = |f: &Field| {
        crate::to_vec_with(
            &super::super::tape::CellRef {
                cell: &f.cell,
                tape,
            },
            opts,
        )
    };
    b.cells.iter().map(|f| cell(f).unwrap()).collect()
}

/// The rows of the `Vec` captured as the one field of `h`, read off the tape by
/// `rows_of` at `depth`, against each element's replay offered to a fresh batch:
/// `Some(same)` when `rows_of` takes them, `None` when it declines.
fn rows_of_vs_offer<T: Serialize>(h: &Holder<T>, depth: Depth) -> Option<bool> {
    let mut outer = Batch::new(1, false);
    assert_eq!(outer.offer(h, d()), Offer::Taken);
    let Cell::Other(at) = outer.cells[0].cell else {
        panic!("the rows are a captured value")
    };
    let src = &outer.tape;
    let mut read = Batch::new(h.rows.len(), false);
    let events = read.rows_of(src, at as usize, depth)?;
    let mut replayed = Batch::new(h.rows.len(), false);
    let Ev::Open(_, end) = src.evs[at as usize] else {
        panic!("a sequence")
    };
    let mut i = at as usize + 1;
    while i < end as usize {
        let item = super::super::tape::EvRef {
            tape: src,
            at: i as u32,
        };
        assert_eq!(replayed.offer(&item, depth), Offer::Taken);
        i = src.next(i);
    }
    let plan = |b: &Batch| format!("{:?} {:?} {:?} {:?}", b.rows, b.cols, b.order, b.present);
    Some(
        plan(&read) == plan(&replayed)
            && values(&read, src) == values(&replayed, &replayed.tape)
            && events == replayed.tape.evs.len(),
    )
}

/// `rows_of` makes the plan, cells and event count the capture of each element's replay
/// makes, and declines whatever the replay would not take as rows or might refuse.
#[test]
fn rows_read_off_the_tape_equal_the_capture_of_their_replay() {
    let inner = |i: u8| Inner {
        k: -(i as i8),
        opt: (!i.is_multiple_of(3)).then_some(300 + i as u16),
        some: match i % 3 {
            0 => None,
            1 => Some(None),
            _ => Some(Some(i)),
        },
        act: if i.is_multiple_of(2) {
            Act::Idle
        } else {
            Act::Move { dx: i as i16 }
        },
        t: (i, vec![i.is_multiple_of(2); i as usize % 4]),
        s: "x".repeat(i as usize),
        big: if i.is_multiple_of(4) {
            i128::MAX
        } else {
            -(i as i128)
        },
    };
    let rows = Holder {
        rows: (0..9).map(inner).collect(),
    };
    assert_eq!(rows_of_vs_offer(&rows, d()), Some(true));
    // Other fields from the second row on, and an absent one: the plan inserts them.
    let ab = Holder {
        rows: (0..5)
            .map(|i| Ab {
                a: i,
                b: (i > 1).then_some("y"),
                c: 7,
            })
            .collect(),
    };
    assert_eq!(rows_of_vs_offer(&ab, d()), Some(true));
    // Declined: no element, a field order the plan refuses, no structs, a newtype.
    assert_eq!(rows_of_vs_offer(&Holder::<Ab> { rows: vec![] }, d()), None);
    #[derive(Serialize)]
    #[serde(untagged)]
    enum Either {
        Ab(Ba),
        Ba(Ab),
    }
    let conflict = Holder {
        rows: vec![
            Either::Ab(Ba { b: 1, a: 2 }),
            Either::Ba(Ab {
                a: 1,
                b: Some("z"),
                c: 3,
            }),
        ],
    };
    assert_eq!(rows_of_vs_offer(&conflict, d()), None);
    assert_eq!(rows_of_vs_offer(&Holder { rows: vec![1u8, 2] }, d()), None);
    #[derive(Serialize)]
    struct WithNt {
        n: Nt,
    }
    assert_eq!(
        rows_of_vs_offer(
            &Holder {
                rows: vec![WithNt { n: Nt(1) }]
            },
            d()
        ),
        None
    );
    // Near the depth limit: declined where a capture could be refused, taken below.
    let deep = |depth: u32| Depth { depth, limit: 20 };
    let nested = Holder {
        rows: vec![Holder {
            rows: vec![Holder {
                rows: vec![Ab {
                    a: 1,
                    b: None,
                    c: 2,
                }],
            }],
        }],
    };
    assert_eq!(rows_of_vs_offer(&nested, deep(5)), Some(true));
    assert_eq!(rows_of_vs_offer(&nested, deep(12)), None);
}

/// Float columns: the loop of their own (one kind, no nulls) finds what the general loop
/// finds, and any other column goes the general loop.
#[test]
fn float_columns_scan_as_the_general_loop() {
    let f = |v: f32| Cell::F32(v.to_bits());
    let d = |v: f64| Cell::F64(v.to_bits());
    let scan = |cells: &[Cell]| {
        let s = scan_cells(cells.iter().copied(), cells.len(), &[]);
        (s.class, s.nulls, s.num_cost, s.vals)
    };
    let bits32 = |v: &[f32]| v.iter().map(|x| u64::from(x.to_bits())).collect::<Vec<_>>();
    assert_eq!(
        scan(&[f(1.5), f(-0.0), f(f32::NAN)]),
        (Class::F32, 0, 15, bits32(&[1.5, -0.0, f32::NAN]))
    );
    assert_eq!(
        scan(&[d(0.1), d(f64::INFINITY)]),
        (
            Class::F64,
            0,
            18,
            vec![0.1f64.to_bits(), f64::INFINITY.to_bits()]
        )
    );
    // A null after the first: the general loop counts it (1 byte) and keeps the class.
    assert_eq!(
        scan(&[f(2.0), Cell::Null, f(3.0)]),
        (Class::F32, 1, 11, bits32(&[2.0, 3.0]))
    );
    assert_eq!(
        scan(&[Cell::Null, d(2.0)]),
        (Class::F64, 1, 10, vec![2.0f64.to_bits()])
    );
    // Two float kinds, or a float and an integer: residual.
    assert_eq!(scan(&[f(1.0), d(1.0)]).0, Class::Residual);
    assert_eq!(scan(&[d(1.0), Cell::Int(1, false)]).0, Class::Residual);
}
