//! The pipeline: for every workload and every format, a server and a client on loopback TCP.
//! The client streams the records one message each; the server checks each against its own
//! copy and counts the bytes that crossed the socket.

use std::fmt::{Debug, Display};
use std::io::{self, IsTerminal};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use qdf_stream::QdfCodec;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::{Decoder, Encoder, FramedRead, FramedWrite};

use crate::codecs::{JsonLines, ProstDelimited};
use crate::data::{self, Workload};

/// Command line: `[--corrupt N] [--telemetry N]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Args {
    /// Flip one byte of the N-th record (0-based, counted across workloads in order) of the
    /// `qdf dense` streams.
    pub corrupt: Option<usize>,
    /// Generated telemetry events to send.
    pub telemetry: usize,
}

/// Parses the arguments after the program name.
pub fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut out = Args {
        corrupt: None,
        telemetry: 20_000,
    };
    while let Some(a) = args.next() {
        let mut num = |flag: &str| -> Result<usize, String> {
            let v = args.next().ok_or(format!("{flag} needs a number"))?;
            v.parse()
                .map_err(|_| format!("{flag}: `{v}` is not a number"))
        };
        match a.as_str() {
            "--corrupt" => out.corrupt = Some(num("--corrupt")?),
            "--telemetry" => out.telemetry = num("--telemetry")?,
            _ => {
                return Err(format!(
                    "unknown argument `{a}`; usage: pipeline [--corrupt N] [--telemetry N]"
                ));
            }
        }
    }
    Ok(out)
}

/// What one transfer measured.
struct Stats {
    format: &'static str,
    records: usize,
    bytes: u64,
    elapsed: Duration,
    mismatches: usize,
    /// The first mismatch or error, for the report.
    first_problem: Option<String>,
}

/// Runs every workload through every format, prints the table, returns the exit code:
/// 0 when every qdf record arrived equal to what was sent, 1 otherwise.
pub fn run(args: &Args) -> u8 {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    rt.block_on(run_all(args))
}

