//! A long session's memory is flat and counted (issue #16, item 4): 200 000 messages of
//! ever-new map key sets under `MAP_SHAPE`, every allocation counted by this test binary's
//! global allocator. Once the caps are reached (the intern table fills at 65 535 entries) the
//! encoder and the decoder hold the same bytes at 100 000 and at 200 000 messages, and
//! `SessionStats::heap_bytes` of the two sides is exactly what the allocator sees them hold.
//!
//! Only the test's own thread is counted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use qdf_core::{DecoderSession, EncoderSession, Features, Options};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

/// `System`, counting the bytes allocated and not yet freed by the threads that opted in
/// (the test's own: the harness's threads allocate at times of their own).
struct Counting;

thread_local! {
    /// Bytes allocated and not yet freed by this thread while [`COUNTED`]: per thread, so the
    /// tests (each on its own harness thread) do not see each other's allocations.
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

thread_local! {
    /// Whether this thread's allocations are counted. Const-initialised and without
    /// destructor, so reading it never allocates (the allocator cannot recurse).
    static COUNTED: Cell<bool> = const { Cell::new(false) };
}

fn count(delta: isize) {
    if COUNTED.with(Cell::get) {
        LIVE.with(|l| l.set(l.get() + delta));
    }
}

// SAFETY: every call is forwarded to `System` with the caller's arguments unchanged; the
// counter only records sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        // SAFETY: the caller's contract for `alloc` is `System`'s.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        // SAFETY: `ptr` was allocated by `System` with `layout` (every allocation goes
        // through this allocator).
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as isize - layout.size() as isize);
        // SAFETY: as for `dealloc`; `new_size` is the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn live() -> isize {
    LIVE.with(Cell::get)
}

/// `{"common": 1, "z-{i}": i}`: a key set no earlier message had.
struct Msg<'a>(&'a str, u64);

impl Serialize for Msg<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("common", &1u64)?;
        m.serialize_entry(self.0, &self.1)?;
        m.end()
    }
}

#[derive(Deserialize, Debug, PartialEq)]
struct Back(std::collections::BTreeMap<String, u64>);

#[test]
fn ever_new_map_key_sets_keep_both_sides_flat_and_counted() {
    const N: u64 = 200_000;
    COUNTED.with(|c| c.set(true));
    for (name, tier) in [
        ("balanced", Options::balanced()),
        ("compression", Options::compression()),
    ] {
        // Without renewal (`docs/SPEC.md` §18): the caps are what bounds memory here.
        let opts = tier
            .features(tier.features.with(Features::MAP_SHAPE))
            .session_renewal(false);
        // Allocated before the base: the figures below need no correction for it.
        let mut held = Vec::with_capacity(4);
        let base = live();
        let mut wire = Vec::with_capacity(1 << 10);
        let mut key = String::with_capacity(32);
        let mut enc = EncoderSession::new(opts);
        let mut dec = DecoderSession::new(opts);
        for i in 0..N {
            use std::fmt::Write as _;
            key.clear();
            write!(key, "z-{i}").unwrap();
            wire.clear();
            enc.encode_frame(&Msg(&key, i), &mut wire).unwrap();
            let (back, used): (Back, usize) = dec.decode_frame(&wire).unwrap().unwrap();
            assert_eq!(used, wire.len());
            assert_eq!(back.0.len(), 2, "{name} {i}");
            assert_eq!(
                (back.0["common"], back.0[key.as_str()]),
                (1, i),
                "{name} {i}"
            );
            drop(back);
            if (i + 1) % (N / 4) == 0 {
                let bytes = live() - base - wire.capacity() as isize - key.capacity() as isize;
                let (e, d) = (enc.stats(), dec.stats());
                // Exactly what the allocator sees: every per-session structure is counted.
                assert_eq!(
                    (e.heap_bytes + d.heap_bytes) as isize,
                    bytes,
                    "{name} after {} messages: stats {e:?} / {d:?}",
                    i + 1
                );
                held.push((i + 1, bytes, e, d));
            }
        }
        let (e, d) = (enc.stats(), dec.stats());
        // The caps were reached: intern table full, the one map shape declared by the first
        // message, no more.
        assert_eq!(e.intern_entries, 0xFFFF, "{name}");
        assert_eq!(
            (e.shapes, d.shapes, d.intern_entries),
            (1, 1, 0xFFFF),
            "{name}"
        );
        // Flat after the warm-up (the table filled before message 65 535).
        let at = |k: usize| held[k].1;
        assert_eq!(at(1), at(2), "{name}: {held:#?}");
        assert_eq!(at(2), at(3), "{name}: {held:#?}");
        drop((enc, dec));
        assert_eq!(
            live() - base,
            wire.capacity() as isize + key.capacity() as isize
        );
    }
}

