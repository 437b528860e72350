//! 95% intervals for the difference between runs with a skill and runs without it (see
//! docs/lifecycle.md, "Effect"): Newcombe's hybrid score interval (from two Wilson intervals)
//! for a difference of proportions, Welch's t interval for a difference of means. Pure numbers.

/// The normal quantile of a two-sided 95% interval.
const Z: f64 = 1.959_963_984_540_054;

/// Student's t quantile at 0.975 for 1..=30 degrees of freedom.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// A difference (with − without) and its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Diff {
    pub diff: f64,
    pub low: f64,
    pub high: f64,
}

/// The t quantile for `df` degrees of freedom, rounded down (wider, never narrower).
fn t975(df: f64) -> f64 {
    let whole = df.floor().max(1.0);
    match whole as usize {
        n @ 1..=30 => T975[n - 1],
        31..=40 => 2.021,
        41..=60 => 2.000,
        61..=120 => 1.980,
        _ => Z,
    }
}

/// Wilson's score interval for `k` successes of `n`.
pub fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (n, p) = (n as f64, k as f64 / n as f64);
    let z2 = Z * Z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Newcombe's hybrid score interval for p1 − p2 (`k1` of `n1` against `k2` of `n2`).
pub fn proportions(k1: usize, n1: usize, k2: usize, n2: usize) -> Diff {
    let p1 = k1 as f64 / n1.max(1) as f64;
    let p2 = k2 as f64 / n2.max(1) as f64;
    let (l1, u1) = wilson(k1, n1);
    let (l2, u2) = wilson(k2, n2);
    let diff = p1 - p2;
    Diff {
        diff,
        low: diff - ((p1 - l1).powi(2) + (u2 - p2).powi(2)).sqrt(),
        high: diff + ((u1 - p1).powi(2) + (p2 - l2).powi(2)).sqrt(),
    }
}

pub fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len().max(1) as f64
}

fn variance(xs: &[f64], m: f64) -> f64 {
    if xs.len() < 2 {
        return 0.0;
    }
    xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len() - 1) as f64
}

/// Welch's t interval for mean(a) − mean(b), degrees of freedom by Welch–Satterthwaite.
/// Both samples need two values or more.
pub fn means(a: &[f64], b: &[f64]) -> Diff {
    let (ma, mb) = (mean(a), mean(b));
    let (va, vb) = (variance(a, ma) / a.len() as f64, variance(b, mb) / b.len() as f64);
    let se = (va + vb).sqrt();
    let diff = ma - mb;
    if se == 0.0 {
        return Diff { diff, low: diff, high: diff };
    }
    let df = (va + vb).powi(2)
        / (va.powi(2) / (a.len() as f64 - 1.0) + vb.powi(2) / (b.len() as f64 - 1.0));
    let half = t975(df) * se;
    Diff { diff, low: diff - half, high: diff + half }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn near(a: f64, b: f64) -> bool {
        (a - b).abs() < 0.002
    }

    #[test]
    fn wilson_and_newcombe_match_published_values() {
        // Newcombe (1998), example (a): 56/70 against 48/80 gives 0.0524 to 0.3339.
        let d = proportions(56, 70, 48, 80);
        assert!(near(d.diff, 0.2) && near(d.low, 0.0524) && near(d.high, 0.3339), "{d:?}");
        let (lo, hi) = wilson(0, 10);
        assert!(near(lo, 0.0) && near(hi, 0.2775), "{lo} {hi}");
    }

    #[test]
    fn welch_interval_uses_the_t_quantile_of_its_degrees_of_freedom() {
        let a = [10.0, 12.0, 11.0, 13.0, 9.0];
        let b = [5.0, 6.0, 5.0, 7.0, 6.0];
        let d = means(&a, &b);
        // se = sqrt(2.5/5 + 0.7/5) = 0.8; df = 0.4096 / (0.0625 + 0.0049) ≈ 6.08 → t 2.447.
        assert!(near(d.diff, 5.2) && near(d.low, 5.2 - 2.447 * 0.8), "{d:?}");
        let same = means(&[3.0, 3.0], &[3.0, 3.0]);
        assert_eq!((same.low, same.high), (0.0, 0.0));
    }
}
