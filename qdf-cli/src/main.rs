//! `qdf`: look inside qdf bytes and convert them to and from JSON.
//!
//! - `qdf inspect FILE|-`: the tags of a message or stream with their byte offsets (the
//!   `protoc --decode_raw` of qdf), walked by `qdf_core::inspect`;
//! - `qdf to-json` / `qdf from-json`: one message or a stream ↔ one JSON value or JSON
//!   lines, in any tier;
//! - `qdf stats FILE|-`: frames, bytes per frame and intern table growth of a stream;
//! - `qdf train FILE... -o DICT`: a pre-shared dictionary trained on JSON or qdf samples;
//!   `--dictionary DICT` writes (`from-json`) and reads (`inspect`, `to-json`, `stats`) input
//!   on one.
//!
//! Bad input ends the run with one line on stderr, naming the byte offset (and the frame, in
//! a stream), and exit code 1. The format logic lives in `qdf-core`; this crate only reads
//! files, prints and converts.

mod input;
mod inspect;
mod json;
mod stats;
mod train;

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Inspect qdf bytes, convert between JSON and qdf, report stream statistics.
#[derive(Parser, Debug)]
#[command(name = "qdf", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the tags of a qdf message or stream with their byte offsets: header, flags,
    /// values, intern definitions and references, shapes, QPack codecs, columnar containers
    /// with their columns' codecs and byte costs, stream frames.
    Inspect(InspectArgs),
    /// Convert a qdf message to one JSON value, or a qdf stream to JSON lines.
    ToJson(ToJsonArgs),
    /// Convert one JSON value to a qdf message, or JSON lines to a qdf stream (`--stream`).
    FromJson(FromJsonArgs),
    /// Report a stream's frames, bytes per frame and intern table growth.
    Stats(StatsArgs),
    /// Train a pre-shared dictionary (docs/SPEC.md §25) on sample files, write it and print
    /// its id. Each file is JSON (every value, e.g. each JSON line, is one sample) or qdf (a
    /// message is one sample, each frame of a stream is one). Keeps the strings (and with
    /// `--map-shapes` the object key sets) that appear in at least two samples, most valuable
    /// first, within the byte budget. Prints the id, a tab, then
    /// `<N> entries, <K> shapes, <B> bytes, <S> samples`.
    Train(TrainArgs),
}

/// Reading qdf: the input and how to take it.
#[derive(Args, Debug)]
struct QdfInput {
    /// The qdf file, or `-` for standard input.
    #[arg(default_value = "-")]
    file: String,
    /// Read the input as a stream (header, then length-prefixed frames). Default: detected.
    #[arg(long, conflicts_with = "message")]
    stream: bool,
    /// Read the input as one message (header, one value). Default: detected.
    #[arg(long)]
    message: bool,
    /// Largest frame body accepted, in bytes.
    #[arg(long, default_value_t = qdf_core::Limits::DEFAULT.max_frame_length)]
    max_frame_len: usize,
    /// The pre-shared dictionary file (`qdf train`) for input whose header names one
    /// (docs/SPEC.md §25).
    #[arg(long, value_name = "FILE")]
    dictionary: Option<String>,
}

#[derive(Args, Debug)]
struct InspectArgs {
    #[command(flatten)]
    input: QdfInput,
    /// Print strings in full (default: cut after 64 characters).
    #[arg(long)]
    full: bool,
}

#[derive(Args, Debug)]
struct ToJsonArgs {
    #[command(flatten)]
    input: QdfInput,
    /// Indent the JSON (one message only; stream frames stay one per line).
    #[arg(long)]
    pretty: bool,
}

#[derive(Args, Debug)]
struct FromJsonArgs {
    /// The JSON file, or `-` for standard input.
    #[arg(default_value = "-")]
    file: String,
    /// Write a qdf stream with one frame per JSON value (JSON lines, or any
    /// whitespace-separated JSON values). Default: exactly one JSON value, one qdf message.
    #[arg(long)]
    stream: bool,
    /// The encoder tier.
    #[arg(long, value_enum, default_value_t = Tier::Balanced)]
    tier: Tier,
    /// Write JSON objects whose key sets repeat as map shapes (keys sent once per key set,
    /// `docs/SPEC.md` §15.1; not with `--tier speed`).
    #[arg(long)]
    map_shapes: bool,
    /// End every stream frame with a CRC-32C (stream header flag 10).
    #[arg(long, requires = "stream")]
    checksum: bool,
    /// Start from this pre-shared dictionary file (`qdf train`; docs/SPEC.md §25): the
    /// header names it, and readers need it (`--dictionary` of `to-json`, `inspect`, `stats`).
    /// Not with `--tier speed`.
    #[arg(long, value_name = "FILE")]
    dictionary: Option<String>,
    /// Output file (default: standard output, which must not be a terminal).
    #[arg(short, long)]
    output: Option<String>,
}

#[derive(Args, Debug)]
struct TrainArgs {
    /// The sample files (JSON or qdf), or `-` for standard input.
    #[arg(required = true)]
    files: Vec<String>,
    /// The largest dictionary file to write, in bytes.
    #[arg(long, default_value_t = 64 * 1024)]
    budget: usize,
    /// The tier of the encoders that will use the dictionary (their shortest interned
    /// string: shorter ones are never looked up, so never kept). Not `speed`, which writes
    /// no intern references.
    #[arg(long, value_enum, default_value_t = Tier::Balanced)]
    tier: Tier,
    /// Also keep the key sets of JSON objects as shapes (`docs/SPEC.md` §25.2), for writers
    /// with `from-json --map-shapes`: an object of such a key set is then written without
    /// its keys from the first message on.
    #[arg(long)]
    map_shapes: bool,
    /// Largest frame body accepted in qdf stream samples, in bytes.
    #[arg(long, default_value_t = qdf_core::Limits::DEFAULT.max_frame_length)]
    max_frame_len: usize,
    /// The dictionary file to write (`-`: standard output, which must not be a terminal).
    #[arg(short, long)]
    output: String,
}

#[derive(Args, Debug)]
struct StatsArgs {
    #[command(flatten)]
    input: QdfInput,
}

/// The encoder presets (`qdf_core::Options`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Tier {
    /// No Dense state, no QPack: the fastest, the largest.
    Speed,
    /// Dense strings and shapes, QPack, columnar containers (the library default).
    Balanced,
    /// Balanced plus float XOR/ALP codecs and FSST string blocks.
    Compression,
}

impl Tier {
    fn options(self) -> qdf_core::Options {
        match self {
            Tier::Speed => qdf_core::Options::speed(),
            Tier::Balanced => qdf_core::Options::balanced(),
            Tier::Compression => qdf_core::Options::compression(),
        }
    }
}

/// A failed run: one line for stderr.
#[derive(Debug)]
pub struct Failure(String);

impl Failure {
    /// A failure about `what` (a file name or `-`): `what: message`, on one line.
    pub fn new(what: &str, msg: impl std::fmt::Display) -> Self {
        let msg = msg.to_string().replace(['\n', '\r'], " ");
        let what = if what == "-" { "<stdin>" } else { what };
        Failure(format!("{what}: {msg}"))
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.command {
        Command::Inspect(a) => inspect::run(&a.input, a.full),
        Command::ToJson(a) => json::to_json(&a.input, a.pretty),
        Command::FromJson(a) => json::from_json(&a),
        Command::Stats(a) => stats::run(&a.input),
        Command::Train(a) => train::run(&a),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(msg)) => {
            let _ = writeln!(std::io::stderr(), "qdf: {msg}");
            ExitCode::FAILURE
        }
    }
}
