//! What a request is (its method, path and key), for routing and for
//! deciding whether to retry it.

use serde::Serialize;

/// An HTTP method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Method {
    /// GET
    Get,
    /// HEAD
    Head,
    /// OPTIONS
    Options,
    /// POST
    Post,
    /// PUT
    Put,
    /// PATCH
    Patch,
    /// DELETE
    Delete,
}

impl Method {
    /// Parses an upper-case method name.
    pub fn parse(s: &str) -> Option<Method> {
        Some(match s {
            "GET" => Method::Get,
            "HEAD" => Method::Head,
            "OPTIONS" => Method::Options,
            "POST" => Method::Post,
            "PUT" => Method::Put,
            "PATCH" => Method::Patch,
            "DELETE" => Method::Delete,
            _ => return None,
        })
    }

    /// Safe methods change nothing on the server, so repeating them is harmless.
    pub fn is_safe(self) -> bool {
        matches!(self, Method::Get | Method::Head | Method::Options)
    }

    /// The method's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Options => "OPTIONS",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }
}

/// What a request is, for routing and for deciding whether to retry it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestSpec {
    /// Its method.
    pub method: Method,
    /// Its path.
    pub path: String,
    /// Whether it carries an idempotency key.
    pub key: bool,
}

impl Default for RequestSpec {
    fn default() -> Self {
        RequestSpec {
            method: Method::Get,
            path: "/".into(),
            key: false,
        }
    }
}
