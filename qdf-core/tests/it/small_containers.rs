//! Columnar containers below 16 rows (`docs/SPEC.md` §22.2, "Small containers"; issue #20
//! stage 2 and #27's columns across sibling lists): a short `Vec` of structs with a struct or
//! list column becomes one column set when that is strictly smaller by exact cost, so the
//! spans of a resource → scope → span tree are one set however short each list is.
//!
//! Round trips are exact in every tier and across session messages; a small container is
//! never larger than the rows it replaces; subset decode reads across the sibling lists;
//! hostile small containers are typed errors with memory bounded by the input.

use crate::common::{TIERS, round_trip};
use qdf_core::{Category, DecoderSession, EncoderSession, Features, Options, Value};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Status {
    code: u8,
    message: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Event {
    time: u64,
    name: String,
}

/// An OTLP-like span without enums (every field can be a column).
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Span {
    trace_id: String,
    span_id: u64,
    name: String,
    start: u64,
    end: u64,
    status: Option<Status>,
    events: Vec<Event>,
    tags: Option<Vec<String>>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Scope {
    name: String,
    version: String,
    spans: Vec<Span>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Resource {
    service: String,
    scopes: Vec<Scope>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Export {
    resources: Vec<Resource>,
}

fn span(i: usize) -> Span {
    Span {
        trace_id: format!("{:032x}", 0x5eed_0000 + i / 7),
        span_id: 0x1000_0000_0000 + (i as u64) * 7919,
        name: ["GET /cart", "SELECT", "publish", "charge"][i % 4].into(),
        start: 1_782_036_644_636_668_325 + i as u64 * 1_000_117,
        end: 1_782_036_644_636_668_325 + i as u64 * 1_000_117 + 40_000 + (i as u64 % 9) * 313,
        status: i.is_multiple_of(3).then(|| Status {
            code: (i % 2) as u8,
            message: if i.is_multiple_of(6) {
                String::new()
            } else {
                "error".into()
            },
        }),
        events: (0..i % 3)
            .map(|j| Event {
                time: 1_782_036_644_636_668_325 + (i * 10 + j) as u64,
                name: ["exception", "retry"][j % 2].into(),
            })
            .collect(),
        // None, empty and non-empty lists all occur.
        tags: match i % 4 {
            0 => None,
            1 => Some(Vec::new()),
            _ => Some((0..i % 5).map(|k| format!("t{k}")).collect()),
        },
    }
}

/// Resources of scopes of spans: `lists[r]` gives resource `r`'s scope lengths.
fn export(lists: &[&[usize]]) -> Export {
    let mut next = 0;
    Export {
        resources: lists
            .iter()
            .enumerate()
            .map(|(r, scopes)| Resource {
                service: format!("service-{r}"),
                scopes: scopes
                    .iter()
                    .enumerate()
                    .map(|(s, &n)| {
                        let spans = (next..next + n).map(span).collect();
                        next += n;
                        Scope {
                            name: format!("io.opentelemetry.{}", s % 2),
                            version: "1.2.0".into(),
                            spans,
                        }
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// Issue #27's trace grouping (12, 1, 1, 10, 1, 14, 1 spans under 6 resources) with the long
/// lists scaled to `n`.
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

fn flat(opts: Options, feats: Features) -> Options {
    opts.features(feats.without(Features::NESTED_COLUMNS))
}

/// The bytes without `NESTED_COLUMNS` (every batch below 16 rows stays rows).
fn without_nested<T: Serialize>(v: &T, tier: usize) -> Vec<u8> {
    let opts = match tier {
        1 => flat(Options::balanced(), Features::BALANCED),
        _ => flat(Options::compression(), Features::COMPRESSION),
    };
    qdf_core::to_vec_with(v, opts).unwrap()
}

/// The tag of a message's first value.
fn tag(b: &[u8]) -> u8 {
    b[5]
}

const EF: u8 = 0xEF;
const F7: u8 = 0xF7;

#[test]
fn grouped_shapes_round_trip_at_every_list_size() {
    for n in 1..=40 {
        let lists = grouping(n);
        let refs: Vec<&[usize]> = lists.iter().map(Vec::as_slice).collect();
        let d = export(&refs);
        for (t, tier) in TIERS.iter().enumerate() {
            let b = qdf_core::to_vec_with(&d, tier()).unwrap();
            let back: Export = qdf_core::from_slice_with(&b, tier()).unwrap();
            assert_eq!(back, d, "{n}, tier {t}");
            if t > 0 {
                // A small container replaces rows only when strictly smaller, and this
                // shape pays from the first span on while its span lists are short on
                // average (longer lists are containers of their own).
                let rows = without_nested(&d, t);
                assert!(
                    b.len() <= rows.len(),
                    "{n}, tier {t}: {} {}",
                    b.len(),
                    rows.len()
                );
                if n > 12 {
                    continue;
                }
                if (n, t) == (1, 1) {
                    // The rows write the 32-digit trace ids as hex text (`F2 0C`, SPEC §9):
                    // 809 bytes; the small container with its child strings per-value, 605.
                    assert_eq!((b.len(), rows.len()), (605, 809));
                }
                assert!(
                    b.len() < rows.len(),
                    "{n}, tier {t}: {} {}",
                    b.len(),
                    rows.len()
                );
                let top = qdf_core::to_vec_with(&d.resources, tier()).unwrap();
                assert!(
                    matches!(tag(&top), EF | F7),
                    "{n}, tier {t}: {:02x}",
                    tag(&top)
                );
            }
        }
        round_trip(&d);
        // One resource, one scope of n spans, and n resources of one span each.
        round_trip(&export(&[&[n]]));
        let ones: Vec<&[usize]> = (0..n).map(|_| &[1usize][..]).collect();
        round_trip(&export(&ones));
    }
}

#[test]
fn a_batch_that_does_not_pay_stays_rows() {
    // One row of a struct holding one empty list: the declaration costs more than the row.
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct One {
        v: Vec<u8>,
    }
    let v = vec![One { v: vec![] }];
    let b = qdf_core::to_vec(&v).unwrap();
    assert_eq!(tag(&b), 0xa1, "{:02x?}", b);
    assert_eq!(qdf_core::from_slice::<Vec<One>>(&b).unwrap(), v);
    // Without a struct or list column a short batch is rows whatever its size.
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Flat {
        a: u64,
        s: String,
    }
    let v: Vec<Flat> = (0..15)
        .map(|i| Flat {
            a: 1_000_000 + i,
            s: "same".into(),
        })
        .collect();
    let b = qdf_core::to_vec(&v).unwrap();
    assert_eq!(tag(&b), 0xAF);
}

#[test]
fn none_and_empty_lists_stay_apart_in_small_containers() {
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Holder {
        spans: Option<Vec<Span>>,
        more: Vec<Span>,
    }
    let cases = [
        vec![
            Holder {
                spans: None,
                more: vec![span(1), span(2)],
            },
            Holder {
                spans: Some(vec![]),
                more: vec![],
            },
            Holder {
                spans: Some(vec![span(3)]),
                more: vec![span(4)],
            },
        ],
        vec![Holder {
            spans: Some(vec![]),
            more: vec![],
        }],
        vec![
            Holder {
                spans: None,
                more: vec![],
            };
            3
        ],
    ];
    for v in &cases {
        for tier in TIERS {
            let b = qdf_core::to_vec_with(v, tier()).unwrap();
            let back: Vec<Holder> = qdf_core::from_slice_with(&b, tier()).unwrap();
            assert_eq!(&back, v);
        }
        round_trip(v);
    }
}

/// Reads each level with fewer fields than were written.
mod subset {
    use serde::Deserialize;

    #[derive(Deserialize, Debug, PartialEq)]
    pub struct Export {
        pub resources: Vec<Resource>,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    pub struct Resource {
        pub scopes: Vec<Scope>,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    pub struct Scope {
        pub spans: Vec<Span>,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    pub struct Span {
        pub span_id: u64,
        pub events: Vec<Event>,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    pub struct Event {
        pub name: String,
    }
}

#[test]
fn subset_decode_across_sibling_lists() {
    for n in [1, 2, 5, 12, 15, 16, 40] {
        let lists = grouping(n);
        let refs: Vec<&[usize]> = lists.iter().map(Vec::as_slice).collect();
        let d = export(&refs);
        let want: Vec<(u64, Vec<String>)> = d
            .resources
            .iter()
            .flat_map(|r| &r.scopes)
            .flat_map(|s| &s.spans)
            .map(|s| (s.span_id, s.events.iter().map(|e| e.name.clone()).collect()))
            .collect();
        for tier in TIERS {
            let b = qdf_core::to_vec_with(&d, tier()).unwrap();
            let back: subset::Export = qdf_core::from_slice_with(&b, tier()).unwrap();
            let got: Vec<(u64, Vec<String>)> = back
                .resources
                .iter()
                .flat_map(|r| &r.scopes)
                .flat_map(|s| &s.spans)
                .map(|s| (s.span_id, s.events.iter().map(|e| e.name.clone()).collect()))
                .collect();
            assert_eq!(got, want, "{n}");
        }
    }
}

#[test]
fn sessions_mirror_small_containers_across_messages() {
    for tier in [Options::balanced, Options::compression] {
        let msgs: Vec<Export> = (1..=8)
            .map(|n| {
                let lists = grouping(n * 3 % 17 + 1);
                let refs: Vec<&[usize]> = lists.iter().map(Vec::as_slice).collect();
                export(&refs)
            })
            .collect();
        let mut enc = EncoderSession::new(tier());
        let mut wire = Vec::new();
        for m in &msgs {
            enc.encode_frame(m, &mut wire).unwrap();
        }
        let mut dec = DecoderSession::new(tier());
        let mut at = 0;
        for m in &msgs {
            let (back, used): (Export, usize) = dec.decode_frame(&wire[at..]).unwrap().unwrap();
            at += used;
            assert_eq!(&back, m);
        }
        assert_eq!(at, wire.len());
        // The session pays once for the declarations: the later messages are smaller than
        // one-shot messages of the same values.
        let one_shot: usize = msgs
            .iter()
            .map(|m| qdf_core::to_vec_with(m, tier()).unwrap().len())
            .sum();
        assert!(wire.len() < one_shot, "{} {one_shot}", wire.len());
    }
}

/// A message of `body` after a Balanced header.
fn msg(body: &[u8]) -> Vec<u8> {
    let mut m = b"QDF\x01\x00".to_vec();
    m.extend_from_slice(body);
    m
}

fn err(body: &[u8]) -> Category {
    qdf_core::from_slice::<Value>(&msg(body))
        .expect_err("hostile input must fail")
        .classify()
}

#[test]
fn small_container_golden_bytes_decode() {
    // 2 rows `{v: Vec<u16>}`: lengths [3, 1] as a plain array, then 4 elements.
    let b = [
        0xef, 0x02, 0x00, 0x01, 0x81, 0x76, 0x07, 0x01, 0xa2, 0x03, 0x01, 0xa4, 0x01, 0x02, 0x03,
        0x04,
    ];
    let v: Value = qdf_core::from_slice(&msg(&b)).unwrap();
    assert_eq!(v.to_string(), r#"[{"v": [1, 2, 3]}, {"v": [4]}]"#);
}

#[test]
fn hostile_small_containers_are_typed_errors() {
    // No row: refused even with a list column.
    assert_eq!(
        err(&[0xef, 0x00, 0x00, 0x01, 0x81, 0x76, 0x07, 0x01, 0xa0, 0xa0]),
        Category::Syntax
    );
    // 2 rows without a struct or list column: the 16-row rule of §22 stands.
    assert_eq!(
        err(&[0xef, 0x02, 0x00, 0x01, 0x81, 0x78, 0x01, 0xa2, 0x01, 0x02]),
        Category::Syntax
    );
    // 1 row whose list claims 3 elements, 2 present.
    assert_eq!(
        err(&[
            0xef, 0x01, 0x00, 0x01, 0x81, 0x76, 0x07, 0x01, 0xa1, 0x03, 0xa2, 0x01, 0x02
        ]),
        Category::Syntax
    );
    // 1 row whose list claims 2^32 elements: charged before the element column is read.
    assert_eq!(
        err(&[
            0xef, 0x01, 0x00, 0x01, 0x81, 0x76, 0x07, 0x01, 0xa1, 0xc6, 0, 0, 0, 0, 1, 0, 0, 0,
            0xa0
        ]),
        Category::Limit
    );
    // 1 row, a list of lists: 1 inner list claiming 2^32 elements, charged likewise.
    assert_eq!(
        err(&[
            0xef, 0x01, 0x00, 0x01, 0x81, 0x76, 0x07, 0x07, 0x01, 0xa1, 0x01, 0xa1, 0xc6, 0, 0, 0,
            0, 1, 0, 0, 0, 0xa0
        ]),
        Category::Limit
    );
    // 3 rows, lengths [1, 1, 1] over a 1-element column: the rows claim more than it holds.
    assert_eq!(
        err(&[
            0xef, 0x03, 0x00, 0x01, 0x81, 0x76, 0x07, 0x01, 0xa3, 0x01, 0x01, 0x01, 0xa1, 0x05
        ]),
        Category::Syntax
    );
}

fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first two small-container examples of `docs/SPEC.md` §22.2 are what Balanced writes.
#[test]
fn small_container_golden_bytes_are_what_balanced_writes() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct L {
        v: Vec<u16>,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct X {
        x: u16,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct S {
        n: u8,
        p: Vec<X>,
    }
    let l: Vec<L> = (0..2u16)
        .map(|i| L {
            v: (0..5).map(|j| 1000 + i * 5 + j).collect(),
        })
        .collect();
    let b = qdf_core::to_vec(&l).unwrap();
    assert_eq!(
        hex(&b[5..]),
        "ef 02 00 01 81 76 07 01 a2 05 05 e6 03 00 e8 07 02 0a"
    );
    assert_eq!(qdf_core::from_slice::<Vec<L>>(&b).unwrap(), l);
    let s: Vec<S> = (0..2u16)
        .map(|i| S {
            n: i as u8,
            p: (0..4)
                .map(|j| X {
                    x: 1000 + i * 4 + j,
                })
                .collect(),
        })
        .collect();
    let b = qdf_core::to_vec(&s).unwrap();
    assert_eq!(
        hex(&b[5..]),
        "f7 02 00 02 81 6e 0f 81 70 07 05 01 81 78 01 a2 04 04 e6 03 00 e8 07 02 08 00 01"
    );
    assert_eq!(qdf_core::from_slice::<Vec<S>>(&b).unwrap(), s);
}

/// A deep tree of one-row lists, each with a list column: every level is a small-container
/// candidate, and nested trials stop after a few levels, so the encode stays linear (without
/// the bound it would write the innermost level 2^depth times).
#[test]
fn deep_trees_of_small_batches_encode_in_linear_time() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Node {
        v: Vec<u16>,
        kids: Vec<Node>,
    }
    let mut n = Node {
        v: vec![1, 2, 3],
        kids: vec![],
    };
    for d in 0..40u16 {
        n = Node {
            v: vec![d, d + 1000, d + 2000],
            kids: vec![n],
        };
    }
    let opts = Options::balanced();
    let started = std::time::Instant::now();
    let b = qdf_core::to_vec_with(&n, opts).unwrap();
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    let back: Node = qdf_core::from_slice_with(&b, opts).unwrap();
    assert_eq!(back, n);
}
