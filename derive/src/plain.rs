//! `#[derive(PlainType)]`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Data, DeriveInput, Expr, Fields, Index};

struct PlainAttrs {
    id: Expr,
    pod: bool,
}

fn parse_attrs(input: &DeriveInput) -> syn::Result<PlainAttrs> {
    let mut id = None;
    let mut pod = false;
    for attr in input.attrs.iter().filter(|attr| attr.path().is_ident("plain")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("id") {
                id = Some(meta.value()?.parse::<Expr>()?);
            } else if meta.path.is_ident("pod") {
                pod = true;
            } else {
                return Err(meta.error("expected `id = N` or `pod`"));
            }
            Ok(())
        })?;
    }
    let id = id.ok_or_else(|| syn::Error::new_spanned(&input.ident, "missing `#[plain(id = N)]`"))?;
    Ok(PlainAttrs { id, pod })
}

pub fn expand(input: &DeriveInput) -> syn::Result<TokenStream> {
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(&input.generics, "`PlainType` cannot be derived for generic types"));
    }
    let attrs = parse_attrs(input)?;
    let name = &input.ident;
    let id = &attrs.id;
    let p = quote!(::reflectable::plain);
    let body = match &input.data {
        Data::Struct(data) => {
            let (types, access, construct) = struct_parts(&data.fields);
            let pod = attrs.pod.then(|| pod_impl(name));
            quote! {
                const TYPE_ID: u32 = #id;
                const STATIC_SIZE: ::core::option::Option<u32> =
                    #p::inline_or_dynamic(#p::sum_static_sizes(&[#(<#types as #p::PlainType>::STATIC_SIZE),*]));

                fn size(&self) -> usize {
                    0 #(+ #p::elem_size(&self.#access))*
                }
                fn write(&self, out: &mut ::std::vec::Vec<u8>) {
                    #(#p::write_elem(&self.#access, out);)*
                }
                fn read(reader: &mut #p::Reader<'_>) -> ::core::result::Result<Self, #p::PlainError> {
                    ::core::result::Result::Ok(#construct)
                }
                #pod
            }
        }
        Data::Enum(data) => {
            if attrs.pod {
                return Err(syn::Error::new_spanned(name, "`pod` applies to structs only"));
            }
            let mut values = Vec::new();
            let mut next = quote!(0u32);
            for variant in &data.variants {
                if !matches!(variant.fields, Fields::Unit) {
                    return Err(syn::Error::new_spanned(variant, "`PlainType` enums must be fieldless"));
                }
                let value = match &variant.discriminant {
                    Some((_, expr)) => quote!((#expr) as u32),
                    None => next.clone(),
                };
                next = quote!((#value + 1));
                values.push((variant.ident.clone(), value));
            }
            let consts: Vec<_> = (0..values.len()).map(|i| format_ident!("__V{}", i)).collect();
            let idents: Vec<_> = values.iter().map(|(ident, _)| ident).collect();
            let exprs: Vec<_> = values.iter().map(|(_, value)| value).collect();
            quote! {
                const TYPE_ID: u32 = #id;
                const STATIC_SIZE: ::core::option::Option<u32> = ::core::option::Option::Some(4);

                fn size(&self) -> usize {
                    4
                }
                fn write(&self, out: &mut ::std::vec::Vec<u8>) {
                    #(const #consts: u32 = #exprs;)*
                    let value: u32 = match self { #(Self::#idents => #consts,)* };
                    out.extend_from_slice(&value.to_le_bytes());
                }
                fn read(reader: &mut #p::Reader<'_>) -> ::core::result::Result<Self, #p::PlainError> {
                    #(const #consts: u32 = #exprs;)*
                    let offset = reader.offset();
                    match u32::from_le_bytes(reader.take_array()?) {
                        #(#consts => ::core::result::Result::Ok(Self::#idents),)*
                        _ => ::core::result::Result::Err(#p::PlainError::Invalid {
                            offset,
                            what: ::core::concat!("unknown ", ::core::stringify!(#name), " variant"),
                        }),
                    }
                }
            }
        }
        Data::Union(_) => return Err(syn::Error::new_spanned(name, "`PlainType` cannot be derived for unions")),
    };
    Ok(quote! {
        impl #p::PlainType for #name {
            #body
        }
    })
}

/// Field types, member accessors and the constructor expression that reads every field in order.
fn struct_parts(fields: &Fields) -> (Vec<&syn::Type>, Vec<TokenStream>, TokenStream) {
    let p = quote!(::reflectable::plain);
    let types = fields.iter().map(|field| &field.ty).collect();
    let access: Vec<TokenStream> = fields
        .iter()
        .enumerate()
        .map(|(i, field)| match &field.ident {
            Some(ident) => quote!(#ident),
            None => {
                let index = Index::from(i);
                quote!(#index)
            }
        })
        .collect();
    let reads = fields.iter().map(|field| {
        let ty = &field.ty;
        quote!(#p::read_elem::<#ty>(reader)?)
    });
    let construct = match fields {
        Fields::Named(_) => {
            let idents = fields.iter().map(|field| &field.ident);
            quote!(Self { #(#idents: #reads),* })
        }
        Fields::Unnamed(_) => quote!(Self(#(#reads),*)),
        Fields::Unit => quote!(Self),
    };
    (types, access, construct)
}

/// Bulk slice copies for plain-old-data structs. The compile-time assertion proves the wire form
/// (field by field, little-endian) has the struct's exact size, so with `bytemuck::Pod` (no padding,
/// every bit pattern valid) the in-memory bytes on a little-endian host are the wire bytes.
fn pod_impl(name: &syn::Ident) -> TokenStream {
    let p = quote!(::reflectable::plain);
    quote! {
        fn write_slice(values: &[Self], out: &mut ::std::vec::Vec<u8>) {
            const _: () = ::core::assert!(
                ::core::matches!(<#name as #p::PlainType>::STATIC_SIZE, ::core::option::Option::Some(n) if n as usize == ::core::mem::size_of::<#name>()),
                "a `pod` plain type must be at most 255 bytes, with fields whose wire size equals their memory size"
            );
            #p::pod::write_slice(values, out)
        }
        fn read_slice(
            reader: &mut #p::Reader<'_>,
            count: usize,
            out: &mut ::std::vec::Vec<Self>,
        ) -> ::core::result::Result<(), #p::PlainError> {
            #p::pod::read_slice(reader, count, out)
        }
    }
}
