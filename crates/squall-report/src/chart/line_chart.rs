//! A [`BinnedSeries`] as a line chart: one line per variant, fault windows
//! shaded and named, levels dashed, axes with units, a legend beside the
//! plot.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::binned_series::BinnedSeries;
use super::style;

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Failure = Box<dyn std::error::Error>;

impl BinnedSeries {
    /// The series as an SVG line chart. Same series, same bytes.
    pub fn to_svg(&self) -> String {
        let mut out = String::new();
        // Drawing into a string cannot fail; an error leaves what was drawn.
        let _ = self.draw(&mut out);
        style::finish(out)
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
        let (lo, hi) = (self.start, self.end().max(self.start + self.bin_width));
        let top = style::nice_ceiling(self.max_value());
        let mut chart = ChartBuilder::on(area)
            .caption(style::text(&self.title), style::title_font())
            .margin(style::MARGIN)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(lo..hi, 0.0..top)?;
        // Fault windows go under everything else.
        chart.draw_series(self.faults.iter().map(|f| {
            Rectangle::new(
                [(f.start.max(lo), 0.0), (f.end.min(hi), top)],
                style::FAULT.mix(0.7).filled(),
            )
        }))?;
        chart
            .configure_mesh()
            .x_desc(format!("time ({})", style::text(&self.time_unit)))
            .y_desc(style::text(&self.value_label))
            .label_style(style::label_font())
            .axis_desc_style(style::label_font())
            .light_line_style(WHITE.mix(0.0))
            .bold_line_style(BLACK.mix(0.08))
            .x_label_formatter(&style::axis_number)
            .y_label_formatter(&style::axis_number)
            .draw()?;
        chart.draw_series(self.faults.iter().map(|f| {
            EmptyElement::at((f.start.max(lo), top))
                + Text::new(
                    style::text(&f.label),
                    (4, 4),
                    style::label_font().color(&style::FAULT_TEXT),
                )
        }))?;
        chart.draw_series(self.levels.iter().filter(|l| l.value.is_finite()).map(|l| {
            DashedPathElement::new(
                vec![(lo, l.value), (hi, l.value)],
                8,
                5,
                style::LEVEL.stroke_width(2),
            )
        }))?;
        for (i, line) in self.lines.iter().enumerate() {
            let colour = style::colour(i);
            // One polyline per run of bins that have a value.
            let mut run: Vec<(f64, f64)> = Vec::new();
            for (b, v) in line.values.iter().enumerate() {
                match v {
                    Some(v) if v.is_finite() => run.push((self.bin_middle(b), *v)),
                    _ => {
                        if !run.is_empty() {
                            chart.draw_series(std::iter::once(PathElement::new(
                                std::mem::take(&mut run),
                                colour.stroke_width(2),
                            )))?;
                        }
                    }
                }
            }
            if !run.is_empty() {
                chart.draw_series(std::iter::once(PathElement::new(
                    run,
                    colour.stroke_width(2),
                )))?;
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
            area.draw(&Text::new(
                style::text(&line.label),
                (44, y - 7),
                font.clone(),
            ))?;
            y += 22;
        }
        for level in &self.levels {
            area.draw(&DashedPathElement::new(
                vec![(8, y), (36, y)],
                8,
                5,
                style::LEVEL.stroke_width(2),
            ))?;
            area.draw(&Text::new(
                style::text(&level.label),
                (44, y - 7),
                font.clone(),
            ))?;
            y += 22;
        }
        if !self.faults.is_empty() {
            area.draw(&Rectangle::new(
                [(8, y - 7), (36, y + 7)],
                style::FAULT.mix(0.7).filled(),
            ))?;
            area.draw(&Text::new("fault active", (44, y - 7), font))?;
        }
        Ok(())
    }
}
