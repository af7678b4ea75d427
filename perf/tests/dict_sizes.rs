//! Pins issue #25's figures (`perf/src/dict_sizes.rs`, table in `docs/BENCH.md`, section
//! "Dictionaries (#25)"): mean message bytes with and without a pre-shared dictionary, and
//! the protobuf / zstd baselines. Deterministic. When an encoder change moves them, run
//! `cargo run --release -p qdf-perf --bin dict_sizes` and update both.

#[path = "../src/dict_sizes.rs"]
mod dict_sizes;

#[test]
fn dictionary_sizes_are_pinned() {
    // (workload, [qdf, qdf + dictionary, prost, prost+zstd, prost+zstd+dictionary,
    // dictionary entries, dictionary shapes, hex ids])
    let want: [(&str, [usize; 8]); 4] = [
        // Hex text (docs/SPEC.md §9) packs the ids outside columns: logs 1226 / 913 / 500 ->
        // 1006 / 693 / 280, one log 213 / 118 / 50 -> 191 / 96 / 28, one span 297 / 166 / 67
        // -> 268 / 137 / 38. Shapes and short entries (file version 2, §25.2): qdf +
        // dictionary 693 -> 633, 644 -> 625, 96 -> 74, 137 -> 107. Numbers predicted within
        // a message on a dictionary (§15.2, §25.2): logs 633 -> 565 (the timestamps).
        // Map columns in one-shot messages (§22.2): logs 1006 -> 781. On a dictionary too,
        // their keys and values per-value strings through its intern table: qdf + dictionary
        // logs 565 -> 493, spans 625 -> 583 (the trained dictionary changes with them: logs
        // 47 -> 55 entries, 2 -> 1 shapes, 280 -> 238 bytes of hex ids).
        ("logs, batch of 10", [781, 493, 1538, 899, 583, 55, 1, 238]),
        (
            "spans, batch of 10",
            [929, 583, 2325, 1062, 693, 59, 3, 190],
        ),
        ("logs, one record", [191, 74, 152, 159, 78, 47, 1, 28]),
        ("spans, one record", [268, 107, 220, 206, 104, 130, 2, 38]),
    ];
    let got: Vec<(&str, [usize; 8])> = dict_sizes::rows()
        .into_iter()
        .map(|(name, s)| {
            let row = [
                s.qdf,
                s.qdf_dict,
                s.prost,
                s.prost_zstd,
                s.prost_zstd_dict,
                s.dict_entries,
                s.dict_shapes,
                s.hex_ids,
            ];
            (name, row)
        })
        .collect();
    assert_eq!(got, want);
    // What the dictionary is worth where it can act: the bytes besides the random hex ids
    // (docs/BENCH.md quotes these ratios).
    let rest: Vec<String> = dict_sizes::rows()
        .iter()
        .map(|(_, s)| {
            let rest = |n: usize| (n - s.hex_ids) as f64;
            format!("{:.2}", rest(s.qdf_dict) / rest(s.qdf))
        })
        .collect();
    assert_eq!(rest, ["0.47", "0.53", "0.28", "0.30"]);
}
