//! The HTML report in a real browser: `squall run --html` on the retry
//! storm, rendered by headless Chromium to a PNG, must show the chart with
//! the three variants' lines visibly apart.
//!
//! Chromium is Debian's `chromium` package (`.ci/run` installs it when
//! missing). Where no Chromium can be found the test says so on standard
//! error and passes without looking: it is the one test allowed to skip.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The browser window, and so the screenshot \[px\].
const WIDTH: u32 = 1000;
const HEIGHT: u32 = 1400;

/// The first three line colours of a chart: demand grew, storm, no retries.
const BLUE: [u8; 3] = [0x1f, 0x77, 0xb4];
const RED: [u8; 3] = [0xd6, 0x27, 0x28];
const GREEN: [u8; 3] = [0x2c, 0xa0, 0x2c];

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|d| ["chromium", "chromium-browser"].map(|n| d.join(n)))
        .find(|p| p.is_file())
}

/// Runs `cmd` to its end; true when it exited with success. Headless
/// Chromium with `--screenshot` exits by itself once the page is drawn, so
/// the test waits for it with no clock: a wall-clock limit would make the
/// test pass or fail by how busy the machine is.
fn run_to_end(cmd: &mut Command) -> std::io::Result<bool> {
    let status = cmd.stdout(Stdio::null()).stderr(Stdio::null()).status()?;
    Ok(status.success())
}

fn screenshot(browser: &Path, page: &Path, png: &Path, profile: &Path) -> std::io::Result<bool> {
    run_to_end(
        Command::new(browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--screenshot={}", png.display()))
            .arg(format!("--window-size={WIDTH},{HEIGHT}"))
            .arg(format!("file://{}", page.display())),
    )
}

/// Pixels of one colour (within a small tolerance for anti-aliasing), as
/// `(x, y)`.
fn pixels_of(rgb: &[u8], width: usize, colour: [u8; 3]) -> Vec<(usize, usize)> {
    rgb.chunks_exact(3)
        .enumerate()
        .filter(|(_, p)| p.iter().zip(colour).all(|(&a, b)| a.abs_diff(b) <= 24))
        .map(|(i, _)| (i % width, i / width))
        .collect()
}

/// The rows a colour appears in: a flat line (and its legend entry) covers
/// a few, a line that climbs covers many.
fn rows(pixels: &[(usize, usize)]) -> std::collections::BTreeSet<usize> {
    pixels.iter().map(|p| p.1).collect()
}

fn columns(pixels: &[(usize, usize)]) -> std::collections::BTreeSet<usize> {
    pixels.iter().map(|p| p.0).collect()
}

#[test]
fn the_retry_storm_page_shows_three_different_lines_in_chromium() {
    let Some(browser) = chromium() else {
        eprintln!(
            "SKIPPED the_retry_storm_page_shows_three_different_lines_in_chromium: \
             no `chromium` on PATH (install Debian's chromium package; .ci/run does)"
        );
        return;
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("browser");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let page = dir.join("retry-storm.html");
    let o = Command::new(env!("CARGO_BIN_EXE_squall"))
        .args([
            "--color",
            "never",
            "run",
            "scenarios/retry-storm.squall",
            "--html",
        ])
        .arg(&page)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{e}"));
    for fetch in ["src=", "href=", "url(", "@import"] {
        assert!(!html.contains(fetch), "the page fetches nothing: {fetch}");
    }
    let png = dir.join("retry-storm.png");
    let ok = screenshot(&browser, &page, &png, &dir.join("profile"))
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", browser.display()));
    assert!(ok && png.is_file(), "chromium wrote no screenshot");

    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&png).unwrap_or_else(|e| panic!("{e}")),
    ));
    let mut reader = decoder.read_info().unwrap_or_else(|e| panic!("{e}"));
    let mut buf = vec![0; reader.output_buffer_size().unwrap_or(0)];
    let info = reader
        .next_frame(&mut buf)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((info.width, info.height), (WIDTH, HEIGHT));
    let channels = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        other => panic!("unexpected PNG colour type {other:?}"),
    };
    let rgb: Vec<u8> = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    let width = WIDTH as usize;
    // Not blank: a good share of the page is not white.
    let inked = rgb
        .chunks_exact(3)
        .filter(|p| p.iter().any(|&c| c < 200))
        .count();
    assert!(
        inked > rgb.len() / 3 / 100,
        "only {inked} dark pixels: blank?"
    );

    let (blue, red, green) = (
        pixels_of(&rgb, width, BLUE),
        pixels_of(&rgb, width, RED),
        pixels_of(&rgb, width, GREEN),
    );
    let (cb, cr, cg) = (columns(&blue), columns(&red), columns(&green));
    let (rb, rr, rg) = (rows(&blue), rows(&red), rows(&green));
    eprintln!(
        "columns: demand grew {}, storm {}, no retries {}; rows: {}, {}, {}",
        cb.len(),
        cr.len(),
        cg.len(),
        rb.len(),
        rr.len(),
        rg.len()
    );
    // No retries is flat all the run long; the storm climbs during the
    // fault and outlives it; demand grew steps up only during the fault.
    assert!(cg.len() > 2 * cr.len(), "green spans the run");
    assert!(cr.len() > cb.len(), "the storm outlives the fault");
    assert!(cb.len() > 20, "demand grew is visible");
    assert!(cb != cr && cr != cg && cb != cg);
    assert!(
        rr.len() > 3 * rb.len().max(rg.len()),
        "the storm's line climbs, the others stay low"
    );
}
