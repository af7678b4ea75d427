//! Reading the input, telling a message from a stream, output and progress.

use std::io::{IsTerminal, Read, Write};
use std::time::{Duration, Instant};

use qdf_core::Options;
use qdf_core::inspect::{self, InspectError};
use qdf_core::wire::header::{FLAG_CHECKSUM, HEADER_LEN};

use crate::{Failure, QdfInput};

/// The whole input: a file, or standard input for `-`.
pub fn read_all(file: &str) -> Result<Vec<u8>, Failure> {
    let mut buf = Vec::new();
    let r = if file == "-" {
        std::io::stdin().lock().read_to_end(&mut buf).map(drop)
    } else {
        std::fs::File::open(file).and_then(|mut f| f.read_to_end(&mut buf).map(drop))
    };
    r.map_err(|e| Failure::new(file, e))?;
    Ok(buf)
}

/// How the qdf input is laid out.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// One message: header, one value.
    Message,
    /// A stream: header, then length-prefixed frames.
    Stream,
}

/// The decode limits used for reading (the library defaults: any tier decodes with them).
pub fn read_options() -> Options {
    Options::default()
}

/// The layout of `bytes`: as asked, else detected. A message and a stream share the header,
/// so: flag `10` (frame checksums) means a stream; else the bytes are a message if they
/// walk as one, a stream if they walk as one, and otherwise whichever walk got further, so
/// that its error is the one reported. A stream walk whose first frame runs past the end of
/// the input is no evidence of a stream (any body's first bytes read as some length): a cut
/// message is reported as a message (`--stream` reads it as a stream).
pub fn mode(args: &QdfInput, bytes: &[u8]) -> Mode {
    if args.stream {
        return Mode::Stream;
    }
    if args.message || bytes.len() < HEADER_LEN {
        return Mode::Message;
    }
    if bytes[4] & FLAG_CHECKSUM != 0 {
        return Mode::Stream;
    }
    let opts = read_options();
    let msg = match inspect::message(bytes, &opts, &mut |_| {}) {
        Ok(()) => return Mode::Message,
        Err(e) => e,
    };
    match inspect::stream(bytes, &opts, args.max_frame_len, &mut |_| {}) {
        Ok(_) => Mode::Stream,
        Err(e) if e.error.is_eof() && e.frame.is_none_or(|f| f.index == 0) => Mode::Message,
        Err(e) if reach(&e) > reach(&msg) => Mode::Stream,
        Err(_) => Mode::Message,
    }
}

/// How far a failed walk got: frames completed, then the error's offset.
fn reach(e: &InspectError) -> (u64, u64) {
    (
        e.frame.map_or(0, |f| f.index),
        e.error.offset().unwrap_or(0),
    )
}

/// The error of walking `bytes` in `mode`, for a decode that failed with `fallback`: the
/// walker reads with the decoder's rules and reports the same error with its offset
/// absolute in the input and, in a stream, its frame.
pub fn locate(
    file: &str,
    bytes: &[u8],
    mode: Mode,
    max_frame_len: usize,
    fallback: impl std::fmt::Display,
) -> Failure {
    let opts = read_options();
    let r = match mode {
        Mode::Message => inspect::message(bytes, &opts, &mut |_| {}),
        Mode::Stream => inspect::stream(bytes, &opts, max_frame_len, &mut |_| {}).map(drop),
    };
    match r {
        Err(e) => Failure::new(file, e),
        Ok(()) => Failure::new(file, fallback),
    }
}

/// Where output goes: a file, or standard output.
pub fn output(path: Option<&str>, binary: bool) -> Result<Box<dyn Write>, Failure> {
    match path {
        Some(p) if p != "-" => {
            let f = std::fs::File::create(p).map_err(|e| Failure::new(p, e))?;
            Ok(Box::new(std::io::BufWriter::new(f)))
        }
        _ => {
            let out = std::io::stdout();
            if binary && out.is_terminal() {
                return Err(Failure::new(
                    "<stdout>",
                    "refusing to write binary qdf to a terminal: use -o FILE or a redirect",
                ));
            }
            Ok(Box::new(std::io::BufWriter::new(out.lock())))
        }
    }
}

/// A write to standard output failed: a closed pipe (`qdf inspect big | head`) ends the run
/// quietly, anything else is an error.
pub fn write_failed(e: std::io::Error) -> Failure {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    Failure::new("<stdout>", e)
}

/// Progress on stderr for inputs of at least [`Progress::MIN_BYTES`], only when stderr is a
/// terminal (never in pipes, logs or tests), at most a few times a second.
pub struct Progress {
    total: u64,
    on: bool,
    last: Instant,
}

impl Progress {
    /// Inputs smaller than this finish too fast to need progress.
    pub const MIN_BYTES: u64 = 16 << 20;

    /// Progress over `total` input bytes.
    pub fn new(total: u64) -> Self {
        Progress {
            total,
            on: total >= Self::MIN_BYTES && std::io::stderr().is_terminal(),
            last: Instant::now(),
        }
    }

    /// `done` bytes of the input are processed, `frames` frames.
    pub fn update(&mut self, done: u64, frames: u64) {
        if !self.on || self.last.elapsed() < Duration::from_millis(200) {
            return;
        }
        self.last = Instant::now();
        let pct = done as f64 * 100.0 / self.total.max(1) as f64;
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r{pct:5.1}%  {} / {} MiB, {frames} frames",
            done >> 20,
            self.total >> 20
        );
        let _ = err.flush();
    }

    /// Clears the progress line.
    pub fn finish(&mut self) {
        if self.on {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r{:60}\r", "");
            let _ = err.flush();
        }
    }
}
