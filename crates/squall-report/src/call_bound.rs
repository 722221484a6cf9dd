//! `call_bound(NODE)`: the arithmetic upper bound on calls per request.

/// The most calls one request can make at `node`: the product of the tries
/// of every service above it on a source's path (the largest over sources).
pub fn call_bound(model: &squall_lang::Model, node: usize) -> Option<f64> {
    let mut best: Option<f64> = None;
    for s in &model.sources {
        let mut product = 1.0;
        let mut cur = s.entry;
        let mut steps = 0;
        loop {
            if cur == node {
                best = Some(best.map_or(product, |b: f64| b.max(product)));
                break;
            }
            let n = model.nodes.get(cur)?;
            product *= n.retry.as_ref().map_or(1.0, |r| f64::from(r.attempts));
            match n.downstream {
                Some(d) if steps < model.nodes.len() => {
                    cur = d;
                    steps += 1;
                }
                _ => break,
            }
        }
    }
    best
}
