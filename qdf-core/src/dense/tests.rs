//! Predictor and mirror tests: an encoder state writes a sequence of strings, a decoder state
//! reads it back, and both states must end identical.

use super::*;
use crate::error::Category;

// Test-only views of the state (kept out of the production impl).
impl DenseState {
    /// A digest of everything the peer mirrors (tests: the two sides must agree).
    pub(crate) fn mirrored_digest(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.table.observable().hash(&mut h);
        self.pred.observable().hash(&mut h);
        self.shapes.observable().hash(&mut h);
        self.col_shapes.len().hash(&mut h);
        self.counts.renewals.hash(&mut h);
        h.finish()
    }
}

/// Writes `items` with `enc`, using plain fixstr/str8/bin8 for inline values.
fn encode_all(enc: &mut DenseState, items: &[(&[u8], Kind)]) -> (Vec<u8>, Vec<Emission>) {
    let mut out = Vec::new();
    let mut ems = Vec::new();
    for &(b, k) in items {
        let e = enc.encode_str(b, k);
        if !e.write(&mut out, b, k) {
            match k {
                Kind::Str if b.len() < 32 => out.push(tags::FIXSTR | b.len() as u8),
                Kind::Str => out.extend_from_slice(&[tags::STR8, b.len() as u8]),
                Kind::Bin => out.extend_from_slice(&[tags::BIN8, b.len() as u8]),
            }
            out.extend_from_slice(b);
        }
        ems.push(e);
    }
    (out, ems)
}

/// Reads what [`encode_all`] wrote.
fn decode_all(dec: &mut DenseState, mut buf: &[u8]) -> Result<Vec<(Vec<u8>, Kind)>> {
    let mut items = Vec::new();
    while let Some((&tag, rest)) = buf.split_first() {
        buf = rest;
        let (bytes, kind, used) = match tag {
            tags::FIXSTR..=tags::FIXSTR_MAX | tags::STR8 | tags::BIN8 => {
                let (len, hdr, kind) = match tag {
                    tags::STR8 => (buf[0] as usize, 1, Kind::Str),
                    tags::BIN8 => (buf[0] as usize, 1, Kind::Bin),
                    _ => ((tag & 0x1F) as usize, 0, Kind::Str),
                };
                dec.note_inline();
                (buf[hdr..hdr + len].to_vec(), kind, hdr + len)
            }
            tags::INTERN_STR | tags::INTERN_BIN => {
                let (len, hdr) = read_uvarint(buf)?;
                let b = &buf[hdr..hdr + len as usize];
                let kind = if tag == tags::INTERN_STR {
                    Kind::Str
                } else {
                    Kind::Bin
                };
                dec.define(b, kind)?;
                (b.to_vec(), kind, hdr + len as usize)
            }
            _ => {
                let (id, used) = dec.resolve(tag, buf)?;
                let (b, k) = dec.entry(id).expect("kept");
                (b.to_vec(), k, used)
            }
        };
        buf = &buf[used..];
        items.push((bytes, kind));
    }
    Ok(items)
}

type Observable = (
    (Vec<u8>, Vec<usize>, Vec<Kind>),
    (u32, Vec<u32>, Vec<u32>),
    (Vec<u8>, Vec<usize>, Vec<usize>, u64),
);

fn observable(s: &DenseState) -> Observable {
    (
        s.table.observable(),
        s.pred.observable(),
        s.shapes.observable(),
    )
}

/// Encodes, decodes, checks values and mirrored state; returns bytes and emissions.
fn round_trip(opts: Options, items: &[(&[u8], Kind)]) -> (Vec<u8>, Vec<Emission>) {
    let mut enc = DenseState::new_encoder(&opts);
    let mut dec = DenseState::new_decoder(&opts, true);
    let (bytes, ems) = encode_all(&mut enc, items);
    let got = decode_all(&mut dec, &bytes).unwrap();
    let want: Vec<_> = items.iter().map(|&(b, k)| (b.to_vec(), k)).collect();
    assert_eq!(got, want);
    assert_eq!(observable(&enc), observable(&dec));
    assert!(enc.table.index_consistent());
    (bytes, ems)
}

