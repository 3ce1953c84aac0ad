//! Reader for the Kaggle "Chess Game Dataset (Lichess)" `games.csv` (datasnaek/chess):
//! one game per row, SAN moves space-separated, `increment_code` as minutes+seconds.

/// The columns the converter uses, as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KaggleRow {
    /// 1-based line in the file, for messages.
    pub line: usize,
    pub id: String,
    pub rated: String,
    pub winner: String,
    pub increment_code: String,
    pub white_rating: String,
    pub black_rating: String,
    pub moves: String,
}

/// Splits one CSV line into fields, honouring double quotes (`opening_name` holds commas)
/// and `""` escapes inside them.
pub fn split_csv_line(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    fields.push(field);
    fields
}

/// Rows of the file, each `Ok(row)` or `Err(message)` for a row with missing columns.
/// Fails as a whole only when the header lacks a needed column.
pub fn read_rows(text: &str) -> Result<Vec<Result<KaggleRow, String>>, String> {
    let mut lines = text.lines().enumerate();
    let header = lines
        .next()
        .map(|(_, l)| split_csv_line(l.trim_end_matches('\r')));
    let header = header.ok_or("empty CSV file")?;
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h.trim() == name)
            .ok_or_else(|| format!("CSV header has no '{name}' column"))
    };
    let id = column("id")?;
    let rated = column("rated")?;
    let winner = column("winner")?;
    let increment = column("increment_code")?;
    let white = column("white_rating")?;
    let black = column("black_rating")?;
    let moves = column("moves")?;
    let needed = [id, rated, winner, increment, white, black, moves]
        .into_iter()
        .max()
        .unwrap_or(0);
    let mut rows = Vec::new();
    for (index, raw) in lines {
        let raw = raw.trim_end_matches('\r');
        if raw.trim().is_empty() {
            continue;
        }
        let fields = split_csv_line(raw);
        if fields.len() <= needed {
            rows.push(Err(format!(
                "line {}: {} columns, expected at least {}",
                index + 1,
                fields.len(),
                needed + 1
            )));
            continue;
        }
        rows.push(Ok(KaggleRow {
            line: index + 1,
            id: fields[id].clone(),
            rated: fields[rated].clone(),
            winner: fields[winner].clone(),
            increment_code: fields[increment].clone(),
            white_rating: fields[white].clone(),
            black_rating: fields[black].clone(),
            moves: fields[moves].clone(),
        }));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_fields_keep_their_commas() {
        assert_eq!(
            split_csv_line(r#"a,"b, c","say ""hi""""#),
            vec!["a".to_string(), "b, c".into(), "say \"hi\"".into()]
        );
    }
}
