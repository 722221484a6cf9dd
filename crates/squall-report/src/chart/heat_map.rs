//! [`HeatMap`]: a metric over two varied params, one coloured cell per
//! point, and its chart.
//!
//! Each cell is coloured on one sequential scale (dark purple for the
//! lowest value, yellow for the highest; readable in grey too) and, while
//! cells are large enough, carries its value; a colour bar beside the plot
//! names the scale's ends. Axes list the params' values in the sweep's
//! order.

use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Serialize;

use super::key_axis::KeyAxis;
use super::style;
use super::sweep_chart::SweepAxis;

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Failure = Box<dyn std::error::Error>;

/// Most cells along an axis that still print their value.
const LABELLED_CELLS: usize = 16;

/// The scale's stops, from the lowest value to the highest.
const SCALE: [(u8, u8, u8); 5] = [
    (0x44, 0x01, 0x54),
    (0x3b, 0x52, 0x8b),
    (0x21, 0x91, 0x8c),
    (0x5e, 0xc9, 0x62),
    (0xfd, 0xe7, 0x25),
];

/// A metric over two params.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HeatMap {
    /// The chart's title.
    pub title: String,
    /// The horizontal param, with its unit.
    pub x_label: String,
    /// The vertical param, with its unit.
    pub y_label: String,
    /// The metric, as the table's column names it.
    pub value_label: String,
    /// The horizontal param's values.
    pub x: SweepAxis,
    /// The vertical param's values.
    pub y: SweepAxis,
    /// `cells[j][i]`: the value at `x[i]`, `y[j]` (`None`: no value).
    pub cells: Vec<Vec<Option<f64>>>,
}

/// The colour of `t` in 0..=1 on the scale.
pub fn scale_colour(t: f64) -> RGBColor {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let x = t * (SCALE.len() - 1) as f64;
    let i = (x.floor() as usize).min(SCALE.len() - 2);
    let f = x - i as f64;
    let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * f).round() as u8;
    let (a, b) = (SCALE[i], SCALE[i + 1]);
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

impl HeatMap {
    /// The chart as SVG. Same map, same bytes.
    pub fn to_svg(&self) -> String {
        let mut out = String::new();
        // Drawing into a string cannot fail; an error leaves what was drawn.
        let _ = self.draw(&mut out);
        style::finish(out)
    }

    /// The map's data as CSV: a row per vertical value, a column per
    /// horizontal value, full precision.
    pub fn to_csv(&self) -> String {
        let mut w = crate::csv::writer();
        let mut header = vec![crate::escape::csv_text(&format!(
            "{} \\ {}",
            self.y_label, self.x_label
        ))];
        header.extend((0..self.x.len()).map(|i| crate::escape::csv_text(&self.x.text(i))));
        let _ = w.write_record(&header);
        for (j, row) in self.cells.iter().enumerate() {
            let mut fields = vec![crate::escape::csv_text(&self.y.text(j))];
            fields.extend(
                row.iter()
                    .map(|v| v.map_or(String::new(), crate::sweep::full)),
            );
            let _ = w.write_record(&fields);
        }
        crate::csv::finish(w)
    }

    /// The lowest and highest finite value.
    fn range(&self) -> (f64, f64) {
        let values = self.cells.iter().flatten().flatten().copied();
        let (lo, hi) = values
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
        if lo.is_finite() {
            (lo, hi)
        } else {
            (0.0, 0.0)
        }
    }