fn strs(v: &[String]) -> Vec<(&[u8], Kind)> {
    v.iter().map(|s| (s.as_bytes(), Kind::Str)).collect()
}

/// `n` distinct filler values so later ids are ≥ 128.
fn filler(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("fill{i:04}")).collect()
}

#[test]
fn golden_bytes_for_each_emission() {
    let items: Vec<(&[u8], Kind)> = vec![
        (b"host", Kind::Str),
        (b"host", Kind::Str),
        (b"ab", Kind::Str),
        (b"host", Kind::Str),
        (b"blob", Kind::Bin),
        (b"host", Kind::Bin),
    ];
    let (bytes, ems) = round_trip(Options::balanced(), &items);
    assert_eq!(
        ems,
        [
            Emission::Intern,
            Emission::Repeat,
            Emission::Inline,
            Emission::Ref(0),
            Emission::Intern,
            Emission::Intern
        ]
    );
    assert_eq!(
        bytes,
        [
            0xE0, 4, b'h', b'o', b's', b't', 0xE8, 0x82, b'a', b'b', 0xE1, 0, 0xE2, 4, b'b', b'l',
            b'o', b'b', 0xE2, 4, b'h', b'o', b's', b't'
        ]
    );
}

#[test]
fn runs_cost_one_byte_each() {
    let v = vec!["service-a".to_string(); 50];
    let (bytes, ems) = round_trip(Options::balanced(), &strs(&v));
    assert_eq!(ems[0], Emission::Intern);
    assert!(ems[1..].iter().all(|&e| e == Emission::Repeat));
    assert_eq!(bytes.len(), 11 + 49);
}

#[test]
fn alternation_of_high_ids_uses_pairs() {
    let mut v = filler(300);
    for _ in 0..10 {
        v.push("fill0150".into());
        v.push("fill0180".into());
    }
    let (_, ems) = round_trip(Options::balanced(), &strs(&v));
    let tail = &ems[300..];
    // The ring holds 172..=299: 150 is out of it, 180 is not (pairs 150 → 151, 180 → 181).
    assert_eq!(tail[0], Emission::Ref(150));
    assert_eq!(tail[1], Emission::Mtf(120), "180 is still in the ring");
    // 180 → 150 is not a known pair yet: ring offset 1. Then every step is predicted.
    assert_eq!(tail[2], Emission::Mtf(1));
    assert!(tail[3..].iter().all(|&e| e == Emission::Pair), "{tail:?}");
}

#[test]
fn alternation_without_pairs_uses_mtf_ranks() {
    let mut v = filler(300);
    for _ in 0..10 {
        v.push("fill0150".into());
        v.push("fill0180".into());
    }
    let opts = Options::balanced().features(Features::BALANCED.without(Features::PAIR_PRED));
    let (_, ems) = round_trip(opts, &strs(&v));
    let tail = &ems[300..];
    assert_eq!(tail[0], Emission::Ref(150), "150 fell out of the ring");
    assert_eq!(tail[1], Emission::Mtf(120), "180 is still in the ring");
    assert!(tail[2..].iter().all(|&e| e == Emission::Mtf(1)), "{tail:?}");
}

#[test]
fn late_hot_subset_is_cheap() {
    let mut v = filler(400);
    let hot = ["fill0390", "fill0310", "fill0333"];
    for i in 0..30 {
        v.push(hot[(i * 7 + i / 3) % 3].into());
    }
    let (bytes, ems) = round_trip(Options::balanced(), &strs(&v));
    let speed: usize = v.iter().map(|s| inline_len(s.len(), Kind::Str)).sum();
    let tail_bytes: usize = ems[400..].iter().map(|e| e.wire_len(8)).sum();
    assert!(
        tail_bytes <= 2 * 30,
        "hot ids ≥ 256 cost ≤ 2 bytes: {tail_bytes}"
    );
    // The hot ids (≥ 256, so `E1` would cost 3 bytes) are still in the ring: never `E1`.
    assert!(
        ems[400..]
            .iter()
            .all(|e| matches!(e, Emission::Mtf(_) | Emission::Pair | Emission::Repeat)),
        "{:?}",
        &ems[400..]
    );
    assert!(bytes.len() < speed + 400);
}

