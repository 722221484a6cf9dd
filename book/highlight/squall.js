// highlight.js language definition for squall scenario files, loaded by
// mdBook (`additional-js` in book.toml) so that ```squall blocks are
// coloured in the book.
//
// The word lists below are checked against the pest grammar
// (crates/squall-lang/src/squall.pest) by tests/highlighting.rs, together
// with the TextMate grammar editors/squall.tmLanguage.json; keep the three
// in step. Keywords are contextual in the language (a window may be called
// `during`), so a keyword used as a name is coloured as a keyword.

(function () {
  "use strict";

  // Words that start a declaration or a report item.
  var DECLARATIONS =
    "backoff chain chart clock diagnose draws endpoint epoch expect fault herd " +
    "isolation line link measure operations param policy provider replications " +
    "report rng run scenario seed sender series service set source sweep " +
    "table trace variant waits warmup window without work_budget";

  // The other words of the grammar.
  var KEYWORDS =
    "after against aimd answer arrivals as at attempt attempts aws_adaptive " +
    "balance batch body_error breaker bucket budget burst call cancel cap capacity " +
    "classified clients column conflict consumers cooldown core date dead_letter " +
    "deadline decorrelated default discipline during end enters entries " +
    "equal_jitter errors every exponential fail failures field fixed from " +
    "full_jitter gate hedge high honor idempotency_key ignore immediately in items jitter " +
    "label latency ledger limit limiter load lognormal low marker max max_receives " +
    "mean naive network_error none normal of on op optimistic optional partition path per " +
    "phase poison policies priority probes propagate pushback queue rate redeliver " +
    "replicas " +
    "request response retry retry_after route rows sd seconds sequential serial " +
    "stale_for status step then think throttle timeout to unbounded uniform " +
    "unknown_attempts until " +
    "variants vs wait weight windows within work workers x";

  // Units written after a number.
  var UNITS =
    "B GiB KiB MiB h min ms round rounds s";

  // HTTP methods of requests and routes.
  var METHODS =
    "DELETE GET HEAD OPTIONS PATCH POST PUT";

  function squall(hljs) {
    var NUMBER = "\\d[\\d_]*(?:\\.\\d+)?";
    return {
      name: "squall",
      aliases: ["sq"],
      case_insensitive: false,
      keywords: {
        $pattern: /[A-Za-z_][A-Za-z0-9_]*/,
        keyword: DECLARATIONS,
        built_in: KEYWORDS
      },
      contains: [
        hljs.HASH_COMMENT_MODE,
        {
          className: "string",
          begin: /"/,
          end: /"|$/,
          contains: [
            { className: "char.escape", begin: /\\.|\{\{|\}\}/ },
            { className: "subst", begin: /\{[^{}"]*\}/ }
          ]
        },
        {
          // an HTTP method and the path after it: `request GET /v1/orders`
          className: "meta",
          begin: new RegExp("\\b(?:" + METHODS.split(" ").join("|") + ")\\b(?:\\s+/[^\\s{}\"#]*)?")
        },
        { className: "meta", begin: /\*\s+\/[^\s{}"#]*/ },
        { className: "number", begin: /\b0x[0-9A-Fa-f]+\b/ },
        {
          // a number and its unit: `4 rounds`, `200ms`, `4/round`, `180 B`
          className: "number",
          begin: new RegExp("\\b" + NUMBER + "(?:\\s*/\\s*[A-Za-z]+\\b|\\s*(?:" +
            UNITS.split(" ").sort(function (a, b) { return b.length - a.length; }).join("|") +
            ")\\b)?")
        },
        { className: "variable", begin: /\$[A-Za-z_][A-Za-z0-9_]*/ },
        { className: "built_in", begin: /\bp\d+(?:\.\d+)?\b/ },
        { className: "operator", begin: /->|\.\.<|\.\.|==|!=|<=|>=/ }
      ]
    };
  }

  if (typeof hljs === "undefined") {
    return;
  }
  hljs.registerLanguage("squall", squall);
  // mdBook highlights the page before this file runs: colour its squall
  // blocks again, from their text, now that the language is known.
  var blocks = document.querySelectorAll("code.language-squall");
  for (var i = 0; i < blocks.length; i++) {
    var block = blocks[i];
    block.textContent = block.textContent;
    if (hljs.highlightElement) {
      hljs.highlightElement(block);
    } else {
      hljs.highlightBlock(block);
    }
  }
})();
