//! `#[derive(Rewritable)]` for `treefuse-rewrite`.
//!
//! The derive implements `treefuse_rewrite::Node` for an enum or a struct
//! that belongs to a *family* of mutually recursive node types (`Program`,
//! `Function`, `Stmt`, `Expr`, ...). It looks at the *syntax* of each
//! field's type. A field is a child when its type is a node type of the
//! family wrapped in any nesting of `Box<_>`, `Vec<_>` and `Option<_>`
//! (`Box<Expr>`, `Vec<Stmt>`, `Option<Box<Expr>>`, ...). The family is the
//! type itself (`Self` or its name) plus the types listed in a container
//! attribute:
//!
//! ```text
//! #[derive(Rewritable)]
//! #[rewrite(family(Program, Function, Stmt, Expr))]
//! enum Stmt { ... }
//! ```
//!
//! Types are matched by their last path segment. Every other field is left
//! alone. `#[rewrite(skip)]` on a field leaves it alone even when its type
//! looks like a child. Type aliases are not seen through.
//!
//! Children are visited in declaration order: fields in the order they are
//! written, `Vec` elements from first to last. All generated methods use
//! that order. A `Vec` whose elements are nodes of the family (`Vec<Stmt>`)
//! is handed to the walker whole (`visit_list`), so that rules can remove
//! and splice its elements; other nestings (`Vec<Box<Stmt>>`,
//! `Vec<Option<Expr>>`) are walked element by element.
//!
//! Non-child fields must implement `Clone` and `PartialEq` (used by the
//! iterative copy and comparison of `treefuse_rewrite::deep_clone` and
//! `first_difference`).

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::{format_ident, quote};
use syn::{
    parse_macro_input, spanned::Spanned, Data, DeriveInput, Fields, GenericArgument, Ident,
    PathArguments, Type,
};

/// Derives `treefuse_rewrite::Node` (see the crate docs for which fields
/// count as children, `#[rewrite(family(..))]` and `#[rewrite(skip)]`).
#[proc_macro_derive(Rewritable, attributes(rewrite))]
pub fn derive_rewritable(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// How a field's type holds children.
enum Shape {
    /// A node type of the family (the type as written).
    Direct(Box<Type>),
    /// `Box<inner>`.
    Boxed(Box<Shape>),
    /// `Vec<inner>`.
    Vec(Box<Shape>),
    /// `Option<inner>`.
    Option(Box<Shape>),
}

/// The first generic type argument of `Wrapper<Arg, ..>` named `wrapper`.
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
    args.args.iter().find_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

fn shape_of(ty: &Type, family: &[Ident]) -> Option<Shape> {
    match ty {
        Type::Paren(p) => return shape_of(&p.elem, family),
        Type::Group(g) => return shape_of(&g.elem, family),
        _ => {}
    }
    if let Type::Path(tp) = ty {
        if tp.qself.is_none() {
            if let Some(seg) = tp.path.segments.last() {
                if family.contains(&seg.ident) {
                    return Some(Shape::Direct(Box::new(ty.clone())));
                }
            }
        }
    }
    if let Some(inner) = single_arg(ty, "Box") {
        return shape_of(inner, family).map(|s| Shape::Boxed(Box::new(s)));
    }
    if let Some(inner) = single_arg(ty, "Vec") {
        return shape_of(inner, family).map(|s| Shape::Vec(Box::new(s)));
    }
    if let Some(inner) = single_arg(ty, "Option") {
        return shape_of(inner, family).map(|s| Shape::Option(Box::new(s)));
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
                Err(meta.error("unknown `rewrite` field attribute; expected `skip`"))
            }
        })?;
    }
    Ok(skip)
}

/// The family: `Self`, the type's own name, and `#[rewrite(family(..))]`.
fn family_of(input: &DeriveInput) -> syn::Result<Vec<Ident>> {
    let mut family = vec![input.ident.clone(), format_ident!("Self")];
    for attr in &input.attrs {
        if !attr.path().is_ident("rewrite") {
            continue;
        }
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("family") {
                meta.parse_nested_meta(|m| {
                    match m.path.get_ident() {
                        Some(id) => family.push(id.clone()),
                        None => return Err(m.error("expected a type name")),
                    }
                    Ok(())
                })
            } else {
                Err(meta.error("unknown `rewrite` attribute; expected `family(Type, ..)`"))
            }
        })?;
    }
    Ok(family)
}

