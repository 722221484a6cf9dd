//! The adaptive send rate's parameters, as a scenario names them
//! (`adaptive aimd { ... }`, `adaptive aws_adaptive`). The controllers
//! themselves are the engine's (`squall_engine::sending`).

use serde::Serialize;

/// Which controller, with its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum AdaptiveSpec {
    /// Additive increase, multiplicative decrease.
    Aimd(AimdSpec),
    /// The AWS SDKs' adaptive retry mode.
    AwsAdaptive,
}

/// AIMD's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AimdSpec {
    /// Ratio above which the rate is cut.
    pub threshold: f64,
    /// Factor of a cut (0.5 halves).
    pub decrease: f64,
    /// Added while clean \[per s, per judgement\].
    pub step: f64,
    /// Seconds between judgements.
    pub every: f64,
    /// Width of the sliding window \[s\].
    pub window: f64,
    /// Floor \[per s\].
    pub min: f64,
    /// Ceiling \[per s\].
    pub max: f64,
}
