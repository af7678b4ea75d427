//! The codec's `tracing` events, captured by a small `Subscriber`: per-frame `trace` events
//! carry the real frame lengths, `debug` events report table growth with the real sizes and
//! only when the tables grew, and nothing is emitted at `info` or above.
//!
//! One test in this binary: callsite interest is process-wide, so every assertion runs under
//! one subscriber.

use std::sync::{Arc, Mutex};

use bytes::BytesMut;
use qdf_core::SessionStats;
use qdf_stream::QdfCodec;
use serde::{Deserialize, Serialize};
use tokio_util::codec::{Decoder, Encoder};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

/// One captured event: its level, message and other fields (values as text).
#[derive(Debug, Clone)]
struct Captured {
    level: Level,
    message: String,
    fields: Vec<(&'static str, String)>,
}

impl Captured {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    fn num(&self, name: &str) -> u64 {
        self.field(name)
            .unwrap_or_else(|| panic!("{} has no {name}: {self:?}", self.message))
            .parse()
            .unwrap_or_else(|_| panic!("{name} of {self:?} is not a number"))
    }
}

#[derive(Default)]
struct Fields {
    message: String,
    fields: Vec<(&'static str, String)>,
}

impl Visit for Fields {
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.fields.push((field.name(), value.to_string()));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.fields.push((field.name(), value.to_string()));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.fields.push((field.name(), value.to_owned()));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.message = format!("{value:?}");
        } else {
            self.fields.push((field.name(), format!("{value:?}")));
        }
    }
}

/// Captures every event of `qdf_stream`, at every level.
#[derive(Clone, Default)]
struct Capture {
    events: Arc<Mutex<Vec<Captured>>>,
}

impl Capture {
    fn take(&self) -> Vec<Captured> {
        std::mem::take(&mut *self.events.lock().unwrap())
    }
}

impl Subscriber for Capture {
    fn enabled(&self, m: &Metadata<'_>) -> bool {
        m.target().starts_with("qdf_stream")
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, e: &Event<'_>) {
        if !self.enabled(e.metadata()) {
            return;
        }
        let mut f = Fields::default();
        e.record(&mut f);
        self.events.lock().unwrap().push(Captured {
            level: *e.metadata().level(),
            message: f.message,
            fields: f.fields,
        });
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Reading {
    sensor: String,
    celsius: f64,
}

fn reading(sensor: &str) -> Reading {
    Reading {
        sensor: sensor.into(),
        celsius: 21.5,
    }
}

fn by_message<'a>(events: &'a [Captured], message: &str) -> Vec<&'a Captured> {
    events.iter().filter(|e| e.message == message).collect()
}

