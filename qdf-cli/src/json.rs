//! `qdf to-json` and `qdf from-json`: qdf ↔ JSON through `serde_json`.
//!
//! qdf → JSON decodes each message into a `qdf_core::Value` and serializes it with
//! `serde_json` (serde's own data model, so variants come out externally tagged as serde_json
//! writes them: a unit variant as its name, others as `{"Name": payload}`; `()`, unit structs
//! and nil as `null`; byte strings as arrays of numbers; chars as strings; timestamps as the
//! string `"secs.nanos"`). A NaN or infinite float has no JSON form and is an error, not a
//! silent `null`.
//!
//! JSON → qdf serializes each `serde_json::Value` with the chosen tier: numbers stay
//! integers (`u64`/`i64`) or `f64` as JSON parsed them, objects become maps. So
//! `from-json | to-json` gives back the same JSON values.

use std::io::Write;

use qdf_core::wire::header::header_len;
use qdf_core::{EncoderSession, Value};

use crate::input::{self, Input, Mode, Progress};
use crate::{Failure, FromJsonArgs, QdfInput};

/// Runs `qdf to-json`.
pub fn to_json(args: &QdfInput, pretty: bool) -> Result<(), Failure> {
    let input = Input::read(args)?;
    let file = args.file.as_str();
    let mut out = input::output(None, false)?;
    match input.mode {
        Mode::Message => {
            let v: Value = input.message()?;
            json_form(&v).map_err(|m| Failure::new(file, m))?;
            let r = if pretty {
                serde_json::to_writer_pretty(&mut out, &v)
            } else {
                serde_json::to_writer(&mut out, &v)
            };
            r.map_err(|e| json_write(file, e, None))?;
            writeln!(out).map_err(input::write_failed)?;
        }
        Mode::Stream => {
            let mut progress = Progress::new(input.bytes.len() as u64);
            let mut frame = 0u64;
            input.frames(|v: Value, pos, used, _| {
                let at = frame_at(pos, frame, header_len(input.bytes[4]));
                json_form(&v).map_err(|m| Failure::new(file, format!("{at}: {m}")))?;
                serde_json::to_writer(&mut out, &v).map_err(|e| json_write(file, e, Some(&at)))?;
                writeln!(out).map_err(input::write_failed)?;
                frame += 1;
                progress.update((pos + used) as u64, frame);
                Ok(())
            })?;
            progress.finish();
        }
    }
    out.flush().map_err(input::write_failed)
}

/// `frame N (at stream byte X)`, as the walker names frames (the first frame's offset is
/// after the header: 5 bytes, 13 with a dictionary id).
fn frame_at(pos: usize, frame: u64, header: usize) -> String {
    let at = if frame == 0 { header } else { pos };
    format!("frame {frame} (at stream byte {at})")
}

/// A serde_json write error: an I/O error on stdout, or a value JSON cannot hold (a map key
/// that is not a string or number).
fn json_write(file: &str, e: serde_json::Error, at: Option<&str>) -> Failure {
    if let Some(io) = e.io_error_kind() {
        return input::write_failed(std::io::Error::new(io, e.to_string()));
    }
    match at {
        Some(at) => Failure::new(file, format!("{at}: no JSON form: {e}")),
        None => Failure::new(file, format!("no JSON form: {e}")),
    }
}

/// Fails for a value with no JSON form that serde_json would write lossily: a NaN or
/// infinite float (serde_json writes `null`).
fn json_form(v: &Value) -> Result<(), String> {
    let bad = |f: f64| Err(format!("the float {f} has no JSON form"));
    match v {
        Value::F32(f) if !f.is_finite() => bad(*f as f64),
        Value::F64(f) if !f.is_finite() => bad(*f),
        Value::Array(items) => items.iter().try_for_each(json_form),
        Value::Map(entries) => entries
            .iter()
            .try_for_each(|(k, v)| json_form(k).and_then(|()| json_form(v))),
        Value::Some(x) => json_form(x),
        Value::Variant(var) => json_form(&var.value),
        _ => Ok(()),
    }
}

/// The byte offset of serde_json's 1-based `line` and `column` in `text`.
fn json_offset(text: &[u8], line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive(|&b| b == b'\n')
        .take(line.saturating_sub(1))
        .map(<[u8]>::len)
        .sum();
    (start + column.saturating_sub(1)).min(text.len())
}

/// A JSON syntax error as one line with its byte offset.
pub fn json_error(file: &str, text: &[u8], e: &serde_json::Error) -> Failure {
    let at = json_offset(text, e.line(), e.column());
    Failure::new(file, format!("invalid JSON: {e} (byte {at})"))
}

/// Runs `qdf from-json`.
pub fn from_json(args: &FromJsonArgs) -> Result<(), Failure> {
    let file = args.file.as_str();
    let text = input::read_all(file)?;
    let mut opts = args.tier.options();
    if args.map_shapes {
        if args.tier == crate::Tier::Speed {
            return Err(Failure::new(
                file,
                "--map-shapes needs the Dense tiers (balanced, compression)",
            ));
        }
        opts = opts.features(opts.features.with(qdf_core::Features::MAP_SHAPE));
    }
    let dict = input::dictionary(args.dictionary.as_deref())?;
    if dict.is_some() && args.tier == crate::Tier::Speed {
        return Err(Failure::new(
            file,
            "--dictionary needs the Dense tiers (balanced, compression): speed writes no \
             intern references",
        ));
    }
    let mut values = serde_json::Deserializer::from_slice(&text).into_iter::<serde_json::Value>();
    let mut out = input::output(args.output.as_deref(), true)?;
    let out_name = args.output.as_deref().unwrap_or("<stdout>");
    if !args.stream {
        let v = match values.next() {
            None => return Err(Failure::new(file, "no JSON value in the input")),
            Some(r) => r.map_err(|e| json_error(file, &text, &e))?,
        };
        let end = values.byte_offset();
        match values.next() {
            None => {}
            Some(Err(e)) => return Err(json_error(file, &text, &e)),
            Some(Ok(_)) => {
                return Err(Failure::new(
                    file,
                    format!(
                        "a second JSON value after byte {end}: use --stream to write one \
                         frame per value"
                    ),
                ));
            }
        }
        let msg = match &dict {
            Some(d) => qdf_core::to_vec_with_dictionary(&v, opts, d),
            None => qdf_core::to_vec_with(&v, opts),
        }
        .map_err(|e| Failure::new(file, e))?;
        out.write_all(&msg).map_err(|e| Failure::new(out_name, e))?;
    } else {
        let mut enc = EncoderSession::new(opts).with_checksum(args.checksum);
        if let Some(d) = dict {
            enc = enc.with_dictionary(d);
        }
        let mut buf = Vec::new();
        let mut progress = Progress::new(text.len() as u64);
        let mut n = 0u64;
        while let Some(r) = values.next() {
            let v = r.map_err(|e| json_error(file, &text, &e))?;
            enc.encode_frame(&v, &mut buf)
                .map_err(|e| Failure::new(file, format!("JSON value {n}: {e}")))?;
            n += 1;
            if buf.len() >= 1 << 20 {
                out.write_all(&buf).map_err(|e| Failure::new(out_name, e))?;
                buf.clear();
            }
            progress.update(values.byte_offset() as u64, n);
        }
        progress.finish();
        out.write_all(&buf).map_err(|e| Failure::new(out_name, e))?;
    }
    out.flush().map_err(|e| Failure::new(out_name, e))
}
