//! Pinned bytes of a shortened drift run (perf/src/bin/drift.rs, scenario (a)): 3 000 messages of
//! 10 log records with unique trace and span ids, drifting users and a deploy at message 1 500,
//! through one long `EncoderSession` (Balanced) with renewal (`docs/SPEC.md` §18) and one
//! without. Small intern caps make the table fill, and renewal happen, within the run. Every
//! frame is decoded and compared with what was sent. Sizes are deterministic: a change in
//! admission, renewal or the generators shows here first.

use qdf_core::{DecoderSession, EncoderSession, Options, SessionStats};
use qdf_fixtures::synth::drift::LogGen;

const MSGS: usize = 3_000;
const DEPLOY_AT: usize = 1_500;
/// Small enough that the table fills a few times in [`MSGS`] messages.
const CAP: u32 = 2_048;

/// Streams scenario (a) through one session with `opts`; total frame bytes and encoder stats.
fn stream(opts: Options) -> (u64, SessionStats) {
    let mut g = LogGen::new(true, DEPLOY_AT);
    let mut enc = EncoderSession::new(opts);
    let mut dec = DecoderSession::new(opts);
    let mut buf = Vec::new();
    let mut total = 0u64;
    for n in 0..MSGS {
        let v = g.message(n);
        buf.clear();
        enc.encode_frame(&v, &mut buf).expect("encodes");
        let (back, used): (Vec<qdf_fixtures::synth::drift::Rec>, usize) = dec
            .decode_frame(&buf)
            .expect("decodes")
            .expect("a whole frame");
        assert_eq!(used, buf.len(), "message {n} length");
        assert_eq!(back, v, "message {n} round trip");
        total += buf.len() as u64;
    }
    (total, enc.stats())
}

#[test]
fn drift_a_bytes_pinned() {
    let caps = Options::balanced().max_intern_entries(CAP);
    let (renewing, s) = stream(caps);
    let (before, b) = stream(caps.session_renewal(false));
    assert_eq!(s.renewals, 46, "the small cap makes the session renew");
    assert_eq!(b.renewals, 0);
    // Down from 2 881 044 and 3 038 248 with per-field numbers (docs/SPEC.md §15.2), then
    // from 2 622 329 and 2 778 697 with hex text (§9); the session without renewal from
    // 2 148 016 with per-field strings in the Balanced preset (§15.3).
    assert_eq!(renewing, 1_962_329, "renewing session bytes");
    assert_eq!(before, 2_037_851, "renewal-off session bytes");
    assert!(renewing <= before, "renewal never costs bytes here");
}
