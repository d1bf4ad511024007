//! Code generation for a checked `#[derive(PlainType)]`. Generated code names only
//! `#krate::__private` items (and `::core`, `::std`); what touches a field is spanned on the
//! field's type, so a field type that is not plain is reported at the field.

use super::model::PlainAttrs;
use crate::attr::crate_or_default;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DataEnum, DeriveInput, Fields, Ident, Index, Member, Path};

/// `impl PlainType` for a checked `input`.
pub fn generate(input: &DeriveInput, attrs: &PlainAttrs) -> TokenStream {
    let krate = crate_or_default(attrs.krate.clone());
    let p = quote!(#krate::__private);
    let name = &input.ident;
    let id = attrs.id.as_ref().expect("checked: the type has an ID");
    let body = match &input.data {
        Data::Struct(data) => struct_body(&p, &data.fields),
        Data::Enum(data) => enum_body(&p, name, data),
        Data::Union(_) => unreachable!("checked: unions are refused"),
    };
    let pod = attrs.pod.as_ref().map(|pod| pod_slices(&p, name, pod));
    let layout = match &input.data {
        Data::Struct(data) => struct_layout(&p, &data.fields),
        Data::Enum(data) => enum_layout(&p, data),
        Data::Union(_) => unreachable!("checked: unions are refused"),
    };
    quote! {
        const _: () = {
            fn layout() -> #p::PlainLayout {
                #layout
            }
            #p::inventory::submit! {
                #p::PlainDescription { type_id: #id, name: ::core::stringify!(#name), layout }
            }
        };

        impl #p::PlainType for #name {
            const TYPE_ID: u32 = #id;
            #body
            #pod
        }

        impl #p::TypeArgument for #name {
            fn type_argument_id() -> u32 {
                <Self as #p::PlainType>::TYPE_ID
            }
            fn type_argument_name() -> #p::Cow<'static, str> {
                #p::Cow::Borrowed(::core::stringify!(#name))
            }
        }
    }
}

/// How generated code reaches each field (`self.name`, `self.0`).
fn members(fields: &Fields) -> Vec<Member> {
    fields
        .iter()
        .enumerate()
        .map(|(i, field)| match &field.ident {
            Some(ident) => Member::Named(ident.clone()),
            None => Member::Unnamed(Index::from(i)),
        })
        .collect()
}

