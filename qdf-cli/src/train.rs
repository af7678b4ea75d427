//! `qdf train`: a pre-shared dictionary (`docs/SPEC.md` §25) trained on sample files.
//!
//! Each input file is JSON (every whitespace-separated value, e.g. JSON lines, is one
//! sample) or qdf (a message is one sample, a stream's every frame is one), told apart by
//! the qdf header magic. The samples go to `qdf_core::Dictionary::train` with the tier's
//! options and the byte budget; the dictionary file is written, and its id printed.

use std::io::Write;

use qdf_core::{Dictionary, Value};

use crate::input::{self, Input, Mode};
use crate::{Failure, QdfInput, TrainArgs};

/// Runs `qdf train`.
pub fn run(args: &TrainArgs) -> Result<(), Failure> {
    if args.tier == crate::Tier::Speed {
        return Err(Failure::new(
            &args.output,
            "--tier speed: the Speed tier writes no intern references, so it has no use for \
             a dictionary (train for balanced or compression)",
        ));
    }
    let mut samples = Vec::new();
    for file in &args.files {
        read_samples(file, args.max_frame_len, &mut samples)?;
    }
    let what = args.files.join(", ");
    if samples.is_empty() {
        return Err(Failure::new(&what, "no samples in the input"));
    }
    let mut opts = args.tier.options();
    if args.map_shapes {
        opts = opts.features(opts.features.with(qdf_core::Features::MAP_SHAPE));
    }
    let dict =
        Dictionary::train(&samples, opts, args.budget).map_err(|e| Failure::new(&what, e))?;
    let bytes = dict.to_bytes();
    let mut out = input::output(Some(&args.output), true)?;
    out.write_all(&bytes)
        .and_then(|()| out.flush())
        .map_err(|e| Failure::new(&args.output, e))?;
    let line = format!(
        "{}\t{} entries, {} shapes, {} bytes, {} samples",
        dict.id(),
        dict.len(),
        dict.shape_count(),
        bytes.len(),
        samples.len()
    );
    // The dictionary went to standard output: the summary goes to standard error.
    if args.output == "-" {
        eprintln!("{line}");
        return Ok(());
    }
    writeln!(std::io::stdout().lock(), "{line}").map_err(input::write_failed)
}

/// Appends the samples of `file` to `out`.
fn read_samples(file: &str, max_frame_len: usize, out: &mut Vec<Value>) -> Result<(), Failure> {
    let bytes = input::read_all(file)?;
    if !bytes.starts_with(b"QDF") {
        return json_samples(file, &bytes, out);
    }
    let args = QdfInput {
        file: file.to_owned(),
        stream: false,
        message: false,
        max_frame_len,
        dictionary: None,
    };
    let input = Input::new(&args, bytes, None);
    match input.mode {
        Mode::Message => out.push(input.message()?),
        Mode::Stream => input.frames(|v: Value, _, _, _| {
            out.push(v);
            Ok(())
        })?,
    }
    Ok(())
}

/// Every JSON value of `text`, as a sample.
fn json_samples(file: &str, text: &[u8], out: &mut Vec<Value>) -> Result<(), Failure> {
    let values = serde_json::Deserializer::from_slice(text).into_iter::<serde_json::Value>();
    for v in values {
        let v = v.map_err(|e| crate::json::json_error(file, text, &e))?;
        out.push(qdf_core::to_value(&v).map_err(|e| Failure::new(file, e))?);
    }
    Ok(())
}
