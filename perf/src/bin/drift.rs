//! Long-lived sessions under drift (issue #17): bytes per record per window of one
//! `EncoderSession` (Balanced, default options: admission and renewal, `docs/SPEC.md` §18)
//! that lives for the whole stream, against the same session without renewal
//! (`session_renewal(false)`, the behaviour before) and the naive baseline (a fresh session
//! without renewal every 10 000 messages, its new stream header counted), all measured in the
//! same run, and the Speed tier for the stream of unique strings. Every frame of the long session
//! and of the baseline is decoded by a `DecoderSession` and compared with what was sent.
//! Deterministic; the tables go into docs/BENCH.md ("Long-lived sessions").
//!
//! ```sh
//! cargo run --release -p qdf-perf --bin drift            # every scenario
//! cargo run --release -p qdf-perf --bin drift -- a       # one scenario: a, b, c, logs, telemetry
//! ```
//!
//! Scenarios (100 000 messages each unless said):
//! - (a) `Vec<Rec>` of 10 log records: a random 32-hex trace id and 16-hex span id per record,
//!   a user drawn from a window of 2 000 users that drifts by one user every 25 messages, one
//!   of 60 pod host names (all 60 replaced at message 50 000, as after a deploy), and level,
//!   service, path and message from fixed pools;
//! - (b) steady traffic: the same records without the ids, users from a fixed 3 000;
//! - (c) nothing but unique strings: `Vec<String>` of 10 random hex strings (8–40 digits);
//! - (d) the qdf-fixtures Logs and TelemetryBatch records streamed one record per message
//!   (100 000 messages) and ten records per message (10 000 messages).

use qdf_core::{DecoderSession, EncoderSession, Options, SessionStats};
use qdf_fixtures::Rng;
use qdf_fixtures::synth::drift::{LogGen, unique_strings};
use qdf_fixtures::synth::{logs, telemetry};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The naive baseline opens a fresh session every this many messages.
const RENEW_EVERY: usize = 10_000;
/// Window of the per-window figures the targets are checked on.
const WINDOW: usize = 1_000;
/// Window of the printed tables.
const SHOWN: usize = 10_000;

/// One encoder under measurement and its decoder.
struct Lane {
    opts: Options,
    renew_every: Option<usize>,
    enc: EncoderSession,
    dec: DecoderSession,
    buf: Vec<u8>,
    /// Bytes per [`WINDOW`].
    windows: Vec<u64>,
}

impl Lane {
    fn new(opts: Options, renew_every: Option<usize>) -> Self {
        Lane {
            opts,
            renew_every,
            enc: EncoderSession::new(opts),
            dec: DecoderSession::new(opts),
            buf: Vec::new(),
            windows: Vec::new(),
        }
    }

    fn send<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(
        &mut self,
        n: usize,
        value: &T,
    ) {
        if self
            .renew_every
            .is_some_and(|k| n > 0 && n.is_multiple_of(k))
        {
            self.enc = EncoderSession::new(self.opts);
            self.dec = DecoderSession::new(self.opts);
        }
        self.buf.clear();
        self.enc
            .encode_frame(value, &mut self.buf)
            .expect("encodes");
        let (back, used): (T, usize) = self
            .dec
            .decode_frame(&self.buf)
            .expect("decodes")
            .expect("a whole frame");
        assert_eq!(used, self.buf.len());
        assert_eq!(&back, value, "message {n} round trip");
        if n / WINDOW >= self.windows.len() {
            self.windows.push(0);
        }
        *self.windows.last_mut().expect("pushed") += self.buf.len() as u64;
    }
}

/// What one scenario measured.
struct Run {
    name: &'static str,
    records_per_msg: usize,
    msgs: usize,
    session: Vec<u64>,
    before: Vec<u64>,
    baseline: Vec<u64>,
    speed: Option<Vec<u64>>,
    stats: SessionStats,
}

fn run<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(
    name: &'static str,
    msgs: usize,
    records_per_msg: usize,
    with_speed: bool,
    mut next: impl FnMut(usize) -> T,
) -> Run {
    let old = Options::balanced().session_renewal(false);
    let mut session = Lane::new(Options::balanced(), None);
    let mut before = Lane::new(old, None);
    let mut baseline = Lane::new(old, Some(RENEW_EVERY));
    let mut speed = with_speed.then(|| Lane::new(Options::speed(), None));
    for n in 0..msgs {
        let v = next(n);
        session.send(n, &v);
        before.send(n, &v);
        baseline.send(n, &v);
        if let Some(s) = speed.as_mut() {
            s.send(n, &v);
        }
    }
    Run {
        name,
        records_per_msg,
        msgs,
        stats: session.enc.stats(),
        session: session.windows,
        before: before.windows,
        baseline: baseline.windows,
        speed: speed.map(|s| s.windows),
    }
}

impl Run {
    fn per_record(&self, bytes: u64, msgs: usize) -> f64 {
        bytes as f64 / (msgs * self.records_per_msg) as f64
    }

    /// Bytes per record of windows `[from, to)` (in [`WINDOW`]s) of `w`.
    fn span(&self, w: &[u64], from: usize, to: usize) -> f64 {
        let to = to.min(w.len());
        let msgs = (to * WINDOW).min(self.msgs) - from * WINDOW;
        self.per_record(w[from..to].iter().sum(), msgs)
    }

