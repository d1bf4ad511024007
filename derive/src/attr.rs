//! Helpers both derives use to read their attributes: one-time keys, skipping the value of an
//! unknown key so the rest of the attribute is still read, `crate = path`, and integer literals.

use crate::context::Ctxt;
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::{Expr, ExprLit, Lit, LitStr, Path, Token};

/// The key of `meta` as written (`id`, `crate`, ...).
pub fn key_name(path: &Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}

/// Stores `value` in `slot`, or reports `key` as given twice.
pub fn set_once<T>(cx: &Ctxt, slot: &mut Option<T>, key: &Path, value: T) {
    if slot.is_some() {
        cx.error_spanned_by(key, format!("duplicate `{}`", key_name(key)));
    } else {
        *slot = Some(value);
    }
}

/// The value of `key = value`, or an error at the key saying it needs one.
pub fn value<'a>(meta: &'a ParseNestedMeta) -> syn::Result<ParseStream<'a>> {
    if !meta.input.peek(Token![=]) {
        let key = key_name(&meta.path);
        return Err(meta.error(format!("`{key}` needs a value: `{key} = ...`")));
    }
    meta.value()
}

/// Consumes the value of a key that was not understood (`= expr` or `(...)`), so parsing can go on
/// to the next key and report its errors too.
pub fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.input.parse::<proc_macro2::Group>()?;
    }
    Ok(())
}

/// The value of `crate = path` (or `crate = "path"`, as serde writes it).
pub fn parse_crate_path(meta: &ParseNestedMeta) -> syn::Result<Path> {
    let value = value(meta)?;
    if value.peek(LitStr) {
        value.parse::<LitStr>()?.parse()
    } else {
        Path::parse_mod_style(value)
    }
}

/// The path generated code reaches the library through: `crate = ...` or `::reflectable`.
pub fn crate_or_default(krate: Option<Path>) -> Path {
    krate.unwrap_or_else(|| syn::parse_quote!(::reflectable))
}

/// The value of an integer literal, seen through the parentheses and invisible groups a
/// `macro_rules!` may wrap it in; `None` for any other expression.
pub fn literal_int<N: std::str::FromStr>(expr: &Expr) -> Option<N>
where
    N::Err: std::fmt::Display,
{
    match expr {
        Expr::Lit(ExprLit { lit: Lit::Int(int), .. }) => int.base10_parse().ok(),
        Expr::Group(group) => literal_int(&group.expr),
        Expr::Paren(paren) => literal_int(&paren.expr),
        _ => None,
    }
}

/// Reports an unknown key of `#[attr(...)]`, listing the valid ones (and naming the level a key
/// belongs to when it is valid elsewhere), then skips its value.
pub fn unknown_key(cx: &Ctxt, meta: &ParseNestedMeta, attr: &str, here: &str, expected: &str) -> syn::Result<()> {
    let key = key_name(&meta.path);
    cx.error_spanned_by(&meta.path, format!("unknown `{attr}` {here} attribute `{key}`; expected {expected}"));
    skip_value(meta)
}

/// Reports a key that belongs on another level (`skip` on the type, `abstract` on a field), then
/// skips its value.
pub fn misplaced_key(cx: &Ctxt, meta: &ParseNestedMeta, here: &str, there: &str, expected: &str) -> syn::Result<()> {
    let key = key_name(&meta.path);
    cx.error_spanned_by(
        &meta.path,
        format!("`{key}` is a {there} attribute and has no meaning on a {here}; {here} attributes are {expected}"),
    );
    skip_value(meta)
}

/// Reports `key = ...` / `key(...)` for a key that takes no value, and skips the value.
pub fn expect_no_value(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren) {
        cx.error_spanned_by(&meta.path, format!("`{}` takes no value", key_name(&meta.path)));
        skip_value(meta)?;
    }
    Ok(())
}

/// Records a key that takes no value (the key itself, for its span).
pub fn set_flag(cx: &Ctxt, slot: &mut Option<Path>, meta: &ParseNestedMeta) -> syn::Result<()> {
    expect_no_value(cx, meta)?;
    set_once(cx, slot, &meta.path, meta.path.clone());
    Ok(())
}

/// `path` with every token spanned at `span`, so that an expression starting with it (a call
/// through `#krate::__private`) is spanned at `span` as a whole: an error about the call then
/// points at what the call is about, not at the derive.
pub fn path_at(path: &Path, span: Span) -> TokenStream {
    path.to_token_stream()
        .into_iter()
        .map(|mut token| {
            token.set_span(span);
            token
        })
        .collect()
}