/// Issue #17, item 5: 200 000 messages of unique strings (and a few hot ones) at the default
/// options, renewal on. The session learns second sight and renews once (`docs/SPEC.md`
/// §18); from then on the unique values go inline and both sides hold the same bytes at
/// 50 000, 100 000, 150 000 and 200 000 messages, exactly what `SessionStats::heap_bytes`
/// reports. The figures are the per-connection memory of `docs/SPEC.md` §16.
#[test]
fn unique_strings_at_the_defaults_stay_flat() {
    const N: u64 = 200_000;
    COUNTED.with(|c| c.set(true));
    let opts = Options::balanced();
    let mut held = Vec::with_capacity(8);
    let base = live();
    let mut wire = Vec::with_capacity(1 << 10);
    let mut words: Vec<String> = (0..12).map(|_| String::with_capacity(32)).collect();
    let mut enc = EncoderSession::new(opts);
    let mut dec = DecoderSession::new(opts);
    let words_cap = |w: &Vec<String>| {
        (w.iter().map(String::capacity).sum::<usize>() + w.capacity() * 24) as isize
    };
    let mut back: Vec<String> = Vec::new();
    for i in 0..N {
        use std::fmt::Write as _;
        for (k, w) in words.iter_mut().enumerate() {
            w.clear();
            if k < 2 {
                write!(w, "service-{k}").unwrap();
            } else {
                // Unique: a 16-hex id per value, as trace and span ids are.
                write!(
                    w,
                    "{:016x}",
                    (i * 12 + k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                )
                .unwrap();
            }
        }
        wire.clear();
        enc.encode_frame(&words, &mut wire).unwrap();
        let (got, used): (Vec<String>, usize) = dec.decode_frame(&wire).unwrap().unwrap();
        assert_eq!(used, wire.len());
        assert_eq!(got, words, "message {i}");
        back = got;
        if (i + 1) % (N / 4) == 0 {
            let bytes =
                live() - base - wire.capacity() as isize - words_cap(&words) - words_cap(&back);
            let (e, d) = (enc.stats(), dec.stats());
            assert_eq!(
                (e.heap_bytes + d.heap_bytes) as isize,
                bytes,
                "after {} messages: stats {e:?} / {d:?}",
                i + 1
            );
            held.push((i + 1, bytes, e, d));
        }
    }
    drop(back);
    let (e, d) = (enc.stats(), dec.stats());
    // Learned once (4 096 definitions, nearly all never referenced): one renewal, and the
    // table holds the two hot values only.
    assert_eq!((e.renewals, d.renewals), (1, 1));
    assert_eq!((e.intern_entries, d.intern_entries), (2, 2));
    let at = |k: usize| held[k].1;
    assert_eq!(at(0), at(1), "{held:#?}");
    assert_eq!(at(1), at(2), "{held:#?}");
    assert_eq!(at(2), at(3), "{held:#?}");
    drop((enc, dec));
    assert_eq!(live() - base, wire.capacity() as isize + words_cap(&words));
    // After the check: the captured output is allocated on this thread.
    println!(
        "per connection at the defaults: encoder {} B, decoder {} B",
        e.heap_bytes, d.heap_bytes
    );
}
