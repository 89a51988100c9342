//! `#[derive(Rewritable)]` for `treefuse-rewrite`.
//!
//! The derive implements `treefuse_rewrite::Rewritable` for an enum or a
//! struct by looking at the *syntax* of each field's type. A field is a child
//! when its type is the type being derived (its own name, with any generic
//! arguments, or `Self`) wrapped in any nesting of `Box<_>`, `Vec<_>` and
//! `Option<_>` (for example `Box<Expr>`, `Vec<Expr>`, `Option<Box<Expr>>`,
//! `Vec<Box<Expr>>`). Every other field is moved through unchanged.
//!
//! Children are visited in declaration order: fields in the order they are
//! written, the elements of a `Vec` from first to last. `map_children` and
//! `for_each_child` use the same order, which is what gives child *indices*
//! (used in the checker's paths) their meaning.
//!
//! Attribute: `#[rewrite(skip)]` on a field leaves it alone even when its type
//! looks like a child (for example a back-reference that must not be
//! traversed). Type aliases are not seen through: a field of type
//! `type P = Box<Expr>` is not recognised; write the type out instead.
//!
//! Rebuilding a `Box` child reuses its allocation (the value is moved out and
//! the result moved back in), and rebuilding a `Vec` goes through
//! `into_iter().map(..).collect()`, which reuses the buffer; so a rebuild
//! allocates nothing of its own. `map_children` is `#[inline(always)]`: it
//! sits between two nodes on the hot path of every traversal, and leaving
//! it out of line cost about a fifth more instructions per node in the
//! fused toy benchmark.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::{format_ident, quote};
use syn::{
    parse_macro_input, spanned::Spanned, Data, DeriveInput, Fields, GenericArgument, Ident,
    PathArguments, Type,
};

/// Derives `treefuse_rewrite::Rewritable` (see the crate docs for which
/// fields count as children and for `#[rewrite(skip)]`).
#[proc_macro_derive(Rewritable, attributes(rewrite))]
pub fn derive_rewritable(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// How a field's type holds children of the derived type.
enum Shape {
    /// The derived type itself.
    Direct,
    /// `Box<inner>`.
    Boxed(Box<Shape>),
    /// `Vec<inner>`.
    Vec(Box<Shape>),
    /// `Option<inner>`.
    Option(Box<Shape>),
}

/// The single generic type argument of the last path segment, if the type is
/// `Wrapper<Arg>` with `Wrapper` named `wrapper`.
fn single_arg<'a>(ty: &'a Type, wrapper: &str) -> Option<&'a Type> {
    let Type::Path(tp) = ty else { return None };
    if tp.qself.is_some() {
        return None;
    }
    let seg = tp.path.segments.last()?;
    if seg.ident != wrapper {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &seg.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    let first = types.next()?;
    // `Vec<T, A>` / `Box<T, A>` with a custom allocator still count.
    Some(first)
}

fn shape_of(ty: &Type, name: &Ident) -> Option<Shape> {
    match ty {
        Type::Paren(p) => return shape_of(&p.elem, name),
        Type::Group(g) => return shape_of(&g.elem, name),
        _ => {}
    }
    if let Type::Path(tp) = ty {
        if tp.qself.is_none() {
            if let Some(seg) = tp.path.segments.last() {
                if tp.path.segments.len() == 1 && (seg.ident == *name || seg.ident == "Self") {
                    return Some(Shape::Direct);
                }
            }
        }
    }
    if let Some(inner) = single_arg(ty, "Box") {
        return shape_of(inner, name).map(|s| Shape::Boxed(Box::new(s)));
    }
    if let Some(inner) = single_arg(ty, "Vec") {
        return shape_of(inner, name).map(|s| Shape::Vec(Box::new(s)));
    }
    if let Some(inner) = single_arg(ty, "Option") {
        return shape_of(inner, name).map(|s| Shape::Option(Box::new(s)));
    }
    None
}

/// Whether the field carries `#[rewrite(skip)]`.
fn is_skipped(field: &syn::Field) -> syn::Result<bool> {
    let mut skip = false;
    for attr in &field.attrs {
        if !attr.path().is_ident("rewrite") {
            continue;
        }
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("skip") {
                skip = true;
                Ok(())
            } else {
                Err(meta.error("unknown `rewrite` attribute; expected `skip`"))
            }
        })?;
    }
    Ok(skip)
}

