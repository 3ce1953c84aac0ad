//! Small file-system helpers shared by the tools that read folders of inputs.

use std::path::{Path, PathBuf};

/// The files of `dir` whose extension is `ext`, sorted by name (so runs read them in one
/// order on every machine). An unreadable folder or one without such files is an error.
pub fn with_extension(dir: &Path, ext: &str) -> Result<Vec<PathBuf>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list '{}': {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("no .{ext} files in '{}'", dir.display()));
    }
    Ok(files)
}
