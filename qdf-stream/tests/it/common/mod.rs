//! Shared by the qdf-stream integration tests: message types, a loopback TCP pair, what a
//! codec wrote to it, a chunked in-memory reader that counts its polls.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use futures::SinkExt;
use qdf_stream::QdfCodec;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncReadExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::FramedWrite;

/// One sensor reading.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Reading {
    pub sensor: String,
    pub at_ms: u64,
    pub celsius: f64,
}

/// Mixed message types on one connection.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub enum Msg {
    Reading(Reading),
    Log { level: String, line: String },
    Ping(u64),
    Batch(Vec<Reading>),
    Blob(#[serde(with = "serde_bytes")] Vec<u8>),
}

pub fn reading(i: u64) -> Reading {
    Reading {
        sensor: format!("sensor-{}", i % 7),
        at_ms: 1_700_000_000_000 + i * 250,
        celsius: (i as f64) * 0.25 - 10.0,
    }
}

/// A deterministic mix of every variant.
pub fn mixed(n: u64) -> Vec<Msg> {
    (0..n)
        .map(|i| match i % 5 {
            0 => Msg::Reading(reading(i)),
            1 => Msg::Log {
                level: ["INFO", "WARN", "ERROR"][i as usize % 3].into(),
                line: format!("request {i} served by worker-{}", i % 4),
            },
            2 => Msg::Ping(i * 1_000_003),
            3 => Msg::Batch((i..i + 4).map(reading).collect()),
            _ => Msg::Blob((0..(i % 40) as u8).collect()),
        })
        .collect()
}

/// A connected loopback pair (client, server).
pub async fn tcp_pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (client, server) = tokio::join!(TcpStream::connect(addr), listener.accept());
    (client.unwrap(), server.unwrap().0)
}

/// An `AsyncRead` that hands out `chunks` one per read (split further if the caller's
/// buffer is smaller), then EOF; counts every `poll_read`.
pub struct Chunked {
    chunks: VecDeque<Vec<u8>>,
    pub polls: Arc<AtomicUsize>,
}

impl Chunked {
    pub fn new(chunks: impl IntoIterator<Item = Vec<u8>>) -> Self {
        Chunked {
            chunks: chunks.into_iter().filter(|c| !c.is_empty()).collect(),
            polls: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// `data` cut at `at`.
    pub fn split(data: &[u8], at: usize) -> Self {
        Self::new([data[..at].to_vec(), data[at..].to_vec()])
    }

    /// `data` one byte per read.
    pub fn bytewise(data: &[u8]) -> Self {
        Self::new(data.iter().map(|&b| vec![b]))
    }
}

impl AsyncRead for Chunked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.polls.fetch_add(1, Ordering::Relaxed);
        if let Some(chunk) = self.chunks.front_mut() {
            let n = chunk.len().min(buf.remaining());
            buf.put_slice(&chunk[..n]);
            chunk.drain(..n);
            if chunk.is_empty() {
                self.chunks.pop_front();
            }
        }
        Poll::Ready(Ok(()))
    }
}

/// Bytes a `QdfCodec` wrote to a real TCP socket for `msgs`, as the peer received them, and
/// the offset where each frame ends.
pub async fn capture(codec: QdfCodec<Msg>, msgs: &[Msg]) -> (Vec<u8>, Vec<usize>) {
    let (c, mut s) = tcp_pair().await;
    let mut tx = FramedWrite::new(c, codec);
    let mut ends = Vec::new();
    let mut written = 0;
    for m in msgs {
        tx.feed(m).await.unwrap();
        written += tx.write_buffer().len();
        tx.flush().await.unwrap();
        ends.push(written);
    }
    drop(tx);
    let mut wire = Vec::new();
    s.read_to_end(&mut wire).await.unwrap();
    assert_eq!(wire.len(), written);
    (wire, ends)
}
