//! Classification as data: which provider codes are success, terminal,
//! retryable, and what is left unknown. The types are plain data and live
//! in the language (`squall_lang::model::sending`), where a scenario's
//! `sender` block is read into them; this file keeps their tests.

pub use squall_lang::model::sending::{Classifier, CodeClass, CodeMatch, ProviderCode};

#[cfg(test)]
mod tests {
    use super::CodeClass::*;
    use super::ProviderCode::{Http, Protocol};
    use super::*;

    /// The document's `classify`: 429 and 5xx retry, five 4xx are terminal,
    /// 200 is ok, SMPP 0x58 and 0x14 are the protocol's throttles.
    fn documents_rules() -> Classifier {
        let mut rules = vec![
            (CodeMatch::Exact(Http(200)), Success),
            (CodeMatch::Exact(Http(429)), Retryable),
            (CodeMatch::HttpRange(500, 599), Retryable),
            (CodeMatch::Exact(Protocol(0x58)), Retryable),
            (CodeMatch::Exact(Protocol(0x14)), Retryable),
        ];
        for s in [400, 401, 403, 404, 422] {
            rules.push((CodeMatch::Exact(Http(s)), Terminal));
        }
        Classifier { rules }
    }

    #[test]
    fn three_classes_and_unknown() {
        let c = documents_rules();
        assert_eq!(c.classify(Http(200)), Success);
        assert_eq!(c.classify(Http(429)), Retryable);
        assert_eq!(c.classify(Http(503)), Retryable);
        assert_eq!(c.classify(Http(599)), Retryable);
        assert_eq!(c.classify(Protocol(0x58)), Retryable);
        assert_eq!(c.classify(Protocol(0x14)), Retryable);
        for s in [400, 401, 403, 404, 422] {
            assert_eq!(c.classify(Http(s)), Terminal, "{s}");
        }
        // Not named: unknown, not terminal and not retryable.
        assert_eq!(c.classify(Http(409)), Unknown);
        assert_eq!(c.classify(Http(600)), Unknown);
        // HTTP 88 is not SMPP 0x58.
        assert_eq!(c.classify(Http(0x58)), Unknown);
        assert_eq!(c.classify(Protocol(500)), Unknown);
    }

    #[test]
    fn first_rule_wins() {
        let c = Classifier {
            rules: vec![
                (CodeMatch::Exact(Http(503)), Terminal),
                (CodeMatch::HttpRange(500, 599), Retryable),
            ],
        };
        assert_eq!(c.classify(Http(503)), Terminal);
        assert_eq!(c.classify(Http(502)), Retryable);
        assert_eq!(Classifier::default().classify(Http(200)), Unknown);
    }
}
