//! Calls exactly what `benches/peers.rs` calls for decode of Logs 1024 and ADUser 5000 (qdf
//! Balanced, rmp-serde, prost with its conversion) and what `benches/columnar.rs` calls for
//! the subset decode, `N` times, for instruction counts and profiles of the columnar rows:
//!
//! ```sh
//! cargo build --release -p qdf-perf --bin coldec_count
//! valgrind --tool=callgrind target/release/coldec_count logs qdf 11
//! ```
//!
//! Arguments: `logs|aduser` with `qdf|rmp|prost`, or `wide` with `full|subset` (indexed);
//! then the number of calls. Instructions per call = (count for 11 calls − count for 1 call) / 10.

#[path = "../../../tests/support/mod.rs"]
mod support;

use std::hint::black_box;

use qdf::{Features, Options};
use qdf_fixtures::Dataset;
use qdf_fixtures::peers::Codec;
use qdf_fixtures::synth::{aduser, logs};

#[path = "../../../tests/support/subset.rs"]
mod subset;
use subset::{Three, Wide};

const USAGE: &str = "usage: coldec_count logs|aduser qdf|rmp|prost N | wide full|subset N";

fn run<D: Dataset>(data: &D, codec: &str, n: usize) {
    let name = match codec {
        "qdf" => "qdf balanced",
        "rmp" => "rmp-serde",
        "prost" => "prost",
        _ => panic!("{USAGE}"),
    };
    let codecs: Vec<Codec<D>> = support::all_codecs::<D>();
    let c = codecs.iter().find(|c| c.name == name).expect("a codec");
    let bytes = c.round_trip(data).expect("round-trips");
    for _ in 0..n {
        black_box((c.decode)(black_box(&bytes)).expect("decodes"));
    }
}

fn run_wide(which: &str, n: usize) {
    let v = subset::wide(5000);
    let opts = Options::balanced().features(Features::BALANCED.with(Features::COLUMN_INDEX));
    let bytes = qdf::to_vec_with(&v, opts).expect("encodes");
    for _ in 0..n {
        match which {
            "full" => {
                black_box(qdf::from_slice::<Vec<Wide>>(black_box(&bytes)).expect("decodes"));
            }
            "subset" => {
                black_box(qdf::from_slice::<Vec<Three>>(black_box(&bytes)).expect("decodes"));
            }
            _ => panic!("{USAGE}"),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [set, codec, n] = &args[..] else {
        panic!("{USAGE}");
    };
    let n: usize = n.parse().expect("a number of calls");
    match set.as_str() {
        "logs" => run(&logs::log_batch(1024), codec, n),
        "aduser" => run(&aduser::ad_users(5000), codec, n),
        "wide" => run_wide(codec, n),
        _ => panic!("{USAGE}"),
    }
}
