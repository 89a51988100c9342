//! Recursive-descent parser with precedence climbing for expressions.
//!
//! Errors do not stop the parse: a failed item is skipped up to the next
//! item keyword, a failed statement up to the next `;` or closing brace,
//! so one run reports every independent problem. Recovery aims at one
//! diagnostic per mistake: a keyword written where a name belongs is
//! reported once (`keyword-as-name`) and then read as that name, and a
//! block or tree body left unclosed ends where the next member or item
//! starts, so the declarations after it survive. Nesting is bounded
//! ([`MAX_NESTING`]) so that hostile input such as ten thousand `(` yields
//! a diagnostic instead of a stack overflow.
//!
//! Contextual words are identifiers, not keywords of the lexer: the parser
//! recognises `walk`, `impl` and `limit` only where they mean something
//! (`walk;`, `impl NAME {`, `while .. limit N`), and `push` and `copy` are
//! ordinary method and call names to which the checker gives their
//! meaning, so every one of them stays usable as a name.
//!
//! [`parse`] parses one text; [`parse_map`] parses a program of several
//! files (LANGUAGE.md §8.2), each file on its own so that a mistake in one
//! (an unclosed comment or brace) cannot swallow the next, with spans that
//! are offsets into the program's one text ([`crate::SourceMap`]).

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::lexer::{lex, Keyword, Punct, Token, TokenKind};
use crate::sources::SourceMap;
use crate::span::Span;

/// Binding power of the comparison operators, which do not chain. As in
/// Rust: `||` 1, `&&` 2, comparisons 3, `|` 4, `^` 5, `&` 6, `<< >>` 7,
/// `+ -` 8, `* / %` 9.
const COMPARISON: u8 = 3;

/// The deepest nesting of expressions, blocks and types the parser accepts.
pub const MAX_NESTING: usize = 256;

/// Parses a whole source file. Always returns a syntax tree (possibly
/// partial) together with every diagnostic found.
pub fn parse(source: &str) -> (SourceFile, Vec<Diagnostic>) {
    parse_at(source, 0)
}

/// Parses every file of a program (LANGUAGE.md §8.2) into one syntax tree,
/// items in file order, with spans that are offsets into
/// [`SourceMap::text`]. Each file is parsed on its own, so a mistake in one
/// (an unclosed comment or brace) cannot swallow the next.
pub fn parse_map(sources: &SourceMap) -> (SourceFile, Vec<Diagnostic>) {
    let mut items = Vec::new();
    let mut diagnostics = Vec::new();
    for range in sources.file_ranges() {
        let (file, diags) = parse_at(&sources.text()[range.clone()], range.start as u32);
        items.extend(file.items);
        diagnostics.extend(diags);
    }
    (SourceFile { items }, diagnostics)
}

/// Parses `source`, which starts at byte `base` of the program text.
fn parse_at(source: &str, base: u32) -> (SourceFile, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let mut tokens = lex(source, &mut diagnostics);
    let line_break_before = tokens
        .iter()
        .scan(0usize, |prev_end, t| {
            let start = (t.span.start as usize).min(source.len());
            let gap = source.get(*prev_end..start).unwrap_or("");
            *prev_end = (t.span.end as usize).min(source.len()).max(start);
            Some(gap.contains('\n'))
        })
        .collect();
    if base > 0 {
        let shift = |s: &mut Span| {
            s.start += base;
            s.end += base;
        };
        tokens.iter_mut().for_each(|t| shift(&mut t.span));
        for d in &mut diagnostics {
            shift(&mut d.span);
            d.labels.iter_mut().for_each(|l| shift(&mut l.span));
        }
    }
    let mut parser = Parser {
        line_break_before,
        keywords_as_names: Vec::new(),
        tokens,
        pos: 0,
        diagnostics,
        depth: 0,
        call_at: None,
    };
    let file = parser.file();
    // Lexer and parser diagnostics, in source order.
    parser.diagnostics.sort_by_key(|d| d.span.start);
    (file, parser.diagnostics)
}

/// Marker for "a diagnostic was already reported; recover".
struct Reported;

type PResult<T> = Result<T, Reported>;

struct Parser {
    tokens: Vec<Token>,
    /// Per token: whether a line break separates it from the previous one.
    line_break_before: Vec<bool>,
    /// Keywords already reported as used for names (`keyword-as-name`).
    keywords_as_names: Vec<Keyword>,
    pos: usize,
    diagnostics: Vec<Diagnostic>,
    depth: usize,
    /// The token where the current expression statement starts: the only
    /// place a traversing call `recv.f(args)` may start.
    call_at: Option<usize>,
}

/// Whether a record literal `Name { .. }` may start here. Like Rust, it may
/// not in the head of an `if` or `for`, where `{` opens the block.
#[derive(Clone, Copy, PartialEq)]
enum Restriction {
    None,
    NoRecord,
}

impl Parser {
    fn peek(&self) -> &TokenKind {
        &self.tokens[self.pos].kind
    }

    fn peek_at(&self, ahead: usize) -> &TokenKind {
        let i = (self.pos + ahead).min(self.tokens.len() - 1);
        &self.tokens[i].kind
    }

    fn span(&self) -> Span {
        self.tokens[self.pos].span
    }

    fn prev_span(&self) -> Span {
        self.tokens[self.pos.saturating_sub(1)].span
    }

    fn bump(&mut self) -> Token {
        let t = self.tokens[self.pos].clone();
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
        t
    }

    fn at_punct(&self, p: Punct) -> bool {
        *self.peek() == TokenKind::Punct(p)
    }

    fn at_kw(&self, k: Keyword) -> bool {
        *self.peek() == TokenKind::Keyword(k)
    }

