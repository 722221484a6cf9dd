//! Layout: the tree of lines and blocks the walk builds, and how it becomes
//! text. A block goes on one line when its kind allows it, it fits in
//! [`WIDTH`] columns and it holds no comment; comments are
//! printed where they were written and blank lines between items are kept.

use super::comments::{has_blank_line, Comment};
use crate::ast::Expr;
use crate::span::Span;

/// The widest line the formatter makes by joining a block onto one line.
pub const WIDTH: usize = 100;

/// When a block may be printed on one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Inline {
    /// Always one item per line.
    Never,
    /// On one line when it fits.
    IfFits,
    /// On one line when it holds at most one item and fits.
    IfSingle,
}

/// One line of output, or a block with its lines.
#[derive(Debug)]
pub(super) struct Node {
    /// The text of the line (a block's header, without `{`).
    pub(super) head: String,
    /// Where it was written: `(start, end)`; `None` when unknown.
    pub(super) at: Option<(usize, usize)>,
    pub(super) block: Option<BlockNode>,
}

#[derive(Debug)]
pub(super) struct BlockNode {
    /// Offsets of `{` and `}` in the source.
    pub(super) braces: Option<(usize, usize)>,
    pub(super) inline: Inline,
    pub(super) children: Vec<Node>,
}

pub(super) fn span_at(s: Span) -> Option<(usize, usize)> {
    Some((s.start, s.end))
}

pub(super) fn join_at(
    a: Option<(usize, usize)>,
    b: Option<(usize, usize)>,
) -> Option<(usize, usize)> {
    match (a, b) {
        (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.max(b.1))),
        (a, None) => a,
        (None, b) => b,
    }
}

pub(super) fn expr_end(e: &Expr) -> usize {
    e.span.end
}

pub(super) struct Printer<'s> {
    pub(super) src: Option<&'s str>,
    pub(super) comments: Vec<Comment>,
    pub(super) next_comment: usize,
    pub(super) braces: Vec<(usize, usize)>,
    pub(super) next_brace: usize,
    pub(super) lines: Vec<String>,
    /// The last line, still open for a trailing comment.
    pub(super) pending: Option<String>,
    pub(super) indent: usize,
    /// Source offset just after the last thing printed.
    pub(super) last_end: usize,
    /// True right after `{` (and at the top of the file): no blank line.
    pub(super) block_start: bool,
}

impl<'s> Printer<'s> {
    pub(super) fn new(
        src: Option<&'s str>,
        comments: Vec<Comment>,
        braces: Vec<(usize, usize)>,
    ) -> Self {
        Printer {
            src,
            comments,
            next_comment: 0,
            braces,
            next_brace: 0,
            lines: Vec::new(),
            pending: None,
            indent: 0,
            last_end: 0,
            block_start: true,
        }
    }

    pub(super) fn take_brace(&mut self) -> Option<(usize, usize)> {
        let b = self.braces.get(self.next_brace).copied();
        self.next_brace += 1;
        b
    }

    /// Passes over the brace pairs that open inside `span`: a leaf printed
    /// on one line with braces of its own (`backoff grpc { ... }`) takes
    /// them, so the next block finds its own.
    pub(super) fn skip_braces(&mut self, span: crate::span::Span) {
        while self
            .braces
            .get(self.next_brace)
            .is_some_and(|&(o, _)| o >= span.start && o < span.end)
        {
            self.next_brace += 1;
        }
    }

    pub(super) fn block(
        &mut self,
        head: String,
        at: Option<(usize, usize)>,
        inline: Inline,
    ) -> Node {
        let braces = self.take_brace();
        let at = join_at(at, braces.map(|(o, c)| (o, c + 1)));
        Node {
            head,
            at,
            block: Some(BlockNode {
                braces,
                inline,
                children: Vec::new(),
            }),
        }
    }

    pub(super) fn leaf(head: String, at: Option<(usize, usize)>) -> Node {
        Node {
            head,
            at,
            block: None,
        }
    }

