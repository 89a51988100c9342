//! A streaming, non-recursive JSON pull parser that knows where it is.
//!
//! Trees are read in one pass straight from the input into the store, so
//! the reader needs three things no general JSON crate gives together:
//! it must not recurse (documents nested a million levels deep are valid
//! input), it must stream (holding a 700 MB document in memory would
//! cost more than the tree), and every error must carry a 1-based line
//! and column and the JSON path of the value being read
//! (`$.content.next[2].width`). It must also be fast: at a few hundred MB/s
//! reading JSON is no longer the larger part of `treefuse run`. (The
//! `struson` crate, used before, streams and tracks paths but skips
//! documents at about 115 MB/s; serde_json recurses on nesting.)
//!
//! [`Lexer`] turns bytes into [`Token`]s and checks the grammar (commas,
//! colons, brackets, numbers, escapes, UTF-8) with a stack of open
//! containers. A token borrows from the input buffer (64 KiB to start
//! with): the buffer is compacted and refilled so that a token always
//! lies in one piece, and grown when a single token is longer than it.
//! Strings with escapes are decoded into a scratch buffer.
//!
//! [`JsonEvents`] sits on top: it tracks the JSON path of the tokens it
//! hands out, turns syntax errors into [`TreeInputError`]s carrying that
//! path, and lets a caller push tokens back ([`JsonEvents::push_back`]), so
//! that an object whose `"type"` key is not first can be read ahead and
//! then replayed with `"type"` first (the only place where order matters).

use super::TreeInputError;
use std::io::Read;

/// One JSON token. Strings and numbers borrow from the parser.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Token<'a> {
    BeginObject,
    EndObject,
    BeginArray,
    EndArray,
    /// A member name (the string before `:`).
    Name(&'a str),
    Str(&'a str),
    /// A number, exactly as written (checked against the JSON grammar).
    Number(&'a str),
    Bool(bool),
    Null,
}

impl Token<'_> {
    /// What the token starts, in words, for "expected X, found Y".
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            Token::Null => "null",
            Token::Bool(_) => "a boolean",
            Token::Number(_) => "a number",
            Token::Str(_) | Token::Name(_) => "a string",
            Token::BeginArray | Token::EndArray => "an array",
            Token::BeginObject | Token::EndObject => "an object",
        }
    }

    fn to_owned(self) -> OwnedToken {
        match self {
            Token::BeginObject => OwnedToken::BeginObject,
            Token::EndObject => OwnedToken::EndObject,
            Token::BeginArray => OwnedToken::BeginArray,
            Token::EndArray => OwnedToken::EndArray,
            Token::Name(s) => OwnedToken::Name(s.into()),
            Token::Str(s) => OwnedToken::Str(s.into()),
            Token::Number(s) => OwnedToken::Number(s.into()),
            Token::Bool(b) => OwnedToken::Bool(b),
            Token::Null => OwnedToken::Null,
        }
    }
}

/// A token kept for replay (see [`JsonEvents::push_back`]).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum OwnedToken {
    BeginObject,
    EndObject,
    BeginArray,
    EndArray,
    Name(Box<str>),
    Str(Box<str>),
    Number(Box<str>),
    Bool(bool),
    Null,
}

impl OwnedToken {
    fn borrow(&self) -> Token<'_> {
        match self {
            OwnedToken::BeginObject => Token::BeginObject,
            OwnedToken::EndObject => Token::EndObject,
            OwnedToken::BeginArray => Token::BeginArray,
            OwnedToken::EndArray => Token::EndArray,
            OwnedToken::Name(s) => Token::Name(s),
            OwnedToken::Str(s) => Token::Str(s),
            OwnedToken::Number(s) => Token::Number(s),
            OwnedToken::Bool(b) => Token::Bool(*b),
            OwnedToken::Null => Token::Null,
        }
    }
}

