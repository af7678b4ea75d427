//! Pins the codec bytes of the OTLP streams in `docs/BENCH.md` ("OTLP", message bytes): 100
//! requests of the demo generator per stream, protobuf and qdf (qdf-tonic's session), each
//! with and without zstd at tonic's level. Deterministic; a change to qdf's encoder or to the
//! generator shows here first.

use otlp_collector::measure::{MessageBytes, message_bytes};
use qdf_fixtures::otel::demo;

fn mb(protobuf: u64, protobuf_zstd: u64, qdf: u64, qdf_zstd: u64) -> MessageBytes {
    MessageBytes {
        protobuf,
        protobuf_zstd,
        qdf,
        qdf_zstd,
    }
}

#[test]
fn trace_streams() {
    let got: Vec<MessageBytes> = [10, 100, 1000]
        .map(|size| message_bytes(&demo::trace_batches(100, size)).unwrap())
        .into();
    // qdf down from 248 872 / 100 475, 1 885 211 / 557 270 and 13 935 201 / 3 602 213 with
    // per-field numbers (docs/SPEC.md §15.2) and number-text columns (§22.1).
    // Struct and list columns (§22.2): 1 829 871 / 552 785 -> 1 825 605 / 552 602 and
    // 12 621 686 / 3 178 784 -> 12 446 448 / 3 178 721. Containers below 16 rows (§22.2,
    // "Small containers"): -> 1 633 186 / 540 271 and 12 046 525 / 3 069 098.
    // Hex text (§9, trace and span ids as `F2 0C` outside columns): 246 876 / 100 269 ->
    // 238 685 / 98 184, 1 633 186 / 540 271 -> 1 589 295 / 516 161, 12 046 525 / 3 069 098 ->
    // 12 044 270 / 3 068 129.
    // A session's string column counts the values its intern table holds as references
    // (a block is chosen only when smaller than that): 1 589 295 / 516 161 -> 1 529 713 /
    // 492 108, 12 044 270 / 3 068 129 -> 12 037 592 / 3 065 843.
    // Per-field strings in the Balanced preset (§15.3, header flag 40): 238 685 / 98 184 ->
    // 230 708 / 99 600 (zstd +1 416 B: prefix forms leave zstd less to find), 1 529 713 /
    // 492 108 -> 1 498 538 / 490 439, 12 037 592 / 3 065 843 -> 12 036 525 / 3 064 982.
    // Map columns in sessions, their keys and values per-value strings through the intern
    // table (§22.2, "Codecs"): 230 708 / 99 600 -> 201 617 / 139 216 (zstd +40 %: the
    // columns take what zstd found in the rows), 1 498 538 / 490 439 -> 812 252 / 456 057,
    // 12 036 525 / 3 064 982 -> 6 009 379 / 3 155 276 (zstd +2.9 %).
    // Parent span ids as references to span ids (§22.1, hex flag 04): 201 617 / 139 216 ->
    // 197 588 / 139 182, 812 252 / 456 057 -> 790 595 / 450 424, 6 009 379 / 3 155 276 ->
    // 6 002 937 / 3 155 326.
    let want = [
        mb(688_035, 233_941, 197_588, 139_182),
        mb(4_336_261, 803_925, 790_595, 450_424),
        mb(36_376_371, 4_023_104, 6_002_937, 3_155_326),
    ];
    assert_eq!(got, want);
}

#[test]
fn log_streams() {
    let got: Vec<MessageBytes> = [10, 100, 1000]
        .map(|size| message_bytes(&demo::log_batches(100, size)).unwrap())
        .into();
    // qdf down from 1 190 836 / 471 897 and 7 861 237 / 3 676 339 with number-text columns
    // (docs/SPEC.md §22.1).
    // Struct and list columns (§22.2): 1 111 338 -> 1 111 288 raw, but zstd 463 573 ->
    // 463 720 (+147 B); 6 305 308 / 2 938 246 -> 6 284 685 / 2 938 232. Containers below 16
    // rows (§22.2, "Small containers"): batch 100 -> 1 046 130 / 454 713.
    // Hex text (§9): 218 685 / 87 386 -> 209 226 / 87 484 (zstd +98 B: packed ids compress
    // less), 1 046 130 / 454 713 -> 1 001 459 / 440 290, 6 284 685 / 2 938 232 -> 6 282 451 /
    // 2 936 606.
    // Interned values counted as references in a session's string columns: batch 100
    // 1 001 459 / 440 290 -> 985 534 / 441 142 (zstd +852 B: references compress less than
    // the blocks they replace).
    // Per-field strings in the Balanced preset (§15.3, header flag 40): 209 226 / 87 484 ->
    // 197 466 / 89 166, 985 534 / 441 142 -> 941 804 / 443 252 (zstd +1 682 and +2 110 B),
    // batch 1000 6 282 451 / 2 936 606 -> 6 282 470 / 2 936 619 (+19 / +13 B).
    // Map columns in sessions (per-value children, §22.2): 197 466 / 89 166 -> 153 782 /
    // 110 018 (zstd +23 %), 941 804 / 443 252 -> 710 577 / 417 361, 6 282 470 / 2 936 619 ->
    // 5 284 797 / 3 281 747 (zstd +11.8 %).
    let want = [
        mb(517_948, 193_992, 153_782, 110_018),
        mb(2_046_911, 648_577, 710_577, 417_361),
        mb(14_682_796, 3_869_255, 5_284_797, 3_281_747),
    ];
    assert_eq!(got, want);
}