#[test]
fn correlated_pairs_predict_the_successor() {
    // key → value correlation: every "k" is followed by its own "v".
    let mut v = filler(300);
    for _round in 0..5 {
        for k in 0..4 {
            v.push(format!("fill{:04}", 200 + k));
            v.push(format!("fill{:04}", 250 + k));
        }
    }
    let (_, ems) = round_trip(Options::balanced(), &strs(&v));
    let last_round = &ems[ems.len() - 8..];
    for pair in last_round.chunks(2) {
        assert_eq!(pair[1], Emission::Pair, "{last_round:?}");
    }
}

#[test]
fn mtf_rank_counts_duplicate_pushes() {
    let mut v = filler(200);
    // Pushes, newest last: 150 160 150 170 → 160 sits at offset 2, behind a duplicate 150.
    for s in ["fill0150", "fill0160", "fill0150", "fill0170", "fill0160"] {
        v.push(s.into());
    }
    let opts = Options::balanced().features(Features::BALANCED.without(Features::PAIR_PRED));
    let (bytes, ems) = round_trip(opts, &strs(&v));
    assert_eq!(ems[204], Emission::Mtf(2));
    assert_eq!(&bytes[bytes.len() - 2..], &[0xE9, 2]);
}

#[test]
fn short_and_inline_values_reset_last() {
    let items: Vec<(&[u8], Kind)> = vec![
        (b"long-value", Kind::Str),
        (b"x", Kind::Str),
        (b"long-value", Kind::Str),
    ];
    let (_, ems) = round_trip(Options::balanced(), &items);
    assert_eq!(ems, [Emission::Intern, Emission::Inline, Emission::Ref(0)]);
}

#[test]
fn encoder_entry_cap_goes_inline_and_keeps_old_ids() {
    let opts = Options::balanced().max_intern_entries(2);
    let items: Vec<(&[u8], Kind)> = vec![
        (b"aaaa", Kind::Str),
        (b"bbbb", Kind::Str),
        (b"cccc", Kind::Str),
        (b"aaaa", Kind::Str),
        (b"cccc", Kind::Str),
    ];
    let (_, ems) = round_trip(opts, &items);
    use Emission::*;
    assert_eq!(ems, [Intern, Intern, Inline, Ref(0), Inline]);
}

#[test]
fn encoder_byte_cap_goes_inline() {
    let opts = Options::balanced().max_intern_bytes(64 * 8);
    let items: Vec<(&[u8], Kind)> = vec![
        (b"12345678", Kind::Str),
        (b"123456789", Kind::Str),
        (b"abcdefgh", Kind::Str),
    ];
    let (_, ems) = round_trip(opts, &items);
    use Emission::*;
    assert_eq!(ems, [Intern, Inline, Intern], "one value ≤ 1/64 of the cap");
}

#[test]
fn decoder_rejects_a_peer_over_its_caps() {
    let items: Vec<(&[u8], Kind)> = vec![(b"aaaa", Kind::Str), (b"bbbb", Kind::Str)];
    let (bytes, _) = encode_all(&mut DenseState::new_encoder(&Options::balanced()), &items);
    let mut dec = DenseState::new_decoder(&Options::balanced().max_intern_entries(1), true);
    let err = decode_all(&mut dec, &bytes).unwrap_err();
    assert_eq!(
        err.code(),
        &ErrorCode::SessionCap {
            what: "intern table entries",
            cap: 1,
            limit: "max_intern_entries",
        }
    );
    assert_eq!(err.classify(), Category::Limit);
    let mut dec = DenseState::new_decoder(&Options::balanced().max_intern_bytes(7), true);
    let err = decode_all(&mut dec, &bytes).unwrap_err();
    assert_eq!(
        err.code(),
        &ErrorCode::SessionCap {
            what: "intern table bytes",
            cap: 7,
            limit: "max_intern_bytes",
        }
    );
}

