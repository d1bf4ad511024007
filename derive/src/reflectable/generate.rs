//! Code generation for a checked model. Generated code names only `#krate::__private` items (and
//! `::core`), and each field's step is spanned on the field's type, so a field type that is not of
//! the field's kind is reported at the field.

use super::infer::{array_elem, layout};
use super::model::{Codec, Field, Input, Kind};
use crate::attr::{crate_or_default, literal_int, path_at};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Ident, LitStr, Path};

/// `impl Reflectable`, the registration and the trait casts of a checked `input`.
pub fn generate(input: &Input) -> TokenStream {
    let krate = crate_or_default(input.attrs.krate.clone());
    let ident = input.ident;
    let id = input.attrs.id.as_ref().expect("checked: the type has an ID");
    let name = input.attrs.name.clone().unwrap_or_else(|| LitStr::new(&ident.to_string(), ident.span()));
    let id_check = const_id_check(&krate, id);
    let steps = steps(&krate, input);
    let register = input.attrs.no_register.is_none().then(|| quote!(, register));
    let implements = implements(&krate, input);
    quote! {
        const _: () = {
            #id_check

            fn __reflectable_build(
            ) -> ::core::result::Result<#krate::__private::RttiType, #krate::__private::RttiError> {
                let builder = #krate::__private::RttiTypeBuilder::<#ident>::new(#id, #name);
                #(#steps)*
                builder.build()
            }

            #krate::__private::impl_reflectable!(#ident, __reflectable_build #register);
            #krate::__private::impl_boxed_embedded!(#ident);
        };
        #implements
    }
}

/// A compile-time check that a constant type ID is not 0 (a literal 0 is refused by `check.rs`).
/// Only for expressions made of literals and paths, which can be evaluated in a `const`.
fn const_id_check(krate: &Path, id: &Expr) -> Option<TokenStream> {
    (literal_int::<u64>(id).is_none() && is_const_like(id)).then(|| {
        let krate = path_at(krate, id.span());
        quote_spanned!(id.span()=> const _: () = #krate::__private::check_type_id(#id);)
    })
}

fn is_const_like(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Binary(binary) => is_const_like(&binary.left) && is_const_like(&binary.right),
        Expr::Unary(unary) => is_const_like(&unary.expr),
        Expr::Paren(paren) => is_const_like(&paren.expr),
        Expr::Group(group) => is_const_like(&group.expr),
        Expr::Cast(cast) => is_const_like(&cast.expr),
        _ => false,
    }
}

