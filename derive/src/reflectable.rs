//! `#[derive(Reflectable)]`.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use std::collections::HashMap;
use syn::{Data, DeriveInput, Expr, ExprLit, GenericArgument, Index, Lit, LitStr, Path, PathArguments, Type};

#[derive(Default)]
struct TypeAttrs {
    id: Option<Expr>,
    name: Option<LitStr>,
    is_abstract: bool,
    hooks: bool,
    implements: Vec<Path>,
    extend: Option<Expr>,
    no_register: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Plain,
    Embedded,
    Pointer,
}

#[derive(Default)]
struct FieldAttrs {
    id: Option<Expr>,
    name: Option<LitStr>,
    flags: Option<Expr>,
    skip: bool,
    base: bool,
    kind: Option<Kind>,
    whole_plain: bool,
    array: bool,
}

fn parse_type_attrs(input: &DeriveInput) -> syn::Result<TypeAttrs> {
    let mut attrs = TypeAttrs::default();
    for attr in input.attrs.iter().filter(|attr| attr.path().is_ident("rtti")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("id") {
                attrs.id = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("name") {
                attrs.name = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("abstract") {
                attrs.is_abstract = true;
            } else if meta.path.is_ident("hooks") {
                attrs.hooks = true;
            } else if meta.path.is_ident("no_register") {
                attrs.no_register = true;
            } else if meta.path.is_ident("extend") {
                attrs.extend = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("implements") {
                meta.parse_nested_meta(|inner| {
                    attrs.implements.push(inner.path);
                    Ok(())
                })?;
            } else {
                return Err(meta.error(
                    "expected `id`, `name`, `abstract`, `hooks`, `extend`, `no_register` or `implements(...)`",
                ));
            }
            Ok(())
        })?;
    }
    Ok(attrs)
}

fn parse_field_attrs(field: &syn::Field) -> syn::Result<FieldAttrs> {
    let mut attrs = FieldAttrs::default();
    for attr in field.attrs.iter().filter(|attr| attr.path().is_ident("rtti")) {
        attr.parse_nested_meta(|meta| {
            let path = &meta.path;
            if path.is_ident("id") {
                attrs.id = Some(meta.value()?.parse()?);
            } else if path.is_ident("name") {
                attrs.name = Some(meta.value()?.parse()?);
            } else if path.is_ident("flags") {
                attrs.flags = Some(meta.value()?.parse()?);
            } else if path.is_ident("skip") {
                attrs.skip = true;
            } else if path.is_ident("base") {
                attrs.base = true;
            } else if path.is_ident("embedded") {
                attrs.kind = Some(Kind::Embedded);
            } else if path.is_ident("pointer") {
                attrs.kind = Some(Kind::Pointer);
            } else if path.is_ident("plain") {
                attrs.kind = Some(Kind::Plain);
                attrs.whole_plain = true;
            } else if path.is_ident("array") {
                attrs.array = true;
            } else {
                return Err(meta.error(
                    "expected `id`, `name`, `flags`, `skip`, `base`, `embedded`, `pointer`, `plain` or `array`",
                ));
            }
            Ok(())
        })?;
    }
    Ok(attrs)
}

/// The last path segment's identifier and its generic type arguments.
fn path_parts(ty: &Type) -> Option<(String, Vec<&Type>)> {
    let Type::Path(path) = ty else { return None };
    let segment = path.path.segments.last()?;
    let args = match &segment.arguments {
        PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|arg| match arg {
                GenericArgument::Type(ty) => Some(ty),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Some((segment.ident.to_string(), args))
}

/// The element type of an array container (`Vec<E>`, `[E; N]`, `SmallVec<[E; N]>`).
fn array_elem(ty: &Type) -> Option<&Type> {
    if let Type::Array(array) = ty {
        return Some(&array.elem);
    }
    match path_parts(ty)? {
        (name, args) if name == "Vec" && args.len() == 1 => Some(args[0]),
        (name, args) if name == "SmallVec" && args.len() == 1 => match args[0] {
            Type::Array(array) => Some(&array.elem),
            _ => None,
        },
        _ => None,
    }
}

/// `Option<X>` unwrapped once.
fn strip_option(ty: &Type) -> &Type {
    match path_parts(ty) {
        Some((name, args)) if name == "Option" && args.len() == 1 => args[0],
        _ => ty,
    }
}

fn is_pointer(ty: &Type) -> bool {
    matches!(path_parts(strip_option(ty)), Some((name, _)) if name == "Rc" || name == "Arc" || name == "Weak")
}

fn is_boxed_trait_object(ty: &Type) -> bool {
    match path_parts(strip_option(ty)) {
        Some((name, args)) if name == "Box" && args.len() == 1 => {
            matches!(args[0], Type::TraitObject(_))
        }
        _ => false,
    }
}

/// The kind an element type has when no attribute says otherwise.
fn infer_kind(elem: &Type) -> Kind {
    if is_pointer(elem) {
        Kind::Pointer
    } else if is_boxed_trait_object(elem) {
        Kind::Embedded
    } else {
        Kind::Plain
    }
}

fn literal_u16(expr: &Expr) -> Option<u16> {
    match expr {
        Expr::Lit(ExprLit { lit: Lit::Int(int), .. }) => int.base10_parse().ok(),
        _ => None,
    }
}

pub fn expand(input: &DeriveInput) -> syn::Result<TokenStream> {
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(&input.generics, "`Reflectable` cannot be derived for generic types"));
    }
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(&input.ident, "`Reflectable` can be derived for structs only"));
    };
    let attrs = parse_type_attrs(input)?;
    let ident = &input.ident;
    let id = attrs.id.as_ref().ok_or_else(|| {
        syn::Error::new_spanned(ident, "missing `#[rtti(id = N)]`: every type needs a stable numeric ID")
    })?;
    let type_name = attrs.name.clone().unwrap_or_else(|| LitStr::new(&ident.to_string(), ident.span()));
    let r = quote!(::reflectable);

    let mut steps = Vec::new();
    let mut seen_ids: HashMap<u16, String> = HashMap::new();
    let mut base_seen = false;
    for (position, field) in data.fields.iter().enumerate() {
        let fattrs = parse_field_attrs(field)?;
        let member = match &field.ident {
            Some(ident) => quote!(#ident),
            None => {
                let index = Index::from(position);
                quote!(#index)
            }
        };
        let ty = &field.ty;
        if fattrs.skip {
            continue;
        }
        if fattrs.base {
            if base_seen {
                return Err(syn::Error::new_spanned(field, "a type can have only one `#[rtti(base)]` field"));
            }
            base_seen = true;
            steps.push(quote!(.base::<#ty>(|o: &#ident| &o.#member, |o: &mut #ident| &mut o.#member)));
            continue;
        }
        let field_id = fattrs.id.as_ref().ok_or_else(|| {
            syn::Error::new_spanned(field, "every field needs `#[rtti(id = N)]`, `#[rtti(skip)]` or `#[rtti(base)]`")
        })?;
        let field_name = fattrs.name.clone().unwrap_or_else(|| {
            let text = field.ident.as_ref().map_or_else(|| position.to_string(), ToString::to_string);
            LitStr::new(&text, Span::call_site())
        });
        if let Some(value) = literal_u16(field_id) {
            if let Some(previous) = seen_ids.insert(value, field_name.value()) {
                return Err(syn::Error::new_spanned(
                    field_id,
                    format!("field ID {value} is already used by `{previous}`"),
                ));
            }
        }

        // Arrays: Vec and SmallVec always; `[T; N]` unless it is plain (a fixed array of plain
        // values is one plain value unless `#[rtti(array)]` asks for an array field).
        let elem = array_elem(ty);
        let kind = fattrs.kind.unwrap_or_else(|| infer_kind(elem.unwrap_or(ty)));
        let as_array = match (elem, kind) {
            (None, _) => false,
            (Some(_), _) if fattrs.whole_plain => false,
            (Some(_), Kind::Plain) => !matches!(ty, Type::Array(_)) || fattrs.array,
            (Some(_), _) => true,
        };
        let method = match kind {
            Kind::Plain => quote!(add_plain),
            Kind::Embedded => quote!(add_embedded),
            Kind::Pointer => quote!(add_pointer),
        };
        let (shape, fill) = if as_array {
            (
                quote!(<#ty as #r::field::Container>::Shape),
                quote!((&#r::__private::FillProbe::<<#ty as #r::field::Container>::Elem>::new()).fill()),
            )
        } else {
            (quote!(#r::field::One), quote!(::core::option::Option::None))
        };
        let flags = fattrs.flags.as_ref().map(|flags| quote!(.flags(#flags)));
        steps.push(quote! {
            .#method::<#ty, #shape>(
                #field_id,
                #field_name,
                #r::field::Accessor::Direct { get: |o: &#ident| &o.#member, get_mut: |o: &mut #ident| &mut o.#member },
                {
                    #[allow(unused_imports)]
                    use #r::__private::{FillWithDefault as _, FillWithNone as _};
                    #fill
                },
            )
            #flags
        });
    }
    if !attrs.is_abstract {
        steps.insert(0, quote!(.default_constructor()));
    }
    if attrs.hooks {
        steps.push(quote! {
            .on_serialization_started(|o: &#ident, c| #r::rtti::RttiHooks::on_serialization_started(o, c))
            .on_serialization_ended(|o: &#ident, c| #r::rtti::RttiHooks::on_serialization_ended(o, c))
            .on_deserialization_started(|o: &mut #ident, c| #r::rtti::RttiHooks::on_deserialization_started(o, c))
            .on_deserialization_ended(|o: &mut #ident, c| #r::rtti::RttiHooks::on_deserialization_ended(o, c))
        });
    }
    if let Some(extend) = &attrs.extend {
        steps.push(quote!(.extend(#extend)));
    }
    let implements = (!attrs.implements.is_empty()).then(|| {
        let traits = &attrs.implements;
        quote!(#r::register_trait_impl!(#ident => #(#traits),*);)
    });

    let registration = (!attrs.no_register).then(|| {
        quote! {
            #r::__private::inventory::submit! {
                #r::rtti::TypeRegistration { rtti: try_rtti }
            }
        }
    });
    Ok(quote! {
        const _: () = {
            static RTTI: #r::__private::Lazy<
                ::core::result::Result<#r::RttiType, #r::rtti::RttiError>,
            > = #r::__private::Lazy::new(|| {
                #r::RttiTypeBuilder::<#ident>::new(#id, #type_name)
                    #(#steps)*
                    .build()
            });

            #[allow(dead_code)]
            fn try_rtti() -> ::core::result::Result<&'static #r::RttiType, &'static #r::rtti::RttiError> {
                RTTI.as_ref()
            }

            impl #r::Reflectable for #ident {
                fn rtti(&self) -> &'static #r::RttiType {
                    #r::__private::expect_rtti(&RTTI)
                }
                fn rtti_static() -> &'static #r::RttiType {
                    #r::__private::expect_rtti(&RTTI)
                }
            }

            #registration

            impl #r::field::EmbeddedSlot for ::std::boxed::Box<#ident> {
                fn declared() -> #r::field::Declared {
                    <#ident as #r::field::EmbeddedSlot>::declared()
                }
                fn value(&self) -> ::core::option::Option<&dyn #r::Reflectable> {
                    ::core::option::Option::Some(&**self)
                }
                fn value_mut(&mut self) -> ::core::option::Option<&mut dyn #r::Reflectable> {
                    ::core::option::Option::Some(&mut **self)
                }
                fn from_object(
                    object: ::core::option::Option<::std::boxed::Box<dyn #r::Reflectable>>,
                ) -> ::core::option::Option<Self> {
                    #r::rtti::downcast_box::<#ident>(object?).ok()
                }
            }
        };
        #implements
    })
}