#[test]
fn hostile_references_are_errors() {
    let mut dec = DenseState::new_decoder(&Options::balanced(), true);
    let unknown = |r: Result<(u32, usize)>| r.unwrap_err().code().clone();
    assert_eq!(
        unknown(dec.resolve(0xE1, &[0])),
        ErrorCode::UnknownStateId(0)
    );
    assert_eq!(
        unknown(dec.resolve(0xE8, &[])),
        ErrorCode::UnknownStateId(u64::MAX)
    );
    assert_eq!(
        unknown(dec.resolve(0xEA, &[0])),
        ErrorCode::UnknownStateId(u64::MAX)
    );
    dec.define(b"abcd", Kind::Str).unwrap();
    assert_eq!(
        unknown(dec.resolve(0xE9, &[1])),
        ErrorCode::UnknownStateId(1)
    );
    assert_eq!(
        unknown(dec.resolve(0xE9, &[0x80, 1])),
        ErrorCode::UnknownStateId(128)
    );
    assert_eq!(
        unknown(dec.resolve(0xEA, &[0])),
        ErrorCode::UnknownStateId(0)
    );
    assert_eq!(
        unknown(dec.resolve(0xEA, &[1])),
        ErrorCode::BadCodec("pair rank must be 0")
    );
    assert_eq!(
        unknown(dec.resolve(0xE1, &[0x80, 0])),
        ErrorCode::NonMinimal("a uvarint")
    );
    assert!(dec.resolve(0xE1, &[0x80]).unwrap_err().is_eof());
    assert!(matches!(
        unknown(dec.resolve(0xC0, &[])),
        ErrorCode::BadTag { .. }
    ));
    assert_eq!(dec.resolve(0xE9, &[0]).unwrap(), (0, 1));
    assert_eq!(dec.resolve(0xE8, &[]).unwrap(), (0, 0));
    assert_eq!(dec.resolve(0xEA, &[0]).unwrap(), (0, 1));
}

#[test]
fn rollback_restores_exactly() {
    let opts = Options::balanced();
    let mut enc = DenseState::new_encoder(&opts);
    let first = filler(150);
    encode_all(&mut enc, &strs(&first));
    enc.begin_shape();
    enc.shape_name(b"a");
    enc.end_shape().unwrap();
    let before = observable(&enc);
    let reference = enc.clone();

    enc.checkpoint();
    let mut second = filler(160);
    second.extend(["new-1".to_string(), "fill0140".into(), "new-2".into()]);
    encode_all(&mut enc, &strs(&second));
    enc.begin_shape();
    enc.shape_name(b"b");
    enc.end_shape().unwrap();
    enc.begin_shape();
    enc.shape_name(b"open");
    assert_ne!(observable(&enc), before);
    enc.rollback();
    assert_eq!(observable(&enc), before);
    assert!(enc.table.index_consistent());

    // The rolled-back state behaves exactly like one that never saw the failed message.
    let mut fresh = reference;
    let third = strs(&second);
    let (a, ea) = encode_all(&mut enc, &third);
    let (b, eb) = encode_all(&mut fresh, &third);
    assert_eq!((a, ea), (b, eb));
    assert_eq!(observable(&enc), observable(&fresh));
}

/// Trials nest inside a checkpoint (and without one), start inside an open declaration, and
/// a rolled-back trial leaves a state that behaves exactly like one that never saw it; a
/// kept trial inside a checkpoint is still undone by the checkpoint's rollback.
#[test]
fn trial_rollback_restores_exactly() {
    for checkpoint in [false, true] {
        let opts = Options::balanced();
        let mut enc = DenseState::new_encoder(&opts);
        encode_all(&mut enc, &strs(&filler(150)));
        let at_checkpoint = observable(&enc);
        if checkpoint {
            enc.checkpoint();
        }
        encode_all(&mut enc, &strs(&filler(20)));
        enc.begin_shape();
        enc.shape_name(b"outer");
        let before = observable(&enc);
        let reference = enc.clone();

        let outer = enc.trial();
        let mut second = filler(300);
        second.extend(["new-1".to_string(), "fill0140".into()]);
        encode_all(&mut enc, &strs(&second));
        let inner = enc.trial();
        encode_all(&mut enc, &strs(&["new-2".to_string(), "fill0001".into()]));
        enc.begin_shape();
        enc.shape_name(b"inner");
        enc.end_shape().unwrap();
        enc.trial_rollback(inner);
        let kept = enc.trial();
        encode_all(&mut enc, &strs(&["new-3".to_string()]));
        enc.trial_keep(kept);
        assert_ne!(observable(&enc), before);
        enc.trial_rollback(outer);
        assert_eq!(observable(&enc), before);
        assert!(enc.table.index_consistent());

        // The open declaration survived: it ends as it would have.
        let mut fresh = reference;
        enc.shape_name(b"x");
        fresh.shape_name(b"x");
        assert_eq!(enc.end_shape().unwrap(), fresh.end_shape().unwrap());
        let third = strs(&second);
        assert_eq!(encode_all(&mut enc, &third), encode_all(&mut fresh, &third));
        assert_eq!(observable(&enc), observable(&fresh));

        if checkpoint {
            let kept = enc.trial();
            encode_all(&mut enc, &strs(&["new-4".to_string()]));
            enc.trial_keep(kept);
            enc.rollback();
            assert_eq!(observable(&enc), at_checkpoint);
        }
    }
}