/// The builder steps after `new`: constructor, fields in order, hooks, `extend`.
fn steps(krate: &Path, input: &Input) -> Vec<TokenStream> {
    let ident = input.ident;
    let attrs = &input.attrs;
    let mut steps = Vec::new();
    if attrs.is_abstract.is_none() {
        let krate = path_at(krate, ident.span());
        steps.push(quote_spanned!(ident.span()=> let builder = #krate::__private::default_constructor(builder);));
    }
    steps.extend(input.fields.iter().filter_map(|field| field_step(krate, ident, field)));
    if let Some(hooks) = &attrs.hooks {
        let krate = path_at(krate, hooks.span());
        steps.push(quote_spanned!(hooks.span()=> let builder = #krate::__private::hooks(builder);));
    }
    if let Some(extend) = &attrs.extend {
        steps.push(quote!(let builder = builder.extend(#extend);));
    }
    steps
}

/// The step adding `field`, or `None` for a skipped field.
fn field_step(krate: &Path, owner: &Ident, field: &Field) -> Option<TokenStream> {
    let attrs = &field.attrs;
    if attrs.skip.is_some() {
        return None;
    }
    let ty = field.ty();
    let span = ty.span();
    let krate = path_at(krate, span);
    let member = &field.member;
    let get = quote!(|o: &#owner| &o.#member);
    let get_mut = quote!(|o: &mut #owner| &mut o.#member);
    if attrs.base.is_some() {
        return Some(quote_spanned! {span=>
            let builder = #krate::__private::base::<#owner, #ty>(builder, #get, #get_mut);
        });
    }
    let id = attrs.id.as_ref().expect("checked: a reflected field has an ID");
    let name = stored_name(field);
    if let Some(codec) = field.codec() {
        return Some(codec_step(&krate, owner, field, codec));
    }
    let layout = layout(field);
    let add = Ident::new(add_function(layout.kind, layout.array), span);
    // The filler is a local, so an element type of the wrong kind is reported at the field's type
    // rather than inside the `array_fill!` expansion.
    let (fill, fill_arg) = match layout.array {
        true => (quote_spanned!(span=> let fill = #krate::__private::array_fill!(#ty);), quote_spanned!(span=> , fill)),
        false => (TokenStream::new(), TokenStream::new()),
    };
    let flags = attrs.flags.as_ref().map(|flags| quote!(let builder = builder.flags(#flags);));
    Some(quote_spanned! {span=>
        #fill
        let builder = #krate::__private::#add::<#owner, #ty>(builder, #id, #name, #get, #get_mut #fill_arg);
        #flags
    })
}

/// The step adding a field stored through a codec (`with = Codec`, `serde`): a plain field, an
/// array field of coded elements when its type is an array container. `krate` is spanned at the
/// field's type already.
fn codec_step(krate: &TokenStream, owner: &Ident, field: &Field, (codec, key): &(Codec, Path)) -> TokenStream {
    let ty = field.ty();
    let span = ty.span();
    let member = &field.member;
    let (get, get_mut) = (quote!(|o: &#owner| &o.#member), quote!(|o: &mut #owner| &mut o.#member));
    let id = field.attrs.id.as_ref().expect("checked: a reflected field has an ID");
    let name = stored_name(field);
    let flags = field.attrs.flags.as_ref().map(|flags| quote!(let builder = builder.flags(#flags);));
    let (codec, feature_check) = match codec {
        Codec::With(codec) => (quote!(#codec), None),
        Codec::Serde => (
            quote_spanned!(key.span()=> #krate::__private::SerdeCodec),
            Some(quote_spanned!(key.span()=> const _: () = #krate::__private::require_serde_feature();)),
        ),
    };
    let add = match array_elem(ty) {
        Some(_) => quote_spanned! {span=>
            let fill = #krate::__private::array_fill!(#ty);
            let builder = #krate::__private::plain_with_array::<#owner, #ty, #codec>(builder, #id, #name, #get, #get_mut, fill);
        },
        None => quote_spanned! {span=>
            let builder = #krate::__private::plain_with::<#owner, #ty, #codec>(builder, #id, #name, #get, #get_mut);
        },
    };
    quote!(#feature_check #add #flags)
}

/// The `__private` function that adds a field of this kind and shape.
fn add_function(kind: Kind, array: bool) -> &'static str {
    match (kind, array) {
        (Kind::Plain, false) => "plain",
        (Kind::Plain, true) => "plain_array",
        (Kind::Embedded, false) => "embedded",
        (Kind::Embedded, true) => "embedded_array",
        (Kind::Pointer, false) => "pointer",
        (Kind::Pointer, true) => "pointer_array",
    }
}

/// `name = "..."`, or the field's identifier (its position in a tuple struct).
fn stored_name(field: &Field) -> LitStr {
    field.attrs.name.clone().unwrap_or_else(|| LitStr::new(&field.display(), Span::call_site()))
}

/// `implements(Trait, ...)`: the casts to each trait's handles.
fn implements(krate: &Path, input: &Input) -> Option<TokenStream> {
    let traits = &input.attrs.implements;
    let ident = input.ident;
    (!traits.is_empty()).then(|| quote!(#krate::__private::register_trait_impl!(#ident => #(#traits),*);))
}
