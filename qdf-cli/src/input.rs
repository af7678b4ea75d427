//! Reading the input, telling a message from a stream, output and progress.

use std::io::{IsTerminal, Read, Write};
use std::time::{Duration, Instant};

use qdf_core::inspect::{self, InspectError};
use qdf_core::wire::header::{FLAG_CHECKSUM, HEADER_LEN};
use qdf_core::{DecoderSession, Dictionary, ErrorCode, Options};

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
pub fn mode(args: &QdfInput, bytes: &[u8], dict: Option<&Dictionary>) -> Mode {
    if args.stream {
        return Mode::Stream;
    }
    if args.message || bytes.len() < HEADER_LEN {
        return Mode::Message;
    }
    if bytes[4] & FLAG_CHECKSUM != 0 {
        return Mode::Stream;
    }
    let msg = match walk(bytes, Mode::Message, args.max_frame_len, dict, &mut |_| {}) {
        Ok(_) => return Mode::Message,
        Err(e) => e,
    };
    match walk(bytes, Mode::Stream, args.max_frame_len, dict, &mut |_| {}) {
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

/// Walks `bytes` in `mode` with `qdf_core::inspect` (from `dict` when the header names a
/// dictionary), handing each event to `sink`; returns the frames walked (0 for a message).
pub fn walk(
    bytes: &[u8],
    mode: Mode,
    max_frame_len: usize,
    dict: Option<&Dictionary>,
    sink: &mut dyn FnMut(&inspect::Event<'_>),
) -> Result<u64, InspectError> {
    let opts = read_options();
    match mode {
        Mode::Message => inspect::message_with_dictionary(bytes, &opts, dict, sink).map(|()| 0),
        Mode::Stream => inspect::stream_with_dictionary(bytes, &opts, max_frame_len, dict, sink)
            .map(|s| s.frames),
    }
}

/// `msg`, with the flag to use when `e` is an input naming a dictionary not given.
fn hint(e: &qdf_core::Error, msg: String) -> String {
    match e.code() {
        ErrorCode::UnknownDictionary { held: None, .. } => {
            format!("{msg} (give its file with --dictionary FILE)")
        }
        _ => msg,
    }
}

/// The dictionary of `--dictionary FILE`, if given.
pub fn dictionary(path: Option<&str>) -> Result<Option<Dictionary>, Failure> {
    let Some(path) = path else {
        return Ok(None);
    };
    let bytes = read_all(path)?;
    Dictionary::from_bytes(&bytes)
        .map(Some)
        .map_err(|e| Failure::new(path, e))
}

/// The qdf input of a command, read: its bytes, the dictionary of `--dictionary` and the
/// layout.
pub struct Input<'a> {
    /// The options it was read with.
    pub args: &'a QdfInput,
    /// The whole input.
    pub bytes: Vec<u8>,
    /// The dictionary given with `--dictionary`.
    pub dict: Option<Dictionary>,
    /// Message or stream.
    pub mode: Mode,
}

impl<'a> Input<'a> {
    /// Reads the file and the dictionary of `args` and detects the layout.
    pub fn read(args: &'a QdfInput) -> Result<Self, Failure> {
        let dict = dictionary(args.dictionary.as_deref())?;
        Ok(Self::new(args, read_all(&args.file)?, dict))
    }

    /// The input `bytes`, already read, of `args`; detects the layout.
    pub fn new(args: &'a QdfInput, bytes: Vec<u8>, dict: Option<Dictionary>) -> Self {
        let mode = mode(args, &bytes, dict.as_ref());
        Input {
            args,
            bytes,
            dict,
            mode,
        }
    }

    /// Walks the input with `qdf_core::inspect`; returns the frames walked (0 for a message).
    pub fn walk(&self, sink: &mut dyn FnMut(&inspect::Event<'_>)) -> Result<u64, Failure> {
        let a = self.args;
        walk(
            &self.bytes,
            self.mode,
            a.max_frame_len,
            self.dict.as_ref(),
            sink,
        )
        .map_err(|e| Failure::new(&a.file, hint(&e.error, e.to_string())))
    }

    /// The failure of a decode error `e` on this input: the walker reads with the decoder's
    /// rules and reports the same error with its offset absolute in the input and, in a
    /// stream, its frame (`e` itself if the walk passes).
    pub fn locate(&self, e: &qdf_core::Error) -> Failure {
        match self.walk(&mut |_| {}) {
            Err(f) => f,
            Ok(_) => Failure::new(&self.args.file, e),
        }
    }

    /// Decodes the input as one message.
    pub fn message<T: serde::de::DeserializeOwned>(&self) -> Result<T, Failure> {
        let r = match &self.dict {
            Some(d) => qdf_core::from_slice_with_dictionary(&self.bytes, read_options(), d),
            None => qdf_core::from_slice_with(&self.bytes, read_options()),
        };
        r.map_err(|e| self.locate(&e))
    }

    /// Decodes the input as a stream, handing each frame's value to `each` with the stream
    /// offset where the frame's bytes start (0 for the first: they include the header), the
    /// bytes it used, and the session after it. Stops at the first error.
    pub fn frames<T: serde::de::DeserializeOwned>(
        &self,
        mut each: impl FnMut(T, usize, usize, &DecoderSession) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        let mut dec =
            DecoderSession::new(read_options()).with_max_frame_length(self.args.max_frame_len);
        if let Some(d) = &self.dict {
            dec = dec.with_dictionary(d.clone());
        }
        let mut pos = 0;
        loop {
            match dec.decode_frame::<T>(&self.bytes[pos..]) {
                Ok(Some((v, used))) => {
                    each(v, pos, used, &dec)?;
                    pos += used;
                }
                Ok(None) => {
                    return dec
                        .check_end(&self.bytes[pos..])
                        .map_err(|e| self.locate(&e));
                }
                Err(e) => return Err(self.locate(&e)),
            }
        }
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