/// A struct is its fields in order, each as one element. `STATIC_SIZE` names each field type as
/// `PlainType`, spanned on the type: that is where a field that is not plain is reported. The
/// methods reach the fields' codecs through `PlainField`, which compiles for any type, so the
/// error is reported once rather than once per method.
fn struct_body(p: &TokenStream, fields: &Fields) -> TokenStream {
    let members = members(fields);
    let types: Vec<_> = fields.iter().map(|field| &field.ty).collect();
    let sizes = types.iter().map(|ty| quote_spanned!(ty.span()=> <#ty as #p::PlainType>::STATIC_SIZE));
    let min_sizes = types.iter().map(|ty| quote_spanned!(ty.span()=> <#ty as #p::PlainType>::COMPACT_MIN_SIZE));
    let codecs: Vec<_> = types.iter().map(|ty| quote!((&#p::PlainField::<#ty>::new()))).collect();
    let reads = codecs.iter().map(|codec| quote!(#codec.read_elem(reader)?));
    let construct = construct_with(fields, &members, reads);
    let compact_reads = codecs.iter().map(|codec| quote!(#codec.read_compact(reader)?));
    let construct_compact = construct_with(fields, &members, compact_reads);
    let uses = quote!(#[allow(unused_imports)] use #p::{NotPlainField as _, PlainFieldCodec as _};);
    quote! {
        const STATIC_SIZE: ::core::option::Option<u32> =
            #p::inline_or_dynamic(#p::sum_static_sizes(&[#(#sizes),*]));

        fn size(&self) -> usize {
            #uses
            0 #(+ #codecs.elem_size(&self.#members))*
        }
        fn write(&self, out: &mut ::std::vec::Vec<u8>) {
            #uses
            #(#codecs.write_elem(&self.#members, out);)*
        }
        // One level of nesting deeper: a derived type may hold itself (through a `Vec`), and a
        // hostile input must not nest it past the stack. (Inlined as it was before the nesting
        // closure made it larger: minecraft_savedata's decode took 5% more instructions.)
        #[inline]
        fn read(reader: &mut #p::Reader<'_>) -> ::core::result::Result<Self, #p::PlainError> {
            #uses
            reader.nested::<Self, #p::PlainError, _>(|reader| ::core::result::Result::Ok(#construct))
        }

        // Compact: a static struct keeps its normal bytes (the default), a dynamic one is its
        // fields in compact form, in order.
        const COMPACT_MIN_SIZE: usize = match <Self as #p::PlainType>::STATIC_SIZE {
            ::core::option::Option::Some(n) => n as usize,
            ::core::option::Option::None => #p::sum_min_sizes(&[#(#min_sizes),*]),
        };
        fn write_compact(&self, out: &mut ::std::vec::Vec<u8>) {
            #uses
            if <Self as #p::PlainType>::STATIC_SIZE.is_some() {
                return #p::PlainType::write(self, out);
            }
            #(#codecs.write_compact(&self.#members, out);)*
        }
        fn read_compact(reader: &mut #p::Reader<'_>) -> ::core::result::Result<Self, #p::PlainError> {
            #uses
            if <Self as #p::PlainType>::STATIC_SIZE.is_some() {
                return <Self as #p::PlainType>::read(reader);
            }
            reader.nested::<Self, #p::PlainError, _>(|reader| ::core::result::Result::Ok(#construct_compact))
        }
        #[allow(unused_mut)]
        fn same(&self, other: &Self) -> ::core::option::Option<bool> {
            #uses
            let mut known = true;
            #(match #codecs.same(&self.#members, &other.#members) {
                ::core::option::Option::Some(false) => return ::core::option::Option::Some(false),
                ::core::option::Option::Some(true) => {}
                ::core::option::Option::None => known = false,
            })*
            known.then_some(true)
        }
    }
}

/// The struct built from `values`, one expression per field in order.
fn construct_with(fields: &Fields, members: &[Member], values: impl Iterator<Item = TokenStream>) -> TokenStream {
    match fields {
        Fields::Named(_) => quote!(Self { #(#members: #values),* }),
        Fields::Unnamed(_) => quote!(Self(#(#values),*)),
        Fields::Unit => quote!(Self),
    }
}

/// The layout the text module reads values by: each field's name (or position) and signature.
fn struct_layout(p: &TokenStream, fields: &Fields) -> TokenStream {
    // Through `PlainField`, as the codec methods are: a field that is not plain is reported
    // once, by `STATIC_SIZE`.
    let signatures = fields.iter().map(|field| {
        let ty = &field.ty;
        quote!({
            #[allow(unused_imports)]
            use #p::{NotPlainField as _, PlainFieldCodec as _};
            (&#p::PlainField::<#ty>::new()).signature()
        })
    });
    match fields {
        Fields::Named(_) => {
            let names = fields.iter().map(|field| field.ident.as_ref().expect("named").to_string());
            quote!(#p::PlainLayout::Struct(::std::vec![#((#names, #signatures)),*]))
        }
        _ => quote!(#p::PlainLayout::Tuple(::std::vec![#(#signatures),*])),
    }
}

/// A fieldless enum's layout: its variants' names and discriminants.
fn enum_layout(p: &TokenStream, data: &DataEnum) -> TokenStream {
    let names = data.variants.iter().map(|variant| variant.ident.to_string());
    let values = discriminants(data);
    quote!(#p::PlainLayout::Enum(::std::vec![#((#names, #values)),*]))
}

/// Each variant's discriminant as a `u32` expression: given, or one more than the previous.
fn discriminants(data: &DataEnum) -> Vec<TokenStream> {
    let mut values = Vec::new();
    let mut next = quote!(0u32);
    for variant in &data.variants {
        let value = match &variant.discriminant {
            Some((_, expr)) => quote!((#expr) as u32),
            None => next.clone(),
        };
        next = quote!((#value + 1));
        values.push(value);
    }
    values
}

/// A fieldless enum is its discriminant as a `u32`.
fn enum_body(p: &TokenStream, name: &Ident, data: &DataEnum) -> TokenStream {
    let values = discriminants(data);
    let consts: Vec<_> = (0..values.len()).map(|i| format_ident!("__V{}", i)).collect();
    let idents: Vec<_> = data.variants.iter().map(|variant| &variant.ident).collect();
    // A discriminant this build lacks (a variant added by a newer writer, or removed since) reads
    // as the `#[default]` variant, else the first, and is noted for the decode report.
    let fallback = data
        .variants
        .iter()
        .find(|variant| variant.attrs.iter().any(|attr| attr.path().is_ident("default")))
        .or_else(|| data.variants.first())
        .map(|variant| &variant.ident);
    let unknown = match fallback {
        Some(fallback) => quote! {
            _ => {
                reader.note_substitution();
                ::core::result::Result::Ok(Self::#fallback)
            }
        },
        None => quote! {
            _ => ::core::result::Result::Err(#p::PlainError::Invalid {
                offset,
                what: ::core::concat!("unknown ", ::core::stringify!(#name), " variant"),
            }),
        },
    };
    quote! {
        const STATIC_SIZE: ::core::option::Option<u32> = ::core::option::Option::Some(4);

        fn size(&self) -> usize {
            4
        }
        fn write(&self, out: &mut ::std::vec::Vec<u8>) {
            #(const #consts: u32 = #values;)*
            let value: u32 = match self { #(Self::#idents => #consts,)* };
            out.extend_from_slice(&value.to_le_bytes());
        }
        fn read(reader: &mut #p::Reader<'_>) -> ::core::result::Result<Self, #p::PlainError> {
            #(const #consts: u32 = #values;)*
            #[allow(unused_variables)]
            let offset = reader.offset();
            match u32::from_le_bytes(reader.take_array()?) {
                #(#consts => ::core::result::Result::Ok(Self::#idents),)*
                #unknown
            }
        }
        fn same(&self, other: &Self) -> ::core::option::Option<bool> {
            #(const #consts: u32 = #values;)*
            let value = |this: &Self| -> u32 { match this { #(Self::#idents => #consts,)* } };
            ::core::option::Option::Some(value(self) == value(other))
        }
    }
}

/// Bulk slice copies for plain-old-data structs, spanned on `pod` so a missing `bytemuck::Pod` is
/// reported there. The compile-time check proves the wire form (field by field, little-endian) has
/// the struct's exact size, so with `bytemuck::Pod` (no padding, every bit pattern valid) the
/// in-memory bytes on a little-endian host are the wire bytes.
fn pod_slices(p: &TokenStream, name: &Ident, pod: &Path) -> TokenStream {
    quote_spanned! {pod.span()=>
        fn write_slice(values: &[Self], out: &mut ::std::vec::Vec<u8>) {
            const _: () = #p::check_pod_size(
                <#name as #p::PlainType>::STATIC_SIZE,
                ::core::mem::size_of::<#name>(),
            );
            #p::pod_write_slice(values, out)
        }
        fn read_slice(
            reader: &mut #p::Reader<'_>,
            count: usize,
            out: &mut ::std::vec::Vec<Self>,
        ) -> ::core::result::Result<(), #p::PlainError> {
            #p::pod_read_slice(reader, count, out)
        }
        fn same_slice(a: &[Self], b: &[Self]) -> ::core::option::Option<bool> {
            #p::pod_same_slice(a, b)
        }
    }
}
