//! The lexer: source text to [`Token`]s.
//!
//! Hand-written because the token set is tiny and the lexer must never
//! fail hard: an unexpected character becomes an error token plus a
//! diagnostic, and lexing continues, so the parser can report several
//! problems in one run.

use crate::diag::Diagnostic;
use crate::span::Span;

/// The kinds of token.
#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind {
    /// An identifier (type names such as `i64` included).
    Ident(String),
    /// An integer literal, not yet range-checked against `i64`.
    Int(u64),
    /// A floating-point literal.
    Float(f64),
    /// A string literal with escapes resolved.
    Str(String),
    /// A keyword.
    Keyword(Keyword),
    /// Punctuation or an operator.
    Punct(Punct),
    /// Something that is not a token; already diagnosed.
    Error,
    /// End of input.
    Eof,
}

/// Reserved words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Keyword {
    Global,
    Record,
    Tree,
    Abstract,
    Child,
    Traversal,
    Pure,
    Fn,
    Fuse,
    Let,
    If,
    Else,
    For,
    In,
    Return,
    New,
    Is,
    As,
    SelfKw,
    True,
    False,
    Enum,
    Match,
    While,
}

impl Keyword {
    fn from_str(s: &str) -> Option<Keyword> {
        use Keyword::*;
        Some(match s {
            "global" => Global,
            "record" => Record,
            "tree" => Tree,
            "abstract" => Abstract,
            "child" => Child,
            "traversal" => Traversal,
            "pure" => Pure,
            "fn" => Fn,
            "fuse" => Fuse,
            "let" => Let,
            "if" => If,
            "else" => Else,
            "for" => For,
            "in" => In,
            "return" => Return,
            "new" => New,
            "is" => Is,
            "as" => As,
            "self" => SelfKw,
            "true" => True,
            "false" => False,
            "enum" => Enum,
            "match" => Match,
            "while" => While,
            _ => return None,
        })
    }

    /// The keyword as written.
    pub fn as_str(self) -> &'static str {
        use Keyword::*;
        match self {
            Global => "global",
            Record => "record",
            Tree => "tree",
            Abstract => "abstract",
            Child => "child",
            Traversal => "traversal",
            Pure => "pure",
            Fn => "fn",
            Fuse => "fuse",
            Let => "let",
            If => "if",
            Else => "else",
            For => "for",
            In => "in",
            Return => "return",
            New => "new",
            Is => "is",
            As => "as",
            SelfKw => "self",
            True => "true",
            False => "false",
            Enum => "enum",
            Match => "match",
            While => "while",
        }
    }
}

/// Punctuation and operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Punct {
    LBrace,
    RBrace,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Semi,
    Colon,
    Dot,
    DotDot,
    Arrow,
    Assign,
    EqEq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Bang,
    AndAnd,
    OrOr,
    Amp,
    Pipe,
    Caret,
    Shl,
    Shr,
    FatArrow,
    ColonColon,
    /// `?` (an optional child type `T?`, LANGUAGE §8.7).
    Question,
}

impl Punct {
    /// The punctuation as written.
    pub fn as_str(self) -> &'static str {
        use Punct::*;
        match self {
            LBrace => "{",
            RBrace => "}",
            LParen => "(",
            RParen => ")",
            LBracket => "[",
            RBracket => "]",
            Comma => ",",
            Semi => ";",
            Colon => ":",
            Dot => ".",
            DotDot => "..",
            Arrow => "->",
            Assign => "=",
            EqEq => "==",
            NotEq => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Plus => "+",
            Minus => "-",
            Star => "*",
            Slash => "/",
            Percent => "%",
            Bang => "!",
            AndAnd => "&&",
            OrOr => "||",
            Amp => "&",
            Pipe => "|",
            Caret => "^",
            Shl => "<<",
            Shr => ">>",
            FatArrow => "=>",
            ColonColon => "::",
            Question => "?",
        }
    }
}

/// A token and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Where it is.
    pub span: Span,
}

impl TokenKind {
    /// A short description for "expected X, found Y" messages.
    pub fn describe(&self) -> String {
        match self {
            TokenKind::Ident(s) => format!("identifier `{s}`"),
            TokenKind::Int(v) => format!("integer `{v}`"),
            TokenKind::Float(v) => format!("number `{v}`"),
            TokenKind::Str(_) => "string literal".to_string(),
            TokenKind::Keyword(k) => format!("keyword `{}`", k.as_str()),
            TokenKind::Punct(p) => format!("`{}`", p.as_str()),
            TokenKind::Error => "invalid token".to_string(),
            TokenKind::Eof => "end of file".to_string(),
        }
    }
}