#[test]
fn frame_lengths_and_table_growth_are_traced() {
    let capture = Capture::default();
    tracing::subscriber::with_default(capture.clone(), || {
        let mut tx = QdfCodec::<Reading>::dense();
        let mut rx = QdfCodec::<Reading>::dense();
        let sent = [reading("attic"), reading("attic"), reading("cellar")];
        let mut wire = BytesMut::new();
        // Frame lengths as the buffer grows (the first one includes the stream header).
        let mut lens = Vec::new();
        for r in &sent {
            let at = wire.len();
            tx.encode(r, &mut wire).unwrap();
            lens.push((wire.len() - at) as u64);
        }
        assert_eq!(&wire[..4], b"QDF\x01");
        assert!(
            lens[0] > lens[1] + 5,
            "the first frame: header and declaration"
        );

        let events = capture.take();
        let encoded = by_message(&events, "qdf frame encoded");
        let got: Vec<u64> = encoded.iter().map(|e| e.num("frame_len")).collect();
        assert_eq!(got, lens);
        assert!(encoded.iter().all(|e| e.level == Level::TRACE));
        assert_eq!(encoded[2].num("buffered"), wire.len() as u64);

        // Growth after each frame, with the sizes the session reports: the first declares,
        // the second (the first reuse) fills the per-field numbers (docs/SPEC.md §15.2,
        // memory only), the third interns "cellar".
        let grew = by_message(&events, "qdf encoder tables grew");
        assert_eq!(grew.len(), 3, "{events:#?}");
        assert!(grew.iter().all(|e| e.level == Level::DEBUG));
        assert_eq!(grew[0].num("frame_len"), lens[0]);
        assert_eq!(grew[1].num("frame_len"), lens[1]);
        assert_eq!(grew[1].num("intern_entries"), 3);
        assert!(grew[1].num("heap_bytes") > grew[0].num("heap_bytes"));
        let grew = [&grew[0], &grew[2]];
        assert_eq!(grew[1].num("frame_len"), lens[2]);
        // "sensor", "attic", "celsius"; then "cellar".
        assert_eq!(grew[0].num("intern_entries"), 3);
        assert_eq!(grew[0].num("intern_bytes"), 6 + 5 + 7);
        assert_eq!(grew[0].num("shapes"), 1);
        assert_eq!(grew[1].num("intern_entries"), 4);
        assert_eq!(grew[1].num("intern_bytes"), 6 + 5 + 7 + 6);
        let s: SessionStats = tx.encoder_stats();
        assert_eq!(
            (s.intern_entries, s.intern_bytes, s.shapes, s.col_shapes),
            (4, 24, 1, 0)
        );
        assert_eq!(grew[1].num("shape_bytes"), s.shape_bytes);

        // The decoder reports the same frames and the same growth.
        let mut got = Vec::new();
        while let Some(r) = rx.decode(&mut wire).unwrap() {
            got.push(r);
        }
        assert_eq!(got, sent);
        let events = capture.take();
        let decoded = by_message(&events, "qdf frame decoded");
        let got: Vec<u64> = decoded.iter().map(|e| e.num("frame_len")).collect();
        assert_eq!(got, lens);
        let grew = by_message(&events, "qdf decoder tables grew");
        let sizes: Vec<(u64, u64, u64)> = grew
            .iter()
            .map(|e| {
                (
                    e.num("frame_len"),
                    e.num("intern_entries"),
                    e.num("intern_bytes"),
                )
            })
            .collect();
        assert_eq!(
            sizes,
            [(lens[0], 3, 18), (lens[1], 3, 18), (lens[2], 4, 24)]
        );
        // The mirrored tables agree; the memory is each side's own (the encoder's index and
        // predictions are not mirrored), and is traced too.
        let table_sizes = |s: SessionStats| {
            (
                s.intern_entries,
                s.intern_bytes,
                s.shapes,
                s.col_shapes,
                s.shape_bytes,
            )
        };
        let (d, e) = (rx.decoder_stats(), tx.encoder_stats());
        assert_eq!(table_sizes(d), table_sizes(e));
        assert!(0 < d.heap_bytes && d.heap_bytes < e.heap_bytes);
        // The last event holds the final heap (the third frame's `E0` also gives its field a
        // text, `docs/SPEC.md` §15.3, so the heap grows there too).
        assert_eq!(grew[2].num("heap_bytes"), d.heap_bytes);
        assert!(grew[2].num("heap_bytes") > grew[1].num("heap_bytes"));

        // A failed encode is reported at debug and writes nothing.
        let mut small = QdfCodec::builder()
            .max_frame_length(8)
            .new_codec::<(), Reading>();
        let mut out = BytesMut::new();
        assert!(small.encode(&reading("attic"), &mut out).is_err());
        assert!(out.is_empty());
        let events = capture.take();
        let failed = by_message(&events, "qdf frame not encoded");
        assert_eq!(failed.len(), 1);
        assert_eq!(failed[0].level, Level::DEBUG);
        assert!(
            failed[0].field("error").unwrap().contains("8"),
            "{failed:?}"
        );

        // A fast codec keeps no tables: per-frame events only.
        let mut fast = QdfCodec::<Reading>::fast();
        let mut out = BytesMut::new();
        fast.encode(&reading("attic"), &mut out).unwrap();
        let events = capture.take();
        assert_eq!(by_message(&events, "qdf frame encoded").len(), 1);
        assert_eq!(
            by_message(&events, "qdf frame encoded")[0].num("frame_len"),
            out.len() as u64
        );
        assert!(by_message(&events, "qdf encoder tables grew").is_empty());
    });
    // Nothing at info or above, ever (every event of the test was captured above; check the
    // levels of a fresh full run).
    let capture2 = Capture::default();
    tracing::subscriber::with_default(capture2.clone(), || {
        let mut tx = QdfCodec::<Reading>::dense();
        let mut rx = QdfCodec::<Reading>::dense();
        let mut wire = BytesMut::new();
        for s in ["a-sensor", "b-sensor", "a-sensor"] {
            tx.encode(&reading(s), &mut wire).unwrap();
        }
        while rx.decode(&mut wire).unwrap().is_some() {}
        let mut bad = BytesMut::from(&b"QDF\x01\x01\x03\xff\xff\xff"[..]);
        let _ = QdfCodec::<Reading>::dense().decode(&mut bad);
    });
    let events = capture2.take();
    assert!(events.len() >= 6, "{events:#?}");
    assert!(
        events.iter().all(|e| e.level >= Level::DEBUG),
        "an event at info or above: {events:#?}"
    );
}

/// A renewal by the builder's schedule is traced on both sides (`docs/SPEC.md` §18): the
/// encoder's event names the generation and what the ended generation wrote, the decoder's
/// the generation; the tables start over.
#[test]
fn renewals_are_traced() {
    let capture = Capture::default();
    tracing::subscriber::with_default(capture.clone(), || {
        let builder = QdfCodec::builder().renew_after_messages(2).clone();
        let mut tx = builder.new_codec::<(), Reading>();
        let mut rx = builder.new_codec::<Reading, Reading>();
        let sent = [reading("attic"), reading("attic"), reading("cellar")];
        let mut wire = BytesMut::new();
        let mut lens = Vec::new();
        for r in &sent {
            let at = wire.len();
            tx.encode(r, &mut wire).unwrap();
            lens.push((wire.len() - at) as u64);
        }
        let events = capture.take();
        let renewed = by_message(&events, "qdf encoder session renewed");
        assert_eq!(renewed.len(), 1, "{events:#?}");
        assert_eq!(renewed[0].level, Level::DEBUG);
        assert_eq!(renewed[0].num("generation"), 1);
        assert_eq!(renewed[0].num("frame_len"), lens[2]);
        assert_eq!(renewed[0].num("frames"), 2);
        assert_eq!(renewed[0].num("bytes"), lens[0] + lens[1]);
        // The third frame declared the shape and interned its names again.
        let s = tx.encoder_stats();
        assert_eq!(
            (s.renewals, s.evictions, s.intern_entries, s.shapes),
            (1, 3, 3, 1)
        );

        let mut got = Vec::new();
        while let Some(r) = rx.decode(&mut wire).unwrap() {
            got.push(r);
        }
        assert_eq!(got, sent);
        let events = capture.take();
        let renewed = by_message(&events, "qdf decoder session renewed");
        assert_eq!(renewed.len(), 1, "{events:#?}");
        assert_eq!(
            (renewed[0].num("generation"), renewed[0].num("frame_len")),
            (1, lens[2])
        );
        assert_eq!(rx.decoder_stats().renewals, 1);
    });
}
