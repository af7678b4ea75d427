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
use qdf_core::Options;
use qdf_stream::QdfCodec;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::{Decoder, Encoder, FramedRead, FramedWrite};

use crate::codecs::{JsonLines, ProstDelimited};
use crate::data::{self, Workload};

/// The `--help` text.
pub const USAGE: &str = "\
usage: cargo run --release --example pipeline [-- OPTIONS]

Streams the shipped datasets (a Zipkin trace, USGS earthquakes, Seattle weather), generated
telemetry, metric points and IoT readings over loopback TCP, one record per message, in four
formats; the server checks every record against what was sent. Exits 0 when every record
arrived equal, 1 if any did not, 2 on a bad argument.

options:
  --corrupt N     flip one byte of record N (0-based, counted across the datasets in the
                  order above) in the `qdf dense` stream: the run must then fail
  --telemetry N   generated telemetry events to send (default 20000)
  -h, --help      this text";

/// Records of each generated per-record stream (metric points, IoT readings).
const STREAM_RECORDS: usize = 20_000;

/// What the legend under the table says each format and column is.
const LEGEND: &str = "\
formats:
  qdf dense    QdfCodec::dense(): Balanced tier, one Dense session per connection (strings,
               keys and shapes sent once, each field's numbers predicted from its last
               value), QPack numbers
  qdf fast     QdfCodec::fast(): Speed tier, plain tags, no session state
  JSON lines   serde_json, one line per record
  protobuf     prost messages of the same records, varint length-delimited
columns:
  wire bytes   bytes the server read from the socket (framing included)
  B/record     wire bytes per record; vs JSON: wire bytes / JSON lines' wire bytes
  records/s    records per second, encode + TCP + decode (checking excluded)
  payload MB/s the dataset's size as JSON lines, in MB, per second: the same payload for
               every format, so a higher figure is a faster format whatever its size";

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Run the pipeline.
    Run(Args),
    /// Print [`USAGE`].
    Help,
}

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
pub fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Command, String> {
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
            "-h" | "--help" => return Ok(Command::Help),
            _ => return Err(format!("unknown argument `{a}`\n\n{USAGE}")),
        }
    }
    Ok(Command::Run(out))
}

/// What one transfer measured.
struct Stats {
    format: &'static str,
    records: usize,
    /// Bytes read from the socket.
    bytes: u64,
    elapsed: Duration,
    mismatches: usize,
    /// The first mismatch or error, for the report.
    first_problem: Option<String>,
}

/// Runs every workload through every format, prints the table, returns the exit code:
/// 0 when every qdf record arrived equal to what was sent, 1 otherwise.
pub fn run(args: &Args) -> u8 {
    let (code, report) = report(args);
    print!("{report}");
    code
}

/// [`run`] without printing: the exit code and the report (verdict first on a failure, the
/// table, the legend, the verdict last). Load errors go to stderr.
pub fn report(args: &Args) -> (u8, String) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    rt.block_on(run_all(args))
}

