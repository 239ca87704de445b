//! What a scalar of Unity's YAML reads as.
//!
//! Unity writes one string in several forms: plain, single- or double-quoted, folded over
//! several lines, and a field that is empty as `key: ` in a block and as `key: ''` inside a
//! flow mapping (one editor writes `m_Calls` as a block sequence, another as a flow one). The
//! merge compares scalars by what they read as, so that two sides writing one value in two
//! forms agree, while each keeps its own bytes wherever it is taken.

use std::borrow::Cow;

/// The string `raw` (a scalar's text as the file writes it) reads as, by YAML's rules for flow
/// scalars: quotes and escapes undone, line breaks folded. `None` where it holds an escape
/// YAML does not know: such a scalar is compared by its text.
pub fn read_as(raw: &str) -> Option<Cow<'_, str>> {
    let t = raw.trim_matches([' ', '\t', '\r', '\n']);
    match t.as_bytes() {
        [b'\'', .., b'\''] if t.len() >= 2 => {
            let inner = &t[1..t.len() - 1];
            let folded = fold(inner);
            Some(if folded.contains("''") { Cow::Owned(folded.replace("''", "'")) } else { folded })
        }
        [b'"', .., b'"'] if t.len() >= 2 => double_quoted(&t[1..t.len() - 1]).map(Cow::Owned),
        _ => Some(fold(t)),
    }
}

/// Line breaks folded as YAML folds them in a flow scalar: a break between two lines reads as
/// a space, each empty line between them as a line feed; the spaces around a break are not
/// read.
fn fold(text: &str) -> Cow<'_, str> {
    if !text.contains('\n') {
        return Cow::Borrowed(text);
    }
    let lines: Vec<&str> = text.split('\n').collect();
    let last = lines.len() - 1;
    let mut out = String::with_capacity(text.len());
    let mut empty_lines = 0;
    for (i, line) in lines.iter().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let part = match i {
            0 => line.trim_end_matches([' ', '\t']),
            i if i == last => line.trim_start_matches([' ', '\t']),
            _ => line.trim_matches([' ', '\t']),
        };
        if i > 0 {
            if part.is_empty() && i != last {
                empty_lines += 1;
                continue;
            }
            join(&mut out, empty_lines);
            empty_lines = 0;
        }
        out.push_str(part);
    }
    Cow::Owned(out)
}

fn join(out: &mut String, empty_lines: usize) {
    if empty_lines == 0 {
        out.push(' ');
    } else {
        out.extend(std::iter::repeat_n('\n', empty_lines));
    }
}

/// The inside of a double-quoted scalar, folded and unescaped. A `\` ending a line joins it to
/// the next without a space.
fn double_quoted(inner: &str) -> Option<String> {
    let lines: Vec<&str> = inner.split('\n').collect();
    let last = lines.len() - 1;
    let mut out = String::with_capacity(inner.len());
    let mut empty_lines = 0;
    let mut joined_by_escape = false;
    for (i, line) in lines.iter().enumerate() {
        let mut part = line.strip_suffix('\r').unwrap_or(line);
        if i > 0 {
            part = part.trim_start_matches([' ', '\t']);
        }
        let escapes_break = i != last && ends_in_escape(part);
        if escapes_break {
            part = &part[..part.len() - 1];
        } else if i != last {
            part = part.trim_end_matches([' ', '\t']);
            if ends_in_escape(part) {
                // An escaped space or tab before the break: read by text instead.
                return None;
            }
        }
        if i > 0 && !joined_by_escape {
            if part.is_empty() && i != last {
                empty_lines += 1;
                continue;
            }
            join(&mut out, empty_lines);
            empty_lines = 0;
        }
        unescape(part, &mut out)?;
        joined_by_escape = escapes_break;
    }
    Some(out)
}

