//! Reference implementations written from seed document 002's definitions
//! (its JavaScript), not from squall's code: the mulberry32 generator,
//! `Math.round`, and the backoff formulas of each policy.

/// mulberry32 as the document's JavaScript (`uretec`) computes it, written
/// from that code with JavaScript's number semantics: `>>> 0` and
/// `Math.imul` are reductions modulo 2^32, done here in 64-bit arithmetic.
#[derive(Debug, Clone)]
pub struct JsMulberry32 {
    a: u64,
}

const MOD32: u64 = 0xffff_ffff;

/// `Math.imul(x, y) >>> 0`: the low 32 bits of the product.
fn imul(x: u64, y: u64) -> u64 {
    ((x & MOD32) * (y & MOD32)) & MOD32
}

impl JsMulberry32 {
    /// `uretec(tohum)`: `a = tohum >>> 0`.
    pub fn new(seed: u32) -> Self {
        JsMulberry32 { a: u64::from(seed) }
    }

    /// The generator's output before the division by 2^32.
    pub fn next_raw(&mut self) -> u64 {
        self.a = (self.a + 0x6d2b_79f5) & MOD32;
        let a = self.a;
        let t = imul(a ^ (a >> 15), 1 | a);
        let t = ((t + imul(t ^ (t >> 7), 61 | t)) & MOD32) ^ t;
        (t ^ (t >> 14)) & MOD32
    }

    /// `rastgele()`: a float in `[0, 1)`.
    pub fn next(&mut self) -> f64 {
        self.next_raw() as f64 / 4_294_967_296.0
    }
}

/// JavaScript's `Math.round` for the non-negative values of backoff waits.
pub fn js_round(x: f64) -> u64 {
    (x + 0.5).floor() as u64
}

/// The exponential bound before retry `n` (1-based, the document's `n + 1`):
/// `min(cap, base * multiplier^(n-1))`.
pub fn bound(base: f64, multiplier: f64, cap: Option<f64>, n: u32) -> f64 {
    let e = base * multiplier.powf(f64::from(n) - 1.0);
    cap.map_or(e, |c| e.min(c))
}

/// A backoff policy as the tests describe it (times in ticks).
#[derive(Debug, Clone, Copy)]
pub enum Policy {
    Fixed(u64),
    Exponential { base: u64, m: f64, cap: Option<u64> },
    Full { base: u64, m: f64, cap: Option<u64> },
    Equal { base: u64, m: f64, cap: Option<u64> },
    Decorrelated { base: u64, cap: Option<u64> },
}

impl Policy {
    /// True for the jittered policies, which draw one number per wait.
    pub fn draws(self) -> bool {
        !matches!(self, Policy::Fixed(_) | Policy::Exponential { .. })
    }

    /// The policy in the scenario language, times in `unit`, drawing from
    /// `rng` when it is jittered.
    pub fn text(self, unit: &str, rng: &str) -> String {
        let cap = |c: Option<u64>| c.map_or(String::new(), |c| format!(" cap {c}{unit}"));
        let rng = if rng.is_empty() {
            String::new()
        } else {
            format!(" rng {rng}")
        };
        match self {
            Policy::Fixed(w) => format!("fixed {w}{unit}"),
            Policy::Exponential { base, m, cap: c } => {
                format!("exponential {base}{unit} x {m}{}", cap(c))
            }
            Policy::Full { base, m, cap: c } => {
                format!("full_jitter {base}{unit} x {m}{}{rng}", cap(c))
            }
            Policy::Equal { base, m, cap: c } => {
                format!("equal_jitter {base}{unit} x {m}{}{rng}", cap(c))
            }
            Policy::Decorrelated { base, cap: c } => {
                format!("decorrelated {base}{unit}{}{rng}", cap(c))
            }
        }
    }

    /// The wait before retry `n` given the draw `r` and the previous wait of
    /// the same loop (decorrelated only), from the formulas:
    ///
    /// * fixed: the wait; exponential: the bound `e`;
    /// * full jitter: `round(r * e)`;
    /// * equal jitter: `round(e/2 + r * e/2)`;
    /// * decorrelated: `min(cap, round(base + r * (3 * prev - base)))`, `prev`
    ///   starting at `base`.
    pub fn wait(self, n: u32, r: f64, prev: Option<u64>) -> u64 {
        let f = |x: u64| x as f64;
        match self {
            Policy::Fixed(w) => w,
            Policy::Exponential { base, m, cap } => js_round(bound(f(base), m, cap.map(f), n)),
            Policy::Full { base, m, cap } => js_round(r * bound(f(base), m, cap.map(f), n)),
            Policy::Equal { base, m, cap } => {
                let e = bound(f(base), m, cap.map(f), n);
                js_round(e / 2.0 + r * e / 2.0)
            }
            Policy::Decorrelated { base, cap } => {
                let prev = f(prev.unwrap_or(base));
                let w = js_round(f(base) + r * (prev * 3.0 - f(base)));
                cap.map_or(w, |c| w.min(c))
            }
        }
    }
}

/// A jittered retry loop's waits: one draw from `g` per retry.
pub struct Loop<'g> {
    pub g: &'g mut JsMulberry32,
    pub policy: Policy,
    prev: Option<u64>,
}

impl<'g> Loop<'g> {
    pub fn new(g: &'g mut JsMulberry32, policy: Policy) -> Self {
        Loop {
            g,
            policy,
            prev: None,
        }
    }

    /// The wait before retry `n` (1 = after the first failed try).
    pub fn wait(&mut self, n: u32) -> u64 {
        let r = if self.policy.draws() {
            self.g.next()
        } else {
            0.0
        };
        let w = self.policy.wait(n, r, self.prev);
        self.prev = Some(w);
        w
    }
}