/// A grammar error: what is wrong, and the 1-based line and column of
/// the offending character (`None` for read errors, which have none).
#[derive(Debug)]
pub(crate) struct SyntaxError {
    pub message: String,
    pub line_col: Option<(u64, u64)>,
    /// The lexer was inside an array item not handed out yet (the path
    /// then points at that item).
    pub in_item: bool,
}

/// Where the lexer is between tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// A value (the document, an array item after `,`, a member value).
    Value,
    /// A value or `]` right after `[`.
    FirstItem,
    /// A member name or `}` right after `{`.
    FirstName,
    /// A member name after `,`.
    Name,
    /// The `:` after a member name (read with the value, so that the
    /// name's text stays in the buffer while the caller holds it).
    Colon,
    /// `,` or the closing bracket of the innermost container.
    CommaOrEnd,
    /// Nothing but whitespace: the document is complete.
    Done,
}

const INITIAL_BUFFER: usize = 64 * 1024;

/// The tokenizer (see the module docs).
pub(crate) struct Lexer<R> {
    input: R,
    buf: Vec<u8>,
    /// Next unread byte in `buf`.
    pos: usize,
    /// End of the valid bytes in `buf`.
    end: usize,
    eof: bool,
    /// Absolute offset of `buf[0]` in the document.
    base: u64,
    /// 0-based line of `pos`, and the absolute offset where it starts.
    line: u64,
    line_start: u64,
    /// Characters of the current line that were compacted out of `buf`
    /// (so columns count characters, not bytes, on long lines too).
    line_chars_dropped: u64,
    /// Open containers: `true` for an object.
    open: Vec<bool>,
    expect: Expect,
    scratch: Vec<u8>,
}

/// Bytes that end the fast scan of a string: `"`, `\` and control
/// characters.
static STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

impl<R: Read> Lexer<R> {
    pub(crate) fn new(input: R) -> Lexer<R> {
        Lexer {
            input,
            buf: vec![0; INITIAL_BUFFER],
            pos: 0,
            end: 0,
            eof: false,
            base: 0,
            line: 0,
            line_start: 0,
            line_chars_dropped: 0,
            open: Vec::new(),
            expect: Expect::Value,
            scratch: Vec::new(),
        }
    }

    /// The 1-based line and column of `buf[at]`.
    fn line_col(&self, at: usize) -> (u64, u64) {
        let abs = self.base + at as u64;
        let start_in_buf = self.line_start.saturating_sub(self.base) as usize;
        let upto = at.min(self.end);
        let chars = if start_in_buf <= upto {
            count_chars(&self.buf[start_in_buf..upto])
        } else {
            0
        };
        let col = if abs >= self.line_start {
            self.line_chars_dropped + chars as u64
        } else {
            0
        };
        (self.line + 1, col + 1)
    }

    fn error_at(&self, at: usize, message: impl Into<String>) -> SyntaxError {
        SyntaxError {
            message: message.into(),
            line_col: Some(self.line_col(at)),
            in_item: self.reading_item(),
        }
    }