/// Whether `text` ends in a backslash that escapes what follows (an odd run of them).
fn ends_in_escape(text: &str) -> bool {
    text.bytes().rev().take_while(|&b| b == b'\\').count() % 2 == 1
}

fn unescape(text: &str, out: &mut String) -> Option<()> {
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let decoded = match chars.next()? {
            '0' => '\0',
            'a' => '\u{7}',
            'b' => '\u{8}',
            't' | '\t' => '\t',
            'n' => '\n',
            'v' => '\u{b}',
            'f' => '\u{c}',
            'r' => '\r',
            'e' => '\u{1b}',
            ' ' => ' ',
            '"' => '"',
            '/' => '/',
            '\\' => '\\',
            'N' => '\u{85}',
            '_' => '\u{a0}',
            'L' => '\u{2028}',
            'P' => '\u{2029}',
            'x' => hex(&mut chars, 2)?,
            'u' => hex(&mut chars, 4)?,
            'U' => hex(&mut chars, 8)?,
            _ => return None,
        };
        out.push(decoded);
    }
    Some(())
}

fn hex(chars: &mut std::str::Chars<'_>, digits: usize) -> Option<char> {
    let mut code = 0u32;
    for _ in 0..digits {
        code = code * 16 + chars.next()?.to_digit(16)?;
    }
    char::from_u32(code)
}

#[cfg(test)]
mod tests {
    use super::read_as;

    fn read(raw: &str) -> String {
        read_as(raw).expect("readable").into_owned()
    }

    #[test]
    fn an_empty_field_reads_alike_plain_and_quoted() {
        assert_eq!(read(""), "");
        assert_eq!(read("''"), "");
        assert_eq!(read("\"\""), "");
    }

    #[test]
    fn quotes_are_not_read_and_doubled_single_quotes_read_as_one() {
        assert_eq!(read("'UnityEngine.Object, UnityEngine'"), "UnityEngine.Object, UnityEngine");
        assert_eq!(read("'it''s'"), "it's");
        assert_eq!(read("plain text"), "plain text");
        assert_eq!(read("1.0"), "1.0");
        assert_ne!(read("1.0"), read("1.00"));
    }

    #[test]
    fn a_scalar_folded_over_lines_reads_as_one_line_whatever_its_form() {
        let plain = "Unity.Multiplayer.Samples.BossRoom.Visual.LobbyJoiningUI,\n          Unity.Multiplayer.Samples.BossRoom.Client";
        let quoted = "'Unity.Multiplayer.Samples.BossRoom.Visual.LobbyJoiningUI,\n            Unity.Multiplayer.Samples.BossRoom.Client'";
        let expected = "Unity.Multiplayer.Samples.BossRoom.Visual.LobbyJoiningUI, Unity.Multiplayer.Samples.BossRoom.Client";
        assert_eq!(read(plain), expected);
        assert_eq!(read(quoted), expected);
        assert_eq!(read("'a\r\n    b'"), "a b");
    }

    #[test]
    fn empty_lines_inside_a_folded_scalar_read_as_line_feeds() {
        assert_eq!(read("'first\n\n    second'"), "first\nsecond");
        assert_eq!(read("\"first\n\n\n    second\""), "first\n\nsecond");
        assert_eq!(read("'ends in a break\n    '"), "ends in a break ");
    }

    #[test]
    fn double_quoted_escapes_are_read() {
        assert_eq!(read(r#""tab\there \"q\" \\ \u00e9\x41""#), "tab\there \"q\" \\ éA");
        assert_eq!(read("\"joined\\\n    here\""), "joinedhere");
        assert_eq!(read(r#""\n""#), "\n");
        assert_ne!(read(r#""\\n""#), "\n");
    }

    #[test]
    fn an_escape_yaml_does_not_know_is_not_read() {
        assert!(read_as(r#""\q""#).is_none());
        assert!(read_as(r#""\u12""#).is_none());
        assert!(read_as("\"ends in\\ \n  a kept space\"").is_none());
    }
}