async fn run_all(args: &Args) -> (u8, String) {
    use std::fmt::Write;
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
            return (1, String::new());
        }
    }
    workload!(data::telemetry_events(args.telemetry));
    workload!(data::metric_points(STREAM_RECORDS));
    workload!(data::iot_readings(STREAM_RECORDS));
    if io::stderr().is_terminal() {
        eprint!("\r{:90}\r", "");
    }
    // A failure comes first, before any figure: nothing above it may read as success.
    let problems: Vec<String> = rows
        .iter()
        .flat_map(|(name, _, stats)| {
            stats.iter().filter_map(move |s| {
                s.first_problem.as_ref().map(|p| {
                    format!(
                        "MISMATCH {name} / {}: {} record(s) wrong or missing; first: {p}",
                        s.format, s.mismatches
                    )
                })
            })
        })
        .collect();
    let mut out = String::new();
    if !problems.is_empty() {
        out.push_str("FAILED: some records did not arrive as sent\n");
        for p in &problems {
            writeln!(out, "{p}").unwrap();
        }
        out.push('\n');
    }
    print_table(&mut out, &rows);
    writeln!(out, "\n{LEGEND}\n").unwrap();
    if problems.is_empty() {
        out.push_str("OK: every record arrived equal to what was sent, in every format\n");
        (0, out)
    } else {
        let n = problems.len();
        writeln!(
            out,
            "FAILED: {n} transfer(s) did not deliver every record as sent"
        )
        .unwrap();
        (1, out)
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
    R: Serialize + DeserializeOwned + PartialEq + bitcode::Encode + Debug + Send + Sync + 'static,
    P: prost::Message + Default + PartialEq + Debug + Send + Sync + 'static,
{
    let name = w.name;
    let records = Arc::new(w.records);
    let protos = Arc::new(w.protos);
    let qdf = |opts: Options| {
        let b = QdfCodec::builder().options(opts).clone();
        (b.new_codec::<R, R>(), b.new_codec::<R, R>())
    };
    vec![
        transfer(
            (name, "qdf dense"),
            records.clone(),
            qdf(Options::balanced()),
            corrupt,
            same_bits,
        )
        .await,
        transfer(
            (name, "qdf fast"),
            records.clone(),
            qdf(Options::speed()),
            None,
            same_bits,
        )
        .await,
        transfer(
            (name, "JSON lines"),
            records,
            (JsonLines::default(), JsonLines::<R>::default()),
            None,
            same_bits,
        )
        .await,
        transfer(
            (name, "protobuf (varint-delimited)"),
            protos,
            (ProstDelimited::default(), ProstDelimited::<P>::default()),
            None,
            |a, b| a == b && a.encode_to_vec() == b.encode_to_vec(),
        )
        .await,
    ]
}

/// Equal, with floats compared by bits (`-0.0` ≠ `0.0`): `==` and equal bitcode encodings,
/// which keep every float's exact bits (as `qdf_fixtures::peers::same_bits`, per record).
fn same_bits<R: PartialEq + bitcode::Encode>(a: &R, b: &R) -> bool {
    a == b && bitcode::encode(a) == bitcode::encode(b)
}

/// One connection: the client sends `items` (flipping the last byte of item `corrupt`), the
/// server decodes them; then each is compared with `same` against the server's own copy.
async fn transfer<T, E, D>(
    (workload, format): (&'static str, &'static str),
    items: Arc<Vec<T>>,
    (enc, dec): (E, D),
    corrupt: Option<usize>,
    same: fn(&T, &T) -> bool,
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
    let total = items.len();
    // A progress line on a terminal only, erased before the report.
    let progress = io::stderr().is_terminal();
    let start = Instant::now();
    let server = tokio::spawn(async move {
        let (sock, _) = listener.accept().await.expect("accept");
        let counted = Counted {
            inner: sock,
            bytes: Arc::new(AtomicU64::new(0)),
        };
        let bytes = counted.bytes.clone();
        let mut rx = FramedRead::with_capacity(counted, dec, 64 * 1024);
        let mut received = Vec::with_capacity(total);
        let mut error = None;
        while let Some(item) = rx.next().await {
            match item {
                Ok(v) => received.push(v),
                Err(e) => {
                    error = Some(format!("record {}: decode error: {e}", received.len()));
                    break;
                }
            }
            if received.len() % 4096 == 0 && progress {
                eprint!(
                    "\r  {workload} / {format}: {}/{total} records",
                    received.len()
                );
            }
        }
        (received, error, bytes.load(Ordering::Relaxed))
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
    let (received, mut first_problem, bytes) = server.await.expect("server task");
    let elapsed = start.elapsed();
    // Checked after the clock stops, so every format pays the same for verification.
    let mut mismatches = expected.len().abs_diff(received.len());
    for (n, (want, got)) in expected.iter().zip(&received).enumerate() {
        if !same(want, got) {
            mismatches += 1;
            first_problem.get_or_insert_with(|| {
                let got: String = format!("{got:?}").chars().take(160).collect();
                format!("record {n} differs, received {got}…")
            });
        }
    }
    if mismatches > 0 && first_problem.is_none() {
        first_problem = Some(format!("{} of {total} records arrived", received.len()));
    }
    let records = received.len();
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

fn print_table(out: &mut String, rows: &[(&'static str, usize, Vec<Stats>)]) {
    use std::fmt::Write;
    writeln!(
        out,
        "{:<16} {:>7}  {:<28} {:>11} {:>9} {:>7} {:>12} {:>12}",
        "dataset",
        "records",
        "format",
        "wire bytes",
        "B/record",
        "vs JSON",
        "records/s",
        "payload MB/s"
    )
    .unwrap();
    for (name, n, stats) in rows {
        let json = stats
            .iter()
            .find(|s| s.format == "JSON lines")
            .map_or(1, |s| s.bytes.max(1));
        for (i, s) in stats.iter().enumerate() {
            let secs = s.elapsed.as_secs_f64().max(1e-9);
            writeln!(
                out,
                "{:<16} {:>7}  {:<28} {:>11} {:>9.1} {:>6.2}x {:>12.0} {:>12.1}",
                if i == 0 { name } else { "" },
                if i == 0 { n.to_string() } else { String::new() },
                s.format,
                s.bytes,
                s.bytes as f64 / (*n).max(1) as f64,
                s.bytes as f64 / json as f64,
                s.records as f64 / secs,
                // The same payload for every format: the dataset as JSON lines.
                json as f64 / secs / 1e6,
            )
            .unwrap();
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