async fn run_all(args: &Args) -> u8 {
    let mut rows: Vec<(&'static str, usize, Vec<Stats>)> = Vec::new();
    let mut offset = 0;
    macro_rules! workload {
        ($w:expr) => {{
            let w = $w;
            let corrupt = local_index(args.corrupt, &mut offset, w.records.len());
            rows.push((w.name, w.records.len(), run_workload(w, corrupt).await));
        }};
    }
    match (
        data::zipkin_spans(),
        data::usgs_quakes(),
        data::seattle_weather(),
    ) {
        (Ok(z), Ok(u), Ok(s)) => {
            workload!(z);
            workload!(u);
            workload!(s);
        }
        (z, u, s) => {
            for e in [
                z.err().map(|e| e.to_string()),
                u.err().map(|e| e.to_string()),
                s.err().map(|e| e.to_string()),
            ]
            .into_iter()
            .flatten()
            {
                eprintln!("error: {e}");
            }
            return 1;
        }
    }
    workload!(data::telemetry_events(args.telemetry));
    if io::stderr().is_terminal() {
        eprint!("\r{:90}\r", "");
    }
    print_table(&rows);
    let mut failed = false;
    for (name, _, stats) in &rows {
        for s in stats {
            if let Some(p) = &s.first_problem {
                println!(
                    "MISMATCH {name} / {}: {} record(s) wrong or missing; first: {p}",
                    s.format, s.mismatches
                );
                failed = true;
            }
        }
    }
    if failed {
        println!("FAILED: some records did not arrive as sent");
        1
    } else {
        println!("OK: every record arrived equal to what was sent, in every format");
        0
    }
}

/// The index within the next workload of `global` (counted across workloads), advancing
/// `offset` past that workload's `len` records.
fn local_index(global: Option<usize>, offset: &mut usize, len: usize) -> Option<usize> {
    let local = global
        .and_then(|n| n.checked_sub(*offset))
        .filter(|&n| n < len);
    *offset += len;
    local
}

async fn run_workload<R, P>(w: Workload<R, P>, corrupt: Option<usize>) -> Vec<Stats>
where
    R: Serialize + DeserializeOwned + PartialEq + Debug + Send + Sync + 'static,
    P: prost::Message + Default + PartialEq + Debug + Send + Sync + 'static,
{
    let name = w.name;
    let records = Arc::new(w.records);
    let protos = Arc::new(w.protos);
    vec![
        transfer(
            name,
            "qdf dense",
            records.clone(),
            QdfCodec::<()>::dense(),
            QdfCodec::<R>::dense(),
            corrupt,
        )
        .await,
        transfer(
            name,
            "qdf fast",
            records.clone(),
            QdfCodec::<()>::fast(),
            QdfCodec::<R>::fast(),
            None,
        )
        .await,
        transfer(
            name,
            "JSON lines",
            records,
            JsonLines::default(),
            JsonLines::<R>::default(),
            None,
        )
        .await,
        transfer(
            name,
            "protobuf (varint-delimited)",
            protos,
            ProstDelimited::default(),
            ProstDelimited::<P>::default(),
            None,
        )
        .await,
    ]
}

/// One connection: the client sends `items` (flipping the last byte of item `corrupt`), the
/// server decodes and compares each with its own copy.
async fn transfer<T, E, D>(
    workload: &'static str,
    format: &'static str,
    items: Arc<Vec<T>>,
    enc: E,
    dec: D,
    corrupt: Option<usize>,
) -> Stats
where
    T: PartialEq + Debug + Send + Sync + 'static,
    E: for<'a> Encoder<&'a T> + Send + 'static,
    for<'a> <E as Encoder<&'a T>>::Error: Display,
    D: Decoder<Item = T> + Send + 'static,
    D::Error: Display,
{
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1");
    let addr = listener.local_addr().expect("local address");
    let expected = items.clone();
    // A progress line on a terminal; one line per transfer otherwise (CI logs).
    let progress = io::stderr().is_terminal();
    if !progress {
        eprintln!("  {workload} / {format}: {} records", items.len());
    }
    let start = Instant::now();
    let server = tokio::spawn(async move {
        let (sock, _) = listener.accept().await.expect("accept");
        let counted = Counted {
            inner: sock,
            bytes: Arc::new(AtomicU64::new(0)),
        };
        let bytes = counted.bytes.clone();
        let mut rx = FramedRead::with_capacity(counted, dec, 64 * 1024);
        let (mut n, mut mismatches, mut first_problem) = (0usize, 0usize, None);
        while let Some(item) = rx.next().await {
            match item {
                Ok(v) => {
                    if expected.get(n) != Some(&v) {
                        mismatches += 1;
                        first_problem.get_or_insert_with(|| format!("record {n} differs: {v:?}"));
                    }
                    n += 1;
                    if n % 4096 == 0 && progress {
                        eprint!(
                            "\r  {workload} / {format}: {n}/{} records verified   ",
                            expected.len()
                        );
                    }
                }
                Err(e) => {
                    first_problem.get_or_insert_with(|| format!("record {n}: decode error: {e}"));
                    break;
                }
            }
        }
        mismatches += expected.len().saturating_sub(n);
        (n, mismatches, first_problem, bytes.load(Ordering::Relaxed))
    });
    let client = tokio::spawn(async move {
        let sock = TcpStream::connect(addr).await?;
        sock.set_nodelay(true)?;
        let mut tx = FramedWrite::new(sock, enc);
        tx.set_backpressure_boundary(64 * 1024);
        for (i, item) in items.iter().enumerate() {
            tx.feed(item)
                .await
                .map_err(|e| io::Error::other(e.to_string()))?;
            if corrupt == Some(i) {
                // The frame just queued is the last thing in the write buffer.
                let buf = tx.write_buffer_mut();
                let last = buf.len() - 1;
                buf[last] ^= 0x01;
            }
        }
        SinkExt::<&T>::close(&mut tx)
            .await
            .map_err(|e| io::Error::other(e.to_string()))
    });
    let (records, mismatches, mut first_problem, bytes) = server.await.expect("server task");
    let elapsed = start.elapsed();
    if let Ok(Err(e)) = client.await
        && first_problem.is_none()
    {
        first_problem = Some(format!("client: {e}"));
    }
    Stats {
        format,
        records,
        bytes,
        elapsed,
        mismatches,
        first_problem,
    }
}

fn print_table(rows: &[(&'static str, usize, Vec<Stats>)]) {
    println!(
        "{:<16} {:>7}  {:<28} {:>11} {:>9} {:>7} {:>12} {:>8}",
        "dataset", "records", "format", "wire bytes", "B/record", "vs JSON", "records/s", "MB/s"
    );
    for (name, n, stats) in rows {
        let json = stats
            .iter()
            .find(|s| s.format == "JSON lines")
            .map_or(1, |s| s.bytes.max(1));
        for (i, s) in stats.iter().enumerate() {
            let secs = s.elapsed.as_secs_f64().max(1e-9);
            println!(
                "{:<16} {:>7}  {:<28} {:>11} {:>9.1} {:>6.2}x {:>12.0} {:>8.1}",
                if i == 0 { name } else { "" },
                if i == 0 { n.to_string() } else { String::new() },
                s.format,
                s.bytes,
                s.bytes as f64 / (*n).max(1) as f64,
                s.bytes as f64 / json as f64,
                s.records as f64 / secs,
                s.bytes as f64 / secs / 1e6,
            );
        }
    }
}

/// An `AsyncRead` that counts the bytes it delivers.
struct Counted {
    inner: TcpStream,
    bytes: Arc<AtomicU64>,
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        self.bytes
            .fetch_add((buf.filled().len() - before) as u64, Ordering::Relaxed);
        r
    }
}