    /// Makes at least `want` bytes from `start` available, moving them to
    /// the front of the buffer (which may grow). Returns the new index of
    /// `start`, and whether fewer bytes are available (the input ended).
    fn fill(&mut self, start: usize, want: usize) -> Result<(usize, bool), SyntaxError> {
        if self.end - start >= want {
            return Ok((start, false));
        }
        // Compact: drop what is before `start`.
        if start > 0 {
            let start_in_buf = self.line_start.saturating_sub(self.base) as usize;
            if start_in_buf < start {
                let dropped = &self.buf[start_in_buf..start];
                // (Checking for ASCII first is several times faster than
                // counting, and most documents are ASCII.)
                self.line_chars_dropped += if dropped.is_ascii() {
                    dropped.len()
                } else {
                    count_chars(dropped)
                } as u64;
            }
            self.buf.copy_within(start..self.end, 0);
            self.end -= start;
            self.pos -= start.min(self.pos);
            self.base += start as u64;
            if self.line_start < self.base {
                self.line_start = self.base;
            }
        }
        while self.end < want && !self.eof {
            if self.end == self.buf.len() {
                let grown = (self.buf.len() * 2).max(want);
                self.buf.resize(grown, 0);
            }
            match self.input.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(SyntaxError {
                        message: format!("cannot read the input: {e}"),
                        line_col: None,
                        in_item: false,
                    })
                }
            }
        }
        Ok((0, self.end < want))
    }

    /// The next byte that is not whitespace (not consumed), or `None` at
    /// the end of the input. Inlined for the common case, a token right
    /// here (compact JSON has no whitespace between tokens): about 3
    /// calls per token made this a tenth of the reader's instructions.
    #[inline(always)]
    pub(crate) fn peek_non_ws(&mut self) -> Result<Option<u8>, SyntaxError> {
        if let Some(&b) = self.buf[..self.end].get(self.pos) {
            if !matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
                return Ok(Some(b));
            }
        }
        self.skip_ws()
    }

    /// [`Self::peek_non_ws`] past whitespace or the end of the buffer.
    #[inline(never)]
    fn skip_ws(&mut self) -> Result<Option<u8>, SyntaxError> {
        loop {
            while self.pos < self.end {
                let b = self.buf[self.pos];
                match b {
                    b' ' | b'\t' | b'\r' => self.pos += 1,
                    b'\n' => {
                        self.pos += 1;
                        self.line += 1;
                        self.line_start = self.base + self.pos as u64;
                        self.line_chars_dropped = 0;
                    }
                    _ => return Ok(Some(b)),
                }
            }
            let (_, short) = self.fill(self.pos, 1)?;
            if short {
                return Ok(None);
            }
        }
    }

    /// Whether the document was complete and nothing but whitespace
    /// follows. Call after the last token.
    pub(crate) fn finish(&mut self) -> Result<(), SyntaxError> {
        match self.peek_non_ws()? {
            None if self.expect == Expect::Done => Ok(()),
            None => Err(self.error_at(self.pos, "the document ends too early")),
            Some(_) => Err(self.error_at(self.pos, "unexpected content after the document")),
        }
    }

    /// Whether the lexer is inside an array item it has not finished (a
    /// value is expected after `[` or `,`, or one is being read).
    fn reading_item(&self) -> bool {
        matches!(self.expect, Expect::Value | Expect::FirstItem) && self.open.last() == Some(&false)
    }

    /// Whether the input holds anything but whitespace.
    pub(crate) fn is_blank(&mut self) -> Result<bool, SyntaxError> {
        Ok(self.peek_non_ws()?.is_none())
    }

    /// The next token; `Ok(None)` only once the document is complete.
    pub(crate) fn next_token(&mut self) -> Result<Option<Token<'_>>, SyntaxError> {
        let Some(b) = self.peek_non_ws()? else {
            return if self.expect == Expect::Done {
                Ok(None)
            } else {
                Err(self.error_at(self.pos, "the document ends too early"))
            };
        };
        let at = self.pos;
        match self.expect {
            Expect::Done => Err(self.error_at(at, "unexpected content after the document")),
            Expect::CommaOrEnd => match b {
                b',' => {
                    self.pos += 1;
                    self.expect = if self.open.last() == Some(&true) {
                        Expect::Name
                    } else {
                        Expect::Value
                    };
                    self.after_comma()
                }
                b'}' | b']' => self.close(b),
                b'/' => Err(self.error_at(at, "comments are not allowed in JSON")),
                b':' => Err(self.error_at(at, "unexpected `:`")),
                _ => Err(self.error_at(at, "missing `,` between values")),
            },
            Expect::FirstName | Expect::Name => match b {
                b'"' => {
                    self.pos += 1;
                    let (start, len) = self.string_body()?;
                    self.expect = Expect::Colon;
                    Ok(Some(Token::Name(self.text(start, len)?)))
                }
                b'}' if self.expect == Expect::FirstName => self.close(b),
                b'}' => Err(self.error_at(at, "trailing `,` before a closing bracket")),
                b'/' => Err(self.error_at(at, "comments are not allowed in JSON")),
                _ => Err(self.error_at(at, "expected a member name in quotes or `}`")),
            },
            Expect::Colon if b == b':' => {
                self.pos += 1;
                self.expect = Expect::Value;
                self.next_token()
            }
            Expect::Colon => Err(self.error_at(at, "missing `:` after a member name")),
            Expect::FirstItem if b == b']' => self.close(b),
            Expect::Value | Expect::FirstItem => self.value(b, at),
        }
    }

    /// After a `,`: a closing bracket here is a trailing comma.
    fn after_comma(&mut self) -> Result<Option<Token<'_>>, SyntaxError> {
        match self.peek_non_ws()? {
            Some(b']') if self.expect == Expect::Value => {
                Err(self.error_at(self.pos, "trailing `,` before a closing bracket"))
            }
            _ => self.next_token(),
        }
    }

    fn close(&mut self, b: u8) -> Result<Option<Token<'_>>, SyntaxError> {
        let is_object = b == b'}';
        if self.open.last() != Some(&is_object) {
            return Err(self.error_at(self.pos, "unexpected closing bracket"));
        }
        self.pos += 1;
        self.open.pop();
        self.after_value();
        Ok(Some(if is_object {
            Token::EndObject
        } else {
            Token::EndArray
        }))
    }

    fn after_value(&mut self) {
        self.expect = if self.open.is_empty() {
            Expect::Done
        } else {
            Expect::CommaOrEnd
        };
    }

    fn value(&mut self, b: u8, at: usize) -> Result<Option<Token<'_>>, SyntaxError> {
        match b {
            b'{' => {
                self.pos += 1;
                self.open.push(true);
                self.expect = Expect::FirstName;
                Ok(Some(Token::BeginObject))
            }
            b'[' => {
                self.pos += 1;
                self.open.push(false);
                self.expect = Expect::FirstItem;
                Ok(Some(Token::BeginArray))
            }
            b'"' => {
                self.pos += 1;
                let (start, len) = self.string_body()?;
                self.after_value();
                Ok(Some(Token::Str(self.text(start, len)?)))
            }
            b'-' | b'0'..=b'9' => {
                let (start, len) = self.number(at)?;
                self.after_value();
                Ok(Some(Token::Number(self.text(start, len)?)))
            }
            b't' | b'f' | b'n' => {
                let token = self.literal(at)?;
                self.after_value();
                Ok(Some(token))
            }
            b'}' | b']' => Err(self.error_at(at, "unexpected closing bracket")),
            b',' => Err(self.error_at(at, "unexpected `,`")),
            b':' => Err(self.error_at(at, "unexpected `:`")),
            b'/' => Err(self.error_at(at, "comments are not allowed in JSON")),
            _ => Err(self.error_at(at, "expected a value")),
        }
    }

    /// The text of a token found by `string_body` or `number`: `start`
    /// indexes `buf`, or `scratch` when `start == usize::MAX`. This is
    /// where a string is checked to be UTF-8 (once, as it is handed out).
    fn text(&self, start: usize, len: usize) -> Result<&str, SyntaxError> {
        let bytes = if start == usize::MAX {
            &self.scratch[..len]
        } else {
            &self.buf[start..start + len]
        };
        if bytes.is_ascii() {
            // SAFETY: every byte is below 0x80, and a byte below 0x80 is
            // a whole UTF-8 sequence (a character of its own), so `bytes`
            // is valid UTF-8, which is all `from_utf8_unchecked` asks.
            // (`from_utf8` called per token, on keys, type names and
            // numbers of a few bytes, was a tenth of the reader's
            // instructions: `interp-bench`, README.)
            return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
        }
        std::str::from_utf8(bytes).map_err(|e| {
            let at = if start == usize::MAX {
                self.pos
            } else {
                start + e.valid_up_to()
            };
            self.error_at(at, "invalid UTF-8 in a string")
        })
    }

    /// Reads a string whose opening quote was consumed; returns where its
    /// decoded text is (see [`Lexer::text`]).
    fn string_body(&mut self) -> Result<(usize, usize), SyntaxError> {
        // Fast path: no escape, all in the buffer.
        let mut start = self.pos;
        let mut i = start;
        loop {
            // Over a slice: no bounds check per byte.
            i += stop_at(&self.buf[i..self.end]);
            if i < self.end {
                break;
            }
            // Ran out of buffer inside the string: keep it in one piece.
            let have = i - start;
            let (s, short) = self.fill(start, have + 1)?;
            start = s;
            i = start + have;
            if short {
                return Err(self.error_at(self.end, "the document ends too early"));
            }
        }
        match self.buf[i] {
            b'"' => {
                self.pos = i + 1;
                Ok((start, i - start))
            }
            b'\\' => self.escaped_string(start, i),
            _ => Err(self.error_at(i, "control character in a string (escape it)")),
        }
    }

    fn check_utf8(&self, start: usize, end: usize) -> Result<(), SyntaxError> {
        match std::str::from_utf8(&self.buf[start..end]) {
            Ok(_) => Ok(()),
            Err(e) => Err(self.error_at(start + e.valid_up_to(), "invalid UTF-8 in a string")),
        }
    }

    /// The slow path of a string: decodes escapes into `scratch`.
    /// `start..i` is the text before the first `\`.
    fn escaped_string(&mut self, start: usize, i: usize) -> Result<(usize, usize), SyntaxError> {
        self.check_utf8(start, i)?;
        self.scratch.clear();
        self.scratch.extend_from_slice(&self.buf[start..i]);
        self.pos = i;
        loop {
            let (_, short) = self.fill(self.pos, 1)?;
            if short {
                return Err(self.error_at(self.end, "the document ends too early"));
            }
            let b = self.buf[self.pos];
            match b {
                b'"' => {
                    self.pos += 1;
                    return Ok((usize::MAX, self.scratch.len()));
                }
                b'\\' => {
                    let (_, short) = self.fill(self.pos, 2)?;
                    if short {
                        return Err(self.error_at(self.end, "the document ends too early"));
                    }
                    let e = self.buf[self.pos + 1];
                    self.pos += 2;
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => {
                            return Err(
                                self.error_at(self.pos - 2, "invalid escape sequence in a string")
                            )
                        }
                    };
                    let mut utf8 = [0u8; 4];
                    self.scratch
                        .extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
                }
                0..=0x1f => {
                    return Err(self.error_at(self.pos, "control character in a string (escape it)"))
                }
                _ => {
                    // A run of plain characters, checked as UTF-8 in one go
                    // (a sequence never straddles the end of the buffer:
                    // a short run is extended by `fill` first).
                    let run_start = self.pos;
                    let j = run_start + stop_at(&self.buf[run_start..self.end]);
                    // A run cut by the end of the buffer may end inside a
                    // sequence: keep that tail for the next round.
                    let run_end = if j == self.end {
                        utf8_boundary(&self.buf[run_start..j]) + run_start
                    } else {
                        j
                    };
                    if run_end == run_start {
                        // An incomplete sequence at the end of the buffer.
                        let (_, short) = self.fill(self.pos, j - run_start + 4)?;
                        let complete = self.end - self.pos;
                        if short && complete == j - run_start {
                            self.check_utf8(self.pos, self.end)?;
                            return Err(self.error_at(self.end, "the document ends too early"));
                        }
                        continue;
                    }
                    self.check_utf8(run_start, run_end)?;
                    self.scratch
                        .extend_from_slice(&self.buf[run_start..run_end]);
                    self.pos = run_end;
                }
            }
        }
    }

    /// `\uXXXX` (with `\u` consumed), joined with a following `\uXXXX`
    /// when it is a surrogate pair.
    fn unicode_escape(&mut self) -> Result<char, SyntaxError> {
        let high = self.hex4()?;
        if !(0xD800..0xE000).contains(&high) {
            return char::from_u32(high)
                .ok_or_else(|| self.error_at(self.pos, "invalid escape sequence in a string"));
        }
        let unpaired = |lexer: &Self| lexer.error_at(lexer.pos, "unpaired UTF-16 surrogate escape");
        if high >= 0xDC00 {
            return Err(unpaired(self));
        }
        let (_, short) = self.fill(self.pos, 2)?;
        if short || &self.buf[self.pos..self.pos + 2] != b"\\u" {
            return Err(unpaired(self));
        }
        self.pos += 2;
        let low = self.hex4()?;
        if !(0xDC00..0xE000).contains(&low) {
            return Err(unpaired(self));
        }
        let c = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
        char::from_u32(c)
            .ok_or_else(|| self.error_at(self.pos, "invalid escape sequence in a string"))
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let (_, short) = self.fill(self.pos, 4)?;
        if short {
            return Err(self.error_at(self.end, "the document ends too early"));
        }
        let mut v = 0;
        for k in 0..4 {
            let d = (self.buf[self.pos + k] as char)
                .to_digit(16)
                .ok_or_else(|| {
                    self.error_at(self.pos + k, "invalid escape sequence in a string")
                })?;
            v = v * 16 + d;
        }
        self.pos += 4;
        Ok(v)
    }

    /// A number starting at `at`: checked against the JSON grammar and
    /// followed by a delimiter.
    fn number(&mut self, at: usize) -> Result<(usize, usize), SyntaxError> {
        let mut start = at;
        let mut len = 0;
        // Extend over every byte that can belong to a number, refilling
        // so that the number is in one piece.
        loop {
            while start + len < self.end && is_number_byte(self.buf[start + len]) {
                len += 1;
            }
            if start + len < self.end {
                break;
            }
            let (s, short) = self.fill(start, len + 1)?;
            start = s;
            if short {
                break;
            }
        }
        let text = &self.buf[start..start + len];
        if !valid_number(text) {
            return Err(self.error_at(start, "malformed number"));
        }
        self.pos = start + len;
        if self.pos < self.end && !is_delimiter(self.buf[self.pos]) {
            return Err(self.error_at(self.pos, "unexpected characters after a value"));
        }
        Ok((start, len))
    }

    fn literal(&mut self, at: usize) -> Result<Token<'static>, SyntaxError> {
        // Six bytes: `false` and the character after it.
        let (start, _) = self.fill(at, 6)?;
        let rest = &self.buf[start..self.end];
        let (token, len) = if rest.starts_with(b"true") {
            (Token::Bool(true), 4)
        } else if rest.starts_with(b"false") {
            (Token::Bool(false), 5)
        } else if rest.starts_with(b"null") {
            (Token::Null, 4)
        } else {
            return Err(self.error_at(
                start,
                "invalid literal (expected `true`, `false` or `null`)",
            ));
        };
        self.pos = start + len;
        if self.pos < self.end && !is_delimiter(self.buf[self.pos]) {
            return Err(self.error_at(self.pos, "unexpected characters after a value"));
        }
        Ok(token)
    }
}

