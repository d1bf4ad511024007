//! [`Ctxt`]: collects every error a derive finds, each with its span, so one compile reports them
//! all instead of stopping at the first.

use quote::ToTokens;
use std::cell::RefCell;
use std::fmt::Display;

/// Errors found while parsing and checking a derive's input.
///
/// Parsing and checking report through `&Ctxt` and go on; [`Ctxt::check`] then turns what was
/// collected into one combined `syn::Error` before any code is generated. Dropping a context
/// without checking it is a bug in the derive, and panics.
pub struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    /// An empty context.
    pub fn new() -> Self {
        Ctxt { errors: RefCell::new(Some(Vec::new())) }
    }

    /// Records `message` at the span of `tokens` (from its first to its last token).
    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error `syn` produced.
    pub fn syn_error(&self, error: syn::Error) {
        self.errors.borrow_mut().as_mut().expect("context used after check").push(error);
    }

    /// `Ok` when nothing was recorded, else every error combined into one.
    pub fn check(self) -> syn::Result<()> {
        let errors = self.errors.borrow_mut().take().expect("context checked twice");
        let mut errors = errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for error in errors {
            combined.combine(error);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("a derive forgot to check its context");
        }
    }
}
