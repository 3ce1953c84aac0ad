//! A small PGN reader for the human-game converter: splits a PGN text into games (tag
//! pairs + movetext) and a movetext into SAN tokens with the `[%clk]` clock that follows
//! each move. It reads export-style PGN (Lichess, chess.com, TWIC): comments `{…}` and
//! `;…`, variations `(…)` (skipped), NAGs `$n`, move numbers and result tokens.

/// One game's text as found: tag pairs in order and the raw movetext.
#[derive(Debug, Clone, Default)]
pub struct PgnGame {
    pub tags: Vec<(String, String)>,
    pub movetext: String,
    /// 1-based line of the game's first line, for messages.
    pub line: usize,
}

impl PgnGame {
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// A move token and the mover's clock after it (tenths of a second) if a comment gave one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveToken {
    pub san: String,
    pub clock_tenths: Option<u32>,
}

fn parse_tag_line(line: &str) -> Option<(String, String)> {
    let inner = line.trim().strip_prefix('[')?.strip_suffix(']')?;
    let (key, rest) = inner.split_once(char::is_whitespace)?;
    let value = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    Some((key.to_string(), value.replace("\\\"", "\"")))
}

/// Splits PGN text into games. A tag line after movetext starts a new game; lines that
/// look like tags but do not parse are kept out of the movetext (the game is then judged
/// on what remains).
pub fn split_games(text: &str) -> Vec<PgnGame> {
    let mut games = Vec::new();
    let mut current = PgnGame::default();
    let mut in_movetext = false;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') && !trimmed.starts_with("[%") {
            if in_movetext {
                games.push(std::mem::take(&mut current));
                in_movetext = false;
            }
            if current.tags.is_empty() && current.movetext.is_empty() {
                current.line = index + 1;
            }
            if let Some(tag) = parse_tag_line(trimmed) {
                current.tags.push(tag);
            }
        } else if !trimmed.is_empty() {
            if current.tags.is_empty() && current.movetext.is_empty() {
                current.line = index + 1;
            }
            in_movetext = true;
            current.movetext.push_str(trimmed);
            current.movetext.push(' ');
        }
    }
    if !current.tags.is_empty() || !current.movetext.is_empty() {
        games.push(current);
    }
    games
}

/// `[%clk h:mm:ss]` or `[%clk h:mm:ss.s]` inside a comment → tenths of a second.
fn clock_in_comment(comment: &str) -> Option<u32> {
    let rest = &comment[comment.find("%clk")? + 4..];
    let value = rest.trim_start().split([']', ' ']).next()?;
    let mut parts = value.split(':');
    let (h, m, s) = (parts.next()?, parts.next()?, parts.next()?);
    let seconds: f64 = s.parse().ok()?;
    let total = h.parse::<u32>().ok()? as f64 * 3600.0 + m.parse::<u32>().ok()? as f64 * 60.0;
    Some(((total + seconds) * 10.0).round() as u32)
}

fn is_result(token: &str) -> bool {
    matches!(token, "1-0" | "0-1" | "1/2-1/2" | "*")
}

/// Move tokens of a movetext, in order, each with the clock of the comment after it.
/// Stops at a result token.
pub fn move_tokens(movetext: &str) -> Vec<MoveToken> {
    let mut tokens: Vec<MoveToken> = Vec::new();
    let mut chars = movetext.char_indices().peekable();
    let mut variation_depth = 0usize;
    while let Some((start, c)) = chars.next() {
        match c {
            '{' => {
                let mut end = movetext.len();
                for (i, d) in chars.by_ref() {
                    if d == '}' {
                        end = i;
                        break;
                    }
                }
                if variation_depth == 0 {
                    if let (Some(clock), Some(last)) = (
                        clock_in_comment(&movetext[start + 1..end]),
                        tokens.last_mut(),
                    ) {
                        last.clock_tenths = Some(clock);
                    }
                }
            }
            ';' => {
                // Rest-of-line comment; split_games joined lines with spaces, so it runs
                // to the end of the movetext.
                break;
            }
            '(' => variation_depth += 1,
            ')' => variation_depth = variation_depth.saturating_sub(1),
            c if c.is_whitespace() => {}
            _ => {
                let mut end = movetext.len();
                while let Some(&(i, d)) = chars.peek() {
                    if d.is_whitespace() || matches!(d, '{' | '(' | ')' | ';') {
                        end = i;
                        break;
                    }
                    chars.next();
                }
                if variation_depth > 0 {
                    continue;
                }
                let word = &movetext[start..end];
                if is_result(word) {
                    break;
                }
                // "12." / "12..." / "12.e4": drop the move number (not the zeros of "0-0").
                let san = word.rsplit_once('.').map_or(word, |(_, after)| after);
                if san.is_empty() || san.starts_with('$') {
                    continue;
                }
                tokens.push(MoveToken {
                    san: san.to_string(),
                    clock_tenths: None,
                });
            }
        }
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_with_clocks_comments_and_variations() {
        let text = "1. e4 { [%clk 0:03:00] } 1... c5 { [%clk 0:02:59.5] } 2. Nf3 $1 (2. c3 d5) \
                    2... d6 {a note} 3. d4 1-0";
        let t = move_tokens(text);
        let sans: Vec<&str> = t.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(sans, ["e4", "c5", "Nf3", "d6", "d4"]);
        assert_eq!(t[0].clock_tenths, Some(1800));
        assert_eq!(t[1].clock_tenths, Some(1795));
        assert_eq!(t[2].clock_tenths, None);
    }

    #[test]
    fn splits_games_and_reads_tags() {
        let text = "[Event \"A\"]\n[WhiteElo \"1500\"]\n\n1. e4 e5\n2. Nf3 1-0\n\n[Event \"B\"]\n\n1. d4 *\n";
        let games = split_games(text);
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].tag("WhiteElo"), Some("1500"));
        assert_eq!(games[0].line, 1);
        assert_eq!(games[1].tag("Event"), Some("B"));
        assert_eq!(move_tokens(&games[0].movetext).len(), 3);
    }
}