/// The index of the first byte of `bytes` that ends a string's plain
/// run ([`STRING_STOP`]), `bytes.len()` if none does.
#[inline(always)]
fn stop_at(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .position(|&b| STRING_STOP[b as usize])
        .unwrap_or(bytes.len())
}

fn is_number_byte(b: u8) -> bool {
    matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
}

fn is_delimiter(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b',' | b']' | b'}')
}

/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
fn valid_number(t: &[u8]) -> bool {
    let mut i = 0;
    let digits = |i: &mut usize| {
        let s = *i;
        while *i < t.len() && t[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > s
    };
    if t.first() == Some(&b'-') {
        i += 1;
    }
    match t.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if t.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(t.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(t.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == t.len()
}

/// Characters (UTF-8 sequence starts) in `bytes`.
fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

/// The length of the longest prefix of `bytes` that does not end inside
/// a UTF-8 sequence.
fn utf8_boundary(bytes: &[u8]) -> usize {
    let n = bytes.len();
    // Look back at most 3 bytes for the start of the last sequence.
    for back in 1..=n.min(4) {
        let b = bytes[n - back];
        if b & 0xC0 != 0x80 {
            let need = match b {
                0x00..=0x7F => 1,
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                _ => 4,
            };
            return if need > back { n - back } else { n };
        }
    }
    n
}

// ----- paths and replay -------------------------------------------------

/// One open container on the path.
#[derive(Clone, Copy, Debug)]
struct Level {
    is_object: bool,
    /// Array: index of the current item, `u32::MAX` before the first.
    index: u32,
    /// Object: where the current member's name starts in `names`
    /// (`names.len()` when no name was read yet).
    name_start: u32,
    name_set: bool,
}

/// Tokens with their JSON path, and replay (see the module docs).
pub(crate) struct JsonEvents<R> {
    lexer: Lexer<R>,
    /// The path: one entry per open container.
    levels: Vec<Level>,
    /// The member names on the path, back to back.
    names: String,
    /// Tokens pushed back, the next one last.
    replay: Vec<OwnedToken>,
    /// The replayed token handed out last (borrowed by the caller).
    current: OwnedToken,
}

impl<R: Read> JsonEvents<R> {
    pub(crate) fn new(input: R) -> JsonEvents<R> {
        JsonEvents {
            lexer: Lexer::new(input),
            levels: Vec::new(),
            names: String::new(),
            replay: Vec::new(),
            current: OwnedToken::Null,
        }
    }

    /// Whether the input is only whitespace.
    pub(crate) fn is_blank(&mut self) -> Result<bool, TreeInputError> {
        self.lexer.is_blank().map_err(|e| self.syntax(e))
    }

    /// Checks that nothing follows the document.
    pub(crate) fn finish(&mut self) -> Result<(), TreeInputError> {
        self.lexer.finish().map_err(|e| self.syntax(e))
    }

    /// The JSON path of the value being read (`$.a.b[2]`).
    pub(crate) fn path(&self) -> String {
        render_path(&self.levels, &self.names, self.levels.len())
    }

    /// The JSON path of the innermost open container itself.
    pub(crate) fn container_path(&self) -> String {
        render_path(
            &self.levels,
            &self.names,
            self.levels.len().saturating_sub(1),
        )
    }

    /// An error at the current path.
    pub(crate) fn error(&self, message: impl Into<String>) -> TreeInputError {
        TreeInputError {
            path: self.path(),
            message: message.into(),
        }
    }

    fn syntax(&self, e: SyntaxError) -> TreeInputError {
        syntax_error(&self.levels, &self.names, e)
    }

    /// The next token, the path updated to it.
    pub(crate) fn next(&mut self) -> Result<Token<'_>, TreeInputError> {
        let token = match self.replay.pop() {
            Some(t) => {
                self.current = t;
                self.current.borrow()
            }
            None => match self.lexer.next_token() {
                Ok(Some(t)) => t,
                // Callers never ask past the end of a complete document.
                Ok(None) => {
                    return Err(TreeInputError {
                        path: "$".into(),
                        message: "unexpected end of the document".into(),
                    })
                }
                Err(e) => return Err(syntax_error(&self.levels, &self.names, e)),
            },
        };
        // (Split borrows: the token may borrow the lexer.)
        track(&mut self.levels, &mut self.names, token);
        Ok(token)
    }

    /// The next token without updating the path (for reading ahead).
    pub(crate) fn next_raw(&mut self) -> Result<OwnedToken, TreeInputError> {
        if let Some(t) = self.replay.pop() {
            return Ok(t);
        }
        match self.lexer.next_token() {
            Ok(Some(t)) => Ok(t.to_owned()),
            Ok(None) => Err(self.error("unexpected end of the document")),
            Err(e) => Err(self.syntax(e)),
        }
    }

    /// Makes `tokens` the next ones handed out, in order.
    pub(crate) fn push_back(&mut self, tokens: Vec<OwnedToken>) {
        self.replay.extend(tokens.into_iter().rev());
    }

    /// Whether the next token closes the innermost container (it is not
    /// consumed).
    pub(crate) fn at_end(&mut self) -> Result<bool, TreeInputError> {
        if let Some(t) = self.replay.last() {
            return Ok(matches!(t, OwnedToken::EndArray | OwnedToken::EndObject));
        }
        match self.lexer.peek_non_ws() {
            Ok(b) => Ok(matches!(b, Some(b']' | b'}'))),
            Err(e) => Err(self.syntax(e)),
        }
    }

    /// Skips the next value.
    pub(crate) fn skip_value(&mut self) -> Result<(), TreeInputError> {
        let mut depth = 0usize;
        loop {
            match self.next()? {
                Token::BeginObject | Token::BeginArray => depth += 1,
                Token::EndObject | Token::EndArray => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                return Ok(());
            }
        }
    }
}

/// The path of the first `depth` open containers.
fn render_path(levels: &[Level], names: &str, depth: usize) -> String {
    render_path_at(levels, names, depth, false)
}

/// [`render_path`], pointing into the next item of the innermost array
/// when `next_item` (a syntax error inside an item not handed out yet).
fn render_path_at(levels: &[Level], names: &str, depth: usize, next_item: bool) -> String {
    let mut out = String::from("$");
    for (i, level) in levels[..depth].iter().enumerate() {
        let level = &if next_item && i + 1 == depth && !level.is_object {
            Level {
                index: level.index.wrapping_add(1),
                ..*level
            }
        } else {
            *level
        };
        if level.is_object {
            if level.name_set {
                // The name runs to where the next object's names start.
                let end = levels[i + 1..]
                    .iter()
                    .find(|l| l.is_object)
                    .map_or(names.len(), |l| l.name_start as usize);
                out.push('.');
                out.push_str(&names[level.name_start as usize..end]);
            }
        } else if level.index != u32::MAX {
            out.push('[');
            out.push_str(&level.index.to_string());
            out.push(']');
        }
    }
    out
}

/// A syntax error as an input error at the current path.
fn syntax_error(levels: &[Level], names: &str, e: SyntaxError) -> TreeInputError {
    let message = match e.line_col {
        Some((line, col)) => format!("malformed JSON at line {line}, column {col}: {}", e.message),
        None => e.message,
    };
    TreeInputError {
        path: render_path_at(levels, names, levels.len(), e.in_item),
        message,
    }
}

/// Updates the path for `token` handed out next (inlined: it runs per
/// token).
#[inline(always)]
fn track(levels: &mut Vec<Level>, names: &mut String, token: Token) {
    match token {
        Token::Name(n) => {
            if let Some(level) = levels.last_mut() {
                names.truncate(level.name_start as usize);
                names.push_str(n);
                level.name_set = true;
            }
        }
        Token::EndObject | Token::EndArray => {
            if let Some(level) = levels.pop() {
                names.truncate(level.name_start as usize);
            }
        }
        _ => {
            // A value (or the start of one) in an array is its next item.
            if let Some(level) = levels.last_mut() {
                if !level.is_object {
                    level.index = level.index.wrapping_add(1);
                }
            }
            if let Token::BeginObject | Token::BeginArray = token {
                levels.push(Level {
                    is_object: token == Token::BeginObject,
                    index: u32::MAX,
                    name_start: names.len() as u32,
                    name_set: false,
                });
            }
        }
    }
}
