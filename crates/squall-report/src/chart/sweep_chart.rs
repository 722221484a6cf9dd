//! [`SweepChart`]: a sweep's results as lines over the varied param, and
//! its chart.
//!
//! The horizontal axis is the param's values: numbers at their place (with
//! a tick at each value), words evenly spaced. One line per variant or per
//! value of a second param; a mean over replications draws its 95 %
//! interval as a band around the line. Every point has a marker, so a line
//! of one point still shows.

use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Serialize;

use super::key_axis::KeyAxis;
use super::style;

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Failure = Box<dyn std::error::Error>;

/// The values a sweep chart's horizontal axis takes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum SweepAxis {
    /// Numbers, each drawn at its value.
    Numbers(Vec<f64>),
    /// Words (or numbers of mixed units), evenly spaced in the sweep's order.
    Words(Vec<String>),
}

impl SweepAxis {
    /// How many values.
    pub fn len(&self) -> usize {
        match self {
            SweepAxis::Numbers(v) => v.len(),
            SweepAxis::Words(v) => v.len(),
        }
    }

    /// True when there is no value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where value `i` sits on the axis.
    pub fn position(&self, i: usize) -> f64 {
        match self {
            SweepAxis::Numbers(v) => v.get(i).copied().unwrap_or(i as f64),
            SweepAxis::Words(_) => i as f64,
        }
    }

    /// Value `i` as text.
    pub fn text(&self, i: usize) -> String {
        match self {
            SweepAxis::Numbers(v) => v.get(i).map_or(String::new(), |x| format!("{x}")),
            SweepAxis::Words(v) => v.get(i).cloned().unwrap_or_default(),
        }
    }
}

/// One value on a sweep line, with its 95 % interval when replicated.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SweepValue {
    /// The value (a mean over replications, or the one run's).
    pub value: f64,
    /// The half-width of its 95 % interval; `None` for one run.
    pub half_width: Option<f64>,
}

/// One line: a label and a value per axis value (`None`: no value there).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepLine {
    /// As the legend prints it.
    pub label: String,
    /// One entry per axis value.
    pub values: Vec<Option<SweepValue>>,
}

/// A sweep's results: one metric over the values of one param.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepChart {
    /// The chart's title.
    pub title: String,
    /// The param, with its unit (`spacing (rounds)`).
    pub x_label: String,
    /// The metric, as the table's column names it.
    pub value_label: String,
    /// The param's values.
    pub x: SweepAxis,
    /// The lines.
    pub lines: Vec<SweepLine>,
}

impl SweepChart {
    /// The chart as SVG. Same chart, same bytes.
    pub fn to_svg(&self) -> String {
        let mut out = String::new();
        // Drawing into a string cannot fail; an error leaves what was drawn.
        let _ = self.draw(&mut out);
        style::finish(out)
    }

    /// The chart's data as CSV: the param's value, then each line's value
    /// (and half-width, when a line has one) in full precision.
    pub fn to_csv(&self) -> String {
        let banded: Vec<bool> = self
            .lines
            .iter()
            .map(|l| l.values.iter().flatten().any(|v| v.half_width.is_some()))
            .collect();
        let mut w = crate::csv::writer();
        let mut header = vec![crate::escape::csv_text(&self.x_label)];
        for (l, b) in self.lines.iter().zip(&banded) {
            header.push(crate::escape::csv_text(&l.label));
            if *b {
                header.push(crate::escape::csv_text(&format!("{} half_width", l.label)));
            }
        }
        let _ = w.write_record(&header);
        let full = crate::sweep::full;
        for i in 0..self.x.len() {
            let mut row = vec![crate::escape::csv_text(&self.x.text(i))];
            for (l, b) in self.lines.iter().zip(&banded) {
                let v = l.values.get(i).copied().flatten();
                row.push(v.map_or(String::new(), |v| full(v.value)));
                if *b {
                    row.push(v.and_then(|v| v.half_width).map_or(String::new(), full));
                }
            }
            let _ = w.write_record(&row);
        }
        crate::csv::finish(w)
    }

    /// The lowest and highest value any line or band reaches.
    fn value_range(&self) -> (f64, f64) {
        let mut lo: f64 = 0.0;
        let mut hi: f64 = 0.0;
        for v in self.lines.iter().flat_map(|l| l.values.iter().flatten()) {
            let h = v.half_width.unwrap_or(0.0);
            if v.value.is_finite() && h.is_finite() {
                lo = lo.min(v.value - h);
                hi = hi.max(v.value + h);
            }
        }
        (lo, hi)
    }