/// Expression that rebuilds the owned value `expr` of the given shape.
fn map_expr(shape: &Shape, expr: TokenStream2, depth: usize) -> TokenStream2 {
    match shape {
        Shape::Direct => quote! { f(#expr) },
        Shape::Boxed(inner) => {
            let b = format_ident!("__treefuse_b{}", depth);
            let moved = map_expr(inner, quote! { *#b }, depth + 1);
            quote! {{
                let mut #b = #expr;
                *#b = #moved;
                #b
            }}
        }
        Shape::Vec(inner) => {
            let x = format_ident!("__treefuse_x{}", depth);
            let body = map_expr(inner, quote! { #x }, depth + 1);
            quote! {
                ::core::iter::Iterator::collect(
                    ::core::iter::Iterator::map(
                        ::core::iter::IntoIterator::into_iter(#expr),
                        |#x| #body,
                    ),
                )
            }
        }
        Shape::Option(inner) => {
            let x = format_ident!("__treefuse_x{}", depth);
            let body = map_expr(inner, quote! { #x }, depth + 1);
            quote! { ::core::option::Option::map(#expr, |#x| #body) }
        }
    }
}

/// Statement that visits the children inside the reference `expr`.
fn visit_stmt(shape: &Shape, expr: TokenStream2, depth: usize) -> TokenStream2 {
    match shape {
        Shape::Direct => quote! { f(#expr); },
        Shape::Boxed(inner) => visit_stmt(
            inner,
            quote! { ::core::ops::Deref::deref(#expr) },
            depth + 1,
        ),
        Shape::Vec(inner) => {
            let x = format_ident!("__treefuse_x{}", depth);
            let body = visit_stmt(inner, quote! { #x }, depth + 1);
            quote! {
                for #x in ::core::iter::IntoIterator::into_iter(#expr) { #body }
            }
        }
        Shape::Option(inner) => {
            let x = format_ident!("__treefuse_x{}", depth);
            let body = visit_stmt(inner, quote! { #x }, depth + 1);
            quote! {
                if let ::core::option::Option::Some(#x) = ::core::option::Option::as_ref(#expr) { #body }
            }
        }
    }
}

/// Code for one set of fields (a struct or one enum variant): the pattern
/// that binds the fields, the expression that rebuilds them, and the
/// statements that visit the children.
struct FieldsCode {
    pattern: TokenStream2,
    rebuild: TokenStream2,
    visit: TokenStream2,
}

fn fields_code(path: TokenStream2, fields: &Fields, name: &Ident) -> syn::Result<FieldsCode> {
    let mut binders = Vec::new();
    let mut rebuilt = Vec::new();
    let mut visits = Vec::new();
    for (i, field) in fields.iter().enumerate() {
        let binder = match &field.ident {
            Some(id) => format_ident!("__treefuse_f_{}", id),
            None => format_ident!("__treefuse_f{}", i),
        };
        let shape = if is_skipped(field)? {
            None
        } else {
            shape_of(&field.ty, name)
        };
        match &shape {
            Some(shape) => {
                rebuilt.push(map_expr(shape, quote! { #binder }, 0));
                visits.push(visit_stmt(shape, quote! { #binder }, 0));
            }
            None => rebuilt.push(quote! { #binder }),
        }
        binders.push(binder);
    }
    let code = match fields {
        Fields::Named(named) => {
            let names: Vec<_> = named.named.iter().map(|f| f.ident.clone()).collect();
            FieldsCode {
                pattern: quote! { #path { #( #names: #binders ),* } },
                rebuild: quote! { #path { #( #names: #rebuilt ),* } },
                visit: quote! { #( #visits )* },
            }
        }
        Fields::Unnamed(_) => FieldsCode {
            pattern: quote! { #path ( #( #binders ),* ) },
            rebuild: quote! { #path ( #( #rebuilt ),* ) },
            visit: quote! { #( #visits )* },
        },
        Fields::Unit => FieldsCode {
            pattern: quote! { #path },
            rebuild: quote! { #path },
            visit: quote! {},
        },
    };
    Ok(code)
}

fn expand(input: &DeriveInput) -> syn::Result<TokenStream2> {
    let name = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let (map_body, visit_body) = match &input.data {
        Data::Struct(s) => {
            let code = fields_code(quote! { Self }, &s.fields, name)?;
            let FieldsCode {
                pattern,
                rebuild,
                visit,
            } = code;
            (
                quote! {
                    let #pattern = self;
                    #rebuild
                },
                quote! {
                    let #pattern = self;
                    #visit
                },
            )
        }
        Data::Enum(e) => {
            let mut map_arms = Vec::new();
            let mut visit_arms = Vec::new();
            for variant in &e.variants {
                let v = &variant.ident;
                let code = fields_code(quote! { Self::#v }, &variant.fields, name)?;
                let FieldsCode {
                    pattern,
                    rebuild,
                    visit,
                } = code;
                map_arms.push(quote! { #pattern => #rebuild, });
                visit_arms.push(quote! { #pattern => { #visit } });
            }
            if e.variants.is_empty() {
                (quote! { match self {} }, quote! { match *self {} })
            } else {
                (
                    quote! { match self { #( #map_arms )* } },
                    quote! { match self { #( #visit_arms )* } },
                )
            }
        }
        Data::Union(u) => {
            return Err(syn::Error::new(
                u.union_token.span(),
                "`Rewritable` cannot be derived for unions",
            ))
        }
    };
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics ::treefuse_rewrite::Rewritable for #name #ty_generics #where_clause {
            #[inline(always)]
            #[allow(unused_variables, unused_mut, clippy::redundant_closure)]
            fn map_children<__TreefuseF>(self, f: &mut __TreefuseF) -> Self
            where
                __TreefuseF: ::core::ops::FnMut(Self) -> Self,
            {
                #map_body
            }

            #[inline]
            #[allow(unused_variables)]
            fn for_each_child<'__treefuse_a, __TreefuseF>(&'__treefuse_a self, f: &mut __TreefuseF)
            where
                __TreefuseF: ::core::ops::FnMut(&'__treefuse_a Self),
            {
                #visit_body
            }
        }
    })
}