    fn print(&self) {
        // Short runs (10 000 messages) are shown in windows of 1 000.
        let every = if self.msgs > SHOWN { SHOWN } else { WINDOW };
        let k = every / WINDOW;
        let shown = self.msgs.div_ceil(every);
        println!("\n### {}\n", self.name);
        let speed_col = self.speed.is_some();
        print!(
            "| messages | long session | without renewal | fresh every 10 000 | session ÷ fresh |"
        );
        println!(
            "{}",
            if speed_col {
                " Speed | session ÷ Speed |"
            } else {
                ""
            }
        );
        print!("|---|---:|---:|---:|---:|");
        println!("{}", if speed_col { "---:|---:|" } else { "" });
        for i in 0..shown {
            let (s, o, b) = (
                self.span(&self.session, i * k, (i + 1) * k),
                self.span(&self.before, i * k, (i + 1) * k),
                self.span(&self.baseline, i * k, (i + 1) * k),
            );
            print!(
                "| {}–{} | {s:.2} | {o:.2} | {b:.2} | {:.3} |",
                i * every,
                ((i + 1) * every).min(self.msgs),
                s / b
            );
            match &self.speed {
                Some(sp) => {
                    let p = self.span(sp, i * k, (i + 1) * k);
                    println!(" {p:.2} | {:.3} |", s / p);
                }
                None => println!(),
            }
        }
        let n = self.session.len();
        let (s, o, b) = (
            self.span(&self.session, 0, n),
            self.span(&self.before, 0, n),
            self.span(&self.baseline, 0, n),
        );
        print!(
            "| **all** | **{s:.2}** | **{o:.2}** | **{b:.2}** | **{:.3}** |",
            s / b
        );
        match &self.speed {
            Some(sp) => {
                let p = self.span(sp, 0, n);
                println!(" **{p:.2}** | **{:.3}** |", s / p);
            }
            None => println!(),
        }
        // Per-window ratios against the baseline (windows of WINDOW messages, first excluded).
        let ratios: Vec<f64> = (1..n)
            .map(|i| self.span(&self.session, i, i + 1) / self.span(&self.baseline, i, i + 1))
            .collect();
        let worst = ratios.iter().cloned().fold(f64::MIN, f64::max);
        let worst_at = ratios.iter().position(|&r| r == worst).map_or(0, |i| i + 1);
        println!(
            "\nWindows of {WINDOW} messages after the first: session ÷ fresh at most {worst:.3} \
             (window {}–{}); whole stream {:.3}. Session at the end: {} intern entries, {} bytes; \
             {} renewals, {} entries evicted, {} hits, {} misses, {} heap bytes.",
            worst_at * WINDOW,
            (worst_at + 1) * WINDOW,
            s / b,
            self.stats.intern_entries,
            self.stats.intern_bytes,
            self.stats.renewals,
            self.stats.evictions,
            self.stats.hits,
            self.stats.misses,
            self.stats.heap_bytes,
        );
    }

    /// Scenario (a): the windows around the deploy and the recovery target.
    fn print_deploy(&self, deploy_at: usize) {
        let d = deploy_at / WINDOW;
        println!("\nAround the deploy at message {deploy_at} (windows of {WINDOW}):\n");
        println!("| messages | long session | fresh every 10 000 |");
        println!("|---|---:|---:|");
        for i in d - 3..d + 6 {
            println!(
                "| {}–{} | {:.2} | {:.2} |",
                i * WINDOW,
                (i + 1) * WINDOW,
                self.span(&self.session, i, i + 1),
                self.span(&self.baseline, i, i + 1)
            );
        }
        let best_before = (1..d)
            .map(|i| self.span(&self.session, i, i + 1))
            .fold(f64::MAX, f64::min);
        let two_after = self.span(&self.session, d + 1, d + 2);
        println!(
            "\nBest window before the deploy {best_before:.2}; the window ending 2 000 messages \
             after it {two_after:.2} ({:+.1} %).",
            (two_after / best_before - 1.0) * 100.0
        );
    }
}

fn main() {
    let only = std::env::args().nth(1);
    let want = |s: &str| only.as_deref().is_none_or(|o| o == s);
    let msgs = 100_000;
    if want("a") {
        let deploy_at = msgs / 2;
        let mut g = LogGen::new(true, deploy_at);
        let r = run(
            "(a) unique ids, drifting users, a deploy at 50 000 (10 records a message)",
            msgs,
            10,
            false,
            |n| g.message(n),
        );
        r.print();
        r.print_deploy(deploy_at);
    }
    if want("b") {
        let mut g = LogGen::new(false, usize::MAX);
        run(
            "(b) steady traffic over a fixed vocabulary (10 records a message)",
            msgs,
            10,
            false,
            |n| g.message(n),
        )
        .print();
    }
    if want("c") {
        let mut r = Rng::pcg(0xc0ff_ee00, 3);
        run(
            "(c) nothing but unique strings (10 a message)",
            msgs,
            10,
            true,
            |_| unique_strings(&mut r),
        )
        .print();
    }
    if want("logs") {
        let recs = logs::log_batch(msgs).records;
        run("(d) Logs, one record a message", msgs, 1, false, |n| {
            recs[n].clone()
        })
        .print();
        run(
            "(d) Logs, ten records a message",
            msgs / 10,
            10,
            false,
            |n| recs[n * 10..n * 10 + 10].to_vec(),
        )
        .print();
    }
    if want("telemetry") {
        let evs = telemetry::telemetry_batch(msgs).events;
        run(
            "(d) TelemetryBatch events, one a message",
            msgs,
            1,
            false,
            |n| evs[n].clone(),
        )
        .print();
        run(
            "(d) TelemetryBatch events, ten a message",
            msgs / 10,
            10,
            false,
            |n| evs[n * 10..n * 10 + 10].to_vec(),
        )
        .print();
    }
}
