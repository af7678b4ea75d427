//! QPack (`docs/SPEC.md` §19): packed sequences of one numeric or boolean kind. The codecs
//! live in [`crate::codec`]; this folder holds the feature's decode half.

pub(crate) mod decode;
