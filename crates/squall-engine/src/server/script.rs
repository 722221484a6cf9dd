//! [`Script`]: the scripted answers of a node at the bottom of a path.
//!
//! A node's routes are tried in declaration order; the first whose method
//! and path match the request answers (a route without a method or path
//! matches any). No match answers 404; a node without routes answers
//! success.
//!
//! Each route's script is a little state machine: the current step, and
//! the calls it has answered. A step `x N` ends after N calls, a step
//! `until T` at tick T; the last step holds for ever.

use squall_lang::{RequestSpec, RouteSpec};

use crate::outcome::{answer_of, Answer, FailKind, Failure};

/// Where each route of one node's script stands.
#[derive(Debug, Clone)]
pub(crate) struct Script {
    /// Calls each route has answered over the run.
    pub(crate) calls: Vec<u64>,
    /// Each route's current step and the calls it has answered.
    steps: Vec<(usize, u64)>,
}

impl Script {
    /// A script of `routes` routes, at their first step.
    pub(crate) fn new(routes: usize) -> Self {
        Script {
            calls: vec![0; routes],
            steps: vec![(0, 0); routes],
        }
    }

    /// The answer `routes` give `request` at tick `t`. Inlined: a node
    /// without routes (success) pays one test.
    #[inline]
    pub(crate) fn answer(&mut self, routes: &[RouteSpec], request: &RequestSpec, t: u64) -> Answer {
        if routes.is_empty() {
            return Answer::Ok;
        }
        self.answer_routes(routes, request, t)
    }

    /// [`answer`](Self::answer) at a node with routes.
    #[inline(never)]
    fn answer_routes(&mut self, routes: &[RouteSpec], request: &RequestSpec, t: u64) -> Answer {
        let Some(r) = routes.iter().position(|r| {
            r.method.is_none_or(|mm| mm == request.method)
                && r.path.as_ref().is_none_or(|p| *p == request.path)
        }) else {
            return Answer::Fail(Failure {
                kind: FailKind::Status(404),
                not_before: None,
            });
        };
        self.calls[r] += 1;
        let script = &routes[r].script;
        let (mut step, mut used) = self.steps[r];
        while step + 1 < script.len() {
            let s = &script[step];
            let over = match (s.times, s.until) {
                (Some(n), _) => used >= n,
                (None, Some(u)) => t >= u,
                (None, None) => false,
            };
            if !over {
                break;
            }
            step += 1;
            used = 0;
        }
        self.steps[r] = (step, used + 1);
        script
            .get(step)
            .map_or(Answer::Ok, |s| answer_of(&s.response, t))
    }
}
