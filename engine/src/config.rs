//! Per-request settings: sampling, limits, stop strings, the tool-call grammar.

use std::time::Duration;

/// How the next token is chosen. Plain data; see the presets.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct SamplingConfig {
    /// Softmax temperature; `<= 0` means greedy (always the most likely token).
    pub temperature: f32,
    /// Keep only the `top_k` most likely tokens (0 = off).
    pub top_k: i32,
    /// Nucleus sampling: keep the smallest set with cumulative probability `top_p` (1 = off).
    pub top_p: f32,
    /// Drop tokens less likely than `min_p` × the most likely one (0 = off).
    pub min_p: f32,
    /// Penalty for tokens among the last `repeat_last_n` (1 = off).
    pub repeat_penalty: f32,
    /// How many recent tokens the repeat penalty looks at.
    pub repeat_last_n: i32,
    /// Seed of the random choice (ignored when greedy).
    pub seed: u32,
}

impl SamplingConfig {
    /// Deterministic: the most likely token every time. For tests, benchmarks and tool use.
    pub fn greedy() -> Self {
        Self {
            temperature: 0.0,
            top_k: 0,
            top_p: 1.0,
            min_p: 0.0,
            repeat_penalty: 1.0,
            repeat_last_n: 64,
            seed: 0,
        }
    }

    /// Conversational defaults (temperature 0.7, top-k 40, top-p 0.95, min-p 0.05, a light
    /// repeat penalty against the loops small models fall into).
    pub fn balanced() -> Self {
        Self {
            temperature: 0.7,
            top_k: 40,
            top_p: 0.95,
            min_p: 0.05,
            repeat_penalty: 1.1,
            repeat_last_n: 64,
            seed: 42,
        }
    }

    /// Whether this configuration is greedy.
    pub fn is_greedy(&self) -> bool {
        self.temperature <= 0.0
    }
}

impl Default for SamplingConfig {
    /// [`SamplingConfig::balanced`].
    fn default() -> Self {
        Self::balanced()
    }
}

/// The lazy grammar that makes tool-call lines well-formed.
///
/// It stays idle (costing one regular-expression check per token) until the output starts a
/// line with `TOOL_CALL:`; from then on every token must continue `TOOL_CALL: name|args`.
/// A name is ASCII letters and digits in `_`-separated parts, starting with a letter (so no
/// runs of underscores, which a tiny model otherwise loves); every repetition is bounded.
/// Once a call is complete the model may end its turn (or start another call line, up to
/// `max_calls`); until then end-of-generation is masked.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct ToolCallGrammar {
    /// Most `_`-separated parts of a tool name. Default 6.
    pub max_name_parts: u32,
    /// Longest part of a tool name, in characters. Default 24.
    pub max_part_len: u32,
    /// Longest argument string, in characters. Default 256.
    pub max_args_len: u32,
    /// Most call lines in one reply. Default 1: the model ends its turn after a call, the
    /// agent runs it and asks again (a tiny model's second call is mostly a repetition).
    pub max_calls: u32,
}

impl Default for ToolCallGrammar {
    fn default() -> Self {
        Self {
            max_name_parts: 6,
            max_part_len: 24,
            max_args_len: 256,
            max_calls: 1,
        }
    }
}

impl ToolCallGrammar {
    /// The GBNF text. Every repetition is bounded (an unbounded one let a tiny model emit
    /// endless underscores).
    pub fn gbnf(&self) -> String {
        let part_tail = self.max_part_len.max(1) - 1;
        let more_parts = self.max_name_parts.max(1) - 1;
        let more_calls = self.max_calls.max(1) - 1;
        let part_len = self.max_part_len.max(1);
        format!(
            "root ::= call (\"\\n\" call){{0,{more_calls}}} \"\\n\"?\n\
             call ::= \"TOOL_CALL:\" \" \"? name (\"|\" args)?\n\
             name ::= [a-zA-Z] [a-zA-Z0-9]{{0,{part_tail}}} (\"_\" [a-zA-Z0-9]{{1,{part_len}}}){{0,{more_parts}}}\n\
             args ::= [^\\n]{{0,{}}}\n",
            self.max_args_len
        )
    }

    /// The trigger: `TOOL_CALL:` at the start of the output or of a line. The grammar is fed
    /// the output from the captured `TOOL_CALL:` on.
    pub fn trigger_pattern() -> &'static str {
        r"(?:^|\n)(TOOL_CALL:)"
    }
}

/// Limits and sampling of one generation.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct GenerateConfig {
    /// Most tokens to generate. Default 512.
    pub max_tokens: usize,
    /// Wall-clock budget from the moment the request is submitted (prefill included).
    /// Default `None`.
    pub deadline: Option<Duration>,
    /// Generation stops before any of these strings; they are not part of the output.
    pub stop: Vec<String>,
    /// Token choice.
    pub sampling: SamplingConfig,
    /// The tool-call grammar, or `None` for free text. Default on.
    pub tool_call_grammar: Option<ToolCallGrammar>,
}

impl Default for GenerateConfig {
    fn default() -> Self {
        Self {
            max_tokens: 512,
            deadline: None,
            stop: Vec::new(),
            sampling: SamplingConfig::default(),
            tool_call_grammar: Some(ToolCallGrammar::default()),
        }
    }
}

impl GenerateConfig {
    /// Greedy, with the tool-call grammar and at most `max_tokens` tokens.
    pub fn greedy(max_tokens: usize) -> Self {
        Self {
            max_tokens,
            sampling: SamplingConfig::greedy(),
            ..Self::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar_text_bounds_every_repetition() {
        let g = ToolCallGrammar {
            max_name_parts: 3,
            max_part_len: 10,
            max_args_len: 20,
            max_calls: 2,
        }
        .gbnf();
        assert!(g.contains("[a-zA-Z0-9]{0,9}"), "{g}");
        assert!(g.contains("[a-zA-Z0-9]{1,10}){0,2}"), "{g}");
        assert!(g.contains("[^\\n]{0,20}"), "{g}");
        assert!(g.contains("call){0,1}"), "{g}");
        assert!(
            !g.contains('+') && !g.contains('*'),
            "unbounded repetition in {g}"
        );
    }
}