    pub(super) fn has_comment_in(&self, braces: Option<(usize, usize)>) -> bool {
        let Some((open, close)) = braces else {
            return false;
        };
        self.comments[self.next_comment..]
            .iter()
            .any(|c| c.start > open && c.start < close)
    }

    /// The node on one line, if its kind and contents allow it.
    pub(super) fn one_line(&self, node: &Node) -> Option<String> {
        let Some(b) = &node.block else {
            return Some(node.head.clone());
        };
        let allowed = match b.inline {
            Inline::Never => false,
            Inline::IfFits => true,
            Inline::IfSingle => b.children.len() <= 1,
        };
        if !allowed || self.has_comment_in(b.braces) {
            return None;
        }
        if b.children.is_empty() {
            return Some(format!("{} {{ }}", node.head));
        }
        let parts: Option<Vec<String>> = b.children.iter().map(|c| self.one_line(c)).collect();
        Some(format!("{} {{ {} }}", node.head, parts?.join("  ")))
    }

    pub(super) fn render(&mut self, node: &Node) {
        let start = node.at.map(|a| a.0);
        if let Some(text) = self.one_line(node) {
            if self.indent * 2 + text.chars().count() <= WIDTH || node.block.is_none() {
                self.emit(start, node.at.map(|a| a.1), text);
                return;
            }
        }
        let Some(b) = &node.block else {
            return;
        };
        let open_end = b.braces.map(|(o, _)| o + 1);
        self.emit(start, open_end, format!("{} {{", node.head));
        self.indent += 1;
        self.block_start = true;
        for child in &b.children {
            self.render(child);
        }
        let close = b.braces.map(|(_, c)| c);
        self.settle(close, false);
        self.indent -= 1;
        self.emit_closing(close);
    }

    /// Closes the pending line (attaching a trailing comment that comes
    /// before `next`) and prints the full-line comments before `next`.
    pub(super) fn settle(&mut self, next: Option<usize>, blank_allowed: bool) {
        let limit = next.unwrap_or(usize::MAX);
        if let Some(mut line) = self.pending.take() {
            if let Some(c) = self.comments.get(self.next_comment) {
                if c.trailing && c.start < limit && next.is_some() {
                    line.push_str("  ");
                    line.push_str(&c.text);
                    self.last_end = c.end;
                    self.next_comment += 1;
                }
            }
            self.lines.push(line);
        }
        if next.is_none() {
            return;
        }
        while let Some(c) = self.comments.get(self.next_comment) {
            if c.start >= limit {
                break;
            }
            let c = c.clone();
            self.next_comment += 1;
            self.blank_line_before(c.start);
            self.lines
                .push(format!("{}{}", "  ".repeat(self.indent), c.text));
            self.last_end = c.end;
            self.block_start = false;
        }
        if blank_allowed {
            if let Some(n) = next {
                self.blank_line_before(n);
            }
        }
    }

    pub(super) fn blank_line_before(&mut self, at: usize) {
        let Some(src) = self.src else {
            return;
        };
        if !self.block_start
            && at >= self.last_end
            && has_blank_line(src.get(self.last_end..at).unwrap_or(""))
        {
            self.lines.push(String::new());
        }
    }

    pub(super) fn emit(&mut self, start: Option<usize>, end: Option<usize>, text: String) {
        self.settle(start, true);
        self.pending = Some(format!("{}{text}", "  ".repeat(self.indent)));
        if let Some(e) = end {
            self.last_end = self.last_end.max(e);
        }
        self.block_start = false;
    }

    pub(super) fn emit_closing(&mut self, close: Option<usize>) {
        self.pending = Some(format!("{}}}", "  ".repeat(self.indent)));
        if let Some(c) = close {
            self.last_end = c + 1;
        }
        self.block_start = false;
    }

    pub(super) fn finish(mut self) -> String {
        // Comments after the scenario's closing brace.
        self.settle(Some(usize::MAX - 1), true);
        let mut out = self.lines.join("\n");
        out.push('\n');
        out
    }
}

pub(super) fn push_children(node: &mut Node, children: Vec<Node>) {
    if let Some(b) = &mut node.block {
        b.children = children;
    }
}
