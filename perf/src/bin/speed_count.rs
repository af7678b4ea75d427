//! Calls exactly what `benches/speed.rs` (and, for `logs`, the `Logs 1024` group of
//! `benches/peers.rs`) calls, `N` times, for instruction counts and profiles (docs/BENCH.md):
//!
//! ```sh
//! cargo build --release -p qdf-perf --bin speed_count
//! valgrind --tool=callgrind target/release/speed_count iot encode qdf 11
//! valgrind --tool=callgrind target/release/speed_count logs encode balanced 11
//! perf record -g target/release/speed_count iot encode qdf 20000
//! ```
//!
//! Arguments: `logbatch|iot|logs|otlp|rtb|weblog|savegame|gamestate|mesh|zipkin|demo1000`
//! (`otlp`: OTLP 4×512, `rtb`: RTB 1024; `weblog` to `mesh` are the issue #19 shapes of
//! `qdf_fixtures::outside` at their benchmark sizes: 10 000 log lines, 500 players, 1 000
//! game-state updates, 125 000 triangles; `zipkin`: the 1 041 Zipkin spans of the size table;
//! `demo1000`: one OTLP demo export of 1 000 spans in the JSON mapping),
//! `encode|decode|digest`, `qdf|balanced|compression|rmp|postcard` (`qdf` is the Speed tier,
//! `balanced` `Options::balanced()`, `compression` `Options::compression()`; `digest` prints
//! the length and FNV-1a hash of one qdf encode, for `qdf|balanced|compression`, to check that
//! a change keeps the bytes), number of calls. Instructions per call = (count for 11 calls −
//! count for 1 call) / 10.

use std::hint::black_box;

use qdf::Options;
use qdf_fixtures::otel::demo;
use qdf_fixtures::outside::{gamestate, mesh, savegame, weblog};
use qdf_fixtures::real::zipkin;
use qdf_fixtures::synth::{iot, logbatch, logs, otlp, rtb};
use serde::Serialize;
use serde::de::DeserializeOwned;

const USAGE: &str = "usage: speed_count \
                     logbatch|iot|logs|otlp|rtb|weblog|savegame|gamestate|mesh|zipkin|demo1000 \
                     encode|decode|digest qdf|balanced|compression|rmp|postcard N";

fn run<T: Serialize + DeserializeOwned>(data: &T, op: &str, codec: &str, n: usize) {
    let qdf_bytes = qdf::to_vec_with(data, Options::speed()).expect("encodes");
    // The Balanced or Compression bytes, only when decoded: a Balanced encode here changes the heap's layout for the other rows
    // (the output `Vec`'s growth then copies, +107 k instructions on LogBatch Speed encode).
    let tier_bytes = match (op, codec) {
        ("decode", "balanced") => qdf::to_vec_with(data, Options::balanced()).expect("encodes"),
        ("decode", "compression") => {
            qdf::to_vec_with(data, Options::compression()).expect("encodes")
        }
        _ => Vec::new(),
    };
    let rmp_bytes = rmp_serde::to_vec_named(data).expect("encodes");
    let postcard_bytes = match (op, codec) {
        ("decode", "postcard") => postcard::to_stdvec(data).expect("encodes"),
        _ => Vec::new(),
    };
    if op == "digest" {
        // Checks that a change keeps the bytes: length and FNV-1a of one encode.
        let bytes = match codec {
            "qdf" => qdf_bytes,
            "balanced" => qdf::to_vec_with(data, Options::balanced()).expect("encodes"),
            "compression" => qdf::to_vec_with(data, Options::compression()).expect("encodes"),
            _ => panic!("{USAGE}"),
        };
        let fnv = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        println!("{} {fnv:016x}", bytes.len());
        return;
    }
    for _ in 0..n {
        match (op, codec) {
            ("encode", "qdf") => {
                black_box(qdf::to_vec_with(black_box(data), Options::speed()).expect("encodes"));
            }
            ("encode", "balanced") => {
                black_box(qdf::to_vec_with(black_box(data), Options::balanced()).expect("encodes"));
            }
            ("encode", "compression") => {
                black_box(
                    qdf::to_vec_with(black_box(data), Options::compression()).expect("encodes"),
                );
            }
            ("encode", "rmp") => {
                black_box(rmp_serde::to_vec_named(black_box(data)).expect("encodes"));
            }
            ("encode", "postcard") => {
                black_box(postcard::to_stdvec(black_box(data)).expect("encodes"));
            }
            ("decode", "qdf") => {
                let v: T = qdf::from_slice(black_box(&qdf_bytes)).expect("decodes");
                black_box(v);
            }
            ("decode", "balanced" | "compression") => {
                let v: T = qdf::from_slice(black_box(&tier_bytes)).expect("decodes");
                black_box(v);
            }
            ("decode", "rmp") => {
                let v: T = rmp_serde::from_slice(black_box(&rmp_bytes)).expect("decodes");
                black_box(v);
            }
            ("decode", "postcard") => {
                let v: T = postcard::from_bytes(black_box(&postcard_bytes)).expect("decodes");
                black_box(v);
            }
            _ => {
                panic!("{USAGE}")
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [set, op, codec, n] = &args[..] else {
        panic!("{USAGE}");
    };
    let n: usize = n.parse().expect("a number of calls");
    match set.as_str() {
        "logbatch" => run(&logbatch::log_batch(1000), op, codec, n),
        "iot" => run(&iot::iot_batch(32, 256), op, codec, n),
        "logs" => run(&logs::log_batch(1024), op, codec, n),
        "otlp" => run(&otlp::trace_export(4, 512), op, codec, n),
        "rtb" => run(&rtb::rtb_batch(1024), op, codec, n),
        "weblog" => run(&weblog::web_log(10_000), op, codec, n),
        "savegame" => run(&savegame::save_game(500), op, codec, n),
        "gamestate" => run(&gamestate::game_state(1_000), op, codec, n),
        "mesh" => run(&mesh::mesh(125_000), op, codec, n),
        "zipkin" => run(&zipkin::load().expect("the shipped trace"), op, codec, n),
        "demo1000" => run(&demo::trace_batches(1, 1000).remove(0), op, codec, n),
        _ => panic!("{USAGE}"),
    }
}
