//! Pins the streamed benchmark's sizes (docs/BENCH.md, `perf/src/bin/stream_logs.rs`): 10 000 Logs
//! records through one `EncoderSession` against one-shot Balanced messages and serde_json
//! lines. The batch-as-one-message size is printed, not pinned here (`tests/sizes.rs` pins
//! the batch encodings).

#[path = "support/mod.rs"]
mod support;

use qdf_fixtures::synth::logs;

#[test]
fn ten_thousand_log_records_through_one_session() {
    let recs = logs::log_batch(10_000).records;
    let s = support::stream_sizes(&recs);
    println!("{s:?}");
    // Down from 879 582 and 869 976 with session admission and renewal (docs/SPEC.md §18):
    // the unique ids go inline after the session learns second sight; then from 871 994 and
    // 862 920 with per-field numbers (§15.2); then from 792 034 and 782 960 (one-shot
    // 2 119 987) with hex text (§9: the records' trace and span ids at half their text).
    assert_eq!(s.session, 580_007);
    assert_eq!(s.session_map_shape, 570_933);
    assert_eq!(s.one_shot, 1_899_987);
    assert_eq!(s.json_lines, 2_400_642);
    // A session is real: it pays each string once, so it is smaller than one-shot messages
    // and than JSON lines.
    assert!(s.session * 2 < s.one_shot);
    assert!(s.session * 2 < s.json_lines);
}
