//! Wide 1000: 1000 copies of one 20-field struct with `a = i` (Go `MakeWide`): the columnar
//! best case, constant columns of every scalar kind.

use serde::{Deserialize, Serialize};

use crate::Dataset;

/// The batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Wide {
    /// The rows.
    pub items: Vec<Flat>,
}

/// A flat row of 20 scalar fields `a` … `t`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
#[allow(missing_docs)] // the fields are the Go fixture's `a` … `t`, values in `wide`.
pub struct Flat {
    pub a: i64,
    pub b: i64,
    pub c: u32,
    pub d: f64,
    pub e: f32,
    pub f: bool,
    pub g: String,
    pub h: String,
    pub i: String,
    pub j: i64,
    pub k: i64,
    pub l: i64,
    pub m: String,
    pub n: String,
    pub o: bool,
    pub p: bool,
    pub q: f64,
    pub r: f64,
    pub s: i64,
    pub t: i64,
}

/// `n` rows: `a = i`, every other field the Go constant.
#[allow(clippy::approx_constant)] // 3.14159 and 2.71828 are the Go fixture's literals
pub fn wide(n: usize) -> Wide {
    let row = |a: i64| Flat {
        a,
        b: 1_234_567_890,
        c: 65_535,
        d: 3.14159,
        e: 2.71828,
        f: true,
        g: "hello".to_owned(),
        h: "world".to_owned(),
        i: "qdf-test".to_owned(),
        j: 100,
        k: 200,
        l: 300,
        m: "alpha".to_owned(),
        n: "beta".to_owned(),
        o: false,
        p: true,
        q: 1e10,
        r: 1e-10,
        s: -42,
        t: 0,
    };
    Wide {
        items: (0..n as i64).map(row).collect(),
    }
}

/// The protobuf twin of [`Wide`].
pub mod pb {
    /// `message Wide`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Wide {
        /// `repeated Flat items = 1`.
        #[prost(message, repeated, tag = "1")]
        pub items: Vec<Flat>,
    }

    /// `message Flat`: `int64`/`uint32`/`double`/`float`/`bool`/`string` as in the Rust type;
    /// `s` is `sint64` because it holds a negative number.
    #[derive(Clone, PartialEq, prost::Message)]
    #[allow(missing_docs)]
    pub struct Flat {
        #[prost(int64, tag = "1")]
        pub a: i64,
        #[prost(int64, tag = "2")]
        pub b: i64,
        #[prost(uint32, tag = "3")]
        pub c: u32,
        #[prost(double, tag = "4")]
        pub d: f64,
        #[prost(float, tag = "5")]
        pub e: f32,
        #[prost(bool, tag = "6")]
        pub f: bool,
        #[prost(string, tag = "7")]
        pub g: String,
        #[prost(string, tag = "8")]
        pub h: String,
        #[prost(string, tag = "9")]
        pub i: String,
        #[prost(int64, tag = "10")]
        pub j: i64,
        #[prost(int64, tag = "11")]
        pub k: i64,
        #[prost(int64, tag = "12")]
        pub l: i64,
        #[prost(string, tag = "13")]
        pub m: String,
        #[prost(string, tag = "14")]
        pub n: String,
        #[prost(bool, tag = "15")]
        pub o: bool,
        #[prost(bool, tag = "16")]
        pub p: bool,
        #[prost(double, tag = "17")]
        pub q: f64,
        #[prost(double, tag = "18")]
        pub r: f64,
        #[prost(sint64, tag = "19")]
        pub s: i64,
        #[prost(int64, tag = "20")]
        pub t: i64,
    }
}

impl Dataset for Wide {
    type Proto = pb::Wide;

    fn to_proto(&self) -> pb::Wide {
        let items = self.items.iter().map(|x| pb::Flat {
            a: x.a,
            b: x.b,
            c: x.c,
            d: x.d,
            e: x.e,
            f: x.f,
            g: x.g.clone(),
            h: x.h.clone(),
            i: x.i.clone(),
            j: x.j,
            k: x.k,
            l: x.l,
            m: x.m.clone(),
            n: x.n.clone(),
            o: x.o,
            p: x.p,
            q: x.q,
            r: x.r,
            s: x.s,
            t: x.t,
        });
        pb::Wide {
            items: items.collect(),
        }
    }

    fn from_proto(p: pb::Wide) -> Self {
        let items = p.items.into_iter().map(|x| Flat {
            a: x.a,
            b: x.b,
            c: x.c,
            d: x.d,
            e: x.e,
            f: x.f,
            g: x.g,
            h: x.h,
            i: x.i,
            j: x.j,
            k: x.k,
            l: x.l,
            m: x.m,
            n: x.n,
            o: x.o,
            p: x.p,
            q: x.q,
            r: x.r,
            s: x.s,
            t: x.t,
        });
        Wide {
            items: items.collect(),
        }
    }
}