    fn draw(&self, out: &mut String) -> Result<(), Failure> {
        let root = SVGBackend::with_string(out, style::SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let (plot, bar) = root.split_horizontally(style::SIZE.0 - style::LEGEND_WIDTH);
        self.draw_plot(&plot)?;
        self.draw_bar(&bar)?;
        root.present()?;
        Ok(())
    }

    fn draw_plot(&self, area: &Area<'_>) -> Result<(), Failure> {
        let (nx, ny) = (self.x.len().max(1), self.y.len().max(1));
        let xs: Vec<f64> = (0..nx).map(|i| i as f64).collect();
        let ys: Vec<f64> = (0..ny).map(|j| j as f64).collect();
        let mut chart = ChartBuilder::on(area)
            .caption(style::text(&self.title), style::title_font())
            .margin(style::MARGIN)
            .x_label_area_size(45)
            .y_label_area_size(90)
            .build_cartesian_2d(
                KeyAxis::new(-0.5..nx as f64 - 0.5, xs),
                KeyAxis::new(-0.5..ny as f64 - 0.5, ys),
            )?;
        let word = |axis: &SweepAxis, v: &f64| {
            let i = v.round();
            if (v - i).abs() < 1e-9 && i >= 0.0 {
                style::text(&axis.text(i as usize))
            } else {
                String::new()
            }
        };
        let x_text = |v: &f64| word(&self.x, v);
        let y_text = |v: &f64| word(&self.y, v);
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc(style::text(&self.x_label))
            .y_desc(style::text(&self.y_label))
            .label_style(style::label_font())
            .axis_desc_style(style::label_font())
            .x_label_formatter(&x_text)
            .y_label_formatter(&y_text)
            .draw()?;
        let (lo, hi) = self.range();
        let span = hi - lo;
        let t = |v: f64| if span > 0.0 { (v - lo) / span } else { 0.5 };
        for (j, row) in self.cells.iter().enumerate() {
            for (i, v) in row.iter().enumerate() {
                let corners = [
                    (i as f64 - 0.5, j as f64 - 0.5),
                    (i as f64 + 0.5, j as f64 + 0.5),
                ];
                let fill = match v {
                    Some(v) if v.is_finite() => scale_colour(t(*v)).filled(),
                    _ => RGBColor(0xee, 0xee, 0xee).filled(),
                };
                chart.draw_series(std::iter::once(Rectangle::new(corners, fill)))?;
                chart.draw_series(std::iter::once(Rectangle::new(corners, WHITE)))?;
            }
        }
        if nx <= LABELLED_CELLS && ny <= LABELLED_CELLS {
            for (j, row) in self.cells.iter().enumerate() {
                for (i, v) in row.iter().enumerate() {
                    let Some(v) = v.filter(|v| v.is_finite()) else {
                        continue;
                    };
                    let ink = if t(v) < 0.6 { WHITE } else { BLACK };
                    let text = style::axis_number(&v);
                    let shift = -(text.chars().count() as i32 * 7) / 2;
                    chart.draw_series(std::iter::once(
                        EmptyElement::at((i as f64, j as f64))
                            + Text::new(text, (shift, -7), style::label_font().color(&ink)),
                    ))?;
                }
            }
        }
        Ok(())
    }

    fn draw_bar(&self, area: &Area<'_>) -> Result<(), Failure> {
        let font = style::label_font();
        let (lo, hi) = self.range();
        let (top, bottom) = (60, 360);
        area.draw(&Text::new(
            style::text(&self.value_label),
            (8, top - 30),
            font.clone(),
        ))?;
        let steps = 60;
        for k in 0..steps {
            let y0 = bottom - (bottom - top) * k / steps;
            let y1 = bottom - (bottom - top) * (k + 1) / steps;
            area.draw(&Rectangle::new(
                [(12, y1), (36, y0)],
                scale_colour(f64::from(k) / f64::from(steps - 1)).filled(),
            ))?;
        }
        area.draw(&Text::new(
            style::axis_number(&hi),
            (44, top - 7),
            font.clone(),
        ))?;
        area.draw(&Text::new(style::axis_number(&lo), (44, bottom - 7), font))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_runs_from_its_first_stop_to_its_last() {
        assert_eq!(scale_colour(0.0), RGBColor(0x44, 0x01, 0x54));
        assert_eq!(scale_colour(1.0), RGBColor(0xfd, 0xe7, 0x25));
        assert_eq!(scale_colour(f64::NAN), scale_colour(0.0));
        assert_eq!(scale_colour(2.0), scale_colour(1.0));
    }
}
