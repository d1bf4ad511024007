//! Code generation for a checked model. Generated code names only `#krate::__private` items (and
//! `::core`), and each field's step is spanned on the field's type, so a field type that is not of
//! the field's kind is reported at the field.

use super::infer::{array_elem, layout};
use super::model::{Codec, Field, Input, Kind, Variant};
use crate::attr::{crate_or_default, literal_int, path_at};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr, Fields, Ident, LitStr, Member, Path};

/// `impl Reflectable`, the registration and the trait casts of a checked `input`.
pub fn generate(input: &Input) -> TokenStream {
    let krate = crate_or_default(input.attrs.krate.clone());
    let ident = input.ident;
    let id = input.attrs.id.as_ref().expect("checked: the type has an ID");
    let name = input.attrs.name.clone().unwrap_or_else(|| LitStr::new(&ident.to_string(), ident.span()));
    let id_check = const_id_check(&krate, id);
    let generics = Generic::of(&krate, input);
    let owner = &generics.owner;
    let mut steps = steps(&krate, input, owner);
    let generated = generated_code(&krate, input, owner);
    if let Some(generated) = &generated {
        let arguments = &generics.arguments;
        let at = steps.len() - usize::from(input.attrs.hooks.is_some());
        let register = match generated.codec {
            Some(_) => quote!(let builder = #krate::__private::generated_code(
                builder,
                __reflectable_encode::<#(#arguments),*>,
                __reflectable_decode::<#(#arguments),*>,
                __reflectable_same::<#(#arguments),*>,
                __reflectable_pointers::<#(#arguments),*>,
            );),
            None => quote!(let builder = #krate::__private::generated_same(
                builder,
                __reflectable_same::<#(#arguments),*>,
                __reflectable_pointers::<#(#arguments),*>,
            );),
        };
        steps.insert(at, register);
    }
    let generated = generated.map(|Generated { codec, same, pointers }| {
        let (build_generics, where_clause) = (&generics.impl_generics, &generics.where_clause);
        let codec = codec.map(|(encode, decode)| {
            quote! {
                #[allow(clippy::needless_lifetimes)]
                fn __reflectable_encode #build_generics (
                    owner: &dyn ::core::any::Any,
                    w: &mut #krate::__private::FieldWriter<'_, '_, '_, '_>,
                ) -> ::core::result::Result<(), #krate::__private::FieldWriteError> #where_clause {
                    #encode
                }

                #[allow(clippy::needless_lifetimes)]
                fn __reflectable_decode #build_generics (
                    owner: &mut dyn ::core::any::Any,
                    r: &mut #krate::__private::FieldReader<'_, '_, '_, '_>,
                ) -> ::core::result::Result<(), #krate::__private::DecodeError> #where_clause {
                    #decode
                }
            }
        });
        quote! {
            #codec

            #[allow(clippy::needless_lifetimes)]
            fn __reflectable_same #build_generics (
                a: &dyn ::core::any::Any,
                b: &dyn ::core::any::Any,
                scope: #krate::__private::SameScope,
            ) -> ::core::option::Option<bool> #where_clause {
                #same
            }

            #[allow(clippy::needless_lifetimes)]
            fn __reflectable_pointers #build_generics (
                a: &dyn ::core::any::Any,
                b: &dyn ::core::any::Any,
                pairs: &mut #krate::__private::PointerPairs<'_>,
            ) -> ::core::option::Option<bool> #where_clause {
                #pointers
            }
        }
    });
    let implements = implements(&krate, input);
    let (build_generics, where_clause) = (&generics.impl_generics, &generics.where_clause);
    let (type_id, type_name, impls) = if generics.params.is_empty() {
        let register = input.attrs.no_register.is_none().then(|| quote!(, register));
        let impls = quote! {
            #krate::__private::impl_reflectable!(#ident, __reflectable_build #register);
            #krate::__private::impl_boxed_embedded!(#ident);
        };
        (quote!(#id), quote!(#name), impls)
    } else {
        // Each instantiation is a type of its own, registered with the types that hold it, or
        // with `register_type!`.
        let (params, bounds, arguments) = (&generics.params, &generics.bounds, &generics.arguments);
        let type_id = quote! {
            #krate::__private::instantiation_id::<#owner>(
                #id, &[#(<#arguments as #krate::__private::TypeArgument>::type_argument_id()),*])
        };
        let type_name = quote! {
            #krate::__private::instantiation_name(
                #name, &[#(<#arguments as #krate::__private::TypeArgument>::type_argument_name()),*])
        };
        let impls = quote! {
            #krate::__private::impl_reflectable!(
                generic [#params] #owner, [#bounds], __reflectable_build::<#(#arguments),*>);
            #krate::__private::impl_boxed_embedded!([#params] #owner, [#bounds]);
        };
        (type_id, type_name, impls)
    };
    quote! {
        const _: () = {
            #id_check

            #generated

            fn __reflectable_build #build_generics (
            ) -> ::core::result::Result<#krate::__private::RttiType, #krate::__private::RttiError> #where_clause {
                let builder = #krate::__private::RttiTypeBuilder::<#owner>::new(#type_id, #type_name);
                #(#steps)*
                builder.build()
            }

            #impls
        };
        #implements
    }
}

