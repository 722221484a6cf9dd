//! What every chart shares: size, fonts, colours, number formats, and the
//! text clean-up that keeps any name valid inside SVG.
//!
//! Text is drawn as SVG `<text>` in the viewer's `sans-serif`, so no font
//! file is read or shipped; plotters escapes `<`, `>`, `&` and `"`, and
//! [`text`] drops the control characters XML does not allow.

use plotters::style::{FontDesc, FontFamily, RGBColor};

/// Width and height of every chart \[px\].
pub const SIZE: (u32, u32) = (900, 440);

/// Space around the plot \[px\].
pub const MARGIN: u32 = 12;

/// Width of the legend column of a line chart \[px\].
pub const LEGEND_WIDTH: u32 = 200;

/// Line colours, one per variant in order (repeating past eight).
const PALETTE: [(u8, u8, u8); 8] = [
    (0x1f, 0x77, 0xb4),
    (0xd6, 0x27, 0x28),
    (0x2c, 0xa0, 0x2c),
    (0x94, 0x67, 0xbd),
    (0xff, 0x7f, 0x0e),
    (0x17, 0xbe, 0xcf),
    (0x8c, 0x56, 0x4b),
    (0xe3, 0x77, 0xc2),
];

/// The colour of the `i`-th line.
pub fn colour(i: usize) -> RGBColor {
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    RGBColor(r, g, b)
}

/// The shade of a fault window.
pub const FAULT: RGBColor = RGBColor(0xf4, 0xcc, 0xcc);

/// A marked level's dashed line.
pub const LEVEL: RGBColor = RGBColor(0x66, 0x66, 0x66);

/// The colour of a fault window's label.
pub const FAULT_TEXT: RGBColor = RGBColor(0xaa, 0x33, 0x33);

/// The title's font.
pub fn title_font() -> FontDesc<'static> {
    FontDesc::new(
        FontFamily::SansSerif,
        18.0,
        plotters::style::FontStyle::Normal,
    )
}

/// The font of axis labels, tick labels and the legend.
pub fn label_font() -> FontDesc<'static> {
    FontDesc::new(
        FontFamily::SansSerif,
        13.0,
        plotters::style::FontStyle::Normal,
    )
}

/// `s` without the characters XML 1.0 forbids (control characters other
/// than tab, newline and carriage return, which become spaces too).
pub fn text(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The top of a value axis: a round number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5,
/// 6 or 8 times a power of ten) at least 5% above `max`, so a line at its
/// maximum stays clear of the frame (1 for nothing to show).
pub fn nice_ceiling(max: f64) -> f64 {
    if !max.is_finite() || max <= 0.0 {
        return 1.0;
    }
    let max = max * 1.05;
    let p = 10f64.powf(max.log10().floor());
    [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|v| *v >= max * (1.0 - 1e-12))
        .unwrap_or(max)
}

/// A tick label: an integer without a point, otherwise the fewest of up to
/// three decimals that show it.
pub fn axis_number(v: &f64) -> String {
    let v = if v.abs() < 1e-9 { 0.0 } else { *v };
    if (v - v.round()).abs() < 1e-9 {
        return format!("{}", v.round() as i64);
    }
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The finished document, ending with a newline.
pub fn finish(mut svg: String) -> String {
    if !svg.ends_with('\n') {
        svg.push('\n');
    }
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceilings() {
        assert_eq!(nice_ceiling(0.0), 1.0);
        assert_eq!(nice_ceiling(7.0), 8.0);
        assert_eq!(nice_ceiling(12.0), 15.0);
        assert_eq!(nice_ceiling(49.0), 60.0);
        assert_eq!(nice_ceiling(1.0), 1.2);
        assert_eq!(nice_ceiling(0.3), 0.4);
    }

    #[test]
    fn tick_labels() {
        assert_eq!(axis_number(&40.0), "40");
        assert_eq!(axis_number(&2.5), "2.5");
        assert_eq!(axis_number(&0.125), "0.125");
        assert_eq!(axis_number(&-0.0), "0");
    }

    #[test]
    fn control_characters_become_spaces() {
        assert_eq!(text("a\u{1b}[31mb\u{7}"), "a [31mb ");
    }
}
