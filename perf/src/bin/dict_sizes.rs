//! Issue #25's table: message bytes with and without a pre-shared dictionary, against
//! protobuf + zstd with a zstd dictionary (see `perf/src/dict_sizes.rs`). Deterministic; the
//! table is in `docs/BENCH.md`, section "Dictionaries (#25)".
//!
//! ```sh
//! cargo run --release -p qdf-perf --bin dict_sizes
//! ```

#[path = "../dict_sizes.rs"]
mod dict_sizes;

fn main() {
    println!(
        "dictionaries trained on {} messages, measured on {} others; budget {} bytes each; zstd level {}",
        dict_sizes::TRAIN,
        dict_sizes::TEST,
        dict_sizes::BUDGET,
        dict_sizes::LEVEL
    );
    println!(
        "| workload | qdf | qdf + dictionary | ÷ | prost | prost+zstd | prost+zstd+dictionary | dictionary entries | dictionary shapes | hex ids in qdf + dictionary |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (name, s) in dict_sizes::rows() {
        println!(
            "| {name} | {} | {} | {:.2}× | {} | {} | {} | {} | {} | {} |",
            s.qdf,
            s.qdf_dict,
            s.qdf_dict as f64 / s.qdf as f64,
            s.prost,
            s.prost_zstd,
            s.prost_zstd_dict,
            s.dict_entries,
            s.dict_shapes,
            s.hex_ids
        );
    }
}
