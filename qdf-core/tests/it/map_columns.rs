//! Map columns (`docs/SPEC.md` §22.2, class 9): a column of maps in a columnar container is
//! a lengths column, then a key column and a value column over all its entries.

use std::collections::{BTreeMap, HashMap};

use crate::common::{TIERS, hex, round_trip};
use qdf_core::inspect::{self, ColumnValues, EventKind};
use qdf_core::{Features, Options, Value};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Event {
    ts: i64,
    tags: BTreeMap<String, String>,
}

fn events(n: usize) -> Vec<Event> {
    (0..n)
        .map(|i| Event {
            ts: 1_700_000_000 + i as i64,
            tags: [("version", "v3.42.1"), ("client", "go-client/1.20")]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
        })
        .collect()
}

/// The map columns a message holds: `(depth, name, entries)`.
fn map_columns(bytes: &[u8], opts: &Options) -> Vec<(u32, String, u64)> {
    let mut out = Vec::new();
    inspect::message(bytes, opts, &mut |e| {
        if let EventKind::Column {
            name,
            values: ColumnValues::Map { entries, .. },
            ..
        } = &e.kind
        {
            out.push((e.depth, name.to_string(), *entries));
        }
    })
    .unwrap();
    out
}

#[test]
fn smoke() {
    let v = events(20);
    round_trip(&v);
    let opts = Options::balanced();
    let bytes = qdf_core::to_vec_with(&v, opts).unwrap();
    println!("{}", hex(&bytes));
    assert_eq!(map_columns(&bytes, &opts), [(2, "tags".to_string(), 40)]);
}

#[test]
fn zz_print_examples() {
    #[derive(Serialize)]
    struct T {
        t: BTreeMap<String, u8>,
    }
    let a: Vec<T> = (0..16u8)
        .map(|i| T { t: [("a".to_string(), i % 2), ("b".to_string(), i)].into_iter().collect() })
        .collect();
    let bytes = qdf_core::to_vec(&a).unwrap();
    println!("{}", hex(&bytes));
    let v: Value = qdf_core::from_slice(&bytes).unwrap();
    println!("{v}");
    for h in [
        "51 44 46 01 00 ef 02 00 01 81 6d 09 04 01 a2 02 01 81 61 81 62 81 61 a3 01 02 03",
        "51 44 46 01 00 ef 04 00 01 81 6d 89 01 83 0d a3 01 00 02 a3 0a 0a 0b 03 a2 c2 c1",
        "51 44 46 01 00 ef 02 00 01 81 6d 09 04 01 a2 02 02 81 61 81 62 81 61 81 62 a3 01 02 03",
        "51 44 46 01 00 ef 02 00 01 81 6d 09 44 01 a2 02 01 81 61 81 62 81 61 a3 01 02 03",
        "51 44 46 01 00 ef 02 00 01 81 6d 09 04 0f a2 02 01 81 61 81 62 81 61 a3 01 02 03",
        "51 44 46 01 00 ef 01 00 01 81 6d 09 04 01 a1 02 81 61 a1 01",
        "51 44 46 01 00 ef 01 00 01 81 6d 09 04 01 a1 01 81 61",
        "51 44 46 01 00 ef 01 00 01 81 6d 09 04 a1 01 81 61",
    ] {
        let b = crate::common::unhex(h);
        match qdf_core::from_slice::<Value>(&b) {
            Ok(v) => println!("OK {v}"),
            Err(e) => println!("ERR {:?} {e}", e.classify()),
        }
    }
}
