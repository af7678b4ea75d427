//! The QPack kind byte: `family << 2 | log2(width in bytes)` (wire notes §2).
//!
//! Families: unsigned 0, signed 1, float 2, special 3. The special kinds (Plane16 `0x0D`,
//! ALP-RD `0x0E`/`0x0F` under the ALP tag, Chimp128 `0x0F` under the XOR tag) are read by the codec that owns
//! them, never through [`Kind`].

/// The element kind of a QPack body, as written in its kind byte.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `u8`, kind 0x00.
    U8,
    /// `u16`, kind 0x01.
    U16,
    /// `u32`, kind 0x02.
    U32,
    /// `u64`, kind 0x03.
    U64,
    /// `i8`, kind 0x04.
    I8,
    /// `i16`, kind 0x05.
    I16,
    /// `i32`, kind 0x06.
    I32,
    /// `i64`, kind 0x07.
    I64,
    /// `f32`, kind 0x0A.
    F32,
    /// `f64`, kind 0x0B.
    F64,
}

impl Kind {
    /// The kind byte.
    pub const fn byte(self) -> u8 {
        match self {
            Kind::U8 => 0x00,
            Kind::U16 => 0x01,
            Kind::U32 => 0x02,
            Kind::U64 => 0x03,
            Kind::I8 => 0x04,
            Kind::I16 => 0x05,
            Kind::I32 => 0x06,
            Kind::I64 => 0x07,
            Kind::F32 => 0x0A,
            Kind::F64 => 0x0B,
        }
    }

    /// The kind for a kind byte, or `None` for special or undefined bytes.
    pub const fn from_byte(b: u8) -> Option<Kind> {
        Some(match b {
            0x00 => Kind::U8,
            0x01 => Kind::U16,
            0x02 => Kind::U32,
            0x03 => Kind::U64,
            0x04 => Kind::I8,
            0x05 => Kind::I16,
            0x06 => Kind::I32,
            0x07 => Kind::I64,
            0x0A => Kind::F32,
            0x0B => Kind::F64,
            _ => return None,
        })
    }

    /// Width of one element in bytes (1, 2, 4 or 8).
    pub const fn width(self) -> usize {
        1 << (self.byte() & 3)
    }

    /// True for the signed integer kinds.
    pub const fn is_signed(self) -> bool {
        self.byte() >> 2 == 1
    }

    /// True for `F32` and `F64`.
    pub const fn is_float(self) -> bool {
        self.byte() >> 2 == 2
    }

    /// The 64-bit kind of the same family: integer codecs other than raw write only
    /// `U64`/`I64` (narrower slices are widened, wire notes §2).
    pub const fn widened(self) -> Kind {
        match self {
            Kind::U8 | Kind::U16 | Kind::U32 | Kind::U64 => Kind::U64,
            Kind::I8 | Kind::I16 | Kind::I32 | Kind::I64 => Kind::I64,
            Kind::F32 => Kind::F32,
            Kind::F64 => Kind::F64,
        }
    }
}

#[cfg(test)]
mod tests;
