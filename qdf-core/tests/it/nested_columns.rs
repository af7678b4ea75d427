//! The regression net of issues #20 (columnar containers for nested data: list, map and struct
//! child columns) and #27 (columns across sibling lists; canonical decimal-string and hex
//! string columns), written against today's encoder, which keeps nested parts row-major.
//!
//! Every case round-trips exactly (floats by bits) in all three tiers, at the 16-row columnar
//! threshold and around it (15, 16, 17, 100, 1 000 rows), through the typed target and through
//! `Value`. Nesting goes 1–4 levels deep: lists of structs holding lists, maps, structs,
//! options, tuples, `Vec<(K, V)>` and enums (unit, data, `Option<enum>`), packed primitive
//! lists; empty and absent lists and maps at every level, `None` against empty, schema
//! evolution inside nested structs, subset decode at every level, sibling lists of 1 to 40
//! rows under common parents (the OTLP grouping), and numeric-looking strings, canonical or
//! not, that must come back byte for byte. Public API only.

use std::collections::BTreeMap;
use std::fmt::Debug;

use crate::common::{TIERS, round_trip};
use proptest::prelude::*;
use qdf_core::{Category, Options, Value};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Row counts at and around the columnar threshold (§22: 16 rows).
const SIZES: [usize; 5] = [15, 16, 17, 100, 1_000];

/// The Speed encoding: one wire form per value, every float by its bits.
fn speed_bytes<T: Serialize + ?Sized>(v: &T) -> Vec<u8> {
    qdf_core::to_vec_with(v, Options::speed()).expect("Speed encodes")
}

/// Encodes `v` in every tier and decodes it back typed: the result has the same Speed bytes
/// (floats by bits, NaN payloads and `-0.0` included) and, when `v == v` (no NaN), is `==`;
/// such values also go through `common::round_trip` (the `Value` path). Returns the
/// [Speed, Balanced, Compression] sizes.
fn exact<T: Serialize + DeserializeOwned + PartialEq + Debug>(v: &T) -> [usize; 3] {
    let want = speed_bytes(v);
    let mut sizes = [0; 3];
    for (i, tier) in TIERS.iter().enumerate() {
        let opts = tier();
        let bytes = qdf_core::to_vec_with(v, opts).expect("encodes");
        let back: T = qdf_core::from_slice_with(&bytes, opts).expect("decodes");
        assert_eq!(speed_bytes(&back), want, "tier {i}: not bit-exact");
        sizes[i] = bytes.len();
    }
    // `v != v` exactly when `v` holds a NaN, which `==` cannot compare.
    #[allow(clippy::eq_op)]
    let no_nan = v == v;
    if no_nan {
        round_trip(v);
    }
    sizes
}

