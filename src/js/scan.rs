//! The one reader of JSON text (docs §2.1): [`scan`] reads a text as `JSON.parse` does and
//! tells a [`Build`] what it finds, piece by piece. The tree of [`crate::js::json::parse`] is
//! one builder, the flat document of [`crate::js::tape`] the other, so both accept the same
//! texts and refuse the others with the same message at the same byte. It knows nothing of
//! what the builders make.

use std::fmt;

/// Deepest nesting [`crate::js::json::parse`] (and the tape) accepts; deeper input is refused with a clear error rather than
/// exhausting the stack.
pub(crate) const MAX_DEPTH: usize = 512;

/// Bytes `JSON.stringify` escapes in a string: `"`, `\\` and the C0 controls.
pub(crate) const ESCAPED: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = true;
        byte += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// Why a text is not JSON, with the byte offset where reading stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub message: &'static str,
    pub offset: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid JSON: {} at byte {}", self.message, self.offset)
    }
}

impl std::error::Error for ParseError {}

/// What a reading of JSON text makes of what it reads, piece by piece in document order: a
/// tree of [`Value`]s for [`parse`], a flat document for the tape. [`scan`] is the one reader
/// of JSON text, so every form refuses the same texts with the same errors.
pub(crate) trait Build {
    /// What a value becomes.
    type Value;
    /// An array being read.
    type Array;
    /// An object being read.
    type Object;
    /// Why the reading stopped: at least a [`ParseError`].
    type Error: From<ParseError>;

    fn null(&mut self) -> Self::Value;
    fn boolean(&mut self, value: bool) -> Self::Value;
    fn number(&mut self, number: Number<'_>) -> Self::Value;
    /// A string literal: `source` is its text, quotes included; `decoded` its value when the
    /// literal holds an escape (without one, the value is `source` without the quotes).
    fn string(&mut self, source: &str, decoded: Option<String>) -> Self::Value;
    fn begin_array(&mut self) -> Self::Array;
    /// The comma between two items or two members.
    fn comma(&mut self);
    fn item(&mut self, array: &mut Self::Array, item: Self::Value);
    fn end_array(&mut self, array: Self::Array) -> Self::Value;
    fn begin_object(&mut self) -> Self::Object;
    /// A member's key (a string literal, as for [`Build::string`]), before its value.
    ///
    /// # Errors
    /// When the builder gives up on the object.
    fn key(
        &mut self,
        object: &mut Self::Object,
        source: &str,
        decoded: Option<String>,
    ) -> Result<(), Self::Error>;
    /// The value of the member whose key came last.
    fn member(&mut self, object: &mut Self::Object, value: Self::Value);
    /// # Errors
    /// When the builder gives up on the object.
    fn end_object(&mut self, object: Self::Object) -> Result<Self::Value, Self::Error>;
}

/// A number as read: its source text and its value as `JSON.parse` has it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Number<'a> {
    pub source: &'a str,
    pub value: f64,
    /// The source is already how `JSON.stringify` writes the value (a plain integer of at
    /// most 15 digits, other than `-0`).
    pub is_compact: bool,
}

/// Reads `text` as `JSON.parse` does, one value surrounded only by JSON whitespace, telling
/// `build` what it finds.
///
/// Returns the value and the builder.
///
/// # Errors
/// A [`ParseError`] naming the problem and its byte offset, or the builder's own.
pub(crate) fn scan<B: Build>(text: &str, build: B) -> Result<(B::Value, B), B::Error> {
    let mut scanner = Scanner {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        build,
    };
    scanner.skip_ws();
    let value = scanner.value(0)?;
    scanner.skip_ws();
    if scanner.pos < scanner.bytes.len() {
        return Err(scanner.error("unexpected text after the value").into());
    }
    Ok((value, scanner.build))
}

/// Where the JSON whitespace (space, tab, LF, CR) that starts at `at` ends.
#[inline]
fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(at) {
        at += 1;
    }
    at
}

