//! Streamed messages: TelemetryBatch events sent one per frame through one connection, over an
//! in-memory duplex and over loopback TCP.
//!
//! Peers: `QdfCodec::dense()` and `QdfCodec::fast()`, each also with frame checksums
//! (`+ crc`: `Builder::checksum(true)`, a CRC-32C per frame), against `LengthDelimitedCodec` framing
//! (u32 big-endian length) carrying serde_json, rmp-serde (named fields, like qdf) and prost
//! (the fixture's protobuf twin). Each sample opens a fresh connection (fresh sessions) and
//! sends `iters × 1000` events; throughput is in messages. Bytes per message for the same
//! 1000 events are printed before the timings.
//!
//! `cargo bench --bench stream`

use std::hint::black_box;
use std::io::Write;
use std::marker::PhantomData;
use std::time::{Duration, Instant};

use bytes::{BufMut, BytesMut};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures::{SinkExt, StreamExt};
use qdf_fixtures::Dataset;
use qdf_fixtures::synth::telemetry::{self, TelemetryEvent, pb};
use qdf_stream::QdfCodec;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::{Decoder, Encoder, FramedRead, FramedWrite, LengthDelimitedCodec};

/// Events per round; each sample sends `iters` rounds.
const ROUND: usize = 1000;

/// A payload format carried in `LengthDelimitedCodec` frames.
trait Payload: Send + 'static {
    type Item: PartialEq + Send + Sync + 'static;
    fn write(item: &Self::Item, out: &mut BytesMut);
    fn read(frame: &[u8]) -> Self::Item;
}

struct Json;
impl Payload for Json {
    type Item = TelemetryEvent;
    fn write(item: &TelemetryEvent, out: &mut BytesMut) {
        serde_json::to_writer(out.writer(), item).expect("json encodes");
    }
    fn read(frame: &[u8]) -> TelemetryEvent {
        serde_json::from_slice(frame).expect("json decodes")
    }
}

struct Rmp;
impl Payload for Rmp {
    type Item = TelemetryEvent;
    fn write(item: &TelemetryEvent, out: &mut BytesMut) {
        rmp_serde::encode::write_named(&mut out.writer(), item).expect("rmp encodes");
    }
    fn read(frame: &[u8]) -> TelemetryEvent {
        rmp_serde::from_slice(frame).expect("rmp decodes")
    }
}

struct Proto;
impl Payload for Proto {
    type Item = pb::TelemetryEvent;
    fn write(item: &pb::TelemetryEvent, out: &mut BytesMut) {
        prost::Message::encode(item, out).expect("prost encodes");
    }
    fn read(frame: &[u8]) -> pb::TelemetryEvent {
        prost::Message::decode(frame).expect("prost decodes")
    }
}

/// `LengthDelimitedCodec` framing around a payload. Encoding writes the same bytes as
/// `LengthDelimitedCodec::encode` (u32 BE length, payload) without first copying the payload
/// into a `Bytes`, so the peers pay no extra copy.
struct Ld<P> {
    ld: LengthDelimitedCodec,
    _p: PhantomData<P>,
}

impl<P> Default for Ld<P> {
    fn default() -> Self {
        Ld {
            ld: LengthDelimitedCodec::new(),
            _p: PhantomData,
        }
    }
}

impl<P: Payload> Encoder<&P::Item> for Ld<P> {
    type Error = std::io::Error;
    fn encode(&mut self, item: &P::Item, dst: &mut BytesMut) -> std::io::Result<()> {
        let at = dst.len();
        dst.put_u32(0);
        P::write(item, dst);
        let len = (dst.len() - at - 4) as u32;
        (&mut dst[at..at + 4]).write_all(&len.to_be_bytes())
    }
}

impl<P: Payload> Decoder for Ld<P> {
    type Item = P::Item;
    type Error = std::io::Error;
    fn decode(&mut self, src: &mut BytesMut) -> std::io::Result<Option<P::Item>> {
        Ok(self.ld.decode(src)?.map(|f| P::read(&f)))
    }
}

/// Sends `rounds × items` through `(w, r)`, checks every decoded item, returns the time.
async fn pump<T, W, R, E, D>(w: W, r: R, enc: E, dec: D, items: &[T], rounds: u64) -> Duration
where
    T: PartialEq,
    W: AsyncWrite + Unpin,
    R: AsyncRead + Unpin,
    E: for<'a> Encoder<&'a T>,
    for<'a> <E as Encoder<&'a T>>::Error: std::fmt::Debug,
    D: Decoder<Item = T>,
    D::Error: std::fmt::Debug,
{
    let start = Instant::now();
    let mut tx = FramedWrite::new(w, enc);
    tx.set_backpressure_boundary(64 * 1024);
    let mut rx = FramedRead::with_capacity(r, dec, 64 * 1024);
    let total = rounds as usize * items.len();
    let send = async {
        for i in 0..total {
            tx.feed(&items[i % items.len()]).await.unwrap();
        }
        SinkExt::<&T>::close(&mut tx).await.unwrap();
    };
    let recv = async {
        let mut n = 0;
        while let Some(v) = rx.next().await {
            assert!(v.unwrap() == items[n % items.len()]);
            n += 1;
        }
        assert_eq!(n, total);
    };
    tokio::join!(send, recv);
    start.elapsed()
}

