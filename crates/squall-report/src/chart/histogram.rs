//! [`Histogram`]: counts in equal buckets, as plain data, and its chart.

use plotters::prelude::*;
use serde::Serialize;

use super::style;

/// Counts in equal-width buckets of a value (the herd's wake-up times, a
/// latency distribution).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Histogram {
    /// The chart's title.
    pub title: String,
    /// What the buckets measure, with its unit (`wakes at (ms)`).
    pub value_label: String,
    /// What is counted (`clients`).
    pub count_label: String,
    /// The width of every bucket, in the value's unit.
    pub bucket_width: f64,
    /// `(bucket start, count)`, in increasing order of start.
    pub buckets: Vec<(f64, u64)>,
}

impl Histogram {
    /// The histogram as an SVG document: one bar per bucket.
    pub fn to_svg(&self) -> String {
        let mut out = String::new();
        // Drawing into a string cannot fail; an error leaves what was drawn.
        let _ = self.draw(&mut out);
        style::finish(out)
    }

    /// The buckets as CSV: each bucket's start and count; the first heading
    /// names the bucket width (`wakes at (ms) (bucket width 100)`).
    pub fn to_csv(&self) -> String {
        let mut w = crate::csv::writer();
        let _ = w.write_record([
            crate::escape::csv_text(&format!(
                "{} (bucket width {})",
                self.value_label, self.bucket_width
            )),
            crate::escape::csv_text(&self.count_label),
        ]);
        for (start, count) in &self.buckets {
            let _ = w.write_record([format!("{start}"), count.to_string()]);
        }
        crate::csv::finish(w)
    }

    fn draw(&self, out: &mut String) -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::with_string(out, style::SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let width = if self.bucket_width > 0.0 {
            self.bucket_width
        } else {
            1.0
        };
        let lo = self.buckets.first().map_or(0.0, |b| b.0).min(0.0);
        let hi = self
            .buckets
            .last()
            .map_or(1.0, |b| b.0 + width)
            .max(lo + width);
        let top = style::nice_ceiling(self.buckets.iter().map(|b| b.1).max().unwrap_or(0) as f64);
        let mut chart = ChartBuilder::on(&root)
            .caption(style::text(&self.title), style::title_font())
            .margin(style::MARGIN)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(lo..hi, 0.0..top)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(WHITE.mix(0.0))
            .bold_line_style(BLACK.mix(0.08))
            .x_desc(style::text(&self.value_label))
            .y_desc(style::text(&self.count_label))
            .label_style(style::label_font())
            .axis_desc_style(style::label_font())
            .x_label_formatter(&style::axis_number)
            .y_label_formatter(&style::axis_number)
            .draw()?;
        let fill = style::colour(0);
        chart.draw_series(self.buckets.iter().map(|&(start, count)| {
            Rectangle::new(
                [(start, 0.0), (start + width, count as f64)],
                fill.mix(0.8).filled(),
            )
        }))?;
        chart.draw_series(self.buckets.iter().map(|&(start, count)| {
            Rectangle::new([(start, 0.0), (start + width, count as f64)], WHITE)
        }))?;
        root.present()?;
        Ok(())
    }
}