/// Statement walking the children in the place `expr` (a `&mut`).
fn walk_stmt(shape: &Shape, expr: TokenStream2, depth: usize) -> TokenStream2 {
    match shape {
        Shape::Direct(_) => quote! { ::treefuse_rewrite::Walker::visit(w, #expr)?; },
        Shape::Boxed(inner) => walk_stmt(inner, quote! { &mut **#expr }, depth + 1),
        Shape::Vec(inner) if matches!(**inner, Shape::Direct(_)) => {
            quote! { ::treefuse_rewrite::Walker::visit_list(w, #expr)?; }
        }
        Shape::Vec(inner) => {
            let x = format_ident!("__tf_x{}", depth);
            let body = walk_stmt(inner, quote! { #x }, depth + 1);
            quote! { for #x in ::core::iter::IntoIterator::into_iter(#expr) { #body } }
        }
        Shape::Option(inner) => {
            let x = format_ident!("__tf_x{}", depth);
            let body = walk_stmt(inner, quote! { #x }, depth + 1);
            quote! { if let ::core::option::Option::Some(#x) = #expr { #body } }
        }
    }
}

/// Statement visiting the children behind the shared reference `expr`.
fn each_stmt(shape: &Shape, expr: TokenStream2, depth: usize) -> TokenStream2 {
    match shape {
        Shape::Direct(_) => quote! { f(#expr); },
        Shape::Boxed(inner) => each_stmt(inner, quote! { &**#expr }, depth + 1),
        Shape::Vec(inner) => {
            let x = format_ident!("__tf_x{}", depth);
            let body = each_stmt(inner, quote! { #x }, depth + 1);
            quote! { for #x in ::core::iter::IntoIterator::into_iter(#expr) { #body } }
        }
        Shape::Option(inner) => {
            let x = format_ident!("__tf_x{}", depth);
            let body = each_stmt(inner, quote! { #x }, depth + 1);
            quote! { if let ::core::option::Option::Some(#x) = #expr { #body } }
        }
    }
}

/// Statement moving the children out of the owned value `expr` onto `out`
/// (`into_children`), or, when `bounded`, dropping them by recursion while
/// `budget` lasts and moving them onto `out` after that (`drop_within`).
fn bury_stmt(shape: &Shape, expr: TokenStream2, depth: usize, bounded: bool) -> TokenStream2 {
    match shape {
        Shape::Direct(_) if bounded => {
            quote! { ::treefuse_rewrite::Node::drop_within(#expr, budget, out); }
        }
        Shape::Direct(_) => quote! { ::treefuse_rewrite::Node::into_children(#expr, out); },
        Shape::Boxed(inner) if matches!(**inner, Shape::Direct(_)) => {
            if bounded {
                quote! {
                    if budget > 0 {
                        ::treefuse_rewrite::Node::drop_within(*#expr, budget - 1, out);
                    } else {
                        out.push(#expr);
                    }
                }
            } else {
                quote! { out.push(#expr); }
            }
        }
        Shape::Boxed(inner) => bury_stmt(inner, quote! { *#expr }, depth + 1, bounded),
        Shape::Vec(inner) if matches!(**inner, Shape::Direct(_)) => {
            let defer = quote! {
                if !#expr.is_empty() {
                    out.push(::std::boxed::Box::new(::treefuse_rewrite::NodeList(#expr)));
                }
            };
            if bounded {
                let x = format_ident!("__tf_x{}", depth);
                quote! {
                    if budget > 0 {
                        for #x in #expr {
                            ::treefuse_rewrite::Node::drop_within(#x, budget - 1, out);
                        }
                    } else {
                        #defer
                    }
                }
            } else {
                defer
            }
        }
        Shape::Vec(inner) => {
            let x = format_ident!("__tf_x{}", depth);
            let body = bury_stmt(inner, quote! { #x }, depth + 1, bounded);
            quote! { for #x in #expr { #body } }
        }
        Shape::Option(inner) => {
            let x = format_ident!("__tf_x{}", depth);
            let body = bury_stmt(inner, quote! { #x }, depth + 1, bounded);
            quote! { if let ::core::option::Option::Some(#x) = #expr { #body } }
        }
    }
}

/// Expression: whether the places `a` and `b` (shared references) hold the
/// same number of children in the same places.
fn same_shape(shape: &Shape, a: TokenStream2, b: TokenStream2, depth: usize) -> TokenStream2 {
    match shape {
        Shape::Direct(_) => quote! { true },
        Shape::Boxed(inner) => same_shape(inner, quote! { &**#a }, quote! { &**#b }, depth + 1),
        Shape::Vec(inner) => {
            let x = format_ident!("__tf_a{}", depth);
            let y = format_ident!("__tf_b{}", depth);
            let body = same_shape(inner, quote! { #x }, quote! { #y }, depth + 1);
            quote! {
                (#a.len() == #b.len()
                    && ::core::iter::Iterator::all(
                        &mut ::core::iter::Iterator::zip(#a.iter(), #b.iter()),
                        |(#x, #y)| #body,
                    ))
            }
        }
        Shape::Option(inner) => {
            let x = format_ident!("__tf_a{}", depth);
            let y = format_ident!("__tf_b{}", depth);
            let body = same_shape(inner, quote! { #x }, quote! { #y }, depth + 1);
            quote! {
                match (#a, #b) {
                    (::core::option::Option::Some(#x), ::core::option::Option::Some(#y)) => #body,
                    (::core::option::Option::None, ::core::option::Option::None) => true,
                    _ => false,
                }
            }
        }
    }
}

/// Expression: a copy of the place `expr` (a shared reference) whose
/// children are taken from `children`.
fn copy_expr(shape: &Shape, expr: TokenStream2, depth: usize) -> TokenStream2 {
    match shape {
        Shape::Direct(ty) => quote! { *::treefuse_rewrite::take_child::<#ty>(children) },
        Shape::Boxed(inner) => match &**inner {
            Shape::Direct(ty) => quote! { ::treefuse_rewrite::take_child::<#ty>(children) },
            other => {
                let body = copy_expr(other, quote! { &**#expr }, depth + 1);
                quote! { ::std::boxed::Box::new(#body) }
            }
        },
        Shape::Vec(inner) => {
            let x = format_ident!("__tf_x{}", depth);
            let body = copy_expr(inner, quote! { #x }, depth + 1);
            quote! {{
                let mut __tf_v = ::std::vec::Vec::with_capacity(#expr.len());
                for #x in #expr.iter() { __tf_v.push(#body); }
                __tf_v
            }}
        }
        Shape::Option(inner) => {
            let x = format_ident!("__tf_x{}", depth);
            let body = copy_expr(inner, quote! { #x }, depth + 1);
            quote! {
                match #expr {
                    ::core::option::Option::Some(#x) => ::core::option::Option::Some(#body),
                    ::core::option::Option::None => ::core::option::Option::None,
                }
            }
        }
    }
}

/// Code for one set of fields (a struct or one enum variant).
struct FieldsCode {
    /// Pattern binding every field as `__tf_f_<name>` (by the match's
    /// binding mode).
    pattern: TokenStream2,
    /// Pattern binding the other value's fields as `__tf_o_<name>`.
    other_pattern: TokenStream2,
    walk: TokenStream2,
    each: TokenStream2,
    bury: TokenStream2,
    drop: TokenStream2,
    eq: TokenStream2,
    copy: TokenStream2,
}

fn fields_code(path: TokenStream2, fields: &Fields, family: &[Ident]) -> syn::Result<FieldsCode> {
    let mut binders = Vec::new();
    let mut others = Vec::new();
    let (mut walk, mut each, mut bury, mut drop, mut eq, mut copies) = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
    );
    for (i, field) in fields.iter().enumerate() {
        let (b, o) = match &field.ident {
            Some(id) => (
                format_ident!("__tf_f_{}", id),
                format_ident!("__tf_o_{}", id),
            ),
            None => (format_ident!("__tf_f{}", i), format_ident!("__tf_o{}", i)),
        };
        let shape = if is_skipped(field)? {
            None
        } else {
            shape_of(&field.ty, family)
        };
        match &shape {
            Some(shape) => {
                walk.push(walk_stmt(shape, quote! { #b }, 0));
                each.push(each_stmt(shape, quote! { #b }, 0));
                bury.push(bury_stmt(shape, quote! { #b }, 0, false));
                drop.push(bury_stmt(shape, quote! { #b }, 0, true));
                eq.push(same_shape(shape, quote! { #b }, quote! { #o }, 0));
                copies.push(copy_expr(shape, quote! { #b }, 0));
            }
            None => {
                eq.push(quote! { #b == #o });
                copies.push(quote! { ::core::clone::Clone::clone(#b) });
            }
        }
        binders.push(b);
        others.push(o);
    }
    let eq = if eq.is_empty() {
        quote! { true }
    } else {
        quote! { #( (#eq) )&&* }
    };
    let (pattern, other_pattern, copy) = match fields {
        Fields::Named(named) => {
            let names: Vec<_> = named.named.iter().map(|f| f.ident.clone()).collect();
            (
                quote! { #path { #( #names: #binders ),* } },
                quote! { #path { #( #names: #others ),* } },
                quote! { #path { #( #names: #copies ),* } },
            )
        }
        Fields::Unnamed(_) => (
            quote! { #path ( #( #binders ),* ) },
            quote! { #path ( #( #others ),* ) },
            quote! { #path ( #( #copies ),* ) },
        ),
        Fields::Unit => (quote! { #path }, quote! { #path }, quote! { #path }),
    };
    Ok(FieldsCode {
        pattern,
        other_pattern,
        walk: quote! { #( #walk )* },
        each: quote! { #( #each )* },
        bury: quote! { #( #bury )* },
        drop: quote! { #( #drop )* },
        eq,
        copy,
    })
}

fn expand(input: &DeriveInput) -> syn::Result<TokenStream2> {
    let name = &input.ident;
    let family = family_of(input)?;
    let name_str = name.to_string();
    let mut generics = input.generics.clone();
    for p in generics.type_params_mut() {
        p.bounds.push(syn::parse_quote!('static));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let variants: Vec<(TokenStream2, String, &Fields)> = match &input.data {
        Data::Struct(s) => vec![(quote! { Self }, name_str.clone(), &s.fields)],
        Data::Enum(e) => e
            .variants
            .iter()
            .map(|v| {
                let id = &v.ident;
                (quote! { Self::#id }, id.to_string(), &v.fields)
            })
            .collect(),
        Data::Union(u) => {
            return Err(syn::Error::new(
                u.union_token.span(),
                "`Rewritable` cannot be derived for unions",
            ))
        }
    };
    let mut variant_arms = Vec::new();
    let mut walk_arms = Vec::new();
    let mut each_arms = Vec::new();
    let mut bury_arms = Vec::new();
    let mut drop_arms = Vec::new();
    let mut eq_arms = Vec::new();
    let mut copy_arms = Vec::new();
    for (path, vname, fields) in &variants {
        let c = fields_code(path.clone(), fields, &family)?;
        let FieldsCode {
            pattern,
            other_pattern,
            walk,
            each,
            bury,
            drop,
            eq,
            copy,
        } = c;
        variant_arms.push(quote! { #pattern => #vname, });
        walk_arms.push(quote! { #pattern => { #walk } });
        each_arms.push(quote! { #pattern => { #each } });
        bury_arms.push(quote! { #pattern => { #bury } });
        drop_arms.push(quote! { #pattern => { #drop } });
        eq_arms.push(quote! { (#pattern, #other_pattern) => #eq, });
        copy_arms.push(quote! { #pattern => #copy, });
    }
    let empty = variants.is_empty();
    let many = variants.len() > 1;
    let eq_fallback = if many {
        quote! { _ => false, }
    } else {
        quote! {}
    };
    let (variant_body, walk_body, each_body, bury_body, drop_body, eq_body, copy_body) = if empty {
        (
            quote! { match self {} },
            quote! { match *self {} },
            quote! { match *self {} },
            quote! { match *self {} },
            quote! { match self {} },
            quote! { match *self {} },
            quote! { match *self {} },
        )
    } else {
        (
            quote! { match self { #( #variant_arms )* } },
            quote! { match self { #( #walk_arms )* } ::core::result::Result::Ok(()) },
            quote! { match self { #( #each_arms )* } },
            quote! { match self { #( #bury_arms )* } },
            quote! { match self { #( #drop_arms )* } },
            quote! { match (self, other) { #( #eq_arms )* #eq_fallback } },
            quote! { match self { #( #copy_arms )* } },
        )
    };
    Ok(quote! {
        #[automatically_derived]
        #[allow(unused_variables, clippy::needless_borrow, clippy::match_single_binding)]
        impl #impl_generics ::treefuse_rewrite::Node for #name #ty_generics #where_clause {
            const TYPE_NAME: &'static str = #name_str;

            #[inline(always)]
            fn variant(&self) -> &'static str {
                #variant_body
            }

            #[inline(always)]
            fn walk_children<__TfW: ::treefuse_rewrite::Walker>(
                &mut self,
                w: &mut __TfW,
            ) -> ::core::result::Result<(), __TfW::Stop> {
                #walk_body
            }

            fn for_each_child<'__tf_a>(
                &'__tf_a self,
                f: &mut dyn ::core::ops::FnMut(&'__tf_a dyn ::treefuse_rewrite::DynNode),
            ) {
                #each_body
            }

            fn into_children(self, out: &mut ::treefuse_rewrite::Graveyard) {
                #bury_body
            }

            #[inline]
            fn drop_within(self, budget: u32, out: &mut ::treefuse_rewrite::Graveyard) {
                #drop_body
            }

            fn shallow_eq(&self, other: &Self) -> bool {
                #eq_body
            }

            fn clone_with(
                &self,
                children: &mut dyn ::core::ops::FnMut() -> ::std::boxed::Box<dyn ::core::any::Any>,
            ) -> Self {
                #copy_body
            }
        }
    })
}
