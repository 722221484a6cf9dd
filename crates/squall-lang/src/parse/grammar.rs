//! The pest grammar (`squall.pest`), compiled into a parser.
#![allow(missing_docs)]

#[derive(pest_derive::Parser)]
#[grammar = "squall.pest"]
pub struct Grammar;
