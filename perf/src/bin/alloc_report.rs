//! Prints the memory table of docs/BENCH.md: bytes allocated per encode and per decode of every
//! dataset by every peer and qdf tier, measured with a counting global allocator.
//!
//! ```sh
//! cargo run --release -p qdf-perf --bin alloc_report
//! ```
//!
//! Each cell is `total / peak` in KiB (rounded up) for one call, after one warm-up call:
//! *total* is every byte requested from the allocator during the call (a `realloc` that grows
//! counts its growth), *peak* the highest live heap above the level at the call's start. The
//! output buffer or decoded value is included; inputs are built before the call. `prost`
//! includes building the protobuf message from the serde value (and back on decode);
//! `prost-msg` encodes an already built message and decodes into the message type.

#[path = "../../../tests/support/mod.rs"]
mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use prost::Message;
use qdf_fixtures::{Dataset, Visitor, visit_all};

/// The system allocator, counting live, peak and total requested bytes.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static TOTAL: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    TOTAL.fetch_add(by, Relaxed);
    let live = LIVE.fetch_add(by, Relaxed) + by;
    PEAK.fetch_max(live, Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so
// `System`'s guarantees hold; the counters are plain atomics and never touch the memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as received; the caller upholds `alloc`'s contract.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` through this allocator with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as received; the caller upholds `realloc`'s contract.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            match new_size.checked_sub(layout.size()) {
                Some(growth) => grew(growth),
                None => _ = LIVE.fetch_sub(layout.size() - new_size, Relaxed),
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` once to warm up, then once measured: `(total, peak)` bytes of the second call.
fn measure<R>(mut f: impl FnMut() -> R) -> (usize, usize) {
    drop(f());
    let start = LIVE.load(Relaxed);
    PEAK.store(start, Relaxed);
    let total_before = TOTAL.load(Relaxed);
    let out = f();
    let stats = (
        TOTAL.load(Relaxed) - total_before,
        PEAK.load(Relaxed) - start,
    );
    drop(out);
    stats
}

/// One codec's `[encode, decode]` measurements, each `(total, peak)` bytes.
type Cell = [(usize, usize); 2];

#[derive(Default)]
struct Report {
    codecs: Vec<&'static str>,
    /// (dataset, one cell per codec).
    rows: Vec<(&'static str, Vec<Cell>)>,
}

impl Visitor for Report {
    fn visit<D: Dataset>(&mut self, name: &'static str, data: &D) {
        let codecs = support::all_codecs::<D>();
        let mut cells = Vec::new();
        for c in &codecs {
            let bytes = c.round_trip(data).unwrap_or_else(|e| panic!("{name}: {e}"));
            let enc = measure(|| (c.encode)(data).expect("encodes"));
            let dec = measure(|| (c.decode)(&bytes).expect("decodes"));
            cells.push([enc, dec]);
        }
        let msg = data.to_proto();
        let bytes = msg.encode_to_vec();
        let enc = measure(|| msg.encode_to_vec());
        let dec = measure(|| D::Proto::decode(bytes.as_slice()).expect("decodes"));
        cells.push([enc, dec]);
        self.codecs = codecs.iter().map(|c| c.name).chain(["prost-msg"]).collect();
        self.rows.push((name, cells));
    }
}

fn kib(n: usize) -> String {
    n.div_ceil(1024).to_string()
}

fn main() {
    let mut report = Report::default();
    visit_all(&mut report);
    for (i, op) in ["encode", "decode"].iter().enumerate() {
        println!("### Bytes allocated per {op}: total / peak KiB\n");
        println!("| dataset | {} |", report.codecs.join(" | "));
        println!("|---|{}", "---:|".repeat(report.codecs.len()));
        for (name, cells) in &report.rows {
            let cells: Vec<String> = cells
                .iter()
                .map(|c| format!("{} / {}", kib(c[i].0), kib(c[i].1)))
                .collect();
            println!("| {name} | {} |", cells.join(" | "));
        }
        println!();
    }
}
