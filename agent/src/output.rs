//! A model output read as lines and calls: the types both call syntaxes parse into (the
//! `TOOL_CALL:` lines of [`crate::call_line`], FunctionGemma's blocks of
//! [`crate::function_gemma`]), so dispatch and validation are shared.

use crate::args::RawArgs;

/// One tool call as the model wrote it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool's name, trimmed and lower-cased (may be empty or odd if the model wrote garbage;
    /// the dispatcher answers such calls as unknown tools).
    pub name: String,
    /// The arguments, not yet validated.
    pub args: RawArgs,
    /// The line as written (without its line break).
    pub line: String,
}

/// One line of a model output, classified.
#[derive(Debug, Clone, PartialEq)]
pub enum Segment {
    /// A text line (with its `\n` when it had one).
    Text(String),
    /// A code-fence line (```` ``` ```` with an optional info word), with its `\n`.
    Fence(String),
    /// A call line.
    Call(ToolCall),
}

/// A model output split into lines and calls.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParsedOutput {
    /// The lines, in order.
    pub segments: Vec<Segment>,
}

impl ParsedOutput {
    /// The calls, in order.
    pub fn calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.segments.iter().filter_map(|s| match s {
            Segment::Call(c) => Some(c),
            _ => None,
        })
    }

    /// Whether the output has at least one call.
    pub fn has_calls(&self) -> bool {
        self.calls().next().is_some()
    }

    /// The text the host may hear: text before the first call, without the fence lines
    /// directly before that call. Exactly what [`VisibleTextFilter`] streams.
    pub fn visible(&self) -> String {
        let mut out = String::new();
        let mut fences = String::new();
        for s in &self.segments {
            match s {
                Segment::Call(_) => return out,
                Segment::Fence(f) => fences.push_str(f),
                Segment::Text(t) => {
                    out.push_str(&fences);
                    fences.clear();
                    out.push_str(t);
                }
            }
        }
        out.push_str(&fences);
        out
    }
}