/// Splits `source` into tokens, ending with [`TokenKind::Eof`]. Lexical
/// errors are appended to `diagnostics`.
pub fn lex(source: &str, diagnostics: &mut Vec<Diagnostic>) -> Vec<Token> {
    let mut lexer = Lexer {
        src: source,
        bytes: source.as_bytes(),
        pos: 0,
        tokens: Vec::new(),
        diagnostics,
    };
    lexer.run();
    lexer.tokens
}

struct Lexer<'a, 'd> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    tokens: Vec<Token>,
    diagnostics: &'d mut Vec<Diagnostic>,
}

impl Lexer<'_, '_> {
    fn peek(&self, ahead: usize) -> u8 {
        self.bytes.get(self.pos + ahead).copied().unwrap_or(0)
    }

    fn push(&mut self, kind: TokenKind, start: usize) {
        self.tokens.push(Token {
            kind,
            span: Span::new(start, self.pos),
        });
    }

    fn error(&mut self, start: usize, message: impl Into<String>) {
        self.diagnostics.push(Diagnostic::error(
            "syntax",
            Span::new(
                start,
                self.pos.max(start + 1).min(self.src.len().max(start)),
            ),
            message,
        ));
    }

    fn error_at(&mut self, span: Span, message: impl Into<String>) {
        self.diagnostics
            .push(Diagnostic::error("syntax", span, message));
    }

    fn run(&mut self) {
        // A byte-order mark, as some editors write, is not a token.
        if self.src.starts_with('\u{feff}') {
            self.pos = '\u{feff}'.len_utf8();
        }
        while self.pos < self.bytes.len() {
            let start = self.pos;
            let c = self.bytes[self.pos];
            match c {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'/' if self.peek(1) == b'/' => {
                    while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                b'/' if self.peek(1) == b'*' => {
                    self.pos += 2;
                    loop {
                        if self.pos >= self.bytes.len() {
                            self.error_at(
                                Span::new(start, start + 2),
                                "unterminated block comment",
                            );
                            break;
                        }
                        if self.bytes[self.pos] == b'*' && self.peek(1) == b'/' {
                            self.pos += 2;
                            break;
                        }
                        self.pos += 1;
                    }
                }
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                    while matches!(self.peek(0), b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_') {
                        self.pos += 1;
                    }
                    let text = &self.src[start..self.pos];
                    let kind = match Keyword::from_str(text) {
                        Some(k) => TokenKind::Keyword(k),
                        None => TokenKind::Ident(text.to_string()),
                    };
                    self.push(kind, start);
                }
                b'0'..=b'9' => self.number(start),
                b'"' => self.string(start),
                _ => self.punct(start, c),
            }
        }
        let end = self.bytes.len();
        self.tokens.push(Token {
            kind: TokenKind::Eof,
            span: Span::new(end, end),
        });
    }

    fn number(&mut self, start: usize) {
        while matches!(self.peek(0), b'0'..=b'9' | b'_') {
            self.pos += 1;
        }
        let mut is_float = false;
        // `1..n` is a range, not a float: a fraction needs a digit after `.`.
        if self.peek(0) == b'.' && self.peek(1).is_ascii_digit() {
            is_float = true;
            self.pos += 1;
            while matches!(self.peek(0), b'0'..=b'9' | b'_') {
                self.pos += 1;
            }
        }
        if matches!(self.peek(0), b'e' | b'E')
            && (self.peek(1).is_ascii_digit()
                || (matches!(self.peek(1), b'+' | b'-') && self.peek(2).is_ascii_digit()))
        {
            is_float = true;
            self.pos += 2;
            while self.peek(0).is_ascii_digit() {
                self.pos += 1;
            }
        }
        let suffix_start = self.pos;
        while matches!(self.peek(0), b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_') {
            self.pos += 1;
        }
        if self.pos > suffix_start {
            self.error(start, "invalid suffix on a number literal");
            self.push(TokenKind::Error, start);
            return;
        }
        let text: String = self.src[start..self.pos]
            .chars()
            .filter(|&c| c != '_')
            .collect();
        if is_float {
            match text.parse::<f64>() {
                Ok(v) if v.is_finite() => self.push(TokenKind::Float(v), start),
                _ => {
                    self.error(start, "float literal out of range");
                    self.push(TokenKind::Error, start);
                }
            }
        } else {
            match text.parse::<u64>() {
                Ok(v) => self.push(TokenKind::Int(v), start),
                Err(_) => {
                    self.error(start, "integer literal does not fit in i64");
                    self.push(TokenKind::Error, start);
                }
            }
        }
    }