async fn tcp_pair() -> (TcpStream, TcpStream) {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    let (c, s) = tokio::join!(TcpStream::connect(addr), l.accept());
    let c = c.unwrap();
    c.set_nodelay(true).unwrap();
    (c, s.unwrap().0)
}

/// Bytes per message of `items` through `enc` (stream header included, amortised).
fn bytes_per_message<T, E: for<'a> Encoder<&'a T>>(mut enc: E, items: &[T]) -> f64
where
    for<'a> <E as Encoder<&'a T>>::Error: std::fmt::Debug,
{
    let mut buf = BytesMut::new();
    for it in items {
        enc.encode(it, &mut buf).unwrap();
    }
    buf.len() as f64 / items.len() as f64
}

fn bench_format<T, E, D>(c: &mut Criterion, name: &str, items: &[T], enc: fn() -> E, dec: fn() -> D)
where
    T: PartialEq + Send + Sync + 'static,
    E: for<'a> Encoder<&'a T>,
    for<'a> <E as Encoder<&'a T>>::Error: std::fmt::Debug,
    D: Decoder<Item = T>,
    D::Error: std::fmt::Debug,
{
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut g = c.benchmark_group("stream TelemetryEvent x1000, one per frame");
    g.throughput(Throughput::Elements(items.len() as u64));
    g.bench_function(format!("{name} / duplex"), |b| {
        b.iter_custom(|rounds| {
            rt.block_on(async {
                let (a, z) = tokio::io::duplex(256 * 1024);
                black_box(pump(a, z, enc(), dec(), items, rounds).await)
            })
        })
    });
    g.bench_function(format!("{name} / tcp"), |b| {
        b.iter_custom(|rounds| {
            rt.block_on(async {
                let (a, z) = tcp_pair().await;
                black_box(pump(a, z, enc(), dec(), items, rounds).await)
            })
        })
    });
    g.finish();
}

fn qdf_dense() -> QdfCodec<TelemetryEvent> {
    QdfCodec::dense()
}

fn qdf_fast() -> QdfCodec<TelemetryEvent> {
    QdfCodec::fast()
}

fn qdf_dense_crc() -> QdfCodec<TelemetryEvent> {
    QdfCodec::builder().checksum(true).new_codec()
}

fn qdf_fast_crc() -> QdfCodec<TelemetryEvent> {
    QdfCodec::builder()
        .options(qdf_core::Options::speed())
        .checksum(true)
        .new_codec()
}

fn streams(c: &mut Criterion) {
    let batch = telemetry::telemetry_batch(ROUND);
    let protos = batch.to_proto().events;
    let events = batch.events;
    println!("bytes/message, TelemetryEvent x{ROUND} one per frame:");
    for (name, b) in [
        ("qdf dense", bytes_per_message(qdf_dense(), &events)),
        (
            "qdf dense + crc",
            bytes_per_message(qdf_dense_crc(), &events),
        ),
        ("qdf fast", bytes_per_message(qdf_fast(), &events)),
        ("qdf fast + crc", bytes_per_message(qdf_fast_crc(), &events)),
        (
            "LD + serde_json",
            bytes_per_message(Ld::<Json>::default(), &events),
        ),
        (
            "LD + rmp-serde",
            bytes_per_message(Ld::<Rmp>::default(), &events),
        ),
        (
            "LD + prost",
            bytes_per_message(Ld::<Proto>::default(), &protos),
        ),
    ] {
        println!("  {name:<16} {b:>8.1}");
    }
    bench_format(c, "qdf dense", &events, qdf_dense, qdf_dense);
    bench_format(c, "qdf dense + crc", &events, qdf_dense_crc, qdf_dense_crc);
    bench_format(c, "qdf fast", &events, qdf_fast, qdf_fast);
    bench_format(c, "qdf fast + crc", &events, qdf_fast_crc, qdf_fast_crc);
    bench_format(
        c,
        "LD + serde_json",
        &events,
        Ld::<Json>::default,
        Ld::<Json>::default,
    );
    bench_format(
        c,
        "LD + rmp-serde",
        &events,
        Ld::<Rmp>::default,
        Ld::<Rmp>::default,
    );
    bench_format(
        c,
        "LD + prost",
        &protos,
        Ld::<Proto>::default,
        Ld::<Proto>::default,
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(3));
    targets = streams
}
criterion_main!(benches);
