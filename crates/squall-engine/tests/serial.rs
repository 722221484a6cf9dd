//! Serial clients (`clients N  serial every ...`) on scenarios written as
//! text: each client keeps one request in flight and starts its next at
//! max(the last one's end, the last one's start + a drawn gap), the rule
//! of mbrooker's retry_sim `SerialClient` (client.py, `gen_load`).
//!
//! The references are independent of squall: traces worked by hand with
//! fixed latencies and gaps (the run's first tick is 1 ms, and each client
//! counts its first gap from it), the exact count of a deterministic run,
//! and the renewal-reward closed form E[max(L, G)] = L + g e^(-L/g) for a
//! fixed latency L and an exponential gap of mean g.

mod common;

use squall_engine::Observations;
use squall_lang::RunKey;

/// Loads `text`, runs its first variant with a call log of up to `log`
/// rows, and checks that every request and every call is accounted for.
fn run(text: &str, log: usize) -> Observations {
    let s = squall_lang::load("test.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let m = s.model_for(RunKey::Variant(0), &[]).unwrap();
    let obs = common::run_model(&m, Some(log));
    assert!(obs.timed.is_some(), "a run that takes time");
    obs
}

/// `(request, node index, try, start [ms], end [ms])` per answered call,
/// in the order answered.
fn calls(obs: &Observations) -> Vec<(u64, u32, u32, f64, f64)> {
    let log = obs.call_log.as_ref().expect("a call log");
    let ms = log.units_per_tick as f64;
    log.rows
        .iter()
        .map(|r| {
            let end = r.time as f64 / ms;
            (
                r.request,
                r.node,
                r.try_no,
                end - r.latency as f64 / ms,
                end,
            )
        })
        .collect()
}

fn one_service(latency: &str, gap: &str, clients: u32, run_for: &str) -> String {
    format!(
        "scenario \"serial\" {{\n  clock ms\n  run {run_for}\n  chain app\n  service app {{ latency {latency} }}\n  source users {{ clients {clients}  serial every {gap}  enters app }}\n}}\n"
    )
}

/// By hand, one client, latency 3 ms, gap 10 ms: the first request starts
/// one gap after the run's start (1 ms), at 11 ms; each ends 3 ms later,
/// before the gap is out, so the next starts at last start + 10: 21, 31,
/// 41, 51. The next, 61 ms, is past the run of 58 ms.
#[test]
fn a_request_shorter_than_the_gap_starts_the_next_a_gap_after_its_start() {
    let obs = run(&one_service("3ms", "10ms", 1, "58ms"), 100);
    let got: Vec<(f64, f64)> = calls(&obs).iter().map(|c| (c.3, c.4)).collect();
    assert_eq!(
        got,
        [
            (11.0, 14.0),
            (21.0, 24.0),
            (31.0, 34.0),
            (41.0, 44.0),
            (51.0, 54.0)
        ]
    );
    assert_eq!(obs.accounting.completed, 5);
    assert_eq!(obs.accounting.in_flight, 0);
}

/// By hand, one client, latency 15 ms, gap 10 ms: the first starts at
/// 11 ms and ends at 26, past its start + gap (21), so the next starts at
/// once at 26, then 41, 56; the one started at 56 is still in flight when
/// the run of 60 ms ends.
#[test]
fn a_request_longer_than_the_gap_starts_the_next_at_its_end() {
    let obs = run(&one_service("15ms", "10ms", 1, "60ms"), 100);
    let got: Vec<(f64, f64)> = calls(&obs).iter().map(|c| (c.3, c.4)).collect();
    assert_eq!(got, [(11.0, 26.0), (26.0, 41.0), (41.0, 56.0)]);
    assert_eq!(obs.accounting.completed, 3);
    assert_eq!(obs.accounting.in_flight, 1);
}

/// A request's retries are part of it, as in retry_sim (a `Call` tells its
/// client only when it succeeds or gives up). By hand: gap 6 ms, `app`
/// times a try out after 4 ms and tries twice, `db` takes 15 ms. Request 1
/// starts at 7 ms (1 + 6); try 1 times out at 11, try 2 at 15, when the
/// request is dropped: the next starts at max(15, 7 + 6) = 15, not at
/// max(11, 13) = 13 as it would if its first try were the call. So
/// requests start at 7, 15, 23, 31 (each 8 ms, longer than the gap) and
/// 39, in flight at the end of the run of 40 ms; each `db` try runs its
/// 15 ms from the try that sent it (`app`, node 0, calls `db`, node 1).
#[test]
fn a_serial_clients_next_request_waits_for_the_last_ones_retries() {
    let text = "scenario \"serial retries\" {\n  clock ms\n  run 40ms\n  chain app -> db\n  service app { timeout 4ms  retry { attempts 2  backoff fixed 0ms } }\n  service db { latency 15ms }\n  source users { clients 1  serial every 6ms  enters app }\n}\n";
    let obs = run(text, 100);
    let app: Vec<(u64, f64, f64)> = calls(&obs)
        .into_iter()
        .filter(|c| c.1 == 0)
        .map(|c| (c.0, c.3, c.4))
        .collect();
    assert_eq!(
        app,
        [
            (1, 7.0, 15.0),
            (2, 15.0, 23.0),
            (3, 23.0, 31.0),
            (4, 31.0, 39.0)
        ]
    );
    let db: Vec<(u64, u32, f64)> = calls(&obs)
        .into_iter()
        .filter(|c| c.1 == 1)
        .map(|c| (c.0, c.2, c.3))
        .collect();
    assert_eq!(
        db,
        [
            (1, 1, 7.0),
            (1, 2, 11.0),
            (2, 1, 15.0),
            (2, 2, 19.0),
            (3, 1, 23.0)
        ]
    );
    assert_eq!(obs.accounting.dropped, 4);
    assert_eq!(obs.accounting.in_flight, 1);
}

/// With fixed values a run is deterministic and its count exact: each of
/// N = 10 clients starts at 1 + 10 + k x max(L, G) ms. Latency 3, gap 10:
/// starts at 11, 21, ..., 100 001, all before the end of the run of
/// 100 005 ms, so 10 000 per client and every one completed (the last at
/// 100 004 ms). Latency 15, gap 10: starts at 11 + 15 k up to 100 001
/// (k = 6 666), 6 667 per client, and the last one ends at 100 016, after
/// the run. So the throughput is N / max(L, G) up to one request a client.
#[test]
fn fixed_latency_and_gap_give_one_request_per_client_per_max_of_the_two() {
    let obs = run(&one_service("3ms", "10ms", 10, "100005ms"), 0);
    assert_eq!(obs.accounting.completed, 100_000);
    assert_eq!(obs.accounting.in_flight, 0);
    let obs = run(&one_service("15ms", "10ms", 10, "100005ms"), 0);
    assert_eq!(obs.accounting.completed, 66_660);
    assert_eq!(obs.accounting.in_flight, 10);
    assert!(obs.peak_in_flight <= 10, "{}", obs.peak_in_flight);
}

/// N = 20 serial clients, a fixed latency L = 5 ms and an exponential gap
/// of mean g = 10 ms. Each client's starts form a renewal process whose
/// cycle is max(L, G), of mean L + E[(G - L)+] = L + g e^(-L/g) =
/// 5 + 10 e^(-0.5) = 11.0653 ms, so the throughput is N / 11.0653 per ms
/// (1.8074), and by Little's law on the service the mean number of
/// requests in service is that times L (9.037).
///
/// Tolerance: the cycle has variance 2 g^2 p - (g p)^2 = 84.5 ms^2 with
/// p = e^(-L/g) = 0.6065 (sd 9.19 ms, coefficient of variation 0.83);
/// over the ~361 000 cycles of a 200 s run the count's relative standard
/// error is 0.83 / sqrt(361 000) = 0.14 %, and the edges add at most one
/// cycle a client (0.006 %). The bound of 0.6 % is four standard errors.
/// `workers 100` never queues (at most 20 requests are open), so the
/// node's in-service mean is the requests' total service time over the run.
#[test]
fn an_exponential_gap_gives_the_closed_form_throughput() {
    let text = one_service("5ms  workers 100", "exponential mean 10ms", 20, "200s");
    let obs = run(&text, 0);
    let cycle = 5.0 + 10.0 * (-0.5f64).exp();
    let x_exact = 20.0 / cycle;
    let x = obs.accounting.completed as f64 / 200_000.0;
    assert!((x / x_exact - 1.0).abs() < 0.006, "X {x} vs {x_exact}");
    let busy = obs.timed.as_ref().unwrap().nodes[0].run.in_service_mean;
    eprintln!("X {x} exact {x_exact}; in service {busy}");
    assert!(
        (busy / (x_exact * 5.0) - 1.0).abs() < 0.006,
        "in service {busy} vs {}",
        x_exact * 5.0
    );
}