    fn draw(&self, out: &mut String) -> Result<(), Failure> {
        let root = SVGBackend::with_string(out, style::SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let (plot, legend) = root.split_horizontally(style::SIZE.0 - style::LEGEND_WIDTH);
        self.draw_plot(&plot)?;
        self.draw_legend(&legend)?;
        root.present()?;
        Ok(())
    }

    fn draw_plot(&self, area: &Area<'_>) -> Result<(), Failure> {
        let n = self.x.len();
        let positions: Vec<f64> = (0..n).map(|i| self.x.position(i)).collect();
        let (xmin, xmax) = positions
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
                (a.min(*x), b.max(*x))
            });
        let (xmin, xmax) = if xmin.is_finite() {
            (xmin, xmax)
        } else {
            (0.0, 0.0)
        };
        let pad = if xmax > xmin {
            (xmax - xmin) * 0.05
        } else {
            0.5
        };
        let pad = match self.x {
            SweepAxis::Words(_) => 0.5,
            SweepAxis::Numbers(_) => pad,
        };
        let (lo, hi) = self.value_range();
        let top = style::nice_ceiling(hi);
        let bottom = if lo < 0.0 {
            -style::nice_ceiling(-lo)
        } else {
            0.0
        };
        let x_range = KeyAxis::new((xmin - pad)..(xmax + pad), positions.clone());
        let mut chart = ChartBuilder::on(area)
            .caption(style::text(&self.title), style::title_font())
            .margin(style::MARGIN)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(x_range, bottom..top)?;
        let x_text = |v: &f64| -> String {
            match &self.x {
                SweepAxis::Words(words) => {
                    let i = v.round();
                    if (v - i).abs() < 1e-9 && i >= 0.0 {
                        style::text(words.get(i as usize).map_or("", String::as_str))
                    } else {
                        String::new()
                    }
                }
                SweepAxis::Numbers(_) => style::axis_number(v),
            }
        };
        chart
            .configure_mesh()
            .x_desc(style::text(&self.x_label))
            .y_desc(style::text(&self.value_label))
            .label_style(style::label_font())
            .axis_desc_style(style::label_font())
            .light_line_style(WHITE.mix(0.0))
            .bold_line_style(BLACK.mix(0.08))
            .x_label_formatter(&x_text)
            .y_label_formatter(&style::axis_number)
            .draw()?;
        // Bands first, so every line stays on top of every band.
        for (i, line) in self.lines.iter().enumerate() {
            let colour = style::colour(i);
            for run in runs(&line.values) {
                let upper: Vec<(f64, f64)> = run
                    .iter()
                    .filter_map(|&(k, v)| v.half_width.map(|h| (positions[k], v.value + h)))
                    .collect();
                if upper.len() < run.len() || run.len() < 2 {
                    continue;
                }
                let mut points = upper;
                points.extend(
                    run.iter()
                        .rev()
                        .map(|&(k, v)| (positions[k], v.value - v.half_width.unwrap_or(0.0))),
                );
                chart.draw_series(std::iter::once(Polygon::new(
                    points,
                    colour.mix(0.18).filled(),
                )))?;
            }
        }
        for (i, line) in self.lines.iter().enumerate() {
            let colour = style::colour(i);
            for run in runs(&line.values) {
                let points: Vec<(f64, f64)> =
                    run.iter().map(|&(k, v)| (positions[k], v.value)).collect();
                // A lone replicated point shows its interval as a bar.
                if let [(k, v)] = run.as_slice() {
                    if let Some(h) = v.half_width {
                        chart.draw_series(std::iter::once(PathElement::new(
                            vec![(positions[*k], v.value - h), (positions[*k], v.value + h)],
                            colour.mix(0.5).stroke_width(6),
                        )))?;
                    }
                }
                chart.draw_series(std::iter::once(PathElement::new(
                    points.clone(),
                    colour.stroke_width(2),
                )))?;
                chart.draw_series(
                    points
                        .into_iter()
                        .map(|p| Circle::new(p, 4, colour.filled())),
                )?;
            }
        }
        Ok(())
    }

    fn draw_legend(&self, area: &Area<'_>) -> Result<(), Failure> {
        let font = style::label_font();
        let mut y = 50;
        for (i, line) in self.lines.iter().enumerate() {
            let colour = style::colour(i);
            area.draw(&PathElement::new(
                vec![(8, y), (36, y)],
                colour.stroke_width(3),
            ))?;
            area.draw(&Circle::new((22, y), 4, colour.filled()))?;
            area.draw(&Text::new(
                style::text(&line.label),
                (44, y - 7),
                font.clone(),
            ))?;
            y += 22;
        }
        let banded = self
            .lines
            .iter()
            .any(|l| l.values.iter().flatten().any(|v| v.half_width.is_some()));
        if banded {
            area.draw(&Rectangle::new(
                [(8, y - 7), (36, y + 7)],
                style::colour(0).mix(0.18).filled(),
            ))?;
            area.draw(&Text::new("95 % interval", (44, y - 7), font))?;
        }
        Ok(())
    }
}

/// The runs of consecutive values a line has (finite ones), each as
/// `(index, value)`.
fn runs(values: &[Option<SweepValue>]) -> Vec<Vec<(usize, SweepValue)>> {
    let mut out = Vec::new();
    let mut run = Vec::new();
    for (k, v) in values.iter().enumerate() {
        match v {
            Some(v) if v.value.is_finite() => run.push((k, *v)),
            _ => {
                if !run.is_empty() {
                    out.push(std::mem::take(&mut run));
                }
            }
        }
    }
    if !run.is_empty() {
        out.push(run);
    }
    out
}
