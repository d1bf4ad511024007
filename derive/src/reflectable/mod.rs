//! `#[derive(Reflectable)]`: parse the attributes into a model (`model.rs`), check it, reporting
//! every error at once (`check.rs`), then generate (`generate.rs`).

mod check;
mod generate;
mod infer;
mod model;

use crate::context::Ctxt;
use proc_macro2::TokenStream;
use syn::DeriveInput;

/// The expansion of `#[derive(Reflectable)]` on `input`; or every error found in it, with a
/// stand-in implementation so that the uses of the type (`to_vec(&light)`) add no errors of their
/// own: one mistake, one message.
pub fn expand(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let model = model::parse(&cx, input);
    check::check(&cx, input, &model);
    match cx.check() {
        Ok(()) => generate::generate(&model),
        Err(errors) => {
            let mut tokens = errors.into_compile_error();
            // Not for what the derive refuses in any case (borrowing or const-generic types):
            // the stand-in would be refused too.
            if input.generics.lifetimes().next().is_none() && input.generics.const_params().next().is_none() {
                tokens.extend(generate::stand_in(&model));
            }
            tokens
        }
    }
}
