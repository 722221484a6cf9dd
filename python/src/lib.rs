//! `squall._squall`: the extension module under the `squall` Python
//! package. It runs scenarios with squall's own crates (the same loader,
//! run planner, engine and renderers as the `squall` command) and hands
//! back plain Python data: lists, dicts, strings, floats. The package's
//! Python side (`squall/__init__.py`) turns that data into pandas frames.
//!
//! Simulating happens with the GIL released (`Python::allow_threads`): other
//! Python threads run meanwhile, and a thread pool of notebooks can run
//! several scenarios at once.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use squall_lang::{Diagnostics, Scenario};
use squall_report::args::{ArgError, Spelling};
use squall_report::data::{long_table, DataTable, Field, FlatTable};
use squall_report::expect::ExpectOutcome;
use squall_report::sweep::{default_sweep, run_sweep, sweep_tables, SweepOptions};
use squall_report::{args, Keep, Study, StudyError, StudyOptions};

/// Why a request produced no report.
enum Failure {
    /// The scenario (or a value given for it) is invalid: located
    /// diagnostics.
    Invalid(Diagnostics),
    /// A run the engine refuses, at a place in the file.
    Refused {
        file: String,
        at: Option<(usize, usize)>,
        message: String,
    },
    /// A bad argument: an unknown param or variant, a value that does not
    /// parse.
    Usage(String),
    /// Anything else the planner or the engine reports.
    Other(String),
}

impl From<StudyError> for Failure {
    fn from(e: StudyError) -> Failure {
        match e {
            StudyError::Invalid(d) => Failure::Invalid(d),
            StudyError::Refused(r) => Failure::Refused {
                message: format!("{}: error: {}", r.place(), r.error),
                file: r.file.clone(),
                at: r.at,
            },
            other => Failure::Other(other.to_string()),
        }
    }
}

/// What the caller asked for.
struct Request {
    name: String,
    text: String,
    sets: Vec<String>,
    variants: Vec<String>,
    seed: Option<u64>,
    replications: Option<u32>,
    jobs: Option<usize>,
}

impl Request {
    /// The scenario, validated, with the request's seed and replications.
    fn scenario(&self) -> Result<Scenario, Failure> {
        let mut scenario = squall_lang::load(&self.name, &self.text).map_err(Failure::Invalid)?;
        if let Some(seed) = self.seed {
            scenario.seed = seed;
        }
        // The command line's `--replications` rule (2 to 1000), in this
        // package's spelling.
        if let Some(n) = self.replications {
            args::set_replications(&mut scenario, u64::from(n))
                .map_err(|e| Failure::Usage(format!("{e}, or None for the file's")))?;
        }
        if self.jobs == Some(0) {
            return Err(Failure::Usage("`jobs=0`: give at least one thread".into()));
        }
        Ok(scenario)
    }
}

/// A finished report, as plain data.
struct Ran {
    title: String,
    meta: Vec<(String, String)>,
    tables: Vec<(String, FlatTable)>,
    expectations: Vec<ExpectOutcome>,
    text: String,
    markdown: String,
    html: String,
    series_csv: String,
    clock: &'static str,
    tick_seconds: Option<f64>,
}

/// A refusal of an argument, worded with the plain spelling the keywords
/// use (`set`, `vary`), never a command-line flag.
fn usage(e: ArgError) -> Failure {
    Failure::Usage(e.to_string())
}

fn run_request(r: &Request) -> Result<Ran, Failure> {
    let scenario = r.scenario()?;
    let cli = args::parse_sets(&scenario, &r.sets, &Spelling::PLAIN).map_err(usage)?;
    let variants = if r.variants.is_empty() {
        None
    } else {
        let ids: Result<Vec<usize>, ArgError> = r
            .variants
            .iter()
            .map(|v| args::find_variant(&scenario, v))
            .collect();
        Some(ids.map_err(usage)?)
    };
    let study = Study::run(
        &scenario,
        StudyOptions {
            cli,
            variants,
            jobs: r.jobs,
            // The series and the HTML page's charts read every tick.
            keep: Keep::Everything,
            memory_mib: None,
            events: None,
        },
    )?;
    let report = study.report();
    let charts = study.charts();
    let table_charts = study.sweep_charts(charts.len() + 1);
    let html = squall_report::html::HtmlPage {
        report: &report,
        charts: &charts,
        table_charts: &table_charts,
        source: &r.text,
        version: env!("CARGO_PKG_VERSION"),
    }
    .render();
    Ok(Ran {
        title: report.title.clone(),
        meta: report.meta.clone(),
        tables: report
            .data_tables()
            .iter()
            .map(|t| (t.title.clone(), t.flat()))
            .collect(),
        expectations: study.expectations(),
        text: report.to_text(),
        markdown: report.to_markdown(),
        html,
        series_csv: if scenario.nodes.is_empty() {
            String::new()
        } else {
            study.series_csv()
        },
        clock: scenario.clock.unit_name(),
        tick_seconds: scenario.clock.tick_millis().map(|ms| ms as f64 / 1000.0),
    })
}

