//! `#[derive(Reflectable)]`: parse the attributes into a model (`model.rs`), check it, reporting
//! every error at once (`check.rs`), then generate (`generate.rs`).

mod check;
mod generate;
mod infer;
mod model;

use crate::context::Ctxt;
use proc_macro2::TokenStream;
use syn::DeriveInput;

/// The expansion of `#[derive(Reflectable)]` on `input`, or every error found in it.
pub fn expand(input: &DeriveInput) -> syn::Result<TokenStream> {
    let cx = Ctxt::new();
    let model = model::parse(&cx, input);
    check::check(&cx, input, &model);
    cx.check()?;
    Ok(generate::generate(&model))
}