    fn string(&mut self, start: usize) {
        self.pos += 1;
        let mut value = String::new();
        loop {
            let Some(c) = self.src[self.pos..].chars().next() else {
                self.error_at(Span::new(start, start + 1), "unterminated string literal");
                self.push(TokenKind::Error, start);
                return;
            };
            self.pos += c.len_utf8();
            match c {
                '"' => break,
                '\\' => {
                    let esc_start = self.pos - 1;
                    let Some(e) = self.src[self.pos..].chars().next() else {
                        continue;
                    };
                    self.pos += e.len_utf8();
                    match e {
                        'n' => value.push('\n'),
                        't' => value.push('\t'),
                        'r' => value.push('\r'),
                        '0' => value.push('\0'),
                        '\\' => value.push('\\'),
                        '"' => value.push('"'),
                        '\'' => value.push('\''),
                        'u' if self.peek(0) == b'{' => {
                            let digits_start = self.pos + 1;
                            // At most 8 characters to the `}`, so that a missing `}`
                            // does not reach into the rest of the file.
                            let close = self.src[digits_start..].find('}').filter(|&len| len <= 8);
                            let ch = close.and_then(|len| {
                                u32::from_str_radix(&self.src[digits_start..digits_start + len], 16)
                                    .ok()
                                    .and_then(char::from_u32)
                                    .map(|ch| (ch, len))
                            });
                            match ch {
                                Some((ch, len)) => {
                                    value.push(ch);
                                    self.pos = digits_start + len + 1;
                                }
                                None => {
                                    // Point at the whole `\u{..}` when it is closed.
                                    let end = close.map_or(self.pos, |len| digits_start + len + 1);
                                    self.error_at(
                                        Span::new(esc_start, end),
                                        "invalid unicode escape: expected `\\u{X}` with 1 to 6 hex digits of a Unicode scalar value",
                                    );
                                }
                            }
                        }
                        _ => self.error(esc_start, format!("unknown escape `\\{e}`")),
                    }
                }
                _ => value.push(c),
            }
        }
        self.push(TokenKind::Str(value), start);
    }

    fn punct(&mut self, start: usize, c: u8) {
        use Punct::*;
        let two = [c, self.peek(1)];
        let (p, len) = match &two {
            b".." => (DotDot, 2),
            b"->" => (Arrow, 2),
            b"==" => (EqEq, 2),
            b"!=" => (NotEq, 2),
            b"<=" => (Le, 2),
            b">=" => (Ge, 2),
            b"&&" => (AndAnd, 2),
            b"||" => (OrOr, 2),
            b"<<" => (Shl, 2),
            b">>" => (Shr, 2),
            b"=>" => (FatArrow, 2),
            b"::" => (ColonColon, 2),
            _ => {
                let p = match c {
                    b'{' => LBrace,
                    b'}' => RBrace,
                    b'(' => LParen,
                    b')' => RParen,
                    b'[' => LBracket,
                    b']' => RBracket,
                    b',' => Comma,
                    b';' => Semi,
                    b':' => Colon,
                    b'.' => Dot,
                    b'=' => Assign,
                    b'<' => Lt,
                    b'>' => Gt,
                    b'+' => Plus,
                    b'-' => Minus,
                    b'*' => Star,
                    b'/' => Slash,
                    b'%' => Percent,
                    b'!' => Bang,
                    b'&' => Amp,
                    b'|' => Pipe,
                    b'^' => Caret,
                    b'?' => Question,
                    _ => {
                        let ch = self.src[start..].chars().next().unwrap_or('?');
                        self.pos += ch.len_utf8();
                        self.error(
                            start,
                            format!("unexpected character `{}`", ch.escape_debug()),
                        );
                        self.push(TokenKind::Error, start);
                        return;
                    }
                };
                (p, 1)
            }
        };
        self.pos += len;
        self.push(TokenKind::Punct(p), start);
    }
}