/// A sweep's result as one flat table: its one table, or several as one
/// long table with a `table` column.
/// The sweep's table, and the unit of every measure that has one: a column
/// a sweep table heads `name [unit]` is named `name` here (and its
/// `half_width` and `n` columns `name half_width`, `name n`), so a notebook
/// indexes it by the measure's name; the units go beside the table.
type SweepTable = (FlatTable, Vec<(String, String)>);

fn sweep_request(r: &Request, vary: &[(String, Vec<String>)]) -> Result<SweepTable, Failure> {
    let scenario = r.scenario()?;
    let mut axes = Vec::new();
    for (name, values) in vary {
        let mut parsed = Vec::new();
        for v in values {
            let value = squall_lang::parse::parse_value(v.trim())
                .map_err(|d| Failure::Usage(format!("`vary` `{name}`: `{v}`: {}", d.message)))?;
            parsed.push(value);
        }
        axes.push((name.clone(), parsed));
    }
    let name = default_sweep(&scenario)
        .map_or_else(|| "vary".to_string(), |i| scenario.sweeps[i].name.clone());
    let scenario = scenario
        .with_sweep(&name, axes, None, "vary")
        .map_err(|e| match e {
            squall_lang::resolve::sweep::SweepError::Invalid(d) => Failure::Invalid(d),
            other => usage(ArgError::Sweep(other)),
        })?;
    let index = scenario
        .sweeps
        .iter()
        .position(|s| s.name == name)
        .unwrap_or(0);
    if scenario.report.measures.is_empty() && sweep_tables(&scenario, index).is_empty() {
        return Err(Failure::Usage(format!(
            "nothing to tabulate: the report has no table with `rows sweep {name}` and no `measure`; add a `measure` to the report"
        )));
    }
    let cli = args::parse_sets(&scenario, &r.sets, &Spelling::PLAIN).map_err(usage)?;
    let options = SweepOptions {
        cli,
        jobs: r.jobs,
        shard: None,
        memory_mib: None,
        stop: None,
    };
    let rows = run_sweep(&scenario, index, &options, &|_, _| {})?;
    let tables: Vec<DataTable> = rows.data_tables();
    let mut table = match tables.as_slice() {
        [one] => one.flat(),
        several => long_table(several),
    };
    let mut units = Vec::new();
    for m in &scenario.report.measures {
        // The heading is `name [symbol]`; under a wall clock the symbol is
        // the one the table chose for the column (`s` or `ms`, `/s`).
        let (_, symbol) = squall_report::unit::measure_heading(m, &scenario);
        if symbol.is_empty() {
            continue;
        }
        let mut chosen = symbol.to_string();
        let open = format!("{} [", m.name);
        for c in &mut table.columns {
            let Some(after) = c.strip_prefix(open.as_str()) else {
                continue;
            };
            let Some((unit, rest)) = after.split_once(']') else {
                continue;
            };
            if rest.is_empty() || rest.starts_with(' ') {
                chosen = unit.to_string();
                *c = format!("{}{rest}", m.name);
            }
        }
        units.push((m.name.clone(), chosen));
    }
    Ok((table, units))
}

/// Raises the failure as a Python exception: `squall.ScenarioError` for a
/// located problem, `ValueError` for a bad argument, `RuntimeError` else.
fn raise(py: Python<'_>, f: Failure) -> PyErr {
    let scenario_error =
        |file: String, line: usize, column: usize, message: String, text: String| match py
            .import("squall")
            .and_then(|m| m.getattr("ScenarioError"))
            .and_then(|cls| cls.call1((file, line, column, message, text)))
        {
            Ok(err) => PyErr::from_value(err),
            Err(e) => e,
        };
    match f {
        Failure::Invalid(d) => {
            let Some(first) = d.list.first() else {
                return PyValueError::new_err(d.to_plain());
            };
            let (line, column) = first.span.line_col(&d.source);
            scenario_error(
                d.name.clone(),
                line,
                column,
                first.message.clone(),
                d.to_plain(),
            )
        }
        Failure::Refused { file, at, message } => match at {
            Some((line, column)) => scenario_error(file, line, column, message.clone(), message),
            None => PyRuntimeError::new_err(message),
        },
        Failure::Usage(m) => PyValueError::new_err(m),
        Failure::Other(m) => PyRuntimeError::new_err(m),
    }
}