/// The JSON number that starts at byte `at` of `bytes` (a `-` or a digit): where its integer
/// part ends and where the number ends.
///
/// # Errors
/// "invalid number" at the first byte the grammar refuses.
#[inline]
fn scan_number(bytes: &[u8], at: usize) -> Result<(usize, usize), ParseError> {
    let is_digit = |pos: usize| matches!(bytes.get(pos), Some(b'0'..=b'9'));
    let digits = |mut pos: usize| {
        while is_digit(pos) {
            pos += 1;
        }
        pos
    };
    let invalid = |offset| ParseError {
        message: "invalid number",
        offset,
    };
    let mut pos = at + usize::from(bytes.get(at) == Some(&b'-'));
    pos = match bytes.get(pos) {
        Some(b'0') => pos + 1,
        Some(b'1'..=b'9') => digits(pos),
        _ => return Err(invalid(pos)),
    };
    let integer_end = pos;
    if bytes.get(pos) == Some(&b'.') {
        if !is_digit(pos + 1) {
            return Err(invalid(pos + 1));
        }
        pos = digits(pos + 1);
    }
    if let Some(b'e' | b'E') = bytes.get(pos) {
        pos += 1;
        if let Some(b'+' | b'-') = bytes.get(pos) {
            pos += 1;
        }
        if !is_digit(pos) {
            return Err(invalid(pos));
        }
        pos = digits(pos);
    }
    Ok((integer_end, pos))
}

struct Scanner<'a, B> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    build: B,
}

impl<'a, B: Build> Scanner<'a, B> {
    fn error(&self, message: &'static str) -> ParseError {
        ParseError {
            message,
            offset: self.pos,
        }
    }

