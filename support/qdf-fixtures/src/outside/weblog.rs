//! A web access log of 10 000 lines, shaped like the `log` dataset of the Rust serialization
//! benchmark (Apache common log format split into fields: an IPv4 address as four bytes,
//! identity, user id, date, request line, status code, response size).

use serde::{Deserialize, Serialize};

use crate::{Dataset, Rng};

/// Access-log lines.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct WebLog {
    /// The lines, in time order.
    pub logs: Vec<Log>,
}

/// One access-log line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Log {
    /// Client IPv4 address.
    pub address: Address,
    /// RFC 1413 identity, almost always `-`.
    pub identity: String,
    /// Authenticated user id or `-`.
    pub userid: String,
    /// `10/Oct/2000:13:55:36 -0700` style timestamp.
    pub date: String,
    /// The request line: `GET /path HTTP/1.1`.
    pub request: String,
    /// HTTP status code.
    pub code: u16,
    /// Response size in bytes.
    pub size: u64,
}

/// An IPv4 address.
#[derive(
    Clone, Copy, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode,
)]
pub struct Address {
    /// First octet.
    pub x0: u8,
    /// Second octet.
    pub x1: u8,
    /// Third octet.
    pub x2: u8,
    /// Fourth octet.
    pub x3: u8,
}

const USERS: [&str; 8] = ["-", "-", "-", "-", "frank", "alice", "bob", "mallory"];
const METHODS: [&str; 5] = ["GET", "GET", "GET", "POST", "PUT"];
const PATHS: [&str; 12] = [
    "/",
    "/index.html",
    "/apache_pb.gif",
    "/favicon.ico",
    "/static/app.js",
    "/static/style.css",
    "/api/v1/users",
    "/api/v1/orders",
    "/login",
    "/logout",
    "/search",
    "/images/logo.png",
];
const CODES: [u16; 8] = [200, 200, 200, 200, 304, 404, 500, 302];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// `n` lines from a few hundred client addresses, about one a second, mostly anonymous GETs.
pub fn web_log(n: usize) -> WebLog {
    let mut r = Rng::pcg(0x7765_626c, 0x0001);
    let mut t = 0u64;
    let logs = (0..n)
        .map(|_| {
            t += r.int_n(3);
            let (day, sec) = (t / 86_400, t % 86_400);
            let date = format!(
                "{:02}/{}/2000:{:02}:{:02}:{:02} -0700",
                1 + day % 28,
                MONTHS[(9 + day / 28) as usize % 12],
                sec / 3600,
                sec / 60 % 60,
                sec % 60
            );
            let path = r.pick(&PATHS);
            let request = if r.int_n(4) == 0 {
                format!(
                    "{} {path}?id={} HTTP/1.1",
                    r.pick(&METHODS),
                    r.int_n(100_000)
                )
            } else {
                format!("{} {path} HTTP/1.1", r.pick(&METHODS))
            };
            Log {
                address: Address {
                    x0: 10 + r.int_n(3) as u8,
                    x1: r.int_n(4) as u8,
                    x2: r.int_n(16) as u8,
                    x3: r.int_n(256) as u8,
                },
                identity: "-".to_owned(),
                userid: r.pick(&USERS).to_owned(),
                date,
                request,
                code: CODES[r.index(CODES.len())],
                size: r.int_n(50_000),
            }
        })
        .collect();
    WebLog { logs }
}

/// The protobuf twin of [`WebLog`].
pub mod pb {
    /// `message WebLog`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct WebLog {
        /// `repeated Log logs = 1`.
        #[prost(message, repeated, tag = "1")]
        pub logs: Vec<Log>,
    }

    /// `message Log` (the address as a `fixed32`, octets big-endian).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Log {
        /// `fixed32 address = 1`.
        #[prost(fixed32, tag = "1")]
        pub address: u32,
        /// `string identity = 2`.
        #[prost(string, tag = "2")]
        pub identity: String,
        /// `string userid = 3`.
        #[prost(string, tag = "3")]
        pub userid: String,
        /// `string date = 4`.
        #[prost(string, tag = "4")]
        pub date: String,
        /// `string request = 5`.
        #[prost(string, tag = "5")]
        pub request: String,
        /// `uint32 code = 6`.
        #[prost(uint32, tag = "6")]
        pub code: u32,
        /// `uint64 size = 7`.
        #[prost(uint64, tag = "7")]
        pub size: u64,
    }
}

impl Dataset for WebLog {
    type Proto = pb::WebLog;

    fn to_proto(&self) -> pb::WebLog {
        let logs = self.logs.iter().map(|l| pb::Log {
            address: u32::from_be_bytes([l.address.x0, l.address.x1, l.address.x2, l.address.x3]),
            identity: l.identity.clone(),
            userid: l.userid.clone(),
            date: l.date.clone(),
            request: l.request.clone(),
            code: u32::from(l.code),
            size: l.size,
        });
        pb::WebLog {
            logs: logs.collect(),
        }
    }

    fn from_proto(p: pb::WebLog) -> Self {
        let logs = p.logs.into_iter().map(|l| {
            let [x0, x1, x2, x3] = l.address.to_be_bytes();
            Log {
                address: Address { x0, x1, x2, x3 },
                identity: l.identity,
                userid: l.userid,
                date: l.date,
                request: l.request,
                code: l.code as u16,
                size: l.size,
            }
        });
        WebLog {
            logs: logs.collect(),
        }
    }
}
