//! Break attempts on the row replay of captured batches (`columnar::write::replay_rows`): a
//! batch that stays rows (the rows trial of a batch below 16 rows, a batch refused or
//! conflicted half way, one whose columns are all residual, one past the shape cap) is
//! written row by row, and a field holding a list of structs is written from the captured
//! tape. Every value here round-trips under Balanced and Compression, one-shot and in
//! session streams, and a failure fails with the error the encoder gave before.
//!
//! With `BREAK12_DUMP=DIR` set, each encoding's hex (or its error text) is written to
//! `DIR/NAME.hex`, so that two builds' outputs can be compared byte for byte.

use std::cell::Cell as StdCell;
use std::collections::BTreeMap;
use std::fmt::Debug;

use qdf_core::{DecoderSession, EncoderSession, ErrorCode, Options, Value};
use serde::de::DeserializeOwned;
use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Deserialize, Serialize, Serializer};

// ---------------------------------------------------------------- harness

/// Writes `text` to `$BREAK12_DUMP/NAME.hex` when the variable is set.
fn dump(name: &str, text: &str) {
    if let Some(dir) = std::env::var_os("BREAK12_DUMP") {
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.hex")), text).unwrap();
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A tier: its name in dump names, its options.
type Tier = (&'static str, fn() -> Options);

/// The two columnar tiers.
const TIERS: [Tier; 2] = [
    ("bal", Options::balanced as fn() -> Options),
    ("cmp", Options::compression as fn() -> Options),
];

/// Encodes `v` under `opts`: its bytes dumped and decoded back as `M` (the mirror type of a
/// `Serialize`-only value) equal to `want`, or the error's text dumped and returned.
fn outcome_as<T, M>(name: &str, v: &T, want: &M, opts: Options) -> Result<Vec<u8>, String>
where
    T: ?Sized + Serialize,
    M: DeserializeOwned + PartialEq + Debug,
{
    match qdf_core::to_vec_with(v, opts) {
        Ok(bytes) => {
            dump(name, &hex(&bytes));
            let back: M = qdf_core::from_slice_with(&bytes, opts)
                .unwrap_or_else(|e| panic!("{name}: decode: {e}"));
            assert_eq!(&back, want, "{name}: round trip");
            Ok(bytes)
        }
        Err(e) => {
            dump(name, &format!("ERR {e}"));
            Err(e.to_string())
        }
    }
}

/// [`outcome_as`] of a value that is its own mirror.
fn outcome<T>(name: &str, v: &T, opts: Options) -> Result<Vec<u8>, String>
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    outcome_as(name, v, v, opts)
}

/// `v` encodes under `opts` and round-trips.
fn one<T>(name: &str, v: &T, opts: Options) -> Vec<u8>
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    outcome(name, v, opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// [`one`] under both tiers.
fn both<T>(name: &str, v: &T)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    for (t, o) in TIERS {
        one(&format!("{name}-{t}"), v, o());
    }
}

/// A session stream of `frames` under `opts`: the stream dumped, then decoded frame by
/// frame, each equal to what was encoded.
fn stream<T>(name: &str, frames: &[T], opts: Options)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let mut enc = EncoderSession::new(opts);
    let mut out = Vec::new();
    let mut ends = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        enc.encode_frame(f, &mut out)
            .unwrap_or_else(|e| panic!("{name}: frame {i}: {e}"));
        ends.push(out.len());
    }
    dump(name, &hex(&out));
    let mut dec = DecoderSession::new(opts);
    let mut at = 0;
    for (i, f) in frames.iter().enumerate() {
        let (v, n) = dec
            .decode_frame::<T>(&out[at..])
            .unwrap_or_else(|e| panic!("{name}: decode frame {i}: {e}"))
            .unwrap_or_else(|| panic!("{name}: frame {i} incomplete"));
        assert_eq!(&v, f, "{name}: frame {i}");
        at += n;
        assert_eq!(at, ends[i], "{name}: frame {i} length");
    }
}

/// [`stream`] under both tiers.
fn streams<T>(name: &str, frames: &[T])
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    for (t, o) in TIERS {
        stream(&format!("{name}-{t}"), frames, o());
    }
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    /// `k` frames of `n` rows, row `i` of each made by `row(self, i)`, frame by frame.
    fn frames<T>(&mut self, k: usize, n: usize, row: fn(&mut Rng, usize) -> T) -> Vec<Vec<T>> {
        (0..k)
            .map(|_| (0..n).map(|i| row(self, i)).collect())
            .collect()
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// An inner list length: mostly short, sometimes empty, sometimes around 16.
    fn len(&mut self) -> usize {
        [0, 1, 1, 2, 2, 3, 4, 5, 15, 16, 17][self.below(11)]
    }
    fn word(&mut self) -> String {
        let words = ["a", "bb", "ccc", "svc-1", "svc-2", "", "zz", "host"];
        let w = words[self.below(words.len())];
        match self.below(4) {
            0 => format!("{w}{}", self.below(100)),
            _ => w.to_string(),
        }
    }
}