/// A cheap deterministic mix of `i` (not a generator: the same `i` gives the same value).
fn mix(i: usize, salt: u64) -> u64 {
    let mut x = (i as u64 ^ salt.rotate_left(17)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 29;
    x.wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ (x >> 32)
}

// ---------------------------------------------------------------------------------------------
// Types: an OTLP-like tree (resource → scope → item → event → attribute → array value) with
// the shapes of the game-state and mesh datasets inside items.

/// A unit-variant enum (a dictionary-code column candidate).
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
enum Kind {
    Internal,
    Server,
    Client,
    Producer,
    Consumer,
}

const KINDS: [Kind; 5] = [
    Kind::Internal,
    Kind::Server,
    Kind::Client,
    Kind::Producer,
    Kind::Consumer,
];

/// OTLP's `AnyValue` as a data enum, recursive through arrays and key/value lists.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum AnyV {
    Str(String),
    Int(i64),
    Bool(bool),
    Double(f64),
    Arr(Vec<AnyV>),
    Kvs(Vec<Kv>),
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Kv {
    key: String,
    value: Option<AnyV>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
struct Vec3 {
    x: f32,
    y: f32,
    z: f32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Status {
    code: u8,
    message: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Event {
    time: u64,
    name: String,
    attrs: Vec<Kv>,
}

/// One row: every nested shape of issue #20 in one struct.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Item {
    id: u64,
    name: String,
    kind: Kind,
    level: Option<Kind>,
    status: Option<Status>,
    attrs: Vec<Kv>,
    tags: BTreeMap<String, String>,
    pairs: Vec<(String, i64)>,
    event: (u8, u32, u16),
    turrets: Vec<u16>,
    fog: Vec<Vec<bool>>,
    pos: Option<Vec3>,
    normal: Vec3,
    events: Vec<Event>,
    weight: f64,
    team: Option<u32>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Scope {
    name: String,
    version: Option<String>,
    items: Vec<Item>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Resource {
    attrs: Vec<Kv>,
    scopes: Vec<Scope>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Doc {
    resources: Vec<Resource>,
}

fn kv(i: usize, j: usize) -> Kv {
    let h = mix(i * 31 + j, 7);
    let value = match h % 7 {
        0 => None,
        1 => Some(AnyV::Int(h as i64 >> (h % 60))),
        2 => Some(AnyV::Bool(h & 8 == 0)),
        3 => Some(AnyV::Double((h % 10_000) as f64 / 7.0)),
        4 => Some(AnyV::Arr(
            (0..h % 3).map(|k| AnyV::Int(k as i64 - 1)).collect(),
        )),
        5 => Some(AnyV::Kvs(vec![Kv {
            key: "inner".into(),
            value: Some(AnyV::Str(format!("v{}", h % 5))),
        }])),
        _ => Some(AnyV::Str(format!("value-{}", h % 13))),
    };
    Kv {
        key: [
            "http.method",
            "http.route",
            "db.system",
            "rpc.service",
            "peer",
        ][j % 5]
            .into(),
        value,
    }
}

fn vec3(i: usize, salt: u64) -> Vec3 {
    let f = |k: u64| (mix(i, salt + k) % 2_000_000) as f32 / 1_000_000.0 - 1.0;
    Vec3 {
        x: f(0),
        y: f(1),
        z: f(2),
    }
}

/// Row `i`: list lengths, options and enums vary with `i`, so empty, absent and present
/// values mix in every column.
fn item(i: usize) -> Item {
    let h = mix(i, 1);
    Item {
        id: 1_748_779_200_000_000_000 + i as u64 * 1_000_003,
        name: format!("GET /api/{}", h % 9),
        kind: KINDS[(h % 5) as usize],
        level: (!h.is_multiple_of(3)).then(|| KINDS[(h >> 8) as usize % 5]),
        status: h.is_multiple_of(4).then(|| Status {
            code: (h % 3) as u8,
            message: if h.is_multiple_of(8) {
                String::new()
            } else {
                "boom".into()
            },
        }),
        attrs: (0..(h >> 4) as usize % 6).map(|j| kv(i, j)).collect(),
        tags: (0..(h >> 12) as usize % 4)
            .map(|j| (format!("t{j}"), format!("{}", mix(i, j as u64) % 100)))
            .collect(),
        pairs: (0..(h >> 16) as usize % 3)
            .map(|j| (format!("k{j}"), (mix(i, 9 + j as u64) as i64) >> 40))
            .collect(),
        event: ((h % 7) as u8, (h >> 20) as u32, (h >> 40) as u16),
        turrets: (0..(h >> 24) as usize % 5)
            .map(|j| (j * 9000) as u16)
            .collect(),
        fog: (0..(h >> 28) as usize % 3)
            .map(|r| {
                (0..(r + i) % 5)
                    .map(|c| (c + r + i).is_multiple_of(3))
                    .collect()
            })
            .collect(),
        pos: (!h.is_multiple_of(5)).then(|| vec3(i, 100)),
        normal: vec3(i, 200),
        events: (0..(h >> 32) as usize % 3)
            .map(|j| Event {
                time: 1_748_779_200_000_000_000 + (i * 10 + j) as u64,
                name: ["exception", "message", "retry"][j % 3].into(),
                attrs: (0..j).map(|k| kv(i + 1, k)).collect(),
            })
            .collect(),
        weight: (h % 1000) as f64 * 0.125,
        team: (h % 6 < 2).then_some((h % 4) as u32),
    }
}

fn items(n: usize) -> Vec<Item> {
    (0..n).map(item).collect()
}

/// A resource → scope → item tree; `lists` gives per resource the item count of each scope.
fn doc(lists: &[&[usize]]) -> Doc {
    let mut next = 0;
    let resources = lists.iter().enumerate().map(|(r, scopes)| Resource {
        attrs: (0..r % 4).map(|j| kv(r, j)).collect(),
        scopes: scopes
            .iter()
            .enumerate()
            .map(|(s, &n)| {
                let scope = Scope {
                    name: format!("scope-{r}-{s}"),
                    version: (s % 2 == 0).then(|| "1.0".into()),
                    items: (next..next + n).map(item).collect(),
                };
                next += n;
                scope
            })
            .collect(),
    });
    Doc {
        resources: resources.collect(),
    }
}

// ---------------------------------------------------------------------------------------------
// Round trips at the threshold, 1–4 levels deep.

#[test]
fn items_round_trip_at_the_threshold_and_above() {
    for n in SIZES {
        let v = items(n);
        let [speed, balanced, compression] = exact(&v);
        // Balanced and Compression never grow past Speed on this shape.
        assert!(
            balanced <= speed && compression <= speed,
            "{n}: {speed} {balanced}"
        );
    }
}

#[test]
fn two_levels_scopes_of_items() {
    for n in SIZES {
        let scopes: Vec<Scope> = (0..3)
            .map(|s| Scope {
                name: format!("s{s}"),
                version: None,
                items: (s * n..(s + 1) * n).map(item).collect(),
            })
            .collect();
        exact(&scopes);
    }
}

#[test]
fn three_levels_resources_scopes_items() {
    for n in SIZES {
        let d = doc(&[&[n, 1], &[n / 2], &[n, n]]);
        exact(&d);
        let back: Doc = qdf_core::from_slice(&qdf_core::to_vec(&d).unwrap()).unwrap();
        assert_eq!(back.resources[2].scopes[1].items.len(), n);
        assert_eq!(back.resources[0].scopes[0].items[n - 1], item(n - 1));
    }
}

#[test]
fn four_levels_events_attributes_arrays() {
    // Item → events → attrs → value → Arr/Kvs: every row carries the deepest shapes.
    let deep = |i: usize| Item {
        events: (0..3)
            .map(|j| Event {
                time: i as u64,
                name: "e".into(),
                attrs: vec![
                    Kv {
                        key: "arr".into(),
                        value: Some(AnyV::Arr(vec![
                            AnyV::Int(i as i64),
                            AnyV::Arr(vec![AnyV::Bool(j % 2 == 0)]),
                        ])),
                    },
                    Kv {
                        key: "kvs".into(),
                        value: Some(AnyV::Kvs(vec![kv(i, j); j])),
                    },
                ],
            })
            .collect(),
        ..item(i)
    };
    for n in SIZES {
        let v: Vec<Item> = (0..n).map(deep).collect();
        exact(&v);
        let d = Doc {
            resources: vec![Resource {
                attrs: Vec::new(),
                scopes: vec![Scope {
                    name: "deep".into(),
                    version: None,
                    items: v,
                }],
            }],
        };
        exact(&d);
    }
}

// ---------------------------------------------------------------------------------------------
// Empty, absent, None against empty.

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Holes {
    list: Option<Vec<u32>>,
    map: Option<BTreeMap<String, u8>>,
    rows: Option<Vec<Inner>>,
    inner: Option<Inner>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Inner {
    list: Option<Vec<String>>,
    map: BTreeMap<u16, Option<Vec<u8>>>,
    deeper: Vec<Option<Vec<Option<bool>>>>,
}

/// Row `i` cycles through None, Some(empty) and Some(non-empty) at every level.
fn holes(i: usize) -> Holes {
    let pick = |k: usize| (i / 3usize.pow(k as u32)) % 3;
    let inner = |i: usize| Inner {
        list: match pick(1) {
            0 => None,
            1 => Some(Vec::new()),
            _ => Some(vec![format!("s{i}"), String::new()]),
        },
        map: match pick(2) {
            0 => BTreeMap::new(),
            1 => [(1, None), (2, Some(Vec::new()))].into(),
            _ => [(i as u16, Some(vec![i as u8]))].into(),
        },
        deeper: match pick(3) {
            0 => Vec::new(),
            1 => vec![None, Some(Vec::new())],
            _ => vec![Some(vec![None, Some(true), Some(false)])],
        },
    };
    Holes {
        list: match pick(0) {
            0 => None,
            1 => Some(Vec::new()),
            _ => Some(vec![i as u32; i % 4 + 1]),
        },
        map: match pick(1) {
            0 => None,
            1 => Some(BTreeMap::new()),
            _ => Some([("a".into(), i as u8)].into()),
        },
        rows: match pick(2) {
            0 => None,
            1 => Some(Vec::new()),
            _ => Some((0..i % 20).map(inner).collect()),
        },
        inner: (pick(0) != 0).then(|| inner(i)),
    }
}

#[test]
fn empty_and_absent_at_every_level() {
    for n in SIZES {
        let v: Vec<Holes> = (0..n).map(holes).collect();
        exact(&v);
        // The same rows under a parent list, with empty and absent parents among them.
        let parents: Vec<Option<Vec<Holes>>> = (0..n)
            .map(|i| match i % 3 {
                0 => None,
                1 => Some(Vec::new()),
                _ => Some((i..i + 17).map(holes).collect()),
            })
            .collect();
        exact(&parents);
    }
}

#[test]
fn none_and_empty_stay_apart() {
    let v: Vec<Holes> = (0..81).map(holes).collect();
    for tier in TIERS {
        let b = qdf_core::to_vec_with(&v, tier()).unwrap();
        let back: Vec<Holes> = qdf_core::from_slice(&b).unwrap();
        assert_eq!(back[0].list, None);
        assert_eq!(back[1].list, Some(Vec::new()));
        assert_eq!(back[2].list, Some(vec![2, 2, 2]));
        assert_eq!(back[0].map, None);
        assert_eq!(back[3].map, Some(BTreeMap::new()));
        assert_eq!(back[6].map, Some([("a".to_owned(), 6)].into()));
        assert_eq!(back[9].rows, Some(Vec::new()));
        assert_eq!(back[18].rows.as_ref().map(Vec::len), Some(18));
        assert_eq!(back[0].inner, None);
        assert_eq!(back[1].inner.as_ref().unwrap().deeper, Vec::new());
        let deeper = &back[28].inner.as_ref().unwrap().deeper;
        assert_eq!(deeper, &vec![None, Some(Vec::new())]);
        assert_eq!(back[13].inner.as_ref().unwrap().list, Some(Vec::new()));
        assert_eq!(back, v);
    }
}

#[test]
fn every_list_empty_or_every_option_absent() {
    let empty = |i: usize| Item {
        level: None,
        status: None,
        attrs: Vec::new(),
        tags: BTreeMap::new(),
        pairs: Vec::new(),
        turrets: Vec::new(),
        fog: Vec::new(),
        pos: None,
        events: Vec::new(),
        team: None,
        ..item(i)
    };
    for n in SIZES {
        exact(&(0..n).map(empty).collect::<Vec<_>>());
        let d = Doc {
            resources: (0..n)
                .map(|r| Resource {
                    attrs: Vec::new(),
                    scopes: vec![
                        Scope {
                            name: String::new(),
                            version: None,
                            items: Vec::new(),
                        };
                        r % 3
                    ],
                })
                .collect(),
        };
        exact(&d);
    }
}

// ---------------------------------------------------------------------------------------------
// Enums, tuples, packed lists, maps, pairs: the shapes of the game-state and mesh datasets.

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Action {
    Idle,
    Move { dx: i16, dy: i16 },
    Fire(u32),
    Chat(String),
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Contact {
    kind: Kind,
    entity_type: Option<Kind>,
    action: Action,
    maybe_action: Option<Action>,
    position: (f32, f32),
    reloads: Vec<bool>,
    turrets: Vec<u16>,
    events: Vec<(u8, u32, u16)>,
    fog: Vec<Vec<bool>>,
}

fn contact(i: usize) -> Contact {
    let h = mix(i, 3);
    Contact {
        kind: KINDS[(h % 5) as usize],
        entity_type: (!h.is_multiple_of(4)).then(|| KINDS[(h >> 4) as usize % 5]),
        action: match h % 4 {
            0 => Action::Idle,
            1 => Action::Move {
                dx: (h >> 8) as i16,
                dy: -((h >> 24) as i16),
            },
            2 => Action::Fire((h >> 16) as u32),
            _ => Action::Chat(format!("gg {}", h % 3)),
        },
        maybe_action: h.is_multiple_of(3).then_some(Action::Idle),
        position: ((h % 1000) as f32 * 0.5, -(((h >> 10) % 1000) as f32)),
        reloads: (0..(h >> 5) % 4).map(|k| (h >> k) & 1 == 1).collect(),
        turrets: (0..(h >> 9) % 3).map(|k| (k * 21_845) as u16).collect(),
        events: (0..(h >> 13) % 3)
            .map(|k| (k as u8, (h >> 20) as u32, k as u16 * 7))
            .collect(),
        fog: (0..(h >> 17) % 3)
            .map(|r| vec![r % 2 == 0; r as usize])
            .collect(),
    }
}

#[test]
fn enum_tuple_and_packed_list_columns() {
    for n in SIZES {
        let contacts: Vec<Contact> = (0..n).map(contact).collect();
        exact(&contacts);
        // As the game state nests them: updates holding contact lists.
        let updates: Vec<Vec<Contact>> = (0..n.min(100))
            .map(|u| (u..u + u % 20).map(contact).collect())
            .collect();
        exact(&updates);
        let back: Vec<Contact> =
            qdf_core::from_slice(&qdf_core::to_vec(&contacts).unwrap()).unwrap();
        assert_eq!(back[n - 1].entity_type, contact(n - 1).entity_type);
        assert_eq!(back[1].action, contact(1).action);
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
struct Triangle {
    v0: Vec3,
    v1: Vec3,
    v2: Vec3,
    normal: Vec3,
}

#[test]
fn struct_fields_of_structs_floats_by_bits() {
    let special = [
        f32::NAN,
        f32::from_bits(0x7fc0_0001),
        -0.0,
        0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::from_bits(1),
        f32::MAX,
    ];
    for n in SIZES {
        let mesh: Vec<Triangle> = (0..n)
            .map(|i| Triangle {
                v0: vec3(i, 1),
                v1: vec3(i, 2),
                v2: Vec3 {
                    x: special[i % special.len()],
                    ..vec3(i, 3)
                },
                normal: vec3(i, 4),
            })
            .collect();
        // NaN rows are compared by bits only (`exact` checks the Speed bytes).
        exact(&mesh);
        for tier in TIERS {
            let b = qdf_core::to_vec_with(&mesh, tier()).unwrap();
            let back: Vec<Triangle> = qdf_core::from_slice(&b).unwrap();
            let bits = |t: &[Triangle]| -> Vec<u32> {
                t.iter()
                    .flat_map(|t| [t.v0, t.v1, t.v2, t.normal])
                    .flat_map(|v| [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()])
                    .collect()
            };
            assert_eq!(bits(&back), bits(&mesh));
        }
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Maps {
    by_name: BTreeMap<String, u32>,
    by_int: BTreeMap<i64, Vec<String>>,
    of_structs: BTreeMap<String, Status>,
    pairs: Vec<(String, Option<f64>)>,
    keyed: Vec<(u16, Vec<(u8, bool)>)>,
}

#[test]
fn maps_and_pair_lists() {
    let row = |i: usize| Maps {
        by_name: (0..i % 5)
            .map(|j| {
                (
                    ["host", "pod", "node", "zone", "az"][j].into(),
                    (i * j) as u32,
                )
            })
            .collect(),
        by_int: (0..i % 3)
            .map(|j| (j as i64 - 1, vec![format!("{i}"); j]))
            .collect(),
        of_structs: (0..i % 2)
            .map(|j| {
                (
                    format!("k{j}"),
                    Status {
                        code: j as u8,
                        message: "m".into(),
                    },
                )
            })
            .collect(),
        pairs: (0..i % 4)
            .map(|j| (format!("p{j}"), (j % 2 == 0).then_some(j as f64 / 3.0)))
            .collect(),
        keyed: (0..i % 3)
            .map(|j| (j as u16, vec![(j as u8, i.is_multiple_of(2)); j]))
            .collect(),
    };
    for n in SIZES {
        exact(&(0..n).map(row).collect::<Vec<_>>());
    }
}

// ---------------------------------------------------------------------------------------------
// Schema evolution inside nested structs.

mod v1 {
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    pub struct Leaf {
        pub a: u32,
        pub s: String,
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    pub struct Mid {
        pub name: String,
        pub leaves: Vec<Leaf>,
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    pub struct Top {
        pub id: u64,
        pub mids: Vec<Mid>,
    }
}

mod v2 {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Serialize};

    /// v1's `Leaf` with a field added in the middle and one at the end.
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    pub struct Leaf {
        pub a: u32,
        #[serde(default)]
        pub added: Option<Vec<u16>>,
        pub s: String,
        #[serde(default)]
        pub tail: BTreeMap<String, i8>,
    }

    /// v1's `Mid` with a nested struct field added.
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    pub struct Mid {
        pub name: String,
        #[serde(default)]
        pub extra: Option<Leaf>,
        pub leaves: Vec<Leaf>,
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    pub struct Top {
        pub id: u64,
        pub mids: Vec<Mid>,
        #[serde(default)]
        pub flags: Vec<bool>,
    }
}

fn v1_top(i: usize, n: usize) -> v1::Top {
    v1::Top {
        id: i as u64,
        mids: (0..i % 3 + 1)
            .map(|m| v1::Mid {
                name: format!("m{m}"),
                leaves: (0..n)
                    .map(|l| v1::Leaf {
                        a: (i * 100 + m * 10 + l) as u32,
                        s: format!("leaf {l}"),
                    })
                    .collect(),
            })
            .collect(),
    }
}

fn v2_of(t: &v1::Top, fill: bool) -> v2::Top {
    let leaf = |l: &v1::Leaf| v2::Leaf {
        a: l.a,
        added: fill.then(|| vec![l.a as u16; (l.a % 3) as usize]),
        s: l.s.clone(),
        tail: if fill && l.a.is_multiple_of(2) {
            [("t".into(), -1)].into()
        } else {
            BTreeMap::new()
        },
    };
    v2::Top {
        id: t.id,
        mids: t
            .mids
            .iter()
            .map(|m| v2::Mid {
                name: m.name.clone(),
                extra: (fill && m.leaves.len() % 2 == 1).then(|| leaf(&m.leaves[0])),
                leaves: m.leaves.iter().map(leaf).collect(),
            })
            .collect(),
        flags: if fill {
            vec![true; t.id as usize % 3]
        } else {
            Vec::new()
        },
    }
}

#[test]
fn newer_writer_older_reader_inside_nested_structs() {
    for n in SIZES {
        let old: Vec<v1::Top> = (0..n.min(100)).map(|i| v1_top(i, n.min(40))).collect();
        let new: Vec<v2::Top> = old.iter().map(|t| v2_of(t, true)).collect();
        for tier in TIERS {
            let b = qdf_core::to_vec_with(&new, tier()).unwrap();
            let back: Vec<v1::Top> = qdf_core::from_slice_with(&b, tier()).unwrap();
            assert_eq!(back, old, "{n} rows");
        }
    }
}

#[test]
fn older_writer_newer_reader_takes_the_defaults() {
    for n in SIZES {
        let old: Vec<v1::Top> = (0..n.min(100)).map(|i| v1_top(i, n.min(40))).collect();
        let want: Vec<v2::Top> = old.iter().map(|t| v2_of(t, false)).collect();
        for tier in TIERS {
            let b = qdf_core::to_vec_with(&old, tier()).unwrap();
            let back: Vec<v2::Top> = qdf_core::from_slice_with(&b, tier()).unwrap();
            assert_eq!(back, want, "{n} rows");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Subset decode: targets naming fewer fields, at every level.

/// `Doc` read with one field per level, and that level's deeper lists dropped.
mod subset {
    use serde::Deserialize;

    #[derive(Deserialize, Debug, PartialEq)]
    pub struct Doc {
        pub resources: Vec<Resource>,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    pub struct Resource {
        pub scopes: Vec<Scope>,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    pub struct Scope {
        pub items: Vec<Item>,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    pub struct Item {
        pub id: u64,
        pub events: Vec<Event>,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    pub struct Event {
        pub attrs: Vec<Kv>,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    pub struct Kv {
        pub key: String,
    }

    /// Only the first level's lengths.
    #[derive(Deserialize, Debug, PartialEq)]
    pub struct Counts {
        pub resources: Vec<serde::de::IgnoredAny>,
    }

    /// A middle level only: scope names.
    #[derive(Deserialize, Debug, PartialEq)]
    pub struct Names {
        pub resources: Vec<NamesR>,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    pub struct NamesR {
        pub scopes: Vec<NamesS>,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    pub struct NamesS {
        pub name: String,
    }
}

fn project(d: &Doc) -> subset::Doc {
    subset::Doc {
        resources: d
            .resources
            .iter()
            .map(|r| subset::Resource {
                scopes: r
                    .scopes
                    .iter()
                    .map(|s| subset::Scope {
                        items: s
                            .items
                            .iter()
                            .map(|it| subset::Item {
                                id: it.id,
                                events: it
                                    .events
                                    .iter()
                                    .map(|e| subset::Event {
                                        attrs: e
                                            .attrs
                                            .iter()
                                            .map(|a| subset::Kv { key: a.key.clone() })
                                            .collect(),
                                    })
                                    .collect(),
                            })
                            .collect(),
                    })
                    .collect(),
            })
            .collect(),
    }
}

#[test]
fn subset_decode_at_every_level() {
    for n in SIZES {
        let d = doc(&[&[n], &[1, n, 2], &[n / 2 + 1]]);
        for tier in TIERS {
            let b = qdf_core::to_vec_with(&d, tier()).unwrap();
            let back: subset::Doc = qdf_core::from_slice_with(&b, tier()).unwrap();
            assert_eq!(back, project(&d), "{n} rows");
            let counts: subset::Counts = qdf_core::from_slice_with(&b, tier()).unwrap();
            assert_eq!(counts.resources.len(), 3);
            let names: subset::Names = qdf_core::from_slice_with(&b, tier()).unwrap();
            assert_eq!(names.resources[1].scopes[2].name, "scope-1-2");
            // One level down only: a list of items read as ids.
            #[derive(Deserialize)]
            struct Id {
                id: u64,
            }
            let flat = qdf_core::to_vec_with(&d.resources[1].scopes[1].items, tier()).unwrap();
            let ids: Vec<Id> = qdf_core::from_slice_with(&flat, tier()).unwrap();
            let want: Vec<u64> = d.resources[1].scopes[1]
                .items
                .iter()
                .map(|i| i.id)
                .collect();
            assert_eq!(ids.iter().map(|i| i.id).collect::<Vec<_>>(), want);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sibling lists under common parents (the OTLP grouping of issue #27).

/// List lengths of `doc` for a sibling size `n`: the 7-list grouping of issue #27's trace
/// (12, 1, 1, 10, 1, 14, 1) with its long lists scaled to `n`.
fn grouping(n: usize) -> Vec<Vec<usize>> {
    vec![
        vec![n, 1],
        vec![1],
        vec![(n * 10).div_ceil(12)],
        vec![1],
        vec![(n * 14).div_ceil(12)],
        vec![1],
    ]
}

#[test]
fn sibling_lists_of_1_to_40() {
    for n in 1..=40 {
        let lists = grouping(n);
        let refs: Vec<&[usize]> = lists.iter().map(Vec::as_slice).collect();
        let d = doc(&refs);
        exact(&d);
        // Subset decode across the sibling lists sees every item, in order.
        let b = qdf_core::to_vec(&d).unwrap();
        let back: subset::Doc = qdf_core::from_slice(&b).unwrap();
        let ids: Vec<u64> = back
            .resources
            .iter()
            .flat_map(|r| &r.scopes)
            .flat_map(|s| &s.items)
            .map(|i| i.id)
            .collect();
        let total: usize = lists.iter().flatten().sum();
        assert_eq!(ids, (0..total).map(|i| item(i).id).collect::<Vec<_>>());
    }
    // Equal sibling lists of every length 1..=40, seven of them under one parent.
    for n in 1..=40 {
        let d = doc(&[&[n; 7]]);
        exact(&d);
    }
}

#[test]
fn issue_27_grouping_is_exact() {
    let d = doc(&[&[12, 1], &[1], &[10], &[1, 14], &[1]]);
    let total: usize = d
        .resources
        .iter()
        .flat_map(|r| &r.scopes)
        .map(|s| s.items.len())
        .sum();
    assert_eq!(total, 40);
    exact(&d);
}

// ---------------------------------------------------------------------------------------------
// Decimal and hex strings, canonical or not (issue #27).

/// Canonical decimal integers: no leading zeros, optional `-`, within i128/u128.
fn canonical_decimals() -> Vec<String> {
    let mut v: Vec<String> = [
        0i128,
        1,
        -1,
        200,
        9,
        10,
        i64::MAX as i128,
        i64::MIN as i128,
        u64::MAX as i128,
        i128::MIN,
        i128::MAX,
    ]
    .iter()
    .map(i128::to_string)
    .collect();
    v.push(u128::MAX.to_string());
    v.extend((0..20u64).map(|i| (1_748_779_200_000_000_000 + i * 1_234_567).to_string()));
    v
}

/// Strings that look numeric and are not canonical: each must come back as written.
const NOT_CANONICAL: [&str; 24] = [
    "007",
    "00",
    "+1",
    "1e3",
    "-0",
    "-00",
    "-007",
    "340282366920938463463374607431768211456", // u128::MAX + 1
    "-170141183460469231731687303715884105729", // i128::MIN - 1
    "99999999999999999999999999999999999999999999",
    "",
    " 1",
    "1 ",
    "1.0",
    "0x10",
    "1_000",
    "-",
    "--1",
    "١٢٣",
    "１２",
    "1\0",
    "12a",
    "NaN",
    "−1",
];

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct NumStrs {
    start: String,
    end: String,
    int_value: Option<String>,
    trace_id: String,
    span_id: String,
    attrs: Vec<(String, String)>,
}

fn hex_lower(i: usize, len: usize) -> String {
    (0..len)
        .map(|k| char::from(b"0123456789abcdef"[(mix(i, k as u64) % 16) as usize]))
        .collect()
}

fn num_row(i: usize, odd: Option<&str>) -> NumStrs {
    let canon = canonical_decimals();
    let id = hex_lower(i, 32);
    NumStrs {
        start: odd.map_or_else(|| canon[i % canon.len()].clone(), str::to_owned),
        end: (1_748_779_200_000_000_000u64 + i as u64 * 977).to_string(),
        int_value: (!i.is_multiple_of(3)).then(|| (i as i64 * 37 - 500).to_string()),
        trace_id: id.clone(),
        span_id: id[..16].to_owned(),
        attrs: vec![
            (
                "http.status_code".into(),
                ["200", "404", "500"][i % 3].into(),
            ),
            ("n".into(), odd.unwrap_or("5").to_owned()),
        ],
    }
}

#[test]
fn canonical_decimal_strings_stay_exact() {
    for n in SIZES {
        let v: Vec<NumStrs> = (0..n).map(|i| num_row(i, None)).collect();
        exact(&v);
    }
}

#[test]
fn non_canonical_numeric_strings_stay_exact() {
    for odd in NOT_CANONICAL {
        for n in [16, 17, 100] {
            // The odd value first, in the middle and last among canonical ones.
            for at in [0, n / 2, n - 1] {
                let v: Vec<NumStrs> = (0..n)
                    .map(|i| num_row(i, (i == at).then_some(odd)))
                    .collect();
                exact(&v);
                let b = qdf_core::to_vec(&v).unwrap();
                let back: Vec<NumStrs> = qdf_core::from_slice(&b).unwrap();
                assert_eq!(back[at].start, odd);
                assert_eq!(back[at].attrs[1].1, odd);
            }
        }
        // A column of nothing but that value.
        let v: Vec<NumStrs> = (0..20).map(|i| num_row(i, Some(odd))).collect();
        exact(&v);
    }
}

#[test]
fn hex_strings_of_every_case_and_length_stay_exact() {
    let upper = |s: String| s.to_uppercase();
    let mixed = |s: String| {
        s.char_indices()
            .map(|(k, c)| {
                if k % 2 == 0 {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect::<String>()
    };
    type Column = (&'static str, Box<dyn Fn(usize) -> String>);
    let columns: Vec<Column> = vec![
        ("lower 32", Box::new(|i| hex_lower(i, 32))),
        ("upper 32", Box::new(move |i| upper(hex_lower(i, 32)))),
        ("mixed case", Box::new(move |i| mixed(hex_lower(i, 32)))),
        ("odd length", Box::new(|i| hex_lower(i, 15))),
        ("lengths vary", Box::new(|i| hex_lower(i, i % 33))),
        (
            "one non-hex",
            Box::new(|i| {
                if i == 7 {
                    "0123456789abcdeg".into()
                } else {
                    hex_lower(i, 16)
                }
            }),
        ),
        (
            "one empty",
            Box::new(|i| {
                if i == 3 {
                    String::new()
                } else {
                    hex_lower(i, 16)
                }
            }),
        ),
        ("leading zeros", Box::new(|i| format!("{:016x}", i))),
        ("0x prefix", Box::new(|i| format!("0x{}", hex_lower(i, 16)))),
    ];
    for (name, col) in &columns {
        for n in SIZES {
            let v: Vec<NumStrs> = (0..n)
                .map(|i| NumStrs {
                    trace_id: col(i),
                    span_id: col(i + 1_000),
                    ..num_row(i, None)
                })
                .collect();
            exact(&v);
            let back: Vec<NumStrs> = qdf_core::from_slice(&qdf_core::to_vec(&v).unwrap()).unwrap();
            assert_eq!(back[n - 1].trace_id, col(n - 1), "{name}");
        }
    }
}

#[test]
fn numeric_strings_nested_in_attribute_lists() {
    // OTLP's `{key, value: {intValue: "…"}}` attributes, with odd values among them.
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    #[serde(rename_all = "camelCase")]
    #[allow(clippy::enum_variant_names)] // the OTLP/JSON mapping's names
    enum Val {
        StringValue(String),
        IntValue(String),
        BoolValue(bool),
        DoubleValue(f64),
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Attr {
        key: String,
        value: Val,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    #[serde(rename_all = "camelCase")]
    struct Span {
        start_time_unix_nano: String,
        attributes: Vec<Attr>,
    }
    for n in SIZES {
        let spans: Vec<Span> = (0..n)
            .map(|i| Span {
                start_time_unix_nano: (1_748_779_200_000_000_000u64 + i as u64).to_string(),
                attributes: (0..i % 5)
                    .map(|j| Attr {
                        key: format!("a{j}"),
                        value: match (i + j) % 5 {
                            0 => Val::IntValue(NOT_CANONICAL[(i + j) % NOT_CANONICAL.len()].into()),
                            1 => Val::IntValue((i as i64 - 7).to_string()),
                            2 => Val::BoolValue(i % 2 == 0),
                            3 => Val::DoubleValue(i as f64 * 0.1),
                            _ => Val::StringValue(format!("{}", i * j)),
                        },
                    })
                    .collect(),
            })
            .collect();
        exact(&spans);
    }
}

// ---------------------------------------------------------------------------------------------
// Hostile input.

#[test]
fn nesting_past_the_depth_limit_is_a_typed_error() {
    // Lists of structs holding lists, 40 levels: refused with a Limit error under depth 16.
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Node {
        kids: Vec<Node>,
    }
    let mut n = Node { kids: Vec::new() };
    for _ in 0..40 {
        n = Node { kids: vec![n] };
    }
    for tier in TIERS {
        let bytes = qdf_core::to_vec_with(&n, tier()).unwrap();
        let err = qdf_core::from_slice_with::<Node>(&bytes, tier().max_depth(16)).unwrap_err();
        assert_eq!(err.classify(), Category::Limit, "{err}");
        let err = qdf_core::from_slice_with::<Value>(&bytes, tier().max_depth(16)).unwrap_err();
        assert_eq!(err.classify(), Category::Limit, "{err}");
        let back: Node = qdf_core::from_slice_with(&bytes, tier()).unwrap();
        assert_eq!(back, n);
    }
}

// ---------------------------------------------------------------------------------------------
// Properties.

fn any_kv() -> impl Strategy<Value = Kv> {
    let leaf = prop_oneof![
        "[a-z0-9]{0,6}".prop_map(AnyV::Str),
        any::<i64>().prop_map(AnyV::Int),
        any::<bool>().prop_map(AnyV::Bool),
        any::<u64>().prop_map(|b| AnyV::Double(f64::from_bits(b))),
    ];
    let value = leaf.prop_recursive(2, 6, 3, |inner| {
        prop::collection::vec(inner, 0..3).prop_map(AnyV::Arr)
    });
    ("[a-c]{1,2}", prop::option::of(value)).prop_map(|(key, value)| Kv { key, value })
}

fn any_item() -> impl Strategy<Value = Item> {
    (
        any::<u64>(),
        prop::option::of(0..5usize),
        prop::collection::vec(any_kv(), 0..4),
        prop::collection::btree_map("[a-c]", "[0-9]{0,3}", 0..3),
        prop::collection::vec(any::<u16>(), 0..4),
        prop::collection::vec(prop::collection::vec(any::<bool>(), 0..3), 0..3),
        prop::option::of(any::<u32>()),
        any::<u32>().prop_map(f32::from_bits),
    )
        .prop_map(|(id, level, attrs, tags, turrets, fog, team, x)| Item {
            id,
            level: level.map(|k| KINDS[k]),
            attrs,
            tags,
            turrets,
            fog,
            team,
            normal: Vec3 { x, y: -0.0, z: 1.0 },
            ..item(id as usize % 1000)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn prop_nested_lists_round_trip(
        lists in prop::collection::vec(prop::collection::vec(
            prop::collection::vec(any_item(), 0..20), 0..3), 0..4)
    ) {
        let d = Doc {
            resources: lists
                .into_iter()
                .map(|scopes| Resource {
                    attrs: Vec::new(),
                    scopes: scopes
                        .into_iter()
                        .map(|items| Scope { name: "s".into(), version: None, items })
                        .collect(),
                })
                .collect(),
        };
        exact(&d);
    }

    #[test]
    fn prop_numeric_looking_strings_round_trip(
        decimals in prop::collection::vec("[-+]?[0-9]{0,42}", 14..40),
        hexes in prop::collection::vec("[0-9a-fA-F]{15,17}", 14..40),
    ) {
        let rows: Vec<NumStrs> = decimals
            .iter()
            .zip(hexes.iter().cycle())
            .enumerate()
            .map(|(i, (d, h))| NumStrs {
                start: d.clone(),
                trace_id: h.clone(),
                ..num_row(i, Some(d))
            })
            .collect();
        exact(&rows);
    }
}

/// Wide integers and a `None` behind a newtype inside a child struct column: 128-bit values
/// that fit 64 bits make integer child columns, one value past 64 bits keeps the struct in
/// the rows, `W(None)` is a null of its column, and every case round-trips exactly.
#[test]
fn child_struct_fields_of_128_bits_and_newtype_none() {
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct W(Option<u32>);
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Inner {
        signed: i128,
        unsigned: u128,
        wrapped: W,
    }
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Row {
        id: u32,
        inner: Inner,
    }
    let rows = |wide: bool| -> Vec<Row> {
        (0..40u32)
            .map(|i| Row {
                id: i,
                inner: Inner {
                    signed: if i % 3 == 0 {
                        -(i128::from(i) * 1_000_003)
                    } else {
                        i128::from(i)
                    },
                    unsigned: if wide && i == 17 {
                        u128::MAX - 5
                    } else {
                        u128::from(i) * 7
                    },
                    wrapped: W((i % 4 != 0).then_some(i)),
                },
            })
            .collect()
    };
    for wide in [false, true] {
        let v = rows(wide);
        exact(&v);
        let cols = column_kinds(&v);
        let want: &[&str] = if wide {
            // A field past 64 bits has no integer column: the struct stays in the rows.
            &["id 01 delta+FOR u64", "inner 0f residual (in the rows)"]
        } else {
            &[
                "id 01 delta+FOR u64",
                "inner 05 struct of 3 child columns",
                "signed 00 plain array",
                "unsigned 01 delta+FOR u64",
                // `W(None)` is a null: the nullable bit (80) of a u64 column.
                "wrapped 81 delta+FOR u64",
            ]
        };
        assert_eq!(cols, want, "wide: {wide}");
    }
}

// Struct child columns read straight off the capture tape when every struct has the first
// one's fields (the uniform fast path): each shape that is close to uniform, or uniform with
// values that are not one event, must round-trip exactly and, where the plan takes it, still
// be a struct column.

/// `name kind summary` of every column (children included) of the Balanced encoding of `v`.
fn column_kinds<T: Serialize + ?Sized>(v: &T) -> Vec<String> {
    let bytes = qdf_core::to_vec_with(v, Options::balanced()).unwrap();
    let mut cols = Vec::new();
    qdf_core::inspect::message(&bytes, &Options::balanced(), &mut |e| {
        if let qdf_core::inspect::EventKind::Column {
            name, kind, values, ..
        } = &e.kind
        {
            cols.push(format!("{name} {kind:02x} {values}"));
        }
    })
    .unwrap();
    cols
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Prims {
    u: u8,
    i: i16,
    f: f32,
    d: f64,
    s: String,
    b: bool,
    o: Option<u32>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct PrimRow {
    id: u32,
    p: Prims,
}

fn prims(i: usize, o: Option<u32>) -> Prims {
    let nan = f32::from_bits(0x7fc0_0000 | i as u32);
    Prims {
        u: i as u8,
        i: -(i as i16),
        f: [nan, -0.0, 0.0, 1.5, f32::INFINITY][i % 5],
        d: [f64::NAN, -0.0, 0.25, f64::NEG_INFINITY][i % 4],
        s: format!("s{}", i % 3),
        b: i.is_multiple_of(2),
        o,
    }
}

/// Structs of primitives (one event a field): options all `None`, `None` first then `Some`
/// (no longer one event), `Some` first, all `Some`; NaN payloads and `-0.0` by bits.
#[test]
fn uniform_structs_of_primitives_with_option_mixes() {
    let opts: [fn(usize) -> Option<u32>; 4] = [
        |_| None,
        |i| (i > 2).then_some(i as u32),
        |i| i.is_multiple_of(3).then_some(i as u32),
        |i| Some(i as u32 * 3),
    ];
    for n in SIZES {
        for (k, o) in opts.iter().enumerate() {
            let rows: Vec<PrimRow> = (0..n)
                .map(|i| PrimRow {
                    id: i as u32,
                    p: prims(i, o(i)),
                })
                .collect();
            exact(&rows);
            if n >= 16 {
                let cols = column_kinds(&rows);
                assert!(
                    cols.iter().any(|c| c.starts_with("p 05 struct of 7")),
                    "{n} rows, options {k}: {cols:?}"
                );
            }
        }
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Meters(u32);

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Marker;

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
enum Shade {
    Light,
    Dark,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Payload {
    Unit,
    One(u8),
    Two { x: i8, y: i8 },
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Inner2 {
    x: f64,
    tag: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Wrapped {
    len: Meters,
    maybe: Option<Meters>,
    marker: Marker,
    shade: Shade,
    payload: Payload,
    c: char,
    wide: i128,
    big: u128,
    map: BTreeMap<String, u32>,
    inner: Inner2,
    list: Vec<u16>,
    unit: (),
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct WrappedRow {
    id: u32,
    w: Wrapped,
}

fn wrapped(i: usize, wide: bool) -> Wrapped {
    Wrapped {
        len: Meters(i as u32 * 10),
        maybe: (i % 3 != 1).then_some(Meters(i as u32)),
        marker: Marker,
        shade: [Shade::Light, Shade::Dark][i % 2],
        payload: [
            Payload::Unit,
            Payload::One(i as u8),
            Payload::Two { x: -1, y: i as i8 },
        ][i % 3]
            .clone(),
        c: ['a', 'ß', '😀'][i % 3],
        wide: if wide && i == 7 {
            i128::MIN
        } else {
            -(i as i128)
        },
        big: if wide && i == 9 { u128::MAX } else { i as u128 },
        map: (0..i % 3).map(|j| (format!("k{j}"), j as u32)).collect(),
        inner: Inner2 {
            x: i as f64 / 8.0,
            tag: i.is_multiple_of(2).then(|| format!("t{i}")),
        },
        list: vec![i as u16; i % 4],
        unit: (),
    }
}

/// Uniform structs whose values are not one event each: newtypes (also under `Some`), unit
/// structs, enums of every variant form, chars, 128-bit integers (in and past 64 bits), maps,
/// nested structs, lists and `()`; every field is walked, and each one round-trips exactly.
#[test]
fn uniform_structs_of_wrapped_values_round_trip() {
    for n in SIZES {
        for wide in [false, true] {
            let rows: Vec<WrappedRow> = (0..n)
                .map(|i| WrappedRow {
                    id: i as u32,
                    w: wrapped(i, wide),
                })
                .collect();
            exact(&rows);
        }
    }
}

/// One field of each kind in a uniform struct column of 17 rows: the struct stays a struct
/// column for the kinds a child column holds, and its child has the values' class.
#[test]
fn uniform_struct_child_column_per_value_kind() {
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct One<T> {
        a: u32,
        v: T,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Row<T> {
        id: u32,
        s: One<T>,
    }
    fn rows<T: Clone>(f: impl Fn(usize) -> T) -> Vec<Row<T>> {
        (0..17)
            .map(|i| Row {
                id: i as u32,
                s: One {
                    a: i as u32,
                    v: f(i),
                },
            })
            .collect()
    }
    fn check<T>(what: &str, rows: Vec<Row<T>>, struct_col: bool)
    where
        T: Serialize + DeserializeOwned + PartialEq + Debug + Clone,
    {
        exact(&rows);
        let cols = column_kinds(&rows);
        assert_eq!(
            cols.iter().any(|c| c.starts_with("s 05 struct of 2")),
            struct_col,
            "{what}: {cols:?}"
        );
    }
    check("newtype", rows(|i| Meters(i as u32)), true);
    check("Some(newtype)", rows(|i| Some(Meters(i as u32))), true);
    check(
        "newtype mix",
        rows(|i| i.is_multiple_of(2).then_some(Meters(i as u32))),
        true,
    );
    check("i128 in 64 bits", rows(|i| -(i as i128) * 1_000_003), true);
    check("u128 in 64 bits", rows(|i| i as u128 * 7), true);
    check(
        "u128 past 64 bits",
        rows(|i| if i == 16 { u128::MAX } else { 1 }),
        false,
    );
    check(
        "nested struct",
        rows(|i| Inner2 {
            x: -0.0,
            tag: i.is_multiple_of(5).then(String::new),
        }),
        true,
    );
    check("list", rows(|i| vec![i as u8; i % 3]), true);
    check("char", rows(|i| char::from(b'a' + i as u8)), false);
    // A tagged child column (`docs/SPEC.md` §22.3).
    check(
        "unit enum",
        rows(|i| [Shade::Light, Shade::Dark][i % 2]),
        true,
    );
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Sometimes {
    a: u32,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    b: Option<String>,
    c: f32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Flattened {
    a: u32,
    #[serde(flatten)]
    rest: Inner2,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Empty {}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Ab {
    a: u32,
    b: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Ba {
    b: u32,
    a: String,
}

mod alike {
    use super::*;
    pub mod x {
        use super::*;
        /// Named `S` like `y::S`, other fields.
        #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
        pub struct S {
            pub a: u32,
            pub b: u32,
        }
    }
    pub mod y {
        use super::*;
        #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
        pub struct S {
            pub a: u32,
            pub c: String,
        }
    }
}

/// Either shape, serialized as itself (no tag).
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(untagged)]
enum Either<A, B> {
    A(A),
    B(B),
}

/// Structs the fast path must not take as uniform: a field skipped in some rows only (and
/// in the first), `flatten` (a map), empty structs, the same names in another order, structs
/// named alike with other fields, at and around 16 rows.
#[test]
fn near_uniform_structs_round_trip() {
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct R<T> {
        id: u32,
        s: T,
    }
    fn wrap<T>(f: impl Fn(usize) -> T, n: usize) -> Vec<R<T>> {
        (0..n)
            .map(|i| R {
                id: i as u32,
                s: f(i),
            })
            .collect()
    }
    for n in SIZES {
        for skip_at in [0, 1, n - 1, n] {
            let rows = wrap(
                |i| Sometimes {
                    a: i as u32,
                    b: (i != skip_at).then(|| format!("b{i}")),
                    c: -0.0,
                },
                n,
            );
            exact(&rows);
            if n >= 16 {
                // A field absent in some rows is an optional child column.
                let cols = column_kinds(&rows);
                let optional = skip_at < n;
                assert!(
                    cols.iter().any(|c| c.starts_with("s 05 struct of 3")),
                    "{cols:?}"
                );
                assert_eq!(
                    cols.iter().any(|c| c.starts_with("b 4")),
                    optional,
                    "skip at {skip_at}: {cols:?}"
                );
            }
        }
        exact(&wrap(
            |i| Flattened {
                a: i as u32,
                rest: Inner2 {
                    x: i as f64,
                    tag: None,
                },
            },
            n,
        ));
        exact(&wrap(|_| Empty {}, n));
        let order = |k: usize| {
            move |i: usize| {
                if i == k {
                    Either::B(Ba {
                        b: 1,
                        a: "x".into(),
                    })
                } else {
                    Either::A(Ab {
                        a: i as u32,
                        b: format!("{i}"),
                    })
                }
            }
        };
        for k in [0, 1, n / 2, n - 1] {
            exact(&wrap(order(k), n));
        }
        let alike = |k: usize| {
            move |i: usize| {
                if i == k {
                    Either::B(alike::y::S {
                        a: 1,
                        c: "c".into(),
                    })
                } else {
                    Either::A(alike::x::S { a: i as u32, b: 2 })
                }
            }
        };
        for k in [0, n - 1] {
            exact(&wrap(alike(k), n));
        }
    }
}

/// Uniform structs as the items of a list column, and under `Option` in a struct column.
#[test]
fn uniform_structs_inside_lists_and_options() {
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct R {
        id: u32,
        items: Vec<Prims>,
        opt: Option<Prims>,
        deep: Vec<Vec<PrimRow>>,
    }
    for n in SIZES {
        let rows: Vec<R> = (0..n)
            .map(|i| R {
                id: i as u32,
                items: (0..i % 4).map(|j| prims(i + j, Some(j as u32))).collect(),
                opt: (!i.is_multiple_of(3)).then(|| prims(i, None)),
                deep: (0..i % 3)
                    .map(|j| {
                        (0..j)
                            .map(|k| PrimRow {
                                id: k as u32,
                                p: prims(k, None),
                            })
                            .collect()
                    })
                    .collect(),
            })
            .collect();
        exact(&rows);
    }
}
