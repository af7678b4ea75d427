//! References between hex-text sibling columns (hex flag `04`, `docs/SPEC.md` §22.1): a
//! parent id written as the slot of a sibling's id. Round trips in every tier, nested and at
//! the top level, the sibling before or after; golden bytes; subset decode of either column;
//! never under the column index; hostile bodies are typed errors where the walker agrees.

use crate::common::{columns, hex, mutate, tiers, unhex, xorshift};
use crate::inspect::agree;
use qdf_core::inspect::ColumnValues;
use qdf_core::{Category, DecoderSession, EncoderSession, Options, Value};
use serde::{Deserialize, Serialize};

/// A deterministic 64-bit mix (SplitMix64).
fn mix(i: u64) -> u64 {
    let mut z = i.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// OTLP's JSON mapping: the parent before the span's own id.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(rename_all = "camelCase")]
struct Span {
    trace_id: String,
    parent_span_id: String,
    span_id: String,
    name: String,
}

/// `n` spans in traces of 7: a root (empty parent), then children of the spans before them
/// in the trace; every tenth parent is outside the batch (a literal).
fn spans(n: u64) -> Vec<Span> {
    (0..n)
        .map(|i| {
            let root = i - i % 7;
            Span {
                trace_id: format!("{:016x}{:016x}", mix(root), mix(!root)),
                parent_span_id: match i % 7 {
                    0 => String::new(),
                    _ if i % 10 == 3 => format!("{:016x}", mix(i + 1_000_000)),
                    k => format!("{:016x}", mix(root + (k - 1) / 2)),
                },
                span_id: format!("{:016x}", mix(i)),
                name: format!("op {}", i % 5),
            }
        })
        .collect()
}

/// Spans grouped under scopes, as OTLP groups them: the id columns are a struct column's
/// children.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Scope {
    name: String,
    spans: Vec<Span>,
}

fn scopes(n: u64) -> Vec<Scope> {
    let all = spans(n);
    all.chunks(5)
        .enumerate()
        .map(|(i, c)| Scope {
            name: format!("lib{}", i % 3),
            spans: c.to_vec(),
        })
        .collect()
}

/// Each column's name and what it holds, by depth.
fn kinds(b: &[u8], opts: &Options) -> Vec<(u32, String, String)> {
    columns(b, opts, |d, n, v| Some((d, n.to_string(), v.to_string())))
}

fn refs_in(b: &[u8], opts: &Options) -> Vec<String> {
    columns(b, opts, |_, n, v| {
        (*v == ColumnValues::HexRefs).then(|| n.to_string())
    })
}

#[test]
fn parent_ids_refer_to_span_ids_and_come_back_in_every_tier() {
    for n in [1u64, 2, 7, 15, 16, 17, 40, 300] {
        let flat = spans(n);
        let nested = scopes(n);
        for (tier, opts) in tiers() {
            let b = qdf_core::to_vec_with(&flat, opts).unwrap();
            let back: Vec<Span> = qdf_core::from_slice_with(&b, opts).unwrap();
            assert_eq!(back, flat, "{tier} {n}");
            let b = qdf_core::to_vec_with(&nested, opts).unwrap();
            let back: Vec<Scope> = qdf_core::from_slice_with(&b, opts).unwrap();
            assert_eq!(back, nested, "{tier} {n}");
            let refs = refs_in(&b, &opts);
            match tier {
                // No columns in Speed; none under the column index.
                "speed" | "indexed" => assert!(refs.is_empty(), "{tier} {n}: {refs:?}"),
                // Top level (`n` ≥ 16) and nested alike once there are parents to name.
                _ if n >= 16 => assert_eq!(refs, ["parentSpanId"], "{tier} {n}"),
                _ => {}
            }
        }
    }
}

#[test]
fn sizes_shrink_by_the_ids_the_batch_holds() {
    // Exact sizes (deterministic): with references against the same spans without them
    // (parents all outside the batch, so no reference can be made).
    let s = spans(300);
    let mut outside = s.clone();
    for (i, sp) in outside.iter_mut().enumerate() {
        if !sp.parent_span_id.is_empty() {
            sp.parent_span_id = format!("{:016x}", mix(i as u64 + 5_000_000));
        }
    }
    let size = |v: &Vec<Span>, o: Options| qdf_core::to_vec_with(v, o).unwrap().len();
    let balanced = (
        size(&s, Options::balanced()),
        size(&outside, Options::balanced()),
    );
    let compression = (
        size(&s, Options::compression()),
        size(&outside, Options::compression()),
    );
    assert_eq!(balanced, (4_599, 6_150));
    assert_eq!(compression, (3_952, 5_503));
    let b = qdf_core::to_vec(&s).unwrap();
    let k = kinds(&b, &Options::default());
    // Top-level columns are at depth 2 (under the message and the container).
    let refs = "hex bytes with references to a sibling";
    assert_eq!(k[1], (2, "parentSpanId".into(), refs.into()));
    assert_eq!(k[2], (2, "spanId".into(), "hex bytes".into()));
}