// ---------------------------------------------------------------- nested lists of structs

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Leaf {
    a: u32,
    s: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct L1 {
    id: u32,
    kids: Vec<Leaf>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct L2 {
    name: String,
    kids: Vec<L1>,
    n: i64,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct L3 {
    f: f64,
    kids: Vec<L2>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct L4 {
    kids: Vec<L3>,
    tag: Option<String>,
}

fn leaf(r: &mut Rng) -> Leaf {
    Leaf {
        a: r.below(300) as u32,
        s: r.word(),
    }
}
fn l1(r: &mut Rng) -> L1 {
    let n = r.len();
    L1 {
        id: r.below(70_000) as u32,
        kids: (0..n).map(|_| leaf(r)).collect(),
    }
}
fn l2(r: &mut Rng) -> L2 {
    let n = r.len().min(5);
    L2 {
        name: r.word(),
        kids: (0..n).map(|_| l1(r)).collect(),
        n: r.below(1000) as i64 - 500,
    }
}
fn l3(r: &mut Rng) -> L3 {
    let n = r.len().min(3);
    L3 {
        f: r.below(100) as f64 / 4.0,
        kids: (0..n).map(|_| l2(r)).collect(),
    }
}
fn l4(r: &mut Rng) -> L4 {
    let n = r.len().min(2);
    L4 {
        kids: (0..n).map(|_| l3(r)).collect(),
        tag: (r.below(2) == 0).then(|| r.word()),
    }
}

/// Outer batch sizes: below 16 (the rows trial) and from 16 on.
const SIZES: [usize; 10] = [1, 2, 3, 4, 7, 15, 16, 17, 24, 40];

#[test]
fn nested_levels_one_shot() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    for seed in 0..6 {
        for n in SIZES {
            let v1: Vec<L1> = (0..n).map(|_| l1(&mut r)).collect();
            both(&format!("l1-{seed}-{n}"), &v1);
            let v2: Vec<L2> = (0..n).map(|_| l2(&mut r)).collect();
            both(&format!("l2-{seed}-{n}"), &v2);
            if n <= 17 {
                let v3: Vec<L3> = (0..n).map(|_| l3(&mut r)).collect();
                both(&format!("l3-{seed}-{n}"), &v3);
                let v4: Vec<L4> = (0..n.min(4)).map(|_| l4(&mut r)).collect();
                both(&format!("l4-{seed}-{n}"), &v4);
            }
        }
    }
}

#[test]
fn nested_levels_sessions() {
    let mut r = Rng(0x1234_5678_9abc_def1);
    for n in [1, 3, 15, 16, 20] {
        let frames: Vec<Vec<L2>> = (0..5)
            .map(|f| (0..n + f % 3).map(|_| l2(&mut r)).collect())
            .collect();
        streams(&format!("s-l2-{n}"), &frames);
        let frames: Vec<Vec<L1>> = (0..6)
            .map(|f| (0..(n * (f + 1)) % 21 + 1).map(|_| l1(&mut r)).collect())
            .collect();
        streams(&format!("s-l1-{n}"), &frames);
        let frames: Vec<Vec<L3>> = (0..4)
            .map(|_| (0..n.min(5)).map(|_| l3(&mut r)).collect())
            .collect();
        streams(&format!("s-l3-{n}"), &frames);
        // The same frame again and again: shapes and strings known from the first.
        let same: Vec<L2> = (0..n).map(|_| l2(&mut r)).collect();
        streams(&format!("s-same-{n}"), &[same.clone(), same.clone(), same]);
    }
}

/// Rows whose only column is a list of structs, lists long enough (64 items on average) to
/// stay residual: the batch stays rows whatever its size, each list its own container.
#[test]
fn long_inner_lists_stay_rows() {
    let mut r = Rng(77);
    for n in [1, 2, 5, 16, 20] {
        for inner in [63, 64, 65, 100] {
            let v: Vec<L1> = (0..n)
                .map(|i| L1 {
                    id: i as u32,
                    kids: (0..inner + i % 3).map(|_| leaf(&mut r)).collect(),
                })
                .collect();
            both(&format!("long-{n}-{inner}"), &v);
            #[derive(Serialize, Deserialize, Debug, PartialEq)]
            struct OnlyKids {
                kids: Vec<Leaf>,
            }
            let v: Vec<OnlyKids> = v.into_iter().map(|l| OnlyKids { kids: l.kids }).collect();
            both(&format!("onlykids-{n}-{inner}"), &v);
        }
    }
}

/// The shape caps: no column shape may be declared, so every batch stays rows.
#[test]
fn shape_caps_force_rows() {
    let mut r = Rng(4242);
    for cap in [0, 1, 2, 3, 5, 8] {
        for n in [2, 5, 16, 20] {
            let v: Vec<L2> = (0..n).map(|_| l2(&mut r)).collect();
            for (t, o) in TIERS {
                one(&format!("cap-{cap}-{n}-{t}"), &v, o().max_shapes(cap));
                let frames = [v.clone(), v[..n / 2].to_vec(), v.clone()];
                stream(
                    &format!("s-cap-{cap}-{n}-{t}"),
                    &frames,
                    o().max_shapes(cap),
                );
            }
        }
    }
}

// ---------------------------------------------------------------- wrappers and attributes

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct OptKids {
    id: u32,
    kids: Option<Vec<Leaf>>,
    each: Vec<Option<Leaf>>,
    deep: Option<Option<Vec<L1>>>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct NtVec(Vec<Leaf>);

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct NtLeaf(Leaf);

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct NtId(u32);

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct WithNt {
    id: NtId,
    nt: NtVec,
    list: Vec<NtLeaf>,
    nested: Vec<WithNtInner>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct WithNtInner {
    id: NtId,
    s: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Skippy {
    id: u32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    kids: Vec<Leaf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    o: Option<u8>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    more: Vec<Skippy2>,
    tail: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Skippy2 {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    s: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    kids: Vec<Leaf>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct FlatIn {
    x: u8,
    kids: Vec<Leaf>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Flat {
    id: u32,
    #[serde(flatten)]
    inner: FlatIn,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct HasFlat {
    id: u32,
    flats: Vec<Flat>,
    kids: Vec<Leaf>,
}

fn opt_kids(r: &mut Rng, i: usize) -> OptKids {
    let n = r.len();
    OptKids {
        id: i as u32,
        kids: (!i.is_multiple_of(3)).then(|| (0..n).map(|_| leaf(r)).collect()),
        each: (0..r.len().min(4))
            .map(|k| (k % 2 == 0).then(|| leaf(r)))
            .collect(),
        deep: match i % 4 {
            0 => None,
            1 => Some(None),
            _ => Some(Some((0..r.len().min(3)).map(|_| l1(r)).collect())),
        },
    }
}

fn with_nt(r: &mut Rng, i: usize) -> WithNt {
    WithNt {
        id: NtId(i as u32),
        nt: NtVec((0..r.len()).map(|_| leaf(r)).collect()),
        list: (0..r.len()).map(|_| NtLeaf(leaf(r))).collect(),
        nested: (0..r.len())
            .map(|k| WithNtInner {
                id: NtId(k as u32),
                s: r.word(),
            })
            .collect(),
    }
}

fn skippy(r: &mut Rng, i: usize) -> Skippy {
    Skippy {
        id: i as u32,
        kids: (0..[0, 0, 1, 3, 16][r.below(5)]).map(|_| leaf(r)).collect(),
        o: (r.below(2) == 0).then_some(r.below(256) as u8),
        more: (0..r.len().min(4))
            .map(|_| Skippy2 {
                s: if r.below(2) == 0 {
                    String::new()
                } else {
                    r.word()
                },
                kids: (0..r.len().min(3)).map(|_| leaf(r)).collect(),
            })
            .collect(),
        tail: r.word(),
    }
}

fn has_flat(r: &mut Rng, i: usize) -> HasFlat {
    HasFlat {
        id: i as u32,
        flats: (0..r.len().min(4))
            .map(|k| Flat {
                id: k as u32,
                inner: FlatIn {
                    x: k as u8,
                    kids: (0..r.len().min(3)).map(|_| leaf(r)).collect(),
                },
            })
            .collect(),
        kids: (0..r.len()).map(|_| leaf(r)).collect(),
    }
}

#[test]
fn wrappers_and_attributes() {
    let mut r = Rng(0xdead_beef);
    for seed in 0..4 {
        for n in SIZES {
            let v: Vec<OptKids> = (0..n).map(|i| opt_kids(&mut r, i)).collect();
            both(&format!("optkids-{seed}-{n}"), &v);
            let v: Vec<WithNt> = (0..n).map(|i| with_nt(&mut r, i)).collect();
            both(&format!("withnt-{seed}-{n}"), &v);
            let v: Vec<Skippy> = (0..n).map(|i| skippy(&mut r, i)).collect();
            both(&format!("skippy-{seed}-{n}"), &v);
            let v: Vec<HasFlat> = (0..n).map(|i| has_flat(&mut r, i)).collect();
            both(&format!("hasflat-{seed}-{n}"), &v);
        }
    }
    for n in [2, 5, 16] {
        let frames: Vec<Vec<Skippy>> = r.frames(5, n, skippy);
        streams(&format!("s-skippy-{n}"), &frames);
        let frames: Vec<Vec<OptKids>> = r.frames(5, n, opt_kids);
        streams(&format!("s-optkids-{n}"), &frames);
    }
}

// ---------------------------------------------------------------- enums and mixed lists

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(tag = "t")]
enum Itag {
    A { kids: Vec<Leaf> },
    B { v: u32 },
    C(Leaf),
    D { v: u32, kids: Vec<Leaf> },
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(tag = "t", content = "c")]
enum Adj {
    A { kids: Vec<Leaf> },
    B(u32),
    C(Vec<Leaf>),
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(untagged)]
enum Untag {
    L(Leaf),
    One(L1),
    N(u32),
    Ks(Vec<Leaf>),
    Rev(Rev),
}

/// [`Leaf`]'s fields in the other order (a plan conflict after a `Leaf`).
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Rev {
    s2: String,
    a2: u32,
    kids: Vec<Leaf>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Ext {
    A(Vec<Leaf>),
    B { kids: Vec<Leaf> },
    C,
    D(L1),
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct HasEnums {
    id: u32,
    i: Vec<Itag>,
    a: Vec<Adj>,
    u: Vec<Untag>,
    e: Vec<Ext>,
    one: Itag,
}

fn itag(r: &mut Rng) -> Itag {
    match r.below(4) {
        0 => Itag::A {
            kids: (0..r.len()).map(|_| leaf(r)).collect(),
        },
        1 => Itag::B {
            v: r.below(9) as u32,
        },
        2 => Itag::C(leaf(r)),
        _ => Itag::D {
            v: r.below(9) as u32,
            kids: (0..r.len().min(3)).map(|_| leaf(r)).collect(),
        },
    }
}

fn adj(r: &mut Rng) -> Adj {
    match r.below(3) {
        0 => Adj::A {
            kids: (0..r.len()).map(|_| leaf(r)).collect(),
        },
        1 => Adj::B(r.below(9) as u32),
        _ => Adj::C((0..r.len().min(3)).map(|_| leaf(r)).collect()),
    }
}

/// A mixed element; `kinds` limits which (the first `kinds` of five).
fn untag(r: &mut Rng, kinds: usize) -> Untag {
    match r.below(kinds) {
        0 => Untag::L(leaf(r)),
        1 => Untag::One(l1(r)),
        2 => Untag::N(r.below(100) as u32),
        3 => Untag::Ks((0..r.len().min(3)).map(|_| leaf(r)).collect()),
        _ => Untag::Rev(Rev {
            s2: r.word(),
            a2: r.below(5) as u32,
            kids: (0..r.len().min(3)).map(|_| leaf(r)).collect(),
        }),
    }
}

fn ext(r: &mut Rng) -> Ext {
    match r.below(4) {
        0 => Ext::A((0..r.len()).map(|_| leaf(r)).collect()),
        1 => Ext::B {
            kids: (0..r.len().min(3)).map(|_| leaf(r)).collect(),
        },
        2 => Ext::C,
        _ => Ext::D(l1(r)),
    }
}

fn has_enums(r: &mut Rng, i: usize) -> HasEnums {
    HasEnums {
        id: i as u32,
        i: (0..r.len()).map(|_| itag(r)).collect(),
        a: (0..r.len().min(5)).map(|_| adj(r)).collect(),
        u: (0..r.len()).map(|_| untag(r, 5)).collect(),
        e: (0..r.len().min(5)).map(|_| ext(r)).collect(),
        one: itag(r),
    }
}

/// A row holding a mixed list: the inner batch refused or conflicted at some element.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Mixed {
    id: u32,
    kids: Vec<Untag>,
}

/// `n` rows, each with a list of `r.len()` elements of up to `kinds` kinds.
fn mixed_rows(r: &mut Rng, n: usize, kinds: usize) -> Vec<Mixed> {
    (0..n)
        .map(|i| Mixed {
            id: i as u32,
            kids: (0..r.len()).map(|_| untag(r, kinds)).collect(),
        })
        .collect()
}

/// Three rows holding the same list.
fn same_kids(kids: &[Untag]) -> Vec<Mixed> {
    (0..3)
        .map(|i| Mixed {
            id: i,
            kids: kids.to_vec(),
        })
        .collect()
}

#[test]
fn enums_and_mixed_lists() {
    let mut r = Rng(0xfeed_f00d);
    for seed in 0..4 {
        for n in SIZES {
            let v: Vec<HasEnums> = (0..n).map(|i| has_enums(&mut r, i)).collect();
            both(&format!("enums-{seed}-{n}"), &v);
            let v: Vec<Itag> = (0..n).map(|_| itag(&mut r)).collect();
            both(&format!("itag-top-{seed}-{n}"), &v);
            for kinds in [1, 2, 3, 5] {
                let v = mixed_rows(&mut r, n, kinds);
                both(&format!("mixed-{kinds}-{seed}-{n}"), &v);
                let v: Vec<Untag> = (0..n).map(|_| untag(&mut r, kinds)).collect();
                both(&format!("untag-top-{kinds}-{seed}-{n}"), &v);
            }
        }
    }
    // A list of structs whose last (or k-th) element is no struct: the inner capture is
    // refused there, the rows before it replayed.
    for n in [1, 2, 5, 15, 16, 17] {
        for k in [0, 1, n / 2, n - 1] {
            let kids: Vec<Untag> = (0..n)
                .map(|i| {
                    if i == k {
                        Untag::N(i as u32)
                    } else {
                        Untag::L(leaf(&mut r))
                    }
                })
                .collect();
            both(&format!("refuse-at-{n}-{k}"), &same_kids(&kids));
            let conflict: Vec<Untag> = (0..n)
                .map(|i| {
                    if i == k {
                        Untag::Rev(Rev {
                            s2: "r".into(),
                            a2: 1,
                            kids: vec![leaf(&mut r)],
                        })
                    } else {
                        Untag::One(l1(&mut r))
                    }
                })
                .collect();
            both(&format!("conflict-at-{n}-{k}"), &same_kids(&conflict));
            both(&format!("conflict-top-{n}-{k}"), &conflict);
        }
    }
    for n in [2, 7, 16] {
        let frames: Vec<Vec<HasEnums>> = r.frames(5, n, has_enums);
        streams(&format!("s-enums-{n}"), &frames);
        let frames: Vec<Vec<Mixed>> = (0..5).map(|f| mixed_rows(&mut r, n, 1 + f % 5)).collect();
        streams(&format!("s-mixed-{n}"), &frames);
    }
}

// ---------------------------------------------------------------- other cell kinds

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct WithAny {
    id: u32,
    j: serde_json::Value,
    q: Value,
    kids: Vec<Leaf>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct TupS(u8, Leaf);

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Tups {
    id: u32,
    t: Vec<(u8, String)>,
    p: Vec<u32>,
    ts: Vec<TupS>,
    tl: Vec<(Leaf, u8)>,
    vv: Vec<Vec<Leaf>>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Maps {
    id: u32,
    m: BTreeMap<String, Vec<Leaf>>,
    lm: Vec<BTreeMap<String, Leaf>>,
    kids: Vec<L1>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Empty {}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Zeros {
    id: u32,
    e: Empty,
    es: Vec<Empty>,
    ee: Vec<Vec<Empty>>,
    ze: Vec<ZeroKids>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct ZeroKids {
    es: Vec<Empty>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Prims {
    c: char,
    i: i128,
    u: u128,
    #[serde(with = "serde_bytes")]
    b: Vec<u8>,
    f: f32,
    o: Option<Option<u8>>,
    os: Option<String>,
    oi: Option<i128>,
    big: u64,
    neg: i8,
    unit: (),
    e: Ext,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct HasPrims {
    id: u32,
    ps: Vec<Prims>,
}

fn prims(r: &mut Rng, i: usize) -> Prims {
    Prims {
        c: ['a', 'é', '😀', '\0'][r.below(4)],
        i: [0, -1, i128::MIN, i128::from(i64::MIN), 1 << 70][r.below(5)],
        u: [0, u128::MAX, u128::from(u64::MAX), 7][r.below(4)],
        b: vec![i as u8; r.below(4)],
        f: r.below(10) as f32 / 8.0,
        o: match r.below(3) {
            0 => None,
            1 => Some(None),
            _ => Some(Some(r.below(256) as u8)),
        },
        os: (r.below(2) == 0).then(|| r.word()),
        oi: match r.below(3) {
            0 => None,
            1 => Some(-5),
            _ => Some(i128::MAX),
        },
        big: [0, u64::MAX, 1 << 63][r.below(3)],
        neg: -(r.below(128) as i8),
        unit: (),
        e: ext(r),
    }
}

fn with_any(r: &mut Rng, i: usize) -> WithAny {
    let j = match i % 4 {
        0 => serde_json::json!([{"a": 1, "s": "x"}, {"a": 2, "s": "y"}]),
        1 => serde_json::json!([{"a": 1}, 3, null, [1, 2]]),
        2 => serde_json::json!({"k": [{"a": 1, "s": "x"}]}),
        _ => serde_json::json!("plain"),
    };
    let kids: Vec<Leaf> = (0..r.len()).map(|_| leaf(r)).collect();
    let q = match i % 3 {
        0 => qdf_core::to_value(&kids).unwrap(),
        1 => qdf_core::to_value(&l1(r)).unwrap(),
        _ => Value::Nil,
    };
    WithAny {
        id: i as u32,
        j,
        q,
        kids,
    }
}

fn tups(r: &mut Rng, i: usize) -> Tups {
    Tups {
        id: i as u32,
        t: (0..r.len()).map(|k| (k as u8, r.word())).collect(),
        p: (0..r.len()).map(|k| k as u32 * 3).collect(),
        ts: (0..r.len().min(4))
            .map(|k| TupS(k as u8, leaf(r)))
            .collect(),
        tl: (0..r.len().min(4)).map(|k| (leaf(r), k as u8)).collect(),
        vv: (0..r.len().min(3))
            .map(|_| (0..r.len().min(3)).map(|_| leaf(r)).collect())
            .collect(),
    }
}

fn maps(r: &mut Rng, i: usize) -> Maps {
    Maps {
        id: i as u32,
        m: (0..r.len().min(4))
            .map(|k| {
                (
                    format!("k{k}"),
                    (0..r.len().min(3)).map(|_| leaf(r)).collect(),
                )
            })
            .collect(),
        lm: (0..r.len().min(4))
            .map(|_| {
                (0..r.len().min(3))
                    .map(|k| (format!("m{k}"), leaf(r)))
                    .collect()
            })
            .collect(),
        kids: (0..r.len().min(4)).map(|_| l1(r)).collect(),
    }
}

fn zeros(r: &mut Rng, i: usize) -> Zeros {
    Zeros {
        id: i as u32,
        e: Empty {},
        es: vec![Empty {}; r.len()],
        ee: (0..r.len().min(3))
            .map(|_| vec![Empty {}; r.len()])
            .collect(),
        ze: (0..r.len().min(3))
            .map(|_| ZeroKids {
                es: vec![Empty {}; r.len()],
            })
            .collect(),
    }
}

#[test]
fn other_cell_kinds() {
    let mut r = Rng(0x5151_2121);
    for seed in 0..4 {
        for n in SIZES {
            let v: Vec<HasPrims> = (0..n)
                .map(|i| HasPrims {
                    id: i as u32,
                    ps: (0..r.len()).map(|k| prims(&mut r, k)).collect(),
                })
                .collect();
            both(&format!("prims-{seed}-{n}"), &v);
            let v: Vec<WithAny> = (0..n).map(|i| with_any(&mut r, i)).collect();
            both(&format!("any-{seed}-{n}"), &v);
            let v: Vec<Tups> = (0..n).map(|i| tups(&mut r, i)).collect();
            both(&format!("tups-{seed}-{n}"), &v);
            let v: Vec<Maps> = (0..n).map(|i| maps(&mut r, i)).collect();
            both(&format!("maps-{seed}-{n}"), &v);
            for (t, o) in TIERS {
                let dup = o().deny_duplicate_keys(true);
                one(&format!("maps-dup-{seed}-{n}-{t}"), &v, dup);
                let l2s: Vec<L2> = (0..n).map(|_| l2(&mut r)).collect();
                one(&format!("l2-dup-{seed}-{n}-{t}"), &l2s, dup);
            }
            let v: Vec<Zeros> = (0..n).map(|i| zeros(&mut r, i)).collect();
            both(&format!("zeros-{seed}-{n}"), &v);
            let v: Vec<Empty> = vec![Empty {}; n];
            both(&format!("empties-{seed}-{n}"), &v);
        }
    }
    for n in [2, 5, 16] {
        let frames: Vec<Vec<HasPrims>> = (0..4)
            .map(|_| {
                (0..n)
                    .map(|i| HasPrims {
                        id: i as u32,
                        ps: (0..r.len()).map(|k| prims(&mut r, k)).collect(),
                    })
                    .collect()
            })
            .collect();
        streams(&format!("s-prims-{n}"), &frames);
        let frames: Vec<Vec<Maps>> = r.frames(4, n, maps);
        streams(&format!("s-maps-{n}"), &frames);
        for (t, o) in TIERS {
            stream(
                &format!("s-maps-dup-{n}-{t}"),
                &frames,
                o().deny_duplicate_keys(true),
            );
        }
        let frames: Vec<Vec<Tups>> = r.frames(4, n, tups);
        streams(&format!("s-tups-{n}"), &frames);
        let frames: Vec<Vec<WithAny>> = r.frames(4, n, with_any);
        streams(&format!("s-any-{n}"), &frames);
    }
}

// ---------------------------------------------------------------- depth and output limits

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Tree {
    v: u32,
    kids: Vec<Tree>,
}

/// A tree `depth` levels deep, `width` children at each level (the first of which goes on).
fn tree(depth: usize, width: usize, v: u32) -> Tree {
    Tree {
        v,
        kids: if depth == 0 {
            Vec::new()
        } else {
            (0..width)
                .map(|k| tree(if k == 0 { depth - 1 } else { 0 }, width, v + k as u32))
                .collect()
        },
    }
}

#[test]
fn depth_near_the_limit() {
    let mut oks = 0;
    let mut errs = 0;
    for depth in [1, 2, 3, 5, 8] {
        for width in [1, 2, 3, 16] {
            let v = vec![tree(depth, width, 0), tree(depth / 2, width, 9)];
            for limit in 2..(2 * depth as u32 + 8) {
                for (t, o) in TIERS {
                    let opts = o().max_depth(limit);
                    match outcome(&format!("depth-{depth}-{width}-{limit}-{t}"), &v, opts) {
                        Ok(_) => oks += 1,
                        Err(e) => {
                            assert!(e.contains("nesting deeper"), "{e}");
                            errs += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(oks > 0 && errs > 0, "{oks} {errs}");
    // The same at the limit inside lists of structs of lists of structs (L2).
    let mut r = Rng(31);
    let v: Vec<L2> = (0..5).map(|_| l2(&mut r)).collect();
    for limit in 1..12 {
        for (t, o) in TIERS {
            let _ = outcome(&format!("depth-l2-{limit}-{t}"), &v, o().max_depth(limit));
        }
    }
}

/// The least `max_output` under which `v` encodes (and what it encodes to there), by
/// bisection; the errors below it are the output limit's.
fn least_output<T>(name: &str, v: &T, opts: Options) -> u64
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let (mut lo, mut hi) = (0u64, 1u64 << 24);
    assert!(
        qdf_core::to_vec_with(v, opts.max_output(hi)).is_ok(),
        "{name}"
    );
    while lo + 1 < hi {
        let mid = (lo + hi) / 2;
        match qdf_core::to_vec_with(v, opts.max_output(mid)) {
            Ok(_) => hi = mid,
            Err(e) => {
                assert!(
                    matches!(e.code(), ErrorCode::OutputLimit { .. }),
                    "{name}: {e}"
                );
                lo = mid;
            }
        }
    }
    one(&format!("{name}-at"), v, opts.max_output(hi));
    let below = outcome(&format!("{name}-below"), v, opts.max_output(hi - 1));
    assert!(below.is_err(), "{name}");
    hi
}

#[test]
fn output_limits() {
    let mut r = Rng(0xabcd);
    for n in [1, 3, 15, 16, 20] {
        for (t, o) in TIERS {
            let v: Vec<L2> = (0..n).map(|_| l2(&mut r)).collect();
            let l = least_output(&format!("out-l2-{n}-{t}"), &v, o());
            dump(&format!("out-l2-{n}-{t}-least"), &l.to_string());
            let v: Vec<HasEnums> = (0..n).map(|i| has_enums(&mut r, i)).collect();
            let l = least_output(&format!("out-enums-{n}-{t}"), &v, o());
            dump(&format!("out-enums-{n}-{t}-least"), &l.to_string());
            let v = mixed_rows(&mut r, n, 5);
            let l = least_output(&format!("out-mixed-{n}-{t}"), &v, o());
            dump(&format!("out-mixed-{n}-{t}-least"), &l.to_string());
        }
    }
}

// ---------------------------------------------------------------- hand-written Serialize

/// A list of leaves announcing `announce` elements (none, or a wrong count).
#[derive(Debug, Clone)]
struct Liar {
    kids: Vec<Leaf>,
    announce: Option<usize>,
}

impl Serialize for Liar {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut q = s.serialize_seq(self.announce)?;
        for k in &self.kids {
            q.serialize_element(k)?;
        }
        q.end()
    }
}

/// A struct announcing `fields` fields whatever it writes.
#[derive(Debug, Clone)]
struct LiarRow {
    id: u32,
    fields: usize,
    l: Liar,
}

impl Serialize for LiarRow {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("LiarRow", self.fields)?;
        st.serialize_field("id", &self.id)?;
        st.serialize_field("l", &self.l)?;
        st.end()
    }
}

#[derive(Deserialize, Debug, PartialEq)]
struct LiarRowM {
    id: u32,
    l: Vec<Leaf>,
}

#[derive(Serialize, Debug, Clone)]
struct HasLiars {
    id: u32,
    rows: Vec<LiarRow>,
}

#[derive(Deserialize, Debug, PartialEq)]
struct HasLiarsM {
    id: u32,
    rows: Vec<LiarRowM>,
}

#[test]
fn wrong_announced_lengths() {
    let mut r = Rng(99);
    let mut ok = 0;
    for n in [1, 2, 5, 16, 17] {
        for kids in [0, 1, 3, 16] {
            for announce in [
                None,
                Some(0),
                Some(1),
                Some(kids),
                Some(kids + 1),
                Some(1000),
            ] {
                for fields in [0, 1, 2, 3, 70] {
                    let leaves: Vec<Leaf> = (0..kids).map(|_| leaf(&mut r)).collect();
                    let rows: Vec<LiarRow> = (0..n)
                        .map(|i| LiarRow {
                            id: i as u32,
                            fields,
                            l: Liar {
                                kids: leaves.clone(),
                                announce,
                            },
                        })
                        .collect();
                    let v = vec![
                        HasLiars {
                            id: 0,
                            rows: rows.clone(),
                        };
                        3
                    ];
                    let want: Vec<HasLiarsM> = (0..3)
                        .map(|_| HasLiarsM {
                            id: 0,
                            rows: (0..n)
                                .map(|i| LiarRowM {
                                    id: i as u32,
                                    l: leaves.clone(),
                                })
                                .collect(),
                        })
                        .collect();
                    let a = announce.map_or("none".to_string(), |a| a.to_string());
                    for (t, o) in TIERS {
                        let name = format!("liar-{n}-{kids}-{a}-{fields}-{t}");
                        // Encodes (the true counts written) and decodes as announced-right.
                        outcome_as(&name, &v, &want, o()).unwrap_or_else(|e| panic!("{name}: {e}"));
                        ok += 1;
                    }
                }
            }
        }
    }
    assert!(ok > 0);
}

thread_local! {
    /// Calls of [`Flaky::serialize`] so far, and the one that fails (1-based; 0: none).
    static CALLS: StdCell<usize> = const { StdCell::new(0) };
    static FAIL_AT: StdCell<usize> = const { StdCell::new(0) };
    /// Every call from `FAIL_AT` on fails, not only that one.
    static FAIL_ON: StdCell<bool> = const { StdCell::new(false) };
}

/// A number whose `serialize` fails on its `FAIL_AT`-th call (and on every later one under
/// `FAIL_ON`).
#[derive(Debug, Clone)]
struct Flaky(u32);

impl Serialize for Flaky {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let k = CALLS.with(|c| {
            c.set(c.get() + 1);
            c.get()
        });
        let at = FAIL_AT.with(StdCell::get);
        if at != 0 && (k == at || (k > at && FAIL_ON.with(StdCell::get))) {
            return Err(serde::ser::Error::custom(format!("flaky call {k}")));
        }
        s.serialize_u32(self.0)
    }
}

#[derive(Serialize, Debug, Clone)]
struct FlLeaf {
    a: u32,
    f: Flaky,
}

#[derive(Serialize, Debug, Clone)]
struct FlRow {
    id: u32,
    kids: Vec<FlLeaf>,
    deeper: Vec<FlMid>,
}

#[derive(Serialize, Debug, Clone)]
struct FlMid {
    kids: Vec<FlLeaf>,
}

/// [`FlRow`] whose `Serialize` goes on after a field failed (the error ignored).
#[derive(Debug, Clone)]
struct Swallow(FlRow);

impl Serialize for Swallow {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("FlRow", 3)?;
        st.serialize_field("id", &self.0.id)?;
        let _ = st.serialize_field("kids", &self.0.kids);
        st.serialize_field("deeper", &self.0.deeper)?;
        st.end()
    }
}

#[derive(Deserialize, Debug, PartialEq)]
struct FlLeafM {
    a: u32,
    f: u32,
}

#[derive(Deserialize, Debug, PartialEq)]
struct FlMidM {
    kids: Vec<FlLeafM>,
}

#[derive(Deserialize, Debug, PartialEq)]
struct FlRowM {
    id: u32,
    kids: Vec<FlLeafM>,
    deeper: Vec<FlMidM>,
}

fn fl_leaves(n: usize, base: u32) -> Vec<FlLeaf> {
    (0..n)
        .map(|i| FlLeaf {
            a: i as u32,
            f: Flaky(base + i as u32),
        })
        .collect()
}

fn fl_mirror(rows: &[FlRow]) -> Vec<FlRowM> {
    let leaves = |v: &[FlLeaf]| {
        v.iter()
            .map(|l| FlLeafM { a: l.a, f: l.f.0 })
            .collect::<Vec<_>>()
    };
    rows.iter()
        .map(|r| FlRowM {
            id: r.id,
            kids: leaves(&r.kids),
            deeper: r
                .deeper
                .iter()
                .map(|m| FlMidM {
                    kids: leaves(&m.kids),
                })
                .collect(),
        })
        .collect()
}

#[test]
fn serialize_failing_on_call_k() {
    let (mut oks, mut errs) = (0, 0);
    for n in [1, 2, 3, 16] {
        for kids in [1, 2, 5, 16] {
            let rows: Vec<FlRow> = (0..n)
                .map(|i| FlRow {
                    id: i as u32,
                    kids: fl_leaves(kids, 100 * i as u32),
                    deeper: (0..2)
                        .map(|k| FlMid {
                            kids: fl_leaves(kids.min(3), 1000 + k),
                        })
                        .collect(),
                })
                .collect();
            let want = fl_mirror(&rows);
            let swallow: Vec<Swallow> = rows.iter().cloned().map(Swallow).collect();
            for (t, o) in TIERS {
                // Count the calls of a clean encoding, then fail each one in turn.
                CALLS.with(|c| c.set(0));
                FAIL_AT.with(|c| c.set(0));
                outcome_as(&format!("flaky-{n}-{kids}-clean-{t}"), &rows, &want, o()).unwrap();
                let calls = CALLS.with(StdCell::get);
                assert!(calls >= n * (kids + 2 * kids.min(3)));
                for (mode, on) in [("once", false), ("from", true)] {
                    FAIL_ON.with(|c| c.set(on));
                    for k in 1..=calls + 1 {
                        CALLS.with(|c| c.set(0));
                        FAIL_AT.with(|c| c.set(k));
                        let name = format!("flaky-{mode}-{n}-{kids}-{k}-{t}");
                        match outcome_as(&name, &rows, &want, o()) {
                            // A failure on one call only is retried (`to_vec_with`'s doc).
                            Ok(_) => oks += 1,
                            Err(e) => {
                                assert!(on && k <= calls, "{name}: {e}");
                                assert!(e.contains("flaky call"), "{name}: {e}");
                                errs += 1;
                            }
                        }
                        CALLS.with(|c| c.set(0));
                        let name = format!("swallow-{mode}-{n}-{kids}-{k}-{t}");
                        match outcome_as(&name, &swallow, &want, o()) {
                            Ok(_) => oks += 1,
                            Err(e) => {
                                assert!(on && k <= calls, "{name}: {e}");
                                errs += 1;
                            }
                        }
                    }
                }
                FAIL_ON.with(|c| c.set(false));
            }
        }
    }
    FAIL_AT.with(|c| c.set(0));
    assert!(oks > 0 && errs > 0, "{oks} {errs}");
}

/// Trees as deep as the default depth limit allows (a struct and its list: two levels per
/// tree level), on a test thread's stack, in batches that stay rows and ones that do not.
#[test]
fn deep_trees_at_the_default_limit() {
    for depth in [10, 30, 60, 62, 63, 64] {
        for width in [1, 2, 17] {
            let v = vec![tree(depth, width, 1), tree(depth, width, 2)];
            for (t, o) in TIERS {
                let name = format!("deep-{depth}-{width}-{t}");
                if let Err(e) = outcome(&name, &v, o()) {
                    assert!(e.contains("nesting deeper"), "{name}: {e}");
                }
            }
        }
    }
}
