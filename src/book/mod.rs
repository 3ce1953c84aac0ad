//! Polyglot opening book: keys, reader, compiler (to be built by the book work).
pub mod cli;