#[test]
fn commit_keeps_changes() {
    let mut enc = DenseState::new_encoder(&Options::balanced());
    enc.checkpoint();
    encode_all(&mut enc, &strs(&filler(3)));
    enc.commit();
    enc.rollback();
    assert_eq!(enc.entries(), 3);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// Any sequence, any predictor switches, small caps: values round trip and the
        /// two states end identical.
        #[test]
        fn mirror_holds(
            picks in prop::collection::vec((0usize..400, any::<bool>()), 0..600),
            pairs in any::<bool>(),
            mtf in any::<bool>(),
            cap in 1u32..500,
            min_intern in 0u32..6,
        ) {
            let mut f = Features::DENSE;
            if pairs { f = f.with(Features::PAIR_PRED); }
            if mtf { f = f.with(Features::MTF); }
            let opts = Options::balanced().features(f).max_intern_entries(cap).min_intern(min_intern);
            let vals: Vec<String> = (0..400).map(|i| "v".repeat(i % 7) + &i.to_string()).collect();
            let items: Vec<(&[u8], Kind)> = picks
                .iter()
                .map(|&(i, bin)| (vals[i].as_bytes(), if bin { Kind::Bin } else { Kind::Str }))
                .collect();
            let (bytes, _) = round_trip(opts, &items);
            let speed: usize = items.iter().map(|&(b, k)| inline_len(b.len(), k)).sum();
            let mut enc = DenseState::new_encoder(&opts);
            encode_all(&mut enc, &items);
            prop_assert!(bytes.len() <= speed + enc.entries() as usize);
        }
    }
}

/// Through the real Serializer and Deserializer: after every message of a session the
/// decoder's state equals the encoder's (intern table, predictors, shapes).
#[test]
fn serde_paths_mirror_the_state() {
    use serde::{Deserialize, Serialize};
    use std::collections::BTreeMap;

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    enum Ev {
        Click { target: String, at: u32 },
        Key(String),
        Idle,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Msg {
        user: String,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        session: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        referrer: Option<String>,
        events: Vec<Ev>,
        tags: BTreeMap<String, String>,
        #[serde(with = "serde_bytes")]
        blob: Vec<u8>,
    }
    let opts = Options::balanced();
    let mut enc = Some(Box::new(DenseState::new_encoder(&opts)));
    let mut dec = None;
    for i in 0..40u32 {
        let m = Msg {
            user: format!("user-{}", i % 7),
            session: (i % 3 == 0).then(|| format!("sess-{}", i % 5)),
            referrer: (i % 3 == 1).then(|| "https://example.org/".to_string()),
            events: vec![
                Ev::Click {
                    target: format!("button-{}", i % 4),
                    at: i,
                },
                Ev::Key("Enter".into()),
                Ev::Idle,
            ],
            tags: [("region".to_string(), format!("eu-{}", i % 2))].into(),
            blob: b"blob-bytes".to_vec(),
        };
        let mut body = Vec::new();
        crate::ser::encode_body_with_state(&m, &opts, &mut body, &mut enc).unwrap();
        let back: Msg = crate::de::decode_body_with_state(&body, &opts, &mut dec).unwrap();
        assert_eq!(back, m);
        let (e, d) = (enc.as_deref().unwrap(), dec.as_deref().unwrap());
        assert_eq!(observable(e), observable(d), "message {i}");
    }
    assert!(enc.unwrap().shapes().len() >= 2);
}