#[test]
fn golden_forward_reference() {
    // `p` before `id`: `p` names column 1.
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct R {
        p: String,
        id: String,
    }
    let rows: Vec<R> = (0..16u32)
        .map(|i| R {
            p: if i == 0 {
                String::new()
            } else {
                format!("{:02x}", 0xa0 + (i - 1) / 2)
            },
            id: format!("{:02x}", 0xa0 + i),
        })
        .collect();
    let b = qdf_core::to_vec(&rows).unwrap();
    assert_eq!(
        hex(&b[5..]),
        "ef 10 00 02 81 70 24 82 69 64 24 06 01 01 00 01 e6 03 01 01 00 0f aa 2a 00 01 a0 a1 \
         a2 a3 a4 a5 a6 a7 a8 a9 aa ab ac ad ae af"
    );
    assert_eq!(qdf_core::from_slice::<Vec<R>>(&b).unwrap(), rows);
}

#[test]
fn a_reader_that_skips_either_column_still_gets_the_other() {
    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct ParentOnly {
        parent_span_id: String,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct IdOnly {
        span_id: String,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct ScopeParents {
        spans: Vec<ParentOnly>,
    }
    let s = spans(100);
    let b = qdf_core::to_vec(&s).unwrap();
    assert_eq!(refs_in(&b, &Options::default()), ["parentSpanId"]);
    let p: Vec<ParentOnly> = qdf_core::from_slice(&b).unwrap();
    assert!(
        p.iter()
            .zip(&s)
            .all(|(a, b)| a.parent_span_id == b.parent_span_id)
    );
    let ids: Vec<IdOnly> = qdf_core::from_slice(&b).unwrap();
    assert!(ids.iter().zip(&s).all(|(a, b)| a.span_id == b.span_id));
    let nested = scopes(100);
    let b = qdf_core::to_vec(&nested).unwrap();
    let p: Vec<ScopeParents> = qdf_core::from_slice(&b).unwrap();
    let want: Vec<&str> = nested
        .iter()
        .flat_map(|sc| sc.spans.iter().map(|s| s.parent_span_id.as_str()))
        .collect();
    let got: Vec<&str> = p
        .iter()
        .flat_map(|sc| sc.spans.iter().map(|s| s.parent_span_id.as_str()))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn sessions_carry_references_frame_by_frame() {
    let mut enc = EncoderSession::new(Options::balanced());
    let mut wire = Vec::new();
    for k in 0..3 {
        enc.encode_frame(&scopes(40 + k), &mut wire).unwrap();
    }
    let mut dec = DecoderSession::new(Options::balanced());
    let mut at = 0;
    for k in 0..3 {
        let (v, used): (Vec<Scope>, usize) = dec.decode_frame(&wire[at..]).unwrap().unwrap();
        assert_eq!(v, scopes(40 + k));
        at += used;
    }
    assert_eq!(at, wire.len());
}

/// A hostile case: its name, `p`'s body, `id`'s body and the error (`None`: decodes).
type Case = (&'static str, String, &'static str, Option<(Category, u64)>);

/// Two hex columns of 16 rows, `p` then `id` (`"a0"`…`"af"`), `p`'s body `p_body` (hex).
fn two(p_body: &str, id_body: &str) -> Vec<u8> {
    let mut b = unhex("51 44 46 01 00 ef 10 00 02 81 70 24 82 69 64 24");
    b.extend(unhex(p_body));
    b.extend(unhex(id_body));
    b
}

const ID: &str = "00 01 a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 aa ab ac ad ae af";
/// References 1, 1, 2, 2, … 8 as a QPack value (15 values).
const REFS: &str = "e6 03 01 01 00 0f aa 2a";

#[test]
fn hostile_references_are_typed_errors_where_the_walker_agrees() {
    use Category::{Eof, Limit, Syntax};
    let plain15 = |last: u8| {
        let mut v = String::from("af");
        for k in 1..15u8 {
            v.push_str(&format!(" {:02x}", k.div_ceil(2)));
        }
        v.push_str(&format!(" {last:02x}"));
        v
    };
    let upper_id = "01 01 a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 aa ab ac ad ae af";
    let id_with_empty = "02 01 00 80 a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 aa ab ac ad ae";
    let cases: Vec<Case> = vec![
        ("ok", format!("06 01 01 00 01 {REFS}"), ID, None),
        (
            "ok, plain array",
            format!("06 01 01 00 01 {}", plain15(8)),
            ID,
            None,
        ),
        (
            "itself",
            format!("06 01 01 00 00 {REFS}"),
            ID,
            Some((Syntax, 20)),
        ),
        (
            "past the siblings",
            format!("06 01 01 00 02 {REFS}"),
            ID,
            Some((Syntax, 20)),
        ),
        (
            "past the sibling's values",
            format!("06 01 01 00 01 {}", plain15(17)),
            ID,
            Some((Syntax, 21)),
        ),
        (
            "to an empty value",
            format!("06 01 01 00 01 {}", plain15(16)),
            id_with_empty,
            Some((Syntax, 21)),
        ),
        (
            "other case",
            format!("06 01 01 00 01 {REFS}"),
            upper_id,
            Some((Syntax, 20)),
        ),
        (
            "other length",
            format!("06 02 01 00 01 {REFS}"),
            ID,
            Some((Syntax, 20)),
        ),
        (
            "a chain",
            format!("06 01 01 00 01 {REFS}"),
            "04 01 00 b0 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 a0 a1 a2 a3 a4 a5 a6 a7 \
             a8 a9 aa ab ac ad ae af",
            Some((Syntax, 20)),
        ),
        (
            "signed references",
            "06 01 01 00 01 af 01 01 02 02 03 03 04 04 05 05 06 06 07 07 d8".into(),
            ID,
            Some((Syntax, 21)),
        ),
        (
            "too few references",
            "06 01 01 00 01 a1 01".into(),
            ID,
            Some((Syntax, 21)),
        ),
        (
            // L = 2^63: its printed text (2L characters a reference) overflows a u64, and
            // is charged as the most the output budget can count.
            "L past 2^62",
            format!("06 80 80 80 80 80 80 80 80 80 01 01 00 01 {REFS}"),
            ID,
            Some((Limit, 38)),
        ),
        (
            "literals cut short",
            format!("06 01 01 00 01 af{} a0 a1", " 00".repeat(15)),
            "",
            Some((Eof, 0)),
        ),
    ];
    for (what, p, id, expect) in cases {
        let m = two(&p, id);
        let r = qdf_core::from_slice::<Value>(&m);
        match (expect, r) {
            (None, Ok(v)) => assert!(
                v.to_string()
                    .starts_with(r#"[{"p": "", "id": "a0"}, {"p": "a0""#),
                "{what}: {v}"
            ),
            (None, Err(e)) => panic!("{what}: {e}"),
            (Some(_), Ok(v)) => panic!("{what}: accepted as {v}"),
            (Some((c, at)), Err(e)) => {
                assert_eq!(e.classify(), c, "{what}: {e}");
                if c != Eof {
                    assert_eq!(e.offset(), Some(at), "{what}: {e}");
                }
            }
        }
        agree(&m, &Options::default(), what);
    }
    // A map's key and value columns are not siblings (nor a tagged column's variants): a
    // value column naming the key column is an error at `c`.
    let m = unhex(
        "51 44 46 01 03 ef 10 00 01 81 6d 09 24 24 e5 03 00 01 10 00 01 a0 a1 a2 a3 a4 a5 a6 a7 \
         a8 a9 aa ab ac ad ae af 04 01 00 b0 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10",
    );
    let e = qdf_core::from_slice::<Value>(&m).unwrap_err();
    assert_eq!((e.classify(), e.offset()), (Syntax, Some(39)), "{e}");
    agree(&m, &Options::default(), "map value naming its key");
    let m = unhex(
        "51 44 46 01 03 ef 10 00 02 81 65 08 02 81 58 24 81 59 24 82 69 64 24 e5 03 01 00 10 aa \
         aa 00 01 a0 a2 a4 a6 a8 aa ac ae 04 01 00 a8 01 02 03 04 05 06 07 08 00 01 a0 a1 a2 a3 \
         a4 a5 a6 a7 a8 a9 aa ab ac ad ae af",
    );
    let e = qdf_core::from_slice::<Value>(&m).unwrap_err();
    assert_eq!(e.classify(), Syntax, "{e}");
    agree(&m, &Options::default(), "variant naming a variant");
    // Under the column index, flag 04 is an error at the flag byte.
    let indexed = Options::balanced()
        .features(qdf_core::Features::BALANCED.with(qdf_core::Features::COLUMN_INDEX));
    let mut m = unhex("51 44 46 01 08 ef 10 00 02 81 70 24 82 69 64 24");
    let p = unhex(&format!("06 01 01 00 01 {REFS}"));
    let id = unhex(ID);
    m.extend((p.len() as u32).to_le_bytes());
    m.extend((id.len() as u32).to_le_bytes());
    m.extend(&p);
    m.extend(&id);
    let e = qdf_core::from_slice_with::<Value>(&m, indexed).unwrap_err();
    assert_eq!(e.classify(), Syntax, "{e}");
    assert_eq!(e.offset(), Some(24), "{e}");
}

#[test]
fn mutated_messages_never_panic_and_the_walker_agrees() {
    let base = qdf_core::to_vec(&scopes(60)).unwrap();
    let top = qdf_core::to_vec(&spans(60)).unwrap();
    let mut next = xorshift(0x4e7_5eed);
    for m in [base, top] {
        for _ in 0..400 {
            let mut b = m.clone();
            mutate(&mut b, &mut next);
            agree(&b, &Options::default(), "mutated");
        }
    }
}
