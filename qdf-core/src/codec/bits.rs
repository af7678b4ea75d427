//! MSB-first bit streams for the XOR float codecs (Gorilla, Chimp128): the first bit written
//! is bit 7 of byte 0. A [`BitSink`] is either a writer or a counter, so a codec's exact cost
//! is its encoder run against [`BitCount`].

use super::bitpack::mask;

/// Somewhere to put bits, most significant first.
pub trait BitSink {
    /// Appends the low `k` bits of `v` (`k` ≤ 64), most significant first.
    fn put(&mut self, v: u64, k: u32);
}

/// Counts bits without writing them.
#[derive(Default, Debug)]
pub struct BitCount(pub u64);

impl BitSink for BitCount {
    #[inline]
    fn put(&mut self, _v: u64, k: u32) {
        self.0 += k as u64;
    }
}

/// Writes bits into a byte vector; [`BitWriter::finish`] flushes the last partial byte
/// (zero-padded) and returns the bit count.
#[derive(Debug)]
pub struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    pending: u32,
    total: u64,
}

impl<'a> BitWriter<'a> {
    /// A writer appending to `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        BitWriter {
            out,
            acc: 0,
            pending: 0,
            total: 0,
        }
    }

    #[inline]
    fn put32(&mut self, v: u64, k: u32) {
        // `pending` < 8 between calls, so `acc` never holds more than 39 bits.
        self.acc = (self.acc << k) | (v & mask(k));
        self.pending += k;
        while self.pending >= 8 {
            self.pending -= 8;
            self.out.push((self.acc >> self.pending) as u8);
        }
        self.acc &= mask(self.pending);
    }

    /// Flushes the partial byte and returns the number of bits written.
    pub fn finish(self) -> u64 {
        if self.pending > 0 {
            self.out.push((self.acc << (8 - self.pending)) as u8);
        }
        self.total
    }
}

impl BitSink for BitWriter<'_> {
    #[inline]
    fn put(&mut self, v: u64, k: u32) {
        self.total += k as u64;
        if k > 32 {
            self.put32(v >> 32, k - 32);
            self.put32(v, 32);
        } else {
            self.put32(v, k);
        }
    }
}

/// Reads MSB-first bits from the first `end` bits of a byte slice.
#[derive(Debug)]
pub struct BitReader<'a> {
    buf: &'a [u8],
    pos: u64,
    end: u64,
}

impl<'a> BitReader<'a> {
    /// A reader over the first `end` bits of `buf` (`end` ≤ 8 × `buf.len()`).
    pub fn new(buf: &'a [u8], end: u64) -> Self {
        debug_assert!(end <= buf.len() as u64 * 8);
        BitReader { buf, pos: 0, end }
    }

    /// The bit count the reader stops at.
    pub fn end(&self) -> u64 {
        self.end
    }

    /// Bits read so far.
    pub fn pos(&self) -> u64 {
        self.pos
    }

    #[inline]
    fn get32(&mut self, k: u32) -> Option<u64> {
        if self.end - self.pos < k as u64 {
            return None;
        }
        if k == 0 {
            return Some(0);
        }
        let byte = (self.pos / 8) as usize;
        let word = match self.buf.get(byte..byte + 8) {
            Some(s) => u64::from_be_bytes(s.try_into().unwrap()),
            None => {
                let mut w = [0u8; 8];
                let tail = &self.buf[byte..];
                w[..tail.len()].copy_from_slice(tail);
                u64::from_be_bytes(w)
            }
        };
        let v = (word << (self.pos % 8)) >> (64 - k);
        self.pos += k as u64;
        Some(v)
    }

    /// Reads `k` ≤ 64 bits, or `None` past the end.
    #[inline]
    pub fn get(&mut self, k: u32) -> Option<u64> {
        if k > 32 {
            let hi = self.get32(k - 32)?;
            Some((hi << 32) | self.get32(32)?)
        } else {
            self.get32(k)
        }
    }

    /// Reads one bit.
    #[inline]
    pub fn bit(&mut self) -> Option<bool> {
        self.get32(1).map(|b| b == 1)
    }
}

/// True if the bits of `buf` after the first `used` (the low bits of the last byte of an
/// MSB-first stream) are zero.
pub fn padding_is_zero(buf: &[u8], used: u64) -> bool {
    let tail = (used % 8) as u32;
    match buf.last() {
        Some(&last) if tail != 0 => last & (0xFF >> tail) == 0,
        _ => true,
    }
}

#[cfg(test)]
mod tests;
