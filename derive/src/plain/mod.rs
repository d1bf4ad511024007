//! `#[derive(PlainType)]`: parse and check the attributes (`model.rs`), reporting every error at
//! once, then generate (`generate.rs`).

mod generate;
mod model;

use crate::context::Ctxt;
use proc_macro2::TokenStream;
use syn::DeriveInput;

/// The expansion of `#[derive(PlainType)]` on `input`, or every error found in it.
pub fn expand(input: &DeriveInput) -> syn::Result<TokenStream> {
    let cx = Ctxt::new();
    let attrs = model::parse(&cx, input);
    model::check(&cx, input, &attrs);
    cx.check()?;
    Ok(generate::generate(input, &attrs))
}
