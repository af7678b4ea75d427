//! tANS (`codec::tans`) throughput in MB/s of decoded bytes: decode and encode of 1 MiB
//! inputs, with zstd level 3 on the same bytes side by side for scale (zstd also runs LZ
//! matching, so it is a reference point, not a like-for-like peer).
//!
//! Inputs (deterministic): `skewed` = bytes with a geometric-like distribution (about
//! 2.5 bits/byte), `text` = log-like lines from a 300-word vocabulary (about 4.5 bits/byte
//! order-0), `random` = SplitMix64 bytes (8 bits/byte, the worst case for the decode loop).
//!
//! `cargo bench --bench tans -- --quick`

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use qdf_core::__qpack::{Cursor, tans};
use qdf_fixtures::SplitMix64;
use std::hint::black_box;

const N: usize = 1 << 20;

fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    let mut r = SplitMix64::new(7);
    let skewed = (0..N)
        .map(|_| {
            let v = r.next_u64();
            ((v as u32 | 1 << 20).trailing_zeros() as u8) * 3 + (v >> 60) as u8 % 3
        })
        .collect();
    let words: Vec<String> = (0..300)
        .map(|i| {
            let len = 2 + (i * 7 % 9);
            (0..len)
                .map(|j| (b'a' + ((i * 31 + j * 17) % 26) as u8) as char)
                .collect()
        })
        .collect();
    let mut text = Vec::with_capacity(N + 64);
    while text.len() < N {
        let v = r.next_u64();
        // Zipf-ish word choice: low ranks far more often.
        let w = &words[((v % 300) * (v >> 32 & 0xFF) / 256) as usize];
        text.extend_from_slice(w.as_bytes());
        text.push(if v >> 56 < 20 { b'\n' } else { b' ' });
    }
    text.truncate(N);
    let random = (0..N / 8)
        .flat_map(|_| r.next_u64().to_le_bytes())
        .collect();
    vec![("skewed", skewed), ("text", text), ("random", random)]
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("tans");
    g.throughput(Throughput::Bytes(N as u64));
    for (name, src) in inputs() {
        let mut enc = Vec::new();
        tans::encode(&src, &mut enc);
        let z = zstd::bulk::compress(&src, 3).unwrap();
        eprintln!(
            "{name}: {} bytes -> tANS {} ({:.2} bits/byte), zstd-3 {}",
            src.len(),
            enc.len(),
            enc.len() as f64 * 8.0 / src.len() as f64,
            z.len()
        );
        g.bench_with_input(BenchmarkId::new("decode", name), &enc, |b, enc| {
            b.iter(|| {
                let mut cur = Cursor::new(black_box(enc), 0);
                tans::decode(&mut cur, &mut u64::MAX.clone()).unwrap()
            })
        });
        g.bench_with_input(BenchmarkId::new("zstd3-decode", name), &z, |b, z| {
            b.iter(|| zstd::bulk::decompress(black_box(z), N).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("encode", name), &src, |b, src| {
            b.iter(|| {
                let mut out = Vec::with_capacity(N);
                tans::encode(black_box(src), &mut out);
                out
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
