//! The drift scenarios of issue #17 (long-lived sessions): log records with unique trace and
//! span ids, a drifting user population and a deploy that replaces every pod host name (a), the
//! same records over a fixed vocabulary (b), and nothing but unique hex strings (c). Shared by
//! `perf/src/bin/drift.rs` (the figures in docs/BENCH.md), `tests/drift.rs` (pinned bytes) and
//! `benches/drift.rs` (criterion).

use crate::Rng;
use serde::{Deserialize, Serialize};

/// Log levels, drawn uniformly.
pub const LEVELS: [&str; 5] = ["INFO", "WARN", "ERROR", "DEBUG", "TRACE"];
/// Service names; a pod belongs to service `pod % 8`.
pub const SERVICES: [&str; 8] = [
    "checkout", "payments", "catalog", "search", "accounts", "shipping", "frontend", "ledger",
];
/// Request paths, drawn uniformly.
pub const PATHS: [&str; 12] = [
    "/api/v1/orders",
    "/api/v1/orders/{id}",
    "/api/v1/cart",
    "/api/v1/cart/items",
    "/api/v1/users/{id}",
    "/api/v1/search",
    "/api/v1/products/{id}",
    "/api/v1/payments",
    "/api/v1/shipments/{id}",
    "/healthz",
    "/metrics",
    "/api/v1/login",
];
/// Log messages, drawn uniformly.
pub const MESSAGES: [&str; 16] = [
    "request completed",
    "request started",
    "cache miss",
    "cache hit",
    "upstream timeout",
    "retrying upstream call",
    "user authenticated",
    "payment authorised",
    "payment declined",
    "inventory reserved",
    "order placed",
    "rate limited",
    "connection reset by peer",
    "slow query",
    "feature flag evaluated",
    "session expired",
];

/// One log record of scenarios (a) and (b): ids as 32- and 16-digit hex, users as
/// `user-NNNNNN`, timestamps in milliseconds 7 apart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rec {
    /// Milliseconds since the Unix epoch.
    pub ts: i64,
    /// One of [`LEVELS`].
    pub level: String,
    /// One of [`SERVICES`].
    pub service: String,
    /// Pod host name, one of 60 per deployment generation.
    pub pod: String,
    /// `user-NNNNNN`.
    pub user: String,
    /// One of [`PATHS`].
    pub path: String,
    /// HTTP status code.
    pub status: u16,
    /// Request duration in microseconds, below 2 s.
    pub duration_us: u32,
    /// 32 random hex digits in (a), absent in (b).
    pub trace_id: Option<String>,
    /// 16 random hex digits in (a), absent in (b).
    pub span_id: Option<String>,
    /// One of [`MESSAGES`].
    pub msg: String,
}

/// The 60 pod host names of a deployment generation (`generation` 0 before the deploy, 1 after).
pub fn pods(generation: u64) -> Vec<String> {
    let mut r = Rng::pcg(0x5eed_0000 + generation, 0x9e37_79b9);
    (0..60)
        .map(|i| format!("{}-{}-{}", SERVICES[i % 8], r.hex(10), r.hex(5)))
        .collect()
}

/// The records of scenarios (a) (`ids`: drifting users, trace and span ids, a deploy) and
/// (b) (no ids, fixed users, no deploy).
pub struct LogGen {
    r: Rng,
    ids: bool,
    pods: [Vec<String>; 2],
    deploy_at: usize,
}

impl LogGen {
    /// A generator for scenario (a) (`ids` true, the 60 pods replaced at message `deploy_at`)
    /// or (b) (`ids` false). Deterministic: the same seed for every run.
    pub fn new(ids: bool, deploy_at: usize) -> Self {
        LogGen {
            r: Rng::pcg(0xd71f_7001, if ids { 1 } else { 2 }),
            ids,
            pods: [pods(0), pods(1)],
            deploy_at,
        }
    }

    /// Message `n`: 10 records. Call with `n` = 0, 1, 2, … in order.
    pub fn message(&mut self, n: usize) -> Vec<Rec> {
        let r = &mut self.r;
        let pods = &self.pods[usize::from(self.ids && n >= self.deploy_at)];
        (0..10)
            .map(|i| {
                let user = if self.ids {
                    n / 25 + r.index(2000)
                } else {
                    r.index(3000)
                };
                let pod = r.index(60);
                Rec {
                    ts: 1_700_000_000_000 + (n * 10 + i) as i64 * 7,
                    level: r.pick(&LEVELS).to_owned(),
                    service: SERVICES[pod % 8].to_owned(),
                    pod: pods[pod].clone(),
                    user: format!("user-{user:06}"),
                    path: r.pick(&PATHS).to_owned(),
                    status: [200, 200, 200, 201, 204, 304, 400, 404, 500][r.index(9)],
                    duration_us: r.int_n(2_000_000) as u32,
                    trace_id: self.ids.then(|| r.hex(32)),
                    span_id: self.ids.then(|| r.hex(16)),
                    msg: r.pick(&MESSAGES).to_owned(),
                }
            })
            .collect()
    }
}

/// Scenario (c): ten unique hex strings of 8–40 digits.
pub fn unique_strings(r: &mut Rng) -> Vec<String> {
    (0..10)
        .map(|_| {
            let n = 8 + r.index(33);
            r.hex(n)
        })
        .collect()
}