/// A flat table as `{"title", "columns", "rows"}`, fields as `str`,
/// `float` or `None`.
fn table_dict<'py>(py: Python<'py>, title: &str, t: &FlatTable) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("title", title)?;
    d.set_item("columns", PyList::new(py, &t.columns)?)?;
    let rows = PyList::empty(py);
    for r in &t.rows {
        let row = PyList::empty(py);
        for i in 0..t.columns.len() {
            match r.get(i) {
                Some(Field::Text(s)) => row.append(s)?,
                Some(Field::Number(x)) => row.append(*x)?,
                Some(Field::Missing) | None => row.append(py.None())?,
            }
        }
        rows.append(row)?;
    }
    d.set_item("rows", rows)?;
    Ok(d)
}

fn request(
    name: String,
    text: String,
    set: Vec<String>,
    variants: Vec<String>,
    seed: Option<u64>,
    replications: Option<u32>,
    jobs: Option<usize>,
) -> Request {
    Request {
        name,
        text,
        sets: set,
        variants,
        seed,
        replications,
        jobs,
    }
}

/// Runs scenario `text` (named `name` in diagnostics and the report) and
/// returns its report as a dict of plain data.
#[pyfunction]
#[pyo3(signature = (name, text, set, variants, seed=None, replications=None, jobs=None))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    name: String,
    text: String,
    set: Vec<String>,
    variants: Vec<String>,
    seed: Option<u64>,
    replications: Option<u32>,
    jobs: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let r = request(name, text, set, variants, seed, replications, jobs);
    let ran = py
        .allow_threads(|| run_request(&r))
        .map_err(|f| raise(py, f))?;
    let d = PyDict::new(py);
    d.set_item("title", &ran.title)?;
    d.set_item("meta", ran.meta.clone())?;
    let tables = PyList::empty(py);
    for (title, t) in &ran.tables {
        tables.append(table_dict(py, title, t)?)?;
    }
    d.set_item("tables", tables)?;
    let expectations = PyList::empty(py);
    for e in &ran.expectations {
        let x = PyDict::new(py);
        x.set_item("line", e.line)?;
        x.set_item("text", &e.text)?;
        x.set_item("actual", e.actual)?;
        x.set_item("expected", e.expected)?;
        x.set_item("wanted", &e.wanted)?;
        x.set_item("passed", e.passed && !e.not_run)?;
        x.set_item("not_run", e.not_run)?;
        expectations.append(x)?;
    }
    d.set_item("expectations", expectations)?;
    d.set_item("text", &ran.text)?;
    d.set_item("markdown", &ran.markdown)?;
    d.set_item("html", &ran.html)?;
    d.set_item("series_csv", &ran.series_csv)?;
    d.set_item("clock", ran.clock)?;
    d.set_item("tick_seconds", ran.tick_seconds)?;
    Ok(d)
}

/// Runs every point of a sweep of scenario `text` over the `vary` axes
/// (`[(param, [value, ...]), ...]`, values in the language's spelling)
/// and returns its table as `{"title", "columns", "rows"}`.
#[pyfunction]
#[pyo3(signature = (name, text, vary, set, seed=None, replications=None, jobs=None))]
#[allow(clippy::too_many_arguments)]
fn sweep<'py>(
    py: Python<'py>,
    name: String,
    text: String,
    vary: Vec<(String, Vec<String>)>,
    set: Vec<String>,
    seed: Option<u64>,
    replications: Option<u32>,
    jobs: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let r = request(name, text, set, Vec::new(), seed, replications, jobs);
    let (table, units) = py
        .allow_threads(|| sweep_request(&r, &vary))
        .map_err(|f| raise(py, f))?;
    let d = table_dict(py, "sweep", &table)?;
    let u = PyDict::new(py);
    for (name, symbol) in units {
        u.set_item(name, symbol)?;
    }
    d.set_item("units", u)?;
    Ok(d)
}

/// The extension module.
#[pymodule]
fn _squall(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