    fn skip_ws(&mut self) {
        self.pos = skip_whitespace(self.bytes, self.pos);
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn expect_literal(&mut self, literal: &str) -> Result<(), ParseError> {
        if self.bytes[self.pos..].starts_with(literal.as_bytes()) {
            self.pos += literal.len();
            Ok(())
        } else {
            Err(self.error("unexpected token"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<B::Value, B::Error> {
        match self.peek() {
            None => Err(self.error("unexpected end of input").into()),
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => {
                let (source, decoded) = self.string()?;
                Ok(self.build.string(source, decoded))
            }
            Some(b't') => {
                self.expect_literal("true")?;
                Ok(self.build.boolean(true))
            }
            Some(b'f') => {
                self.expect_literal("false")?;
                Ok(self.build.boolean(false))
            }
            Some(b'n') => {
                self.expect_literal("null")?;
                Ok(self.build.null())
            }
            Some(b'-' | b'0'..=b'9') => {
                let number = self.number()?;
                Ok(self.build.number(number))
            }
            Some(_) => Err(self.error("unexpected token").into()),
        }
    }

    fn object(&mut self, depth: usize) -> Result<B::Value, B::Error> {
        if depth > MAX_DEPTH {
            return Err(self.error("nesting too deep").into());
        }
        self.pos += 1;
        let mut object = self.build.begin_object();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return self.build.end_object(object);
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.error("expected a string key").into());
            }
            let (source, decoded) = self.string()?;
            self.build.key(&mut object, source, decoded)?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.error("expected ':' after a key").into());
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value(depth)?;
            self.build.member(&mut object, value);
            self.skip_ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.build.comma();
                }
                Some(b'}') => {
                    self.pos += 1;
                    return self.build.end_object(object);
                }
                None => return Err(self.error("unexpected end of input").into()),
                Some(_) => return Err(self.error("expected ',' or '}'").into()),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<B::Value, B::Error> {
        if depth > MAX_DEPTH {
            return Err(self.error("nesting too deep").into());
        }
        self.pos += 1;
        let mut array = self.build.begin_array();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(self.build.end_array(array));
        }
        loop {
            self.skip_ws();
            let item = self.value(depth)?;
            self.build.item(&mut array, item);
            self.skip_ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.build.comma();
                }
                Some(b']') => {
                    self.pos += 1;
                    return Ok(self.build.end_array(array));
                }
                None => return Err(self.error("unexpected end of input").into()),
                Some(_) => return Err(self.error("expected ',' or ']'").into()),
            }
        }
    }

    fn number(&mut self) -> Result<Number<'a>, ParseError> {
        let start = self.pos;
        let (integer_end, end) = scan_number(self.bytes, start)?;
        self.pos = end;
        let source = &self.text[start..end];
        let is_negative = self.bytes[start] == b'-';
        let digits = integer_end - start - usize::from(is_negative);
        // A plain integer of at most 15 digits is exact, and JavaScript writes it as it is
        // (but `-0` as `0`).
        if end == integer_end && digits <= 15 && source != "-0" {
            let magnitude = source[usize::from(is_negative)..]
                .bytes()
                .fold(0i64, |n, d| n * 10 + i64::from(d - b'0'));
            #[expect(clippy::cast_precision_loss, reason = "at most 15 digits: exact")]
            let value = if is_negative { -magnitude } else { magnitude } as f64;
            return Ok(Number {
                source,
                value,
                is_compact: true,
            });
        }
        // Rust's float parsing is correctly rounded and overflows to infinity, as V8's does.
        let value = source.parse::<f64>().map_err(|_| ParseError {
            message: "invalid number",
            offset: start,
        })?;
        Ok(Number {
            source,
            value,
            is_compact: false,
        })
    }

    /// The string literal at `pos`: its source text, and its value when it holds an escape.
    #[inline]
    fn string(&mut self) -> Result<(&'a str, Option<String>), ParseError> {
        let open = self.pos;
        // The bytes a string literal may hold as they are: skip them in one tight loop.
        let mut end = open + 1;
        while self
            .bytes
            .get(end)
            .is_some_and(|&b| !ESCAPED[usize::from(b)])
        {
            end += 1;
        }
        if self.bytes.get(end) == Some(&b'"') {
            // No escape (the usual case): the value is the source's inside.
            self.pos = end + 1;
            return Ok((&self.text[open..self.pos], None));
        }
        self.pos = end;
        self.escaped_string(open)
    }

    /// The rest of the string literal that opens at `open`, from its first escape (or the
    /// byte that ends it too early) at `pos`.
    fn escaped_string(&mut self, open: usize) -> Result<(&'a str, Option<String>), ParseError> {
        let mut out = String::new();
        let mut start = open + 1;
        loop {
            while self
                .bytes
                .get(self.pos)
                .is_some_and(|&b| !ESCAPED[usize::from(b)])
            {
                self.pos += 1;
            }
            let Some(byte) = self.peek() else {
                return Err(self.error("unterminated string"));
            };
            match byte {
                b'"' => {
                    out.push_str(&self.text[start..self.pos]);
                    self.pos += 1;
                    return Ok((&self.text[open..self.pos], Some(out)));
                }
                b'\\' => {
                    out.push_str(&self.text[start..self.pos]);
                    self.pos += 1;
                    self.escape(&mut out)?;
                    start = self.pos;
                }
                0..=0x1f => return Err(self.error("control character in string")),
                _ => self.pos += 1,
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), ParseError> {
        let Some(byte) = self.peek() else {
            return Err(self.error("unterminated string"));
        };
        self.pos += 1;
        let c = match byte {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = self.hex4()?;
                if (0xd800..0xdc00).contains(&unit) {
                    let at = self.pos;
                    if self.bytes[self.pos..].starts_with(b"\\u") {
                        self.pos += 2;
                        let low = self.hex4()?;
                        if (0xdc00..0xe000).contains(&low) {
                            let c = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
                            out.push(char::from_u32(c).expect("valid surrogate pair"));
                            return Ok(());
                        }
                    }
                    return Err(ParseError {
                        message: "lone surrogate in string escape",
                        offset: at,
                    });
                }
                char::from_u32(unit).ok_or(ParseError {
                    message: "lone surrogate in string escape",
                    offset: self.pos,
                })?
            }
            _ => {
                self.pos -= 1;
                return Err(self.error("invalid escape in string"));
            }
        };
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let digits = self
            .bytes
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.error("invalid unicode escape"))?;
        let mut unit = 0;
        for &d in digits {
            let v = char::from(d)
                .to_digit(16)
                .ok_or_else(|| self.error("invalid unicode escape"))?;
            unit = unit * 16 + v;
        }
        self.pos += 4;
        Ok(unit)
    }
}