    fn eat_punct(&mut self, p: Punct) -> bool {
        if self.at_punct(p) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn eat_kw(&mut self, k: Keyword) -> bool {
        if self.at_kw(k) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn error_here(&mut self, expected: &str) -> Reported {
        let tok = &self.tokens[self.pos];
        // The lexer has already reported invalid tokens; one error per
        // position is enough (an unclosed block is also an unclosed item);
        // and after the nesting limit the rest of the input is skipped, so
        // "found end of file" would only be noise.
        let repeated = self.diagnostics.last().is_some_and(|d| d.span == tok.span);
        let skipped = tok.kind == TokenKind::Eof
            && self.diagnostics.iter().any(|d| d.code == "nesting-limit");
        if tok.kind != TokenKind::Error && !repeated && !skipped {
            let mut d = Diagnostic::error(
                "syntax",
                tok.span,
                format!("expected {expected}, found {}", tok.kind.describe()),
            )
            .with_span_label(format!("expected {expected}"));
            if tok.kind == TokenKind::Keyword(Keyword::As) {
                d = d.with_note("a cast is written in parentheses: `(path as Type)`");
            }
            self.diagnostics.push(d);
        }
        Reported
    }

    fn expect_punct(&mut self, p: Punct) -> PResult<Span> {
        if self.at_punct(p) {
            Ok(self.bump().span)
        } else {
            Err(self.error_here(&format!("`{}`", p.as_str())))
        }
    }

    fn expect_kw(&mut self, k: Keyword) -> PResult<Span> {
        if self.at_kw(k) {
            Ok(self.bump().span)
        } else {
            Err(self.error_here(&format!("`{}`", k.as_str())))
        }
    }

    fn ident(&mut self, what: &str) -> PResult<Ident> {
        match self.peek().clone() {
            TokenKind::Ident(name) => {
                let span = self.bump().span;
                Ok(Ident { name, span })
            }
            TokenKind::Keyword(k) if self.keyword_stands_for_name() => {
                Ok(self.keyword_as_name(k, what))
            }
            _ => Err(self.error_here(what)),
        }
    }

    /// The name after `.` in a path: nothing but a name can stand there,
    /// so a keyword (`self.l.pure`) is read as the name it was meant to be
    /// whatever follows it, and the uses of a field declared with a
    /// keyword's name do not cascade into syntax errors.
    fn member_ident(&mut self, what: &str) -> PResult<Ident> {
        match self.peek().clone() {
            TokenKind::Keyword(k) => Ok(self.keyword_as_name(k, what)),
            _ => self.ident(what),
        }
    }

    /// Consumes keyword `k` used where a name belongs: reported once per
    /// keyword (`keyword-as-name`; its later uses as the same name are not
    /// new mistakes) and read as that name, so that the rest parses.
    fn keyword_as_name(&mut self, k: Keyword, what: &str) -> Ident {
        let span = self.bump().span;
        let name = k.as_str().to_string();
        if self.keywords_as_names.contains(&k) {
            return Ident { name, span };
        }
        self.keywords_as_names.push(k);
        self.diagnostics.push(
            Diagnostic::error(
                "keyword-as-name",
                span,
                format!("`{}` is a keyword; it cannot be used as a name", k.as_str()),
            )
            .with_span_label(format!("expected {what}, found a keyword"))
            .with_note(format!(
                "choose another name, such as `{0}_` or `is_{0}`",
                k.as_str()
            )),
        );
        Ident { name, span }
    }

    /// At a keyword where a name is expected: whether the next token is
    /// one that follows a name (`pure: bool`, `fn match(`, `let in =`), so
    /// that the keyword was meant as a name rather than starting the next
    /// construct after a forgotten name (`global` then `tree A {`).
    fn keyword_stands_for_name(&self) -> bool {
        matches!(
            self.peek_at(1),
            TokenKind::Punct(
                Punct::Colon
                    | Punct::LParen
                    | Punct::RParen
                    | Punct::Assign
                    | Punct::Comma
                    | Punct::Semi
                    | Punct::LBrace
                    | Punct::RBrace
                    | Punct::RBracket
            ) | TokenKind::Keyword(Keyword::In)
        )
    }

    /// A keyword followed by `:` is a field or parameter named by a
    /// keyword (`pure: bool;`), not the construct the keyword starts.
    fn at_keyword_field(&self) -> bool {
        matches!(self.peek(), TokenKind::Keyword(_))
            && *self.peek_at(1) == TokenKind::Punct(Punct::Colon)
    }

    /// At a token that starts a tree member or an item but no statement:
    /// where a block that was left unclosed ends.
    fn at_member_or_item_start(&self) -> bool {
        (self.at_kw(Keyword::Traversal) || self.at_kw(Keyword::Child) || self.at_item_start())
            && !self.at_keyword_field()
            && !self.at_keyword_used_as_name()
    }

    /// At a keyword already reported as a name and not followed by the
    /// name its construct needs (`tree = tree + 1;` after `global tree`),
    /// so that it is a use of that name, not the start of an item.
    fn at_keyword_used_as_name(&self) -> bool {
        matches!(self.peek(), TokenKind::Keyword(k) if self.keywords_as_names.contains(k))
            && !matches!(self.peek_at(1), TokenKind::Ident(_))
    }

    /// `limit N` after a `while` condition (`limit` is an ordinary name
    /// everywhere else). `N` is any expression, read like a condition:
    /// `while c limit n { .. }` must not take `n { .. }` for a record value.
    /// A missing `limit` is left to the checker, which explains it.
    fn while_limit(&mut self) -> PResult<Option<Expr>> {
        if !matches!(self.peek(), TokenKind::Ident(n) if n == "limit") {
            return Ok(None);
        }
        // `while c limit { .. }`: `limit` ends the condition but no
        // expression follows.
        if matches!(self.peek_at(1), TokenKind::Punct(Punct::LBrace)) {
            self.bump();
            return Err(self.error_here("an iteration limit (an `i64` expression)"));
        }
        self.bump();
        Ok(Some(self.expr(Restriction::NoRecord)?))
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            let span = self.span();
            self.diagnostics.push(
                Diagnostic::error(
                    "nesting-limit",
                    span,
                    format!("program nested more than {MAX_NESTING} levels deep"),
                )
                .with_note(
                    "long operator chains and field paths count as nesting too; split them with `let`",
                ),
            );
            // Skip the rest of the input: everything after this point is
            // part of the over-deep construct.
            self.pos = self.tokens.len() - 1;
            return Err(Reported);
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    // ----- items -------------------------------------------------------

    fn file(&mut self) -> SourceFile {
        let mut items = Vec::new();
        while *self.peek() != TokenKind::Eof {
            if (self.at_punct(Punct::RBrace) || self.at_punct(Punct::Semi))
                && !self.diagnostics.is_empty()
            {
                // A `}` or `;` between items after an earlier error ends a
                // construct whose start that error's recovery skipped: not
                // a new mistake.
                self.bump();
                continue;
            }
            let start = self.pos;
            match self.item() {
                Ok(item) => items.push(item),
                Err(Reported) => self.recover_item(start),
            }
        }
        SourceFile { items }
    }

    fn at_item_start(&self) -> bool {
        self.at_impl()
            || matches!(
                self.peek(),
                TokenKind::Keyword(
                    Keyword::Global
                        | Keyword::Record
                        | Keyword::Tree
                        | Keyword::Abstract
                        | Keyword::Pure
                        | Keyword::Fuse
                        | Keyword::Enum
                )
            )
    }

    /// Skips to the next token that starts an item, at brace depth 0
    /// relative to where the failed item started.
    fn recover_item(&mut self, start: usize) {
        if self.pos == start {
            self.bump();
        }
        self.depth = 0;
        while *self.peek() != TokenKind::Eof && !self.at_item_start() {
            self.bump();
        }
    }

    fn item(&mut self) -> PResult<Item> {
        let start = self.span();
        match self.peek() {
            TokenKind::Keyword(Keyword::Global) => {
                self.bump();
                let name = self.ident("a global name")?;
                self.expect_punct(Punct::Colon)?;
                let ty = self.type_expr()?;
                self.expect_punct(Punct::Assign)?;
                let init = self.expr(Restriction::None)?;
                self.expect_punct(Punct::Semi)?;
                Ok(Item::Global(GlobalDecl {
                    name,
                    ty,
                    init,
                    span: start.to(self.prev_span()),
                }))
            }
            TokenKind::Keyword(Keyword::Record) => {
                self.bump();
                let name = self.ident("a record name")?;
                self.expect_punct(Punct::LBrace)?;
                let fields = self.comma_list(Punct::RBrace, |p| p.param())?;
                Ok(Item::Record(RecordDecl {
                    name,
                    fields,
                    span: start.to(self.prev_span()),
                }))
            }
            TokenKind::Keyword(Keyword::Abstract | Keyword::Tree) => self.tree_decl(),
            TokenKind::Keyword(Keyword::Enum) => {
                self.bump();
                let name = self.ident("an enum name")?;
                self.expect_punct(Punct::LBrace)?;
                let variants = self.comma_list(Punct::RBrace, |p| p.ident("a variant name"))?;
                Ok(Item::Enum(EnumDecl {
                    name,
                    variants,
                    span: start.to(self.prev_span()),
                }))
            }
            TokenKind::Keyword(Keyword::Pure) => self.pure_fn(),
            TokenKind::Keyword(Keyword::Fuse) => {
                self.bump();
                let name = self.ident("a fuse item name")?;
                self.expect_punct(Punct::LParen)?;
                let params = self.comma_list(Punct::RParen, |p| p.param())?;
                let body = self.block()?;
                Ok(Item::Fuse(FuseDecl {
                    name,
                    params,
                    body,
                    span: start.to(self.prev_span()),
                }))
            }
            _ if self.at_impl() => self.impl_decl(),
            _ => Err(self.error_here(
                "an item (`global`, `record`, `enum`, `tree`, `impl`, `pure fn` or `fuse`)",
            )),
        }
    }

    /// Parses `elem (, elem)* ,? CLOSE`, the opening token already eaten.
    fn comma_list<T>(
        &mut self,
        close: Punct,
        mut elem: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        let mut out = Vec::new();
        loop {
            if self.eat_punct(close) {
                return Ok(out);
            }
            out.push(elem(self)?);
            if !self.eat_punct(Punct::Comma) {
                self.expect_punct(close)?;
                return Ok(out);
            }
        }
    }

    fn param(&mut self) -> PResult<Param> {
        let name = self.ident("a name")?;
        self.expect_punct(Punct::Colon)?;
        let ty = self.type_expr()?;
        Ok(Param { name, ty })
    }

    fn type_expr(&mut self) -> PResult<TypeExpr> {
        let ty = self.type_expr_inner()?;
        if self.at_punct(Punct::Question) {
            let end = self.bump().span;
            let span = ty.span().to(end);
            return Ok(TypeExpr::Optional(Box::new(ty), span));
        }
        Ok(ty)
    }

    fn type_expr_inner(&mut self) -> PResult<TypeExpr> {
        if self.at_punct(Punct::LBrace) {
            let start = self.bump().span;
            self.enter()?;
            let kv = self.map_type_inner();
            self.leave();
            let (k, v) = kv?;
            let end = self.expect_punct(Punct::RBrace)?;
            Ok(TypeExpr::Map(Box::new(k), Box::new(v), start.to(end)))
        } else if self.at_punct(Punct::LBracket) {
            let start = self.bump().span;
            self.enter()?;
            let inner = self.type_expr();
            self.leave();
            let inner = inner?;
            let end = self.expect_punct(Punct::RBracket)?;
            Ok(TypeExpr::Array(Box::new(inner), start.to(end)))
        } else {
            Ok(TypeExpr::Named(self.ident("a type")?))
        }
    }

    /// `K: V` inside `{K: V}`.
    fn map_type_inner(&mut self) -> PResult<(TypeExpr, TypeExpr)> {
        let k = self.type_expr()?;
        self.expect_punct(Punct::Colon)?;
        let v = self.type_expr()?;
        Ok((k, v))
    }

    fn tree_decl(&mut self) -> PResult<Item> {
        let start = self.span();
        let is_abstract = self.eat_kw(Keyword::Abstract);
        self.expect_kw(Keyword::Tree)?;
        let name = self.ident("a tree type name")?;
        let base = if self.eat_punct(Punct::Colon) {
            Some(self.ident("a base type name")?)
        } else {
            None
        };
        let open = self.expect_punct(Punct::LBrace)?;
        let mut members = Vec::new();
        while !self.at_punct(Punct::RBrace) {
            if *self.peek() == TokenKind::Eof || (self.at_item_start() && !self.at_keyword_field())
            {
                // An unclosed body ends where the next item starts; the
                // tree keeps the members read so far.
                self.unclosed(open);
                return Ok(Item::Tree(TreeDecl {
                    is_abstract,
                    name,
                    base,
                    members,
                    span: start.to(self.prev_span()),
                }));
            }
            let before = self.pos;
            match self.tree_member() {
                Ok(m) => members.push(m),
                Err(Reported) => {
                    // Skip to the end of this member: `;` or a balanced `}`.
                    if self.pos == before {
                        self.bump();
                    }
                    self.depth = 0;
                    self.skip_statement(before);
                }
            }
        }
        self.bump();
        Ok(Item::Tree(TreeDecl {
            is_abstract,
            name,
            base,
            members,
            span: start.to(self.prev_span()),
        }))
    }

    fn tree_member(&mut self) -> PResult<TreeMember> {
        let start = self.span();
        if !self.at_keyword_field() && self.eat_kw(Keyword::Child) {
            let name = self.ident("a child name")?;
            self.expect_punct(Punct::Colon)?;
            let ty = self.type_expr()?;
            self.expect_punct(Punct::Semi)?;
            return Ok(TreeMember::Child {
                name,
                ty,
                span: start.to(self.prev_span()),
            });
        }
        if !self.at_keyword_field() && self.at_kw(Keyword::Traversal) {
            return Ok(TreeMember::Traversal(self.traversal_decl()?));
        }
        let name = self.ident("a field, `child` or `traversal`")?;
        if self.eat_punct(Punct::Assign) {
            // `name = default;`: a subtype's default for an inherited field.
            let value = self.expr(Restriction::None)?;
            self.expect_punct(Punct::Semi)?;
            return Ok(TreeMember::Default {
                name,
                value,
                span: start.to(self.prev_span()),
            });
        }
        self.expect_punct(Punct::Colon)?;
        let ty = self.type_expr()?;
        let default = if self.eat_punct(Punct::Assign) {
            Some(self.expr(Restriction::None)?)
        } else {
            None
        };
        self.expect_punct(Punct::Semi)?;
        Ok(TreeMember::Data {
            name,
            ty,
            default,
            span: start.to(self.prev_span()),
        })
    }

    /// `traversal NAME(params) { body }`, `traversal NAME(params);` or
    /// `traversal NAME(params) walk;` (`walk` is a word only here).
    fn traversal_decl(&mut self) -> PResult<TraversalDecl> {
        let start = self.span();
        self.expect_kw(Keyword::Traversal)?;
        let name = self.ident("a traversal name")?;
        self.expect_punct(Punct::LParen)?;
        let params = self.comma_list(Punct::RParen, |p| p.param())?;
        let mut is_walk = false;
        let body = if self.eat_punct(Punct::Semi) {
            None
        } else if self.at_word("walk") && *self.peek_at(1) == TokenKind::Punct(Punct::Semi) {
            let walk = self.bump().span;
            self.bump();
            is_walk = true;
            Some(Block {
                stmts: vec![Stmt {
                    kind: StmtKind::Walk(None),
                    span: walk.to(self.prev_span()),
                }],
                span: walk.to(self.prev_span()),
            })
        } else {
            Some(self.block()?)
        };
        Ok(TraversalDecl {
            name,
            params,
            body,
            is_walk,
            span: start.to(self.prev_span()),
        })
    }

    /// Whether the next token is the identifier `word` (a contextual word
    /// such as `walk`, `impl` or `limit`).
    fn at_word(&self, word: &str) -> bool {
        matches!(self.peek(), TokenKind::Ident(n) if n == word)
    }

    /// Whether an `impl` block starts here: `impl NAME {`.
    fn at_impl(&self) -> bool {
        self.at_word("impl")
            && matches!(self.peek_at(1), TokenKind::Ident(_))
            && *self.peek_at(2) == TokenKind::Punct(Punct::LBrace)
    }

    /// `impl NAME { traversal* }`.
    fn impl_decl(&mut self) -> PResult<Item> {
        let start = self.bump().span;
        let ty = self.ident("a tree type name")?;
        let open = self.expect_punct(Punct::LBrace)?;
        let mut traversals = Vec::new();
        while !self.at_punct(Punct::RBrace) {
            if *self.peek() == TokenKind::Eof || self.at_item_start() {
                self.unclosed(open);
                return Ok(Item::Impl(ImplDecl {
                    ty,
                    traversals,
                    span: start.to(self.prev_span()),
                }));
            }
            let before = self.pos;
            if !self.at_kw(Keyword::Traversal) {
                let e = self.error_here("`traversal` (an `impl` block holds traversals only)");
                if self.pos == before {
                    self.bump();
                }
                self.skip_statement(before);
                let _ = e;
                continue;
            }
            match self.traversal_decl() {
                Ok(t) => traversals.push(t),
                Err(Reported) => {
                    if self.pos == before {
                        self.bump();
                    }
                    self.depth = 0;
                    self.skip_statement(before);
                }
            }
        }
        self.bump();
        Ok(Item::Impl(ImplDecl {
            ty,
            traversals,
            span: start.to(self.prev_span()),
        }))
    }

    fn pure_fn(&mut self) -> PResult<Item> {
        let start = self.span();
        self.expect_kw(Keyword::Pure)?;
        self.expect_kw(Keyword::Fn)?;
        let name = self.ident("a function name")?;
        self.expect_punct(Punct::LParen)?;
        let params = self.comma_list(Punct::RParen, |p| p.param())?;
        self.expect_punct(Punct::Arrow)?;
        let ret = self.type_expr()?;
        let body = if self.eat_punct(Punct::Semi) {
            PureBody::Host
        } else if self.eat_punct(Punct::Assign) {
            let e = self.expr(Restriction::None)?;
            self.expect_punct(Punct::Semi)?;
            PureBody::Expr(e)
        } else if self.at_punct(Punct::LBrace) {
            PureBody::Block(self.block()?)
        } else {
            return Err(self.error_here("`=`, `{` or `;`"));
        };
        Ok(Item::PureFn(PureFnDecl {
            name,
            params,
            ret,
            body,
            span: start.to(self.prev_span()),
        }))
    }

    // ----- statements --------------------------------------------------

    fn block(&mut self) -> PResult<Block> {
        let start = self.span();
        let after_params =
            self.tokens[self.pos.saturating_sub(1)].kind == TokenKind::Punct(Punct::RParen);
        if !after_params && !self.line_break_before[self.pos] {
            self.expect_punct(Punct::LBrace)?;
        } else if !self.eat_punct(Punct::LBrace) {
            // A `{` forgotten after a parameter list or at the end of a
            // line: report it and read the statements that follow as the
            // block's, up to its `}`. (Elsewhere in an `if` or `for` head
            // the head itself is likelier wrong; the statement is skipped.)
            self.error_here("`{`");
            if *self.peek() == TokenKind::Eof || self.at_member_or_item_start() {
                return Ok(Block {
                    stmts: Vec::new(),
                    span: start,
                });
            }
        }
        self.enter()?;
        let mut stmts = Vec::new();
        while !self.at_punct(Punct::RBrace) {
            if *self.peek() == TokenKind::Eof || self.at_member_or_item_start() {
                // An unclosed block ends where the next member or item
                // starts (or at the end of the file); what follows is
                // read as the members and items it looks like.
                self.leave();
                self.unclosed(start);
                return Ok(Block {
                    stmts,
                    span: start.to(self.prev_span()),
                });
            }
            let before = self.pos;
            match self.stmt() {
                Ok(s) => stmts.push(s),
                Err(Reported) => {
                    if self.depth > MAX_NESTING || *self.peek() == TokenKind::Eof {
                        self.leave();
                        return Err(Reported);
                    }
                    if self.pos == before {
                        self.bump();
                    }
                    self.skip_statement(before);
                }
            }
        }
        self.leave();
        let end = self.bump().span;
        Ok(Block {
            stmts,
            span: start.to(end),
        })
    }

    /// Reports a block or body whose `{` (at `open`) is not closed, once
    /// per position (nested blocks end at the same token).
    fn unclosed(&mut self, open: Span) {
        let here = self.span();
        let at_end = *self.peek() == TokenKind::Eof;
        // At the end of the file after an earlier error, that error (an
        // unterminated string, a skipped statement) likely took the `}`.
        if self.diagnostics.iter().any(|d| d.span == here)
            || (at_end && !self.diagnostics.is_empty())
        {
            return;
        }
        let before = self.diagnostics.len();
        self.error_here("`}`");
        if let Some(d) = self.diagnostics.get_mut(before) {
            d.labels.push(crate::diag::Label {
                span: open,
                message: "this `{` is not closed".to_string(),
            });
        }
    }

    /// Error recovery inside a block: skip past the next `;` at this
    /// nesting level, or stop before the `}` that closes the block or
    /// before a token that starts a member or item. The statement started
    /// at token `from`; braces it opened before the error (a record
    /// value, an `if` block) are closed first, and a `}` that ends the
    /// statement takes a following `else` branch and `;` with it.
    fn skip_statement(&mut self, from: usize) {
        let mut braces = 0usize;
        for t in &self.tokens[from..self.pos] {
            match t.kind {
                TokenKind::Punct(Punct::LBrace) => braces += 1,
                TokenKind::Punct(Punct::RBrace) => braces = braces.saturating_sub(1),
                _ => {}
            }
        }
        loop {
            if braces == 0 && self.at_member_or_item_start() {
                return;
            }
            match self.peek() {
                TokenKind::Eof => return,
                TokenKind::Punct(Punct::LBrace) => braces += 1,
                TokenKind::Punct(Punct::RBrace) => {
                    if braces == 0 {
                        return;
                    }
                    braces -= 1;
                    if braces == 0 {
                        self.bump();
                        if self.at_kw(Keyword::Else) {
                            continue;
                        }
                        self.eat_punct(Punct::Semi);
                        return;
                    }
                }
                TokenKind::Punct(Punct::Semi) if braces == 0 => {
                    self.bump();
                    return;
                }
                _ => {}
            }
            self.bump();
        }
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        let start = self.span();
        let kind = match self.peek() {
            TokenKind::Keyword(Keyword::Let) => {
                self.bump();
                let name = self.ident("a variable name")?;
                let ty = if self.eat_punct(Punct::Colon) {
                    Some(self.type_expr()?)
                } else {
                    None
                };
                self.expect_punct(Punct::Assign)?;
                let init = self.expr(Restriction::None)?;
                self.expect_punct(Punct::Semi)?;
                StmtKind::Let { name, ty, init }
            }
            TokenKind::Keyword(Keyword::If) => return self.if_stmt(),
            TokenKind::Keyword(Keyword::For) => {
                self.bump();
                let var = self.ident("a loop variable")?;
                self.expect_kw(Keyword::In)?;
                let first = self.expr(Restriction::NoRecord)?;
                let iter = if self.eat_punct(Punct::DotDot) {
                    ForIter::Range(first, self.expr(Restriction::NoRecord)?)
                } else {
                    ForIter::Expr(first)
                };
                let body = self.block()?;
                StmtKind::For { var, iter, body }
            }
            TokenKind::Keyword(Keyword::While) => {
                self.bump();
                let cond = self.expr(Restriction::NoRecord)?;
                let limit = self.while_limit()?;
                let body = self.block()?;
                StmtKind::While { cond, limit, body }
            }
            // `break;` ends a `while` loop (§8.6); `break` stays an
            // ordinary name, so only `break` directly followed by `;` is
            // the statement (`break = 1;`, `break.f();` are not).
            TokenKind::Ident(n)
                if n == "break" && matches!(self.peek_at(1), TokenKind::Punct(Punct::Semi)) =>
            {
                self.bump();
                self.bump();
                StmtKind::Break
            }
            // `walk;` and `walk(args);` (a call of a traversal named `walk`
            // has a receiver: `self.walk();`).
            TokenKind::Ident(n)
                if n == "walk"
                    && matches!(
                        self.peek_at(1),
                        TokenKind::Punct(Punct::Semi | Punct::LParen)
                    ) =>
            {
                self.bump();
                let args = if self.eat_punct(Punct::LParen) {
                    Some(self.comma_list(Punct::RParen, |p| p.expr(Restriction::None))?)
                } else {
                    None
                };
                self.expect_punct(Punct::Semi)?;
                StmtKind::Walk(args)
            }
            TokenKind::Keyword(Keyword::Return) => {
                self.bump();
                let value = if self.at_punct(Punct::Semi) {
                    None
                } else {
                    Some(self.expr(Restriction::None)?)
                };
                self.expect_punct(Punct::Semi)?;
                StmtKind::Return(value)
            }
            _ => {
                self.call_at = Some(self.pos);
                let target = self.expr(Restriction::None);
                self.call_at = None;
                let target = target?;
                if self.eat_punct(Punct::Assign) {
                    let value = self.expr(Restriction::None)?;
                    self.expect_punct(Punct::Semi)?;
                    StmtKind::Assign { target, value }
                } else {
                    // A statement expression must be a traversing call:
                    // `receiver.method(args)`, parsed as a method call.
                    let kind = match target.kind {
                        ExprKind::Call(..) | ExprKind::Field(..)
                            if self.is_method_call(&target) =>
                        {
                            self.method_call(target)
                        }
                        _ => {
                            self.diagnostics.push(
                                Diagnostic::error(
                                    "syntax",
                                    target.span,
                                    "expected a statement: a traversing call, `let`, an assignment, `if`, `for` or `return`",
                                )
                                .with_span_label("this expression is not a statement"),
                            );
                            return Err(Reported);
                        }
                    };
                    self.expect_punct(Punct::Semi)?;
                    kind
                }
            }
        };
        Ok(Stmt {
            kind,
            span: start.to(self.prev_span()),
        })
    }

    fn is_method_call(&self, e: &Expr) -> bool {
        matches!(&e.kind, ExprKind::Call(name, _) if name.name.starts_with('\u{0}'))
    }

    fn method_call(&mut self, e: Expr) -> StmtKind {
        // Method calls are encoded by `postfix` as `Call` whose name starts
        // with NUL and whose first argument is the receiver; unwrap here.
        match e.kind {
            ExprKind::Call(name, mut args) => {
                let receiver = args.remove(0);
                StmtKind::Call {
                    receiver,
                    method: Ident {
                        name: name.name[1..].to_string(),
                        span: name.span,
                    },
                    args,
                }
            }
            _ => unreachable!("is_method_call checked the shape"),
        }
    }

    fn if_stmt(&mut self) -> PResult<Stmt> {
        let start = self.expect_kw(Keyword::If)?;
        let cond = self.expr(Restriction::NoRecord)?;
        let then_block = self.block()?;
        let else_block = if self.eat_kw(Keyword::Else) {
            if self.at_kw(Keyword::If) {
                self.enter()?;
                let nested = self.if_stmt();
                self.leave();
                let nested = nested?;
                let span = nested.span;
                Some(Block {
                    stmts: vec![nested],
                    span,
                })
            } else {
                Some(self.block()?)
            }
        } else {
            None
        };
        Ok(Stmt {
            kind: StmtKind::If {
                cond,
                then_block,
                else_block,
            },
            span: start.to(self.prev_span()),
        })
    }

    // ----- expressions -------------------------------------------------

    /// An element of a list value `[..]`: an expression, or a spread
    /// `..PATH` of a list child (LANGUAGE.md §7.2).
    fn list_element(&mut self) -> PResult<Expr> {
        if self.at_punct(Punct::DotDot) {
            let start = self.bump().span;
            let inner = self.expr(Restriction::None)?;
            let span = start.to(inner.span);
            return Ok(Expr {
                kind: ExprKind::Spread(Box::new(inner)),
                span,
            });
        }
        self.expr(Restriction::None)
    }

    fn expr(&mut self, r: Restriction) -> PResult<Expr> {
        self.enter()?;
        let e = self.binary(0, r);
        self.leave();
        e
    }

    fn binary_op(&self) -> Option<(BinaryOp, u8)> {
        use BinaryOp::*;
        let op = match self.peek() {
            TokenKind::Punct(p) => match p {
                Punct::OrOr => (Or, 1),
                Punct::AndAnd => (And, 2),
                Punct::EqEq => (Eq, COMPARISON),
                Punct::NotEq => (Ne, COMPARISON),
                Punct::Lt => (Lt, COMPARISON),
                Punct::Le => (Le, COMPARISON),
                Punct::Gt => (Gt, COMPARISON),
                Punct::Ge => (Ge, COMPARISON),
                Punct::Pipe => (BitOr, 4),
                Punct::Caret => (BitXor, 5),
                Punct::Amp => (BitAnd, 6),
                Punct::Shl => (Shl, 7),
                Punct::Shr => (Shr, 7),
                Punct::Plus => (Add, 8),
                Punct::Minus => (Sub, 8),
                Punct::Star => (Mul, 9),
                Punct::Slash => (Div, 9),
                Punct::Percent => (Rem, 9),
                _ => return None,
            },
            _ => return None,
        };
        Some(op)
    }

    /// Precedence climbing; all operators are left-associative except the
    /// comparisons, which do not chain.
    ///
    /// Each operator of a chain nests the syntax tree one level deeper (the
    /// left operand is the whole chain so far), so each counts against
    /// [`MAX_NESTING`] like a parenthesis would: later stages recurse on
    /// the syntax tree.
    fn binary(&mut self, min_prec: u8, r: Restriction) -> PResult<Expr> {
        let mut lhs = self.unary(r)?;
        let mut chain = 0;
        let result = self.binary_chain(&mut lhs, min_prec, r, &mut chain);
        self.depth -= chain;
        result.map(|()| lhs)
    }

    fn binary_chain(
        &mut self,
        lhs: &mut Expr,
        min_prec: u8,
        r: Restriction,
        chain: &mut usize,
    ) -> PResult<()> {
        let mut last_comparison = false;
        while let Some((op, prec)) = self.binary_op() {
            if prec < min_prec {
                break;
            }
            let op_span = self.bump().span;
            if prec == COMPARISON && last_comparison {
                self.diagnostics.push(
                    Diagnostic::error("syntax", op_span, "comparison operators cannot be chained")
                        .with_note("use `&&` to combine comparisons, or parentheses"),
                );
                return Err(Reported);
            }
            self.enter()?;
            let rhs = self.binary(prec + 1, r);
            self.leave();
            let rhs = rhs?;
            last_comparison = prec == COMPARISON;
            let span = lhs.span.to(rhs.span);
            let left = std::mem::replace(
                lhs,
                Expr {
                    kind: ExprKind::Error,
                    span,
                },
            );
            lhs.kind = ExprKind::Binary(op, Box::new(left), Box::new(rhs));
            self.enter()?;
            *chain += 1;
        }
        Ok(())
    }

    fn unary(&mut self, r: Restriction) -> PResult<Expr> {
        let start = self.span();
        let op = if self.at_punct(Punct::Minus) {
            UnaryOp::Neg
        } else if self.at_punct(Punct::Bang) {
            UnaryOp::Not
        } else {
            return self.postfix(r);
        };
        self.bump();
        // `-9223372036854775808` is a literal, not the negation of an
        // out-of-range one.
        if op == UnaryOp::Neg {
            if let TokenKind::Int(v) = *self.peek() {
                if !matches!(
                    self.peek_at(1),
                    TokenKind::Punct(Punct::Dot | Punct::LBracket)
                ) && !matches!(self.peek_at(1), TokenKind::Keyword(Keyword::Is))
                {
                    let lit = self.bump().span;
                    let span = start.to(lit);
                    if v > (i64::MAX as u64) + 1 {
                        self.diagnostics.push(Diagnostic::error(
                            "syntax",
                            span,
                            "integer literal does not fit in i64",
                        ));
                        return Err(Reported);
                    }
                    return Ok(Expr {
                        kind: ExprKind::Int((v as i64).wrapping_neg()),
                        span,
                    });
                }
            }
        }
        self.enter()?;
        let operand = self.unary(r);
        self.leave();
        let operand = operand?;
        let span = start.to(operand.span);
        Ok(Expr {
            kind: ExprKind::Unary(op, Box::new(operand)),
            span,
        })
    }

    /// Like an operator chain, each postfix step nests one level deeper.
    fn postfix(&mut self, r: Restriction) -> PResult<Expr> {
        let first = self.pos;
        let mut e = self.primary(r)?;
        let mut chain = 0;
        let result = self.postfix_chain(&mut e, first, &mut chain);
        self.depth -= chain;
        result.map(|()| e)
    }

    fn postfix_chain(&mut self, e: &mut Expr, first: usize, chain: &mut usize) -> PResult<()> {
        loop {
            if !matches!(
                self.peek(),
                TokenKind::Punct(Punct::Dot | Punct::LBracket) | TokenKind::Keyword(Keyword::Is)
            ) {
                return Ok(());
            }
            self.enter()?;
            *chain += 1;
            let base = std::mem::replace(
                e,
                Expr {
                    kind: ExprKind::Error,
                    span: Span::default(),
                },
            );
            *e = self.postfix_step(base, first)?;
        }
    }

    /// One `.name`, `.method(args)`, `[index]` or `is T` after `e`, which
    /// started at token `first`.
    fn postfix_step(&mut self, e: Expr, first: usize) -> PResult<Expr> {
        if self.eat_punct(Punct::Dot) {
            let name = self.member_ident("a field or traversal name")?;
            if !self.at_punct(Punct::LParen) {
                let span = e.span.to(name.span);
                return Ok(Expr {
                    kind: ExprKind::Field(Box::new(e), name),
                    span,
                });
            }
            // `recv.method(args)`: only valid as a statement.
            self.bump();
            let mut args = vec![e];
            args.extend(self.comma_list(Punct::RParen, |p| p.expr(Restriction::None))?);
            let span = args[0].span.to(self.prev_span());
            let at_statement_start = self.call_at == Some(first);
            if !at_statement_start || !self.at_punct(Punct::Semi) {
                let label = if at_statement_start {
                    "expected `;` after this call"
                } else {
                    "a traversal returns nothing"
                };
                self.diagnostics.push(
                    Diagnostic::error(
                        "syntax",
                        span,
                        "a traversing call is a statement, not a value",
                    )
                    .with_span_label(label),
                );
                return Err(Reported);
            }
            Ok(Expr {
                kind: ExprKind::Call(
                    Ident {
                        name: format!("\u{0}{}", name.name),
                        span: name.span,
                    },
                    args,
                ),
                span,
            })
        } else if self.eat_punct(Punct::LBracket) {
            let index = self.expr(Restriction::None)?;
            let end = self.expect_punct(Punct::RBracket)?;
            let span = e.span.to(end);
            Ok(Expr {
                kind: ExprKind::Index(Box::new(e), Box::new(index)),
                span,
            })
        } else {
            self.expect_kw(Keyword::Is)?;
            let ty = self.ident("a type name after `is`")?;
            let span = e.span.to(ty.span);
            Ok(Expr {
                kind: ExprKind::Is(Box::new(e), ty),
                span,
            })
        }
    }

    fn field_inits(&mut self) -> PResult<Vec<(Ident, Expr)>> {
        self.expect_punct(Punct::LBrace)?;
        self.comma_list(Punct::RBrace, |p| {
            let name = p.ident("a field name")?;
            p.expect_punct(Punct::Colon)?;
            let value = p.expr(Restriction::None)?;
            Ok((name, value))
        })
    }

    fn primary(&mut self, r: Restriction) -> PResult<Expr> {
        let start = self.span();
        let kind = match self.peek().clone() {
            TokenKind::Int(v) => {
                self.bump();
                if v > i64::MAX as u64 {
                    self.diagnostics.push(Diagnostic::error(
                        "syntax",
                        start,
                        "integer literal does not fit in i64",
                    ));
                    return Err(Reported);
                }
                ExprKind::Int(v as i64)
            }
            TokenKind::Float(v) => {
                self.bump();
                ExprKind::Float(v)
            }
            TokenKind::Str(s) => {
                self.bump();
                ExprKind::Str(s)
            }
            TokenKind::Keyword(Keyword::True) => {
                self.bump();
                ExprKind::Bool(true)
            }
            TokenKind::Keyword(Keyword::False) => {
                self.bump();
                ExprKind::Bool(false)
            }
            TokenKind::Keyword(Keyword::SelfKw) => {
                self.bump();
                ExprKind::SelfRef
            }
            TokenKind::Keyword(Keyword::New) => {
                self.bump();
                let ty = self.ident("a tree type name after `new`")?;
                let inits = self.field_inits()?;
                ExprKind::New(ty, inits)
            }
            TokenKind::Keyword(Keyword::If) => {
                self.bump();
                let cond = self.expr(Restriction::NoRecord)?;
                self.expect_punct(Punct::LBrace)?;
                let then = self.expr(Restriction::None)?;
                self.expect_punct(Punct::RBrace)?;
                self.expect_kw(Keyword::Else)?;
                let els = if self.at_kw(Keyword::If) {
                    self.enter()?;
                    let e = self.primary(Restriction::None);
                    self.leave();
                    e?
                } else {
                    self.expect_punct(Punct::LBrace)?;
                    let e = self.expr(Restriction::None)?;
                    self.expect_punct(Punct::RBrace)?;
                    e
                };
                ExprKind::If(Box::new(cond), Box::new(then), Box::new(els))
            }
            TokenKind::Punct(Punct::LParen) => {
                self.bump();
                let inner = self.expr(Restriction::None)?;
                if self.eat_kw(Keyword::As) {
                    let ty = self.ident("a type name after `as`")?;
                    self.expect_punct(Punct::RParen)?;
                    ExprKind::As(Box::new(inner), ty)
                } else {
                    self.expect_punct(Punct::RParen)?;
                    ExprKind::Paren(Box::new(inner))
                }
            }
            TokenKind::Punct(Punct::LBracket) => {
                self.bump();
                ExprKind::Array(self.comma_list(Punct::RBracket, |p| p.list_element())?)
            }
            TokenKind::Punct(Punct::LBrace) => {
                self.bump();
                let entries = self.comma_list(Punct::RBrace, |p| {
                    let k = p.expr(Restriction::None)?;
                    p.expect_punct(Punct::Colon)?;
                    let v = p.expr(Restriction::None)?;
                    Ok((k, v))
                })?;
                if r == Restriction::NoRecord {
                    // As with record values: `{` here would open the block.
                    self.diagnostics.push(
                        Diagnostic::error(
                            "syntax",
                            start.to(self.prev_span()),
                            "a map value cannot stand directly as the condition of `if`, the range of `for` or the value of `match`",
                        )
                        .with_span_label("put this map value in parentheses"),
                    );
                }
                ExprKind::Map(entries)
            }
            TokenKind::Keyword(Keyword::Match) => {
                self.bump();
                let scrutinee = self.expr(Restriction::NoRecord)?;
                self.expect_punct(Punct::LBrace)?;
                let arms = self.comma_list(Punct::RBrace, |p| p.match_arm())?;
                ExprKind::Match(Box::new(scrutinee), arms)
            }
            TokenKind::Ident(name) => {
                let ident = Ident {
                    name,
                    span: self.bump().span,
                };
                if self.eat_punct(Punct::ColonColon) {
                    let variant = self.ident("a variant name after `::`")?;
                    ExprKind::Variant(ident, variant)
                } else if self.at_punct(Punct::LParen) {
                    self.bump();
                    let args = self.comma_list(Punct::RParen, |p| p.expr(Restriction::None))?;
                    ExprKind::Call(ident, args)
                } else if r == Restriction::None
                    && self.at_punct(Punct::LBrace)
                    && self.looks_like_record_literal()
                {
                    let inits = self.field_inits()?;
                    ExprKind::Record(ident, inits)
                } else if self.at_punct(Punct::LBrace)
                    && matches!(
                        (self.peek_at(1), self.peek_at(2)),
                        (TokenKind::Ident(_), TokenKind::Punct(Punct::Colon))
                    )
                {
                    // `if R { f: e }.f {`: a block cannot start with
                    // `name:`, so this is a record value where `{` opens
                    // the block. Report it and read the record anyway.
                    let inits = self.field_inits()?;
                    let span = ident.span.to(self.prev_span());
                    self.diagnostics.push(
                        Diagnostic::error(
                            "syntax",
                            span,
                            "a record value cannot stand directly as the condition of `if` or the range of `for`",
                        )
                        .with_span_label("put this record value in parentheses"),
                    );
                    ExprKind::Record(ident, inits)
                } else {
                    ExprKind::Name(ident)
                }
            }
            // A keyword already reported as a name (`global tree: i64`)
            // reads as that name where it is used (`tree = tree + 1;`).
            TokenKind::Keyword(k) if self.keywords_as_names.contains(&k) => {
                ExprKind::Name(self.keyword_as_name(k, "an expression"))
            }
            _ => return Err(self.error_here("an expression")),
        };
        Ok(Expr {
            kind,
            span: start.to(self.prev_span()),
        })
    }

    /// `p1 | p2 => value`: patterns are unary expressions (literals,
    /// `-5`, `E::V`, `_`), checked by the semantic layer.
    fn match_arm(&mut self) -> PResult<MatchArm> {
        let start = self.span();
        let mut patterns = vec![self.unary(Restriction::NoRecord)?];
        while self.eat_punct(Punct::Pipe) {
            patterns.push(self.unary(Restriction::NoRecord)?);
        }
        self.expect_punct(Punct::FatArrow)?;
        let body = self.expr(Restriction::None)?;
        Ok(MatchArm {
            patterns,
            span: start.to(body.span),
            body,
        })
    }

    /// At `{` after a name: `{ }` or `{ ident :` starts a record literal.
    fn looks_like_record_literal(&self) -> bool {
        matches!(
            (self.peek_at(1), self.peek_at(2)),
            (TokenKind::Punct(Punct::RBrace), _)
                | (TokenKind::Ident(_), TokenKind::Punct(Punct::Colon))
        )
    }
}
