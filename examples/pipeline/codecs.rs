//! The peers' framings, as a service would write them with `tokio_util`: JSON lines and
//! varint-length-delimited protobuf (`writeDelimitedTo`), both bounded like `QdfCodec`.

use std::io;
use std::marker::PhantomData;

use bytes::{Buf, BufMut, BytesMut};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio_util::codec::{Decoder, Encoder};

/// The largest line or message accepted: 8 MiB, as `QdfCodec`'s default.
const MAX_LEN: usize = 8 << 20;

fn invalid(e: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e.to_string())
}

/// One JSON document per line (`serde_json`, newline-terminated).
pub struct JsonLines<T> {
    /// Bytes of the current line already searched for `\n`.
    scanned: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T> Default for JsonLines<T> {
    fn default() -> Self {
        JsonLines {
            scanned: 0,
            _t: PhantomData,
        }
    }
}

impl<T: Serialize> Encoder<&T> for JsonLines<T> {
    type Error = io::Error;

    fn encode(&mut self, item: &T, dst: &mut BytesMut) -> io::Result<()> {
        serde_json::to_writer(dst.writer(), item).map_err(invalid)?;
        dst.put_u8(b'\n');
        Ok(())
    }
}

impl<T: DeserializeOwned> Decoder for JsonLines<T> {
    type Item = T;
    type Error = io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> io::Result<Option<T>> {
        let Some(nl) = src[self.scanned..].iter().position(|&b| b == b'\n') else {
            self.scanned = src.len();
            if src.len() > MAX_LEN {
                return Err(invalid("JSON line longer than 8 MiB"));
            }
            return Ok(None);
        };
        let line = src.split_to(self.scanned + nl + 1);
        self.scanned = 0;
        serde_json::from_slice(&line[..line.len() - 1])
            .map(Some)
            .map_err(invalid)
    }
}

/// Protobuf messages, each prefixed with its length as a varint.
pub struct ProstDelimited<P>(PhantomData<fn() -> P>);

impl<P> Default for ProstDelimited<P> {
    fn default() -> Self {
        ProstDelimited(PhantomData)
    }
}

impl<P: prost::Message> Encoder<&P> for ProstDelimited<P> {
    type Error = io::Error;

    fn encode(&mut self, item: &P, dst: &mut BytesMut) -> io::Result<()> {
        item.encode_length_delimited(dst).map_err(invalid)
    }
}

impl<P: prost::Message + Default> Decoder for ProstDelimited<P> {
    type Item = P;
    type Error = io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> io::Result<Option<P>> {
        // A varint is complete once a byte below 0x80 shows up within its 10 bytes.
        let Some(end) = src.iter().take(10).position(|&b| b < 0x80) else {
            return if src.len() >= 10 {
                Err(invalid("varint too long"))
            } else {
                Ok(None)
            };
        };
        let len = prost::encoding::decode_varint(&mut &src[..=end]).map_err(invalid)? as usize;
        if len > MAX_LEN {
            return Err(invalid("protobuf message longer than 8 MiB"));
        }
        if src.len() < end + 1 + len {
            src.reserve(end + 1 + len - src.len());
            return Ok(None);
        }
        src.advance(end + 1);
        let msg = src.split_to(len);
        P::decode(&msg[..]).map(Some).map_err(invalid)
    }
}
