//! Take and return qdf bodies in axum handlers: the [`Qdf<T>`] extractor and response,
//! [`QdfStream`] streamed responses and the [`QdfFrames`] reader; pre-shared dictionaries
//! ([`dictionary`]: a registry extension, [`AvailableDictionary`], [`QdfWithDictionary`]).
//!
//! This crate is the implementation behind the `qdf` crate's `qdf::axum` module (feature
//! `axum`); its guide (one message per body, streams of frames, clients, content
//! negotiation) is that module's page. Depend on `qdf` rather than on this crate.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod dictionary;
mod encode_stream;
mod frames;
pub mod media;
mod qdf;
mod rejection;

pub use dictionary::{
    AVAILABLE_DICTIONARY, AvailableDictionary, QDF_DICTIONARY, QdfWithDictionary,
    available_dictionary, qdf_dictionary,
};
pub use encode_stream::{QdfStream, TryItems};
pub use frames::QdfFrames;
pub use media::{APPLICATION_QDF, APPLICATION_QDF_STREAM, wants_qdf};
pub use qdf::Qdf;
pub use rejection::QdfRejection;
