//! Tuple and struct variants in tagged columns (`docs/SPEC.md` §22.3, kind bit `10` on a
//! variant's list or struct column), tuples as list columns and long lists of structs as one
//! column set (§22.2): round trips are exact in every tier, a container presents the same
//! `Value` as its rows (variant kinds included), a request of the wrong variant kind fails as
//! in row mode, and the kind bit is refused anywhere but on a variant.

use crate::common::{F32b, TIERS, columns, round_trip_as_rows as check, unhex};
use qdf_core::inspect::{ColumnValues, EventKind};
use qdf_core::{Options, Value};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Action {
    Idle,
    Move { dx: i16, dy: i16 },
    Fire(u32),
    Turn(i8, u16),
    Say { text: String, to: Option<u32> },
    Path(Vec<(u8, u8)>),
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Pos(f32, f32);

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Contact {
    id: u32,
    at: (F32b, F32b),
    pos: Pos,
    event: (u8, u32, u16),
    action: Action,
    next: Option<Action>,
}

fn action(i: usize) -> Action {
    match i % 6 {
        0 => Action::Idle,
        1 => Action::Move {
            dx: i as i16 - 50,
            dy: 7 - i as i16,
        },
        2 => Action::Fire(i as u32 * 1_000),
        3 => Action::Turn(-(i as i8 % 100), i as u16 * 3),
        4 => Action::Say {
            text: ["gg", "help!", "lol"][i % 3].to_string(),
            to: (!i.is_multiple_of(4)).then_some(i as u32),
        },
        _ => Action::Path((0..i % 3).map(|k| (k as u8, i as u8)).collect()),
    }
}

fn contact(i: usize) -> Contact {
    let f = i as f32;
    Contact {
        id: i as u32,
        // Bits matter: −0.0, a NaN with a payload, a subnormal.
        at: match i % 7 {
            0 => (F32b(-0.0), F32b(f32::from_bits(0x7fc0_0001))),
            1 => (F32b(f32::from_bits(1)), F32b(f32::INFINITY)),
            _ => (F32b(f * 1.5 - 20.0), F32b(1000.0 - f / 3.0)),
        },
        pos: Pos(f, -f),
        event: ((i % 8) as u8, 40_000 + i as u32, (i * 7 % 1000) as u16),
        action: action(i),
        next: (!i.is_multiple_of(3)).then(|| action(i / 3)),
    }
}

fn contacts(n: usize) -> Vec<Contact> {
    (0..n).map(contact).collect()
}

/// `(depth, name, kind byte)` of every column of a message.
fn kinds(bytes: &[u8], opts: &Options) -> Vec<(u32, String, u8)> {
    let mut out = Vec::new();
    qdf_core::inspect::message(bytes, opts, &mut |e| {
        if let EventKind::Column { name, kind, .. } = &e.kind {
            out.push((e.depth, name.to_string(), *kind));
        }
    })
    .unwrap();
    out
}

#[test]
fn variants_and_tuples_round_trip_at_every_size() {
    for n in [1, 2, 15, 16, 17, 100, 1000] {
        check(&contacts(n));
    }
}

#[test]
fn variants_with_fields_are_tagged_columns_and_tuples_list_columns() {
    for tier in [Options::balanced, Options::compression] {
        let opts = tier();
        let bytes = qdf_core::to_vec_with(&contacts(100), opts).unwrap();
        let k = kinds(&bytes, &opts);
        let find = |depth: u32, name: &str| {
            k.iter()
                .find(|(d, n, _)| *d == depth && n == name)
                .map(|&(_, _, kind)| kind)
        };
        // No top-level column is residual.
        assert!(
            k.iter()
                .filter(|&&(depth, ..)| depth == 2)
                .all(|&(_, _, kind)| kind & 0x0F != 0x0F),
            "{k:?}"
        );
        assert_eq!(find(2, "at"), Some(0x07), "{k:?}");
        assert_eq!(find(2, "pos"), Some(0x07), "{k:?}");
        assert_eq!(find(2, "event"), Some(0x07), "{k:?}");
        assert_eq!(find(2, "action"), Some(0x08), "{k:?}");
        // Struct variants: struct columns with bit 10; tuple variants: list columns with it;
        // a newtype variant's payload without it; a unit variant `0F`.
        assert_eq!(find(3, "Move"), Some(0x15), "{k:?}");
        assert_eq!(find(3, "Turn"), Some(0x17), "{k:?}");
        assert_eq!(find(3, "Say"), Some(0x15), "{k:?}");
        assert_eq!(find(3, "Fire"), Some(0x01), "{k:?}");
        assert_eq!(find(3, "Path"), Some(0x07), "{k:?}");
        assert_eq!(find(3, "Idle"), Some(0x0F), "{k:?}");
        let tagged = columns(&bytes, &opts, |_, name, v| {
            matches!(v, ColumnValues::Tagged { .. }).then(|| name.to_string())
        });
        assert_eq!(tagged, ["action", "next"], "{tier:?}");
    }
}

/// A request of another variant kind fails on a container as it does on rows; each variant
/// read as its own kind succeeds.
#[test]
fn wrong_variant_kinds_fail_as_in_row_mode() {
    #[derive(Deserialize, Debug, PartialEq)]
    enum AsNewtype {
        Idle,
        Move(Value),
        Fire(u32),
        Turn(Value),
        Say(Value),
        Path(Value),
    }
    #[derive(Deserialize, Debug, PartialEq)]
    enum AsTuple {
        Idle,
        Move(i16, i16),
        Fire(u32),
        Turn(i8, u16),
        Say(String, Option<u32>),
        Path(Vec<(u8, u8)>),
    }
    #[derive(Deserialize, Debug, PartialEq)]
    enum AsStruct {
        Idle,
        Move { dx: i16, dy: i16 },
        Fire(u32),
        Turn { a: i8, b: u16 },
        Say { text: String, to: Option<u32> },
        Path(Vec<(u8, u8)>),
    }
    #[derive(Deserialize, Debug)]
    struct Row<A> {
        #[allow(dead_code)]
        action: A,
    }
    // One variant a batch, so the error names that variant's kind.
    for k in 0..6 {
        let v: Vec<Contact> = (0..40).map(|i| contact(6 * i + k)).collect();
        for tier in TIERS {
            let bytes = qdf_core::to_vec_with(&v, tier()).unwrap();
            let rows = qdf_core::to_vec_with(&v, Options::speed()).unwrap();
            let errs = |b: &[u8]| {
                [
                    qdf_core::from_slice::<Vec<Row<AsNewtype>>>(b).err(),
                    qdf_core::from_slice::<Vec<Row<AsTuple>>>(b).err(),
                    qdf_core::from_slice::<Vec<Row<AsStruct>>>(b).err(),
                ]
                .map(|e| e.map(|e| e.to_string().split(" at ").next().unwrap().to_string()))
            };
            assert_eq!(errs(&bytes), errs(&rows), "variant {k} {:?}", tier());
        }
    }
}

#[test]
fn values_keep_variant_kinds() {
    let v = contacts(50);
    let bytes = qdf_core::to_vec_with(&v, Options::balanced()).unwrap();
    let val: Value = qdf_core::from_slice(&bytes).unwrap();
    let text = val.to_string();
    assert!(
        text.contains(r#""action": Move {"dx": -49, "dy": 6}"#),
        "{text}"
    );
    assert!(text.contains(r#""action": Turn(-3, 9)"#), "{text}");
    assert!(
        text.contains(r#"Say {"text": "help!", "to": nil}"#),
        "{text}"
    );
    // The `Value` re-encodes in row mode to the bytes the rows give.
    let rows: Value =
        qdf_core::from_slice(&qdf_core::to_vec_with(&v, Options::speed()).unwrap()).unwrap();
    assert_eq!(val, rows);
    assert_eq!(
        qdf_core::to_vec_with(&val, Options::speed()).unwrap(),
        qdf_core::to_vec_with(&v, Options::speed()).unwrap()
    );
}

#[test]
fn subset_decode_skips_variant_columns() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Ids {
        id: u32,
        event: (u8, u32, u16),
    }
    for n in [2, 16, 100] {
        let v = contacts(n);
        for tier in TIERS {
            let bytes = qdf_core::to_vec_with(&v, tier()).unwrap();
            let got: Vec<Ids> = qdf_core::from_slice(&bytes).unwrap();
            let want: Vec<Ids> = v
                .iter()
                .map(|c| Ids {
                    id: c.id,
                    event: c.event,
                })
                .collect();
            assert_eq!(got, want);
        }
    }
}

/// Lists of 16 or more structs on average are one column set over all their items (§22.2):
/// pinned sizes, against the same lists with `NESTED_COLUMNS` off.
#[test]
fn long_lists_of_structs_are_one_column_set() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Update {
        tick: u32,
        contacts: Vec<Contact>,
    }
    let updates: Vec<Update> = (0..40)
        .map(|t| Update {
            tick: t as u32,
            contacts: (0..10 + t % 30).map(|i| contact(t * 64 + i)).collect(),
        })
        .collect();
    check(&updates);
    let opts = Options::balanced();
    let bytes = qdf_core::to_vec_with(&updates, opts).unwrap();
    let k = kinds(&bytes, &opts);
    assert_eq!(k[1], (2, "contacts".to_string(), 0x07), "{k:?}");
    let without = qdf_core::to_vec_with(
        &updates,
        opts.features(opts.features.without(qdf_core::Features::NESTED_COLUMNS)),
    )
    .unwrap();
    assert_eq!((bytes.len(), without.len()), (21_432, 42_520));
}

/// Kind bit `10` on a struct or list column is a variant's fields only: at the top level,
/// under a struct column, in the one-entry-map form, or nullable, it is refused.
#[test]
fn variant_fields_bit_is_refused_elsewhere() {
    // 2 rows {e: S {x}} as a tagged column (the enum form, one struct variant `S`).
    let good = "51 44 46 01 00 ef 02 00 01 81 65 08 01 81 53 15 01 81 78 01 a2 00 00 a2 03 04";
    let v: Value = qdf_core::from_slice(&unhex(good)).unwrap();
    assert_eq!(v.to_string(), r#"[{"e": S {"x": 3}}, {"e": S {"x": 4}}]"#);
    let bad = [
        // The struct column at the top level.
        "51 44 46 01 00 ef 02 00 01 81 65 15 01 81 78 01 a2 03 04",
        // The one-entry-map form.
        "51 44 46 01 00 ef 02 00 01 81 65 18 01 81 53 15 01 81 78 01 a2 00 00 a2 03 04",
        // Nullable.
        "51 44 46 01 00 ef 02 00 01 81 65 08 01 81 53 95 01 81 78 01 a2 00 00 03 a2 03 04",
        // Under a struct column.
        "51 44 46 01 00 ef 02 00 01 81 65 05 01 81 53 15 01 81 78 01 a2 03 04",
    ];
    for b in bad {
        let e = qdf_core::from_slice::<Value>(&unhex(b))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("kind bit 10") || e.contains("cannot be nullable"),
            "{b}: {e}"
        );
    }
}
