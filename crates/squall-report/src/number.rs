//! Number formatting that matches JavaScript's `toFixed`.
//!
//! Rust's `{:.2}` rounds an exact binary tie to even; `toFixed` (which the
//! seed documents print with) rounds it away from zero. squall follows
//! `toFixed` so tables read the same as the documents', digit for digit.

/// `x` with `digits` digits after the point, ties away from zero.
pub fn to_fixed(x: f64, digits: usize) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    // The exact decimal expansion of a double has at most 1074 fractional
    // digits, so this string is exact.
    let exact = format!("{:.1100}", x.abs());
    let (int_part, frac_part) = exact.split_once('.').unwrap_or((&exact, ""));
    let mut digits_vec: Vec<u8> = int_part
        .bytes()
        .chain(frac_part.bytes().take(digits))
        .map(|b| b - b'0')
        .collect();
    let rest = frac_part.as_bytes().get(digits..).unwrap_or(&[]);
    let round_up = rest.first().is_some_and(|&d| d >= b'5');
    if round_up {
        let mut i = digits_vec.len();
        loop {
            if i == 0 {
                digits_vec.insert(0, 1);
                break;
            }
            i -= 1;
            if digits_vec[i] == 9 {
                digits_vec[i] = 0;
            } else {
                digits_vec[i] += 1;
                break;
            }
        }
    }
    let int_len = digits_vec.len() - digits;
    let mut out = String::with_capacity(digits_vec.len() + 2);
    // As `toFixed`: any negative number keeps its sign, even when it rounds
    // to zero (`-0.001` prints `-0.00`); negative zero does not.
    if x < 0.0 {
        out.push('-');
    }
    for (i, d) in digits_vec.iter().enumerate() {
        if i == int_len && digits > 0 {
            out.push('.');
        }
        out.push((b'0' + d) as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::to_fixed;

    #[test]
    fn ties_round_away_from_zero_like_javascript() {
        // Values checked against node's (x).toFixed(d).
        assert_eq!(to_fixed(0.125, 2), "0.13");
        assert_eq!(to_fixed(0.375, 2), "0.38");
        assert_eq!(to_fixed(2.5, 0), "3");
        assert_eq!(to_fixed(-2.5, 0), "-3");
        assert_eq!(to_fixed(1.005, 2), "1.00"); // 1.005 is below the tie in binary
        assert_eq!(to_fixed(6.5 / 4.75, 2), "1.37");
        assert_eq!(to_fixed(0.03, 4), "0.0300");
        assert_eq!(to_fixed(9.995, 2), "9.99");
        assert_eq!(to_fixed(99.5, 0), "100");
        assert_eq!(to_fixed(0.0, 2), "0.00");
        assert_eq!(to_fixed(-0.001, 2), "-0.00");
        assert_eq!(to_fixed(-0.0, 2), "0.00");
        assert_eq!(to_fixed(13.75, 2), "13.75");
        assert_eq!(to_fixed(1340.0 / 60.0, 2), "22.33");
    }
}