/// The type's generics as generated code needs them: every type parameter must also be a
/// `TypeArgument`, whose ID and name go into each instantiation's.
struct Generic {
    /// The type as generated code names it: `Handle<T>`.
    owner: TokenStream,
    /// `<T: Bound>` for `impl` and `fn`.
    impl_generics: TokenStream,
    /// `where ..., T: TypeArgument`.
    where_clause: TokenStream,
    /// The parameters with their bounds, without `<>`.
    params: TokenStream,
    /// The where-clause predicates, without `where`.
    bounds: TokenStream,
    /// The type parameters.
    arguments: Vec<Ident>,
}

impl Generic {
    fn of(krate: &Path, input: &Input) -> Self {
        let mut generics = input.generics.clone();
        let arguments: Vec<Ident> = generics.type_params().map(|param| param.ident.clone()).collect();
        // Inline, beside the user's own bounds: a where-clause predicate for a parameter that has
        // inline bounds would make clippy flag the user's type.
        for param in generics.type_params_mut() {
            param.bounds.push(syn::parse_quote!(#krate::__private::TypeArgument));
            // `impl<T = Texture>` is not allowed: defaults belong to the type only.
            param.eq_token = None;
            param.default = None;
        }
        let bounds = generics.where_clause.as_ref().map(|clause| clause.predicates.clone()).unwrap_or_default();
        let (impl_generics, type_generics, where_clause) = generics.split_for_impl();
        let ident = input.ident;
        let params = &generics.params;
        Generic {
            owner: quote!(#ident #type_generics),
            impl_generics: quote!(#impl_generics),
            where_clause: quote!(#where_clause),
            params: quote!(#params),
            bounds: quote!(#bounds),
            arguments,
        }
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

/// The builder steps after `new`: constructor, fields in order (for an enum: the variants, each
/// followed by its fields), hooks, `extend`.
fn steps(krate: &Path, input: &Input, owner: &TokenStream) -> Vec<TokenStream> {
    let ident = input.ident;
    let attrs = &input.attrs;
    let mut steps = Vec::new();
    if attrs.is_abstract.is_none() {
        let krate = path_at(krate, ident.span());
        let builder = local("builder");
        // The type argument names the type: a missing `Default` is reported at its name.
        steps.push(
            quote_spanned!(ident.span()=> let #builder = #krate::__private::default_constructor::<#owner>(#builder);),
        );
    }
    match &input.variants {
        None => steps.extend(input.fields.iter().filter_map(|field| field_step(krate, owner, ident, field, None))),
        Some(variants) => {
            steps.push(active_variant(owner, ident, variants));
            for variant in variants {
                steps.push(variant_step(krate, ident, variant));
                steps.extend(
                    variant.fields.iter().filter_map(|field| field_step(krate, owner, ident, field, Some(variant))),
                );
            }
        }
    }
    if input.variants.is_none() {
        if let Some(field) = input.fields.iter().find(|field| field.attrs.asset_key.is_some()) {
            if let Some(id) = field.attrs.id.as_ref() {
                // A key of another type is an error at the field, not when the registry starts.
                let ty = field.ty();
                let krate = path_at(krate, ty.span());
                steps.push(quote_spanned!(ty.span()=> #krate::__private::asset_key_type::<#ty>();));
                steps.push(quote!(let builder = builder.asset_key(#id);));
            }
        }
        if let Some(field) = input.fields.iter().find(|field| field.attrs.identity.is_some()) {
            if let Some(id) = field.attrs.id.as_ref() {
                let ty = field.ty();
                let krate = path_at(krate, ty.span());
                steps.push(quote_spanned!(ty.span()=> #krate::__private::identity_type::<#ty>();));
                steps.push(quote!(let builder = builder.identity(#id);));
            }
        }
    }
    if let Some(hooks) = &attrs.hooks {
        let krate = path_at(krate, hooks.span());
        let builder = local("builder");
        // `steps` holds the builder under the `hooks` key's span: a missing `RttiHooks` impl is
        // reported there.
        steps.push(
            quote_spanned!(hooks.span()=> let #builder = { let steps = #builder; #krate::__private::hooks(steps) };),
        );
    }
    if let Some(extend) = &attrs.extend {
        steps.push(quote!(let builder = builder.extend(#extend);));
    }
    steps
}

/// What the derive generates for a type besides its builder steps: its fields' encoder and
/// decoder bodies (a struct only), comparison body, and the body comparing where its pointer
/// fields lead.
struct Generated {
    codec: Option<(TokenStream, TokenStream)>,
    same: TokenStream,
    pointers: TokenStream,
}

/// The bodies of the generated encoder, decoder and comparison of a type's fields (see the
/// library's `serializer/encoder/generated.rs`, `serializer/decoder/generated.rs` and
/// `diff/generated.rs`): one call per field, in the order the builder steps add them, each to
/// the function named as the field's step. The decoder stops at the first field the stream does
/// not hold next, the comparison at the first that differs. An enum gets the comparison only.
/// `None` where the type is walked instead: a type that `extend`s its fields, a map field.
fn generated_code(krate: &Path, input: &Input, owner: &TokenStream) -> Option<Generated> {
    if input.attrs.extend.is_some() {
        return None;
    }
    if let Some(variants) = &input.variants {
        return generated_same_of_enum(krate, input.ident, owner, variants).map(|(same, pointers)| Generated {
            codec: None,
            same,
            pointers,
        });
    }
    let (mut writes, mut reads, mut sames, mut pairs) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (index, field) in generated_fields(&input.fields).enumerate() {
        let member = &field.member;
        let span = field.ty().span();
        let krate = path_at(krate, span);
        let FieldFunction { name: function, arguments, .. } = field_function(&krate, field)?;
        sames.push(same_call(&krate, field, function, &arguments, quote!(&a.#member), quote!(&b.#member)));
        pairs.extend(pairs_call(&krate, field, function, &arguments, index, quote!(&a.#member), quote!(&b.#member)));
        let encode = Ident::new(&format!("encode_{function}"), span);
        let decode = Ident::new(&format!("decode_{function}"), span);
        let (w, r, o) = (local("w"), local("r"), local("o"));
        writes.push(quote_spanned!(span=> #krate::__private::#encode::<#arguments>(#w, #index, &#o.#member)?;));
        reads.push(quote_spanned!(span=>
            if !#krate::__private::#decode::<#arguments>(#r, #index, &mut #o.#member)? {
                return ::core::result::Result::Ok(());
            }
        ));
    }
    // Kept unknown fields are compared by the walk (`rtti::visit`): with any kept, the
    // generated comparison cannot tell.
    let kept = input.fields.iter().find(|field| field.attrs.unknown.is_some()).map(|field| {
        let member = &field.member;
        quote! {
            if !a.#member.is_empty() || !b.#member.is_empty() {
                return ::core::option::Option::None;
            }
        }
    });
    let same = if sames.is_empty() && kept.is_none() {
        quote!(let _ = (a, b, scope); ::core::option::Option::Some(true))
    } else {
        quote! {
            let (a, b) = #krate::__private::generated_pair::<#owner>(a, b)?;
            #kept
            #(#sames)*
            ::core::option::Option::Some(true)
        }
    };
    let pointers = pointers_body(krate, owner, quote!(#(#pairs)*), pairs.is_empty());
    if writes.is_empty() {
        let nothing = quote!(let _ = (owner, w); ::core::result::Result::Ok(()));
        let codec = (nothing, quote!(let _ = (owner, r); ::core::result::Result::Ok(())));
        return Some(Generated { codec: Some(codec), same, pointers });
    }
    let encode = quote! {
        let o: &#owner = #krate::__private::generated_owner::<#owner>(owner)?;
        #(#writes)*
        ::core::result::Result::Ok(())
    };
    let decode = quote! {
        let o: &mut #owner = r.owner::<#owner>(owner)?;
        #(#reads)*
        ::core::result::Result::Ok(())
    };
    Some(Generated { codec: Some((encode, decode)), same, pointers })
}

/// The body of the generated pointer comparison: `calls` (one per pointer field) on the two
/// objects as the type, or nothing at all for a type without pointer fields.
fn pointers_body(krate: &Path, owner: &TokenStream, calls: TokenStream, none: bool) -> TokenStream {
    if none {
        return quote!(let _ = (a, b, pairs); ::core::option::Option::Some(true));
    }
    quote! {
        let (a, b) = #krate::__private::generated_pair::<#owner>(a, b)?;
        #calls
        ::core::option::Option::Some(true)
    }
}

/// One pointer field's step in the generated pointer comparison: stops at a field whose elements
/// do not all lead where they did. Nothing for other fields.
fn pairs_call(
    krate: &TokenStream,
    field: &Field,
    function: &str,
    arguments: &TokenStream,
    index: usize,
    a: TokenStream,
    b: TokenStream,
) -> Option<TokenStream> {
    if function != "pointer" {
        return None;
    }
    let span = field.ty().span();
    let pairs = Ident::new(&format!("pairs_{function}"), span);
    let pairs_local = local("pairs");
    Some(quote_spanned!(span=>
        if !#krate::__private::#pairs::<#arguments>(#pairs_local, #index, #a, #b)? {
            return ::core::option::Option::Some(false);
        }
    ))
}

/// The comparison of an enum's fields and of where its pointer fields lead: two objects of one
/// variant (the caller compares variants first), field by field.
fn generated_same_of_enum(
    krate: &Path,
    path: &Ident,
    owner: &TokenStream,
    variants: &[Variant],
) -> Option<(TokenStream, TokenStream)> {
    let (mut arms, mut pair_arms) = (Vec::new(), Vec::new());
    for variant in variants {
        let ident = variant.ident;
        let (mut bound_a, mut bound_b, mut sames) = (Vec::new(), Vec::new(), Vec::new());
        // The pointer comparison binds only the pointer fields.
        let (mut pair_a, mut pair_b, mut pairs) = (Vec::new(), Vec::new(), Vec::new());
        for (index, field) in generated_fields(&variant.fields).enumerate() {
            let member = &field.member;
            let krate = path_at(krate, field.ty().span());
            let FieldFunction { name: function, arguments, .. } = field_function(&krate, field)?;
            let (a, b) = (format_ident!("__a{index}"), format_ident!("__b{index}"));
            sames.push(same_call(&krate, field, function, &arguments, quote!(#a), quote!(#b)));
            if let Some(call) = pairs_call(&krate, field, function, &arguments, index, quote!(#a), quote!(#b)) {
                pairs.push(call);
                pair_a.push(quote!(#member: #a));
                pair_b.push(quote!(#member: #b));
            }
            bound_a.push(quote!(#member: #a));
            bound_b.push(quote!(#member: #b));
        }
        arms.push(quote! {
            (#path::#ident { #(#bound_a,)* .. }, #path::#ident { #(#bound_b,)* .. }) => { #(#sames)* }
        });
        if !pairs.is_empty() {
            pair_arms.push(quote! {
                (#path::#ident { #(#pair_a,)* .. }, #path::#ident { #(#pair_b,)* .. }) => { #(#pairs)* }
            });
        }
    }
    let pointers = if pair_arms.is_empty() {
        pointers_body(krate, owner, TokenStream::new(), true)
    } else {
        let calls = quote! {
            match (a, b) {
                #(#pair_arms)*
                #[allow(unreachable_patterns)]
                _ => {}
            }
        };
        pointers_body(krate, owner, calls, false)
    };
    let same = quote! {
        let _ = scope;
        let (a, b) = #krate::__private::generated_pair::<#owner>(a, b)?;
        match (a, b) {
            #(#arms)*
            #[allow(unreachable_patterns)]
            _ => return ::core::option::Option::Some(false),
        }
        ::core::option::Option::Some(true)
    };
    Some((same, pointers))
}

/// The fields generated code reaches: neither skipped, nor a base, nor where unknown fields go.
fn generated_fields<'a, 'b>(fields: &'b [Field<'a>]) -> impl Iterator<Item = &'b Field<'a>> {
    fields.iter().filter(|field| {
        let attrs = &field.attrs;
        attrs.skip.is_none() && attrs.base.is_none() && attrs.unknown.is_none()
    })
}

/// How generated code reaches a field: the `__private` function family of its kind (`plain`,
/// `plain_with`, `embedded`, `pointer`; the codec and comparison functions are named after it) and
/// its type arguments: the member's type, its shape (`One`, or the array container's), and for a
/// coded field the codec. `None` for a map field, which is walked.
struct FieldFunction {
    name: &'static str,
    arguments: TokenStream,
    /// The `fill` argument of the builder step: the element filler of an array, `None` otherwise
    /// (spanning the field's type, where rustc reports a bound on the element the step misses).
    fill: TokenStream,
    /// An array field (the shape is the container's).
    array: bool,
}

fn field_function(krate: &TokenStream, field: &Field) -> Option<FieldFunction> {
    let ty = field.ty();
    let span = ty.span();
    let (name, array, codec) = match field.codec() {
        Some((codec, key)) => {
            let codec = match codec {
                Codec::With(codec) => quote!(#codec),
                Codec::Serde => quote_spanned!(key.span()=> #krate::__private::SerdeCodec),
            };
            ("plain_with", array_elem(ty).is_some(), Some(codec))
        }
        None => {
            let layout = layout(field);
            if layout.map {
                return None;
            }
            (kind_function(layout.kind), layout.array, None)
        }
    };
    // The shape argument spans the field's type from its first token to its last, so the codec's
    // and comparison's calls report an element of the wrong kind under the whole type (the
    // builder step's report may still point at its first token alone).
    let last = last_span(ty);
    let (shape, fill) = match array {
        true => {
            let shape = Ident::new("Shape", last);
            (
                quote_spanned!(span=> <#ty as #krate::__private::Container>::#shape),
                quote_spanned!(span=> #krate::__private::array_fill!(#ty)),
            )
        }
        false => {
            let (one, none) = (Ident::new("One", last), Ident::new("None", last));
            (quote_spanned!(span=> #krate::__private::#one), quote_spanned!(span=> ::core::option::Option::#none))
        }
    };
    let codec = codec.map(|codec| quote!(, #codec));
    Some(FieldFunction { name, arguments: quote!(#ty, #shape #codec), fill, array })
}

/// One field's comparison in generated code: returns "different" when it differs.
fn same_call(
    krate: &TokenStream,
    field: &Field,
    function: &str,
    arguments: &TokenStream,
    a: TokenStream,
    b: TokenStream,
) -> TokenStream {
    let span = field.ty().span();
    let same = Ident::new(&format!("same_{function}"), span);
    let scope = local("scope");
    quote_spanned!(span=>
        if !#krate::__private::#same::<#arguments>(#a, #b, #scope)? {
            return ::core::option::Option::Some(false);
        }
    )
}

/// `.variants(...)`: the ID of the variant an object holds.
fn active_variant(owner: &TokenStream, path: &Ident, variants: &[Variant]) -> TokenStream {
    let arms = variants.iter().map(|variant| {
        let ident = variant.ident;
        let id = variant.id.as_ref().expect("checked: a variant has an ID");
        quote!(#path::#ident { .. } => #id,)
    });
    quote!(let builder = builder.variants(|o: &#owner| -> u32 { match o { #(#arms)* } });)
}

/// `.variant(...)`: the variant's ID, name and a value of it with every field at its default.
fn variant_step(krate: &Path, owner: &Ident, variant: &Variant) -> TokenStream {
    let ident = variant.ident;
    let id = variant.id.as_ref().expect("checked: a variant has an ID");
    let name = variant.name.clone().unwrap_or_else(|| LitStr::new(&ident.to_string(), ident.span()));
    let defaults = variant.fields.iter().map(|field| {
        let ty = field.ty();
        let krate = path_at(krate, ty.span());
        quote_spanned!(ty.span()=> <#ty as #krate::__private::VariantFieldDefault>::variant_field_default())
    });
    let make = match variant.style {
        Fields::Named(_) => {
            let members = variant.fields.iter().map(|field| &field.member);
            quote!(#owner::#ident { #(#members: #defaults),* })
        }
        Fields::Unnamed(_) => quote!(#owner::#ident(#(#defaults),*)),
        Fields::Unit => quote!(#owner::#ident),
    };
    quote!(let builder = builder.variant(#id, #name, || #make);)
}

/// How a field's code reaches it: `o.member` in a struct, a match on its variant in an enum.
/// `owner` is the type (`Handle<T>`), `path` the name its variants are reached by.
fn accessor(
    krate: &TokenStream,
    owner: &TokenStream,
    path: &Ident,
    field: &Field,
    variant: Option<&Variant>,
) -> TokenStream {
    let ty = field.ty();
    let member = &field.member;
    let Some(variant) = variant else {
        return quote!(#krate::__private::member::<#owner, #ty>(|o: &#owner| &o.#member, |o: &mut #owner| &mut o.#member));
    };
    let ident = variant.ident;
    let pattern = match member {
        Member::Named(name) => quote!(#path::#ident { #name: value, .. }),
        Member::Unnamed(index) => {
            let before = (0..index.index).map(|_| quote!(_));
            quote!(#path::#ident(#(#before,)* value, ..))
        }
    };
    quote! {
        #krate::__private::variant_member::<#owner, #ty>(
            |o: &#owner| match o {
                #pattern => ::core::option::Option::Some(value),
                #[allow(unreachable_patterns)]
                _ => ::core::option::Option::None,
            },
            |o: &mut #owner| match o {
                #pattern => ::core::option::Option::Some(value),
                #[allow(unreachable_patterns)]
                _ => ::core::option::Option::None,
            },
        )
    }
}

/// The step adding `field` (of `variant`, in an enum), or `None` for a skipped field.
fn field_step(
    krate: &Path,
    owner: &TokenStream,
    path: &Ident,
    field: &Field,
    variant: Option<&Variant>,
) -> Option<TokenStream> {
    let attrs = &field.attrs;
    if attrs.skip.is_some() {
        return None;
    }
    let ty = field.ty();
    let span = ty.span();
    let krate = path_at(krate, span);
    if attrs.base.is_some() {
        let member = &field.member;
        let builder = local("builder");
        return Some(quote_spanned! {span=>
            let #builder = #krate::__private::base::<#owner, #ty>(#builder, |o: &#owner| &o.#member, |o: &mut #owner| &mut o.#member);
        });
    }
    if attrs.unknown.is_some() {
        let member = &field.member;
        let builder = local("builder");
        return Some(quote_spanned! {span=>
            let #builder = #krate::__private::unknown_fields::<#owner>(#builder, |o: &#owner| &o.#member, |o: &mut #owner| &mut o.#member);
        });
    }
    let id = attrs.id.as_ref().expect("checked: a reflected field has an ID");
    let name = stored_name(field);
    let access = accessor(&krate, owner, path, field, variant);
    let flags = attrs.flags.as_ref().map(|flags| quote!(let builder = builder.flags(#flags);));
    // `serde` without the feature fails at its key, the one error such a field gets.
    let feature_check = match field.codec() {
        Some((Codec::Serde, key)) => {
            Some(quote_spanned!(key.span()=> const _: () = #krate::__private::require_serde_feature();))
        }
        _ => None,
    };
    let builder = local("builder");
    let Some(FieldFunction { name: function, arguments, fill, array }) = field_function(&krate, field) else {
        return Some(quote_spanned! {span=>
            let #builder = #krate::__private::object_map::<#owner, #ty>(#builder, #id, #name, #access);
            #flags
        });
    };
    // With the path spanned at the type's first token and this at its last, the call spans it.
    let add = Ident::new(function, last_span(ty));
    // An array's filler is a local, so an element type of the wrong kind is reported at the
    // field's type rather than inside the `array_fill!` expansion.
    let (fill_local, fill) = match array {
        true => (quote_spanned!(span=> let fill = #fill;), quote_spanned!(span=> fill)),
        false => (TokenStream::new(), fill),
    };
    Some(quote_spanned! {span=>
        #feature_check
        #fill_local
        let #builder = #krate::__private::#add::<#owner, #arguments>(#builder, #id, #name, #access, #fill);
        #flags
    })
}

/// A local of the generated functions (`builder`, `o`, `w`, ...) named inside code spanned at
/// the user's tokens: with the derive's own span, so it is the same variable however the user's
/// tokens came (a type declared by a `macro_rules!` has tokens of another hygiene context).
fn local(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// The span of the last token of `ty`: joined with its first token's (what `ty.span()` gives
/// outside nightly), a span over the whole type.
fn last_span(ty: &syn::Type) -> Span {
    ty.to_token_stream().into_iter().last().map_or_else(|| ty.span(), |token| token.span())
}

/// The `__private` function family of a field of this kind (not coded, not a map).
fn kind_function(kind: Kind) -> &'static str {
    match kind {
        Kind::Plain => "plain",
        Kind::Embedded => "embedded",
        Kind::Pointer => "pointer",
    }
}

/// `name = "..."`, or the field's identifier (its position in a tuple struct).
fn stored_name(field: &Field) -> LitStr {
    field.attrs.name.clone().unwrap_or_else(|| LitStr::new(&field.display(), Span::call_site()))
}

/// An implementation of `Reflectable` that is never run, emitted beside the derive's errors: the
/// program does not compile anyway, and without it each use of the type would be an error too.
pub fn stand_in(input: &Input) -> TokenStream {
    let krate = crate_or_default(input.attrs.krate.clone());
    let Generic { owner, params, bounds, .. } = Generic::of(&krate, input);
    quote! {
        impl<#params> #krate::__private::Reflectable for #owner where Self: 'static, #bounds {
            fn rtti(&self) -> &'static #krate::__private::RttiType {
                ::core::unreachable!("the derive reported errors")
            }
            fn rtti_static() -> &'static #krate::__private::RttiType
            where
                Self: Sized,
            {
                ::core::unreachable!("the derive reported errors")
            }
        }
        // What the type is used as besides: an argument of generic types, a boxed embedded value.
        #krate::__private::impl_reflectable!(@argument [#params] #owner, [#bounds]);
        #krate::__private::impl_boxed_embedded!([#params] #owner, [#bounds]);
    }
}

/// `implements(Trait, ...)`: the casts to each trait's handles.
fn implements(krate: &Path, input: &Input) -> Option<TokenStream> {
    let traits = &input.attrs.implements;
    let ident = input.ident;
    (!traits.is_empty()).then(|| quote!(#krate::__private::register_trait_impl!(#ident => #(#traits),*);))
}
