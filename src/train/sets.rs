//! The training and validation sets: `--data` and `--val-data` files, each with an
//! optional loss weight (`FILE@W`).

use super::data::{Dataset, LoadStats};
use super::TrainArgs;

/// `FILE` or `FILE@WEIGHT` (a positive loss weight for the file's positions).
fn data_spec(spec: &str) -> Result<(&str, f32), String> {
    // A suffix that is not a number is part of the path (paths may contain '@').
    match spec.rsplit_once('@').map(|(p, w)| (p, w.parse::<f32>())) {
        Some((path, Ok(w))) if !path.is_empty() => {
            if w.is_finite() && w > 0.0 {
                Ok((path, w))
            } else {
                Err(format!(
                    "--data '{spec}': the weight after '@' must be positive"
                ))
            }
        }
        _ => Ok((spec, 1.0)),
    }
}

/// Loads all `--data` files.
pub(super) fn load_data(args: &TrainArgs) -> Result<(Dataset, LoadStats), String> {
    let max = args.max_positions.unwrap_or(usize::MAX);
    let mut ds = Dataset::default();
    let mut stats = LoadStats::default();
    for spec in &args.data {
        let (path, weight) = data_spec(spec)?;
        ds.begin_source(weight);
        ds.read_file(path, max, &mut stats)?;
    }
    ds.mirroring = args.mirror;
    Ok((ds, stats))
}

/// Loads the `--val-data` files (every position, unweighted unless `FILE@W`).
pub(super) fn load_validation(args: &TrainArgs) -> Result<Dataset, String> {
    let mut ds = Dataset::default();
    let mut stats = LoadStats::default();
    for spec in &args.val_data {
        let (path, weight) = data_spec(spec)?;
        ds.begin_source(weight);
        ds.read_file(path, usize::MAX, &mut stats)?;
    }
    if ds.is_empty() {
        return Err("--val-data holds no positions".into());
    }
    ds.mirroring = args.mirror;
    Ok(ds)
}

#[cfg(test)]
mod tests {
    use super::data_spec;

    #[test]
    fn data_specs_take_an_optional_weight() {
        assert_eq!(data_spec("a.txt.gz"), Ok(("a.txt.gz", 1.0)));
        assert_eq!(
            data_spec("data/gen1/seed1.vf@2.5"),
            Ok(("data/gen1/seed1.vf", 2.5))
        );
        assert_eq!(data_spec("@home/x.vf"), Ok(("@home/x.vf", 1.0)));
        assert!(data_spec("a.vf@0").is_err());
        assert_eq!(data_spec("a@b.vf"), Ok(("a@b.vf", 1.0)));
        assert!(data_spec("a.vf@-1").is_err());
    }
}
