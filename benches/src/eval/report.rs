//! The eval's results: per case, per variant totals, and the text report.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use porfiry_agent::{Lang, Route, TurnStop};
use porfiry_runtime::TurnStats;

use super::score::FirstAction;

/// How much of a case's turn ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnScope {
    /// The whole turn, stand-ins answering the calls (cases with `reply_contains`).
    Whole,
    /// The first generation, its calls dispatched, then the turn cancelled.
    FirstGeneration,
}

/// One case under one variant.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CaseResult {
    /// The case file (its file name).
    pub file: String,
    /// The case's 1-based position in the file.
    pub case: usize,
    /// What the user said.
    pub user: String,
    /// The file's language.
    pub lang: Lang,
    /// The toolsets active before the turn.
    pub active: Vec<String>,
    /// The right first actions, as written (`text`, `name`, `name{key=value, key~part}`).
    pub expected: Vec<String>,
    /// What the model did first.
    pub first_action: FirstAction,
    /// The first generation's whole text (calls included).
    pub first_output: String,
    /// A valid call matching an expected one (name and named arguments), or a plain reply
    /// where one is expected.
    pub correct: bool,
    /// The tool's name matches an expected call, whatever its arguments (or a plain reply
    /// where one is expected).
    pub name_correct: bool,
    /// The case accepts a plain reply and the model called a tool instead.
    pub false_call: bool,
    /// The first call is one the dispatcher cannot take (unknown tool, bad arguments).
    pub malformed: bool,
    /// How much of the turn ran.
    pub turn: TurnScope,
    /// How the turn stopped (`cancelled` after the first generation with
    /// [`TurnScope::FirstGeneration`] when the model called a tool).
    pub stop: TurnStop,
    /// The turn's final reply (with [`TurnScope::FirstGeneration`]: the first generation's
    /// visible text).
    pub reply: String,
    /// `reply` in the model's tokens.
    pub reply_tokens: usize,
    /// With `reply_contains`: whether the final reply contains every substring
    /// (case-insensitive), however it got there; `null` without.
    pub reply_ok: Option<bool>,
    /// With `reply_contains`: the whole turn succeeded — the first action is correct and the
    /// final reply contains every substring (a lucky invention does not count); `null` without.
    pub turn_ok: Option<bool>,
    /// The tools executed during the turn, in order.
    pub executed: Vec<String>,
    /// Where routing sent the first action (target, score, margin, nearest example);
    /// `null` when the turn was not routed.
    pub route: Option<Route>,
    /// The turn's figures (the runtime's one definition: tokens, TTFT, times).
    #[serde(flatten)]
    pub stats: TurnStats,
}

impl CaseResult {
    /// The case's first expected action: `text` or a tool name (how
    /// [`Totals::by_expected`] groups cases).
    pub fn kind(&self) -> String {
        let first = self.expected.first().map_or("text", String::as_str);
        first.split('{').next().unwrap_or(first).to_string()
    }

    /// Whether the case accepts a plain reply.
    pub fn accepts_text(&self) -> bool {
        self.expected.iter().any(|e| e == "text")
    }
}

/// Cases and correct first actions of one group.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Tally {
    /// Cases.
    pub cases: usize,
    /// Of those, correct first actions.
    pub correct: usize,
}

/// The figures of a set of case results.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Totals {
    /// Cases.
    pub cases: usize,
    /// Correct first actions.
    pub correct: usize,
    /// `correct / cases` (0 without cases).
    pub accuracy: f64,
    /// Cases whose right first action is a tool call only (no `text: true` alternative).
    pub tool_cases: usize,
    /// Of those, correct first actions (the headline figure: does the model use its tools?).
    pub tool_correct: usize,
    /// First actions with the right tool name (or a plain reply where one is expected).
    pub name_correct: usize,
    /// Cases whose first action was a tool call (valid or not).
    pub calls: usize,
    /// Cases that accept a plain reply (`text: true`).
    pub plain_cases: usize,
    /// Of those, answered with a call no alternative accepts.
    pub false_calls: usize,
    /// First actions the dispatcher cannot take (unknown tool, bad arguments).
    pub malformed: usize,
    /// First actions that are no output at all (model errors).
    pub no_output: usize,
    /// Cases with `reply_contains` (run as whole turns).
    pub whole_turn_cases: usize,
    /// Of those, whole turns that succeeded: the right first action and a final reply
    /// containing every substring.
    pub whole_turn_ok: usize,
    /// Of those, final replies containing every substring, however they got there.
    pub reply_ok: usize,
    /// Σ final reply tokens.
    pub reply_tokens: usize,
    /// Mean final reply tokens per case.
    pub reply_tokens_mean: f64,
    /// Mean time to the first token of a case's first request, ms.
    pub ttft_ms_mean: f64,
    /// Σ prompt tokens over every request.
    pub prompt_tokens: usize,
    /// Σ prompt tokens prefilled.
    pub prefilled_tokens: usize,
    /// Σ tokens generated.
    pub generated_tokens: usize,
    /// Σ model calls.
    pub generations: usize,
    /// Σ turn wall time, ms.
    pub turn_ms: f64,
    /// By the case's first expected action (`text` or a tool name).
    pub by_expected: BTreeMap<String, Tally>,
}

impl Totals {
    /// The figures of `cases`.
    pub fn of<'a>(cases: impl IntoIterator<Item = &'a CaseResult>) -> Self {
        let mut t = Totals::default();
        let mut ttft = 0.0;
        for c in cases {
            t.cases += 1;
            t.correct += usize::from(c.correct);
            t.name_correct += usize::from(c.name_correct);
            t.calls += usize::from(matches!(c.first_action, FirstAction::Call { .. }));
            t.plain_cases += usize::from(c.accepts_text());
            if !c.accepts_text() {
                t.tool_cases += 1;
                t.tool_correct += usize::from(c.correct);
            }
            t.false_calls += usize::from(c.false_call);
            t.malformed += usize::from(c.malformed);
            t.no_output += usize::from(matches!(c.first_action, FirstAction::NoOutput { .. }));
            if let Some(ok) = c.reply_ok {
                t.whole_turn_cases += 1;
                t.reply_ok += usize::from(ok);
                t.whole_turn_ok += usize::from(c.turn_ok == Some(true));
            }
            t.reply_tokens += c.reply_tokens;
            ttft += c.stats.ttft_ms;
            t.prompt_tokens += c.stats.prompt_tokens;
            t.prefilled_tokens += c.stats.prefilled_tokens;
            t.generated_tokens += c.stats.generated_tokens;
            t.generations += c.stats.generations;
            t.turn_ms += c.stats.turn_ms;
            let tally = t.by_expected.entry(c.kind()).or_default();
            tally.cases += 1;
            tally.correct += usize::from(c.correct);
        }
        if t.cases > 0 {
            let n = t.cases as f64;
            t.accuracy = t.correct as f64 / n;
            t.reply_tokens_mean = t.reply_tokens as f64 / n;
            t.ttft_ms_mean = ttft / n;
        }
        t
    }
}

/// Every case under one variant, with its totals.
#[derive(Debug, Clone, serde::Serialize)]
pub struct VariantReport {
    /// The variant's name.
    pub variant: String,
    /// What it changes.
    pub about: String,
    /// All its cases.
    pub totals: Totals,
    /// Per case file (by file name).
    pub by_file: BTreeMap<String, Totals>,
    /// Every case, in run order.
    pub cases: Vec<CaseResult>,
}

/// The whole run: one model, the files, every variant side by side.
#[derive(Debug, Clone, serde::Serialize)]
pub struct EvalReport {
    /// The model: what the engine reports about it (path, architecture, context, threads…).
    pub model: serde_json::Value,
    /// The case files, in run order.
    pub files: Vec<String>,
    /// One report per variant, in the order asked.
    pub variants: Vec<VariantReport>,
}

/// A row of the totals table: its label and how a variant's totals fill its cell.
type TotalsRow = (&'static str, fn(&Totals) -> String);

fn pct(n: usize, of: usize) -> String {
    if of == 0 {
        "-".into()
    } else {
        format!("{n}/{of} ({:.0}%)", 100.0 * n as f64 / of as f64)
    }
}

fn clip(s: &str, width: usize) -> String {
    let one_line = s.replace('\n', " ");
    if one_line.chars().count() <= width {
        one_line
    } else {
        let mut t: String = one_line.chars().take(width.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

impl EvalReport {
    /// The text report: one line per case with every variant's first action side by side
    /// (`+` correct, `-` not), then the totals, one column per variant.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let Some(first) = self.variants.first() else {
            return out;
        };
        let col = self
            .variants
            .iter()
            .map(|v| v.variant.chars().count())
            .max()
            .unwrap_or(0)
            .max(22);
        let _ = write!(out, "{:<48} {:<30}", "case", "expected");
        for v in &self.variants {
            let _ = write!(out, " {:<col$}", v.variant);
        }
        out.push('\n');
        for (i, c) in first.cases.iter().enumerate() {
            let stem = std::path::Path::new(&c.file)
                .file_stem()
                .map_or_else(|| c.file.clone(), |s| s.to_string_lossy().into_owned());
            let label = format!("{stem}#{} {}", c.case, c.user);
            let _ = write!(
                out,
                "{:<48} {:<30}",
                clip(&label, 48),
                clip(&c.expected.join(" | "), 30)
            );
            for v in &self.variants {
                let cell = match v.cases.get(i) {
                    Some(r) => {
                        let mut cell = format!(
                            "{} {}",
                            if r.correct { '+' } else { '-' },
                            r.first_action.label()
                        );
                        match (r.turn_ok, r.reply_ok) {
                            (Some(true), _) => cell.push_str(" (turn ok)"),
                            (_, Some(true)) => cell.push_str(" (reply only)"),
                            (_, Some(false)) => cell.push_str(" (turn no)"),
                            _ => {}
                        }
                        cell
                    }
                    None => String::new(),
                };
                let _ = write!(out, " {:<col$}", clip(&cell, col));
            }
            out.push('\n');
        }
        out.push('\n');
        let rows: &[TotalsRow] = &[
            ("cases", |t| t.cases.to_string()),
            ("first action correct", |t| pct(t.correct, t.cases)),
            ("  on tool cases", |t| pct(t.tool_correct, t.tool_cases)),
            ("  tool name right", |t| pct(t.name_correct, t.cases)),
            ("false calls (plain-reply cases)", |t| {
                pct(t.false_calls, t.plain_cases)
            }),
            ("malformed/unknown calls", |t| pct(t.malformed, t.calls)),
            ("whole turn ok (reply_contains)", |t| {
                pct(t.whole_turn_ok, t.whole_turn_cases)
            }),
            ("  reply contains, any way", |t| {
                pct(t.reply_ok, t.whole_turn_cases)
            }),
            ("reply tokens (mean)", |t| {
                format!("{:.1}", t.reply_tokens_mean)
            }),
            ("TTFT ms (mean)", |t| format!("{:.0}", t.ttft_ms_mean)),
            ("prompt / prefilled / generated tok", |t| {
                format!(
                    "{} / {} / {}",
                    t.prompt_tokens, t.prefilled_tokens, t.generated_tokens
                )
            }),
            ("time (s)", |t| format!("{:.1}", t.turn_ms / 1000.0)),
        ];
        let _ = write!(out, "{:<36}", "totals");
        for v in &self.variants {
            let _ = write!(out, " {:<col$}", v.variant);
        }
        out.push('\n');
        for (name, f) in rows {
            let _ = write!(out, "{name:<36}");
            for v in &self.variants {
                let _ = write!(out, " {:<col$}", f(&v.totals));
            }
            out.push('\n');
        }
        let files = first.by_file.keys().map(|k| (format!("file {k}"), k, true));
        let kinds = (first.totals.by_expected.keys()).map(|k| (format!("expected {k}"), k, false));
        for (label, key, is_file) in files.chain(kinds) {
            let _ = write!(out, "{:<36}", clip(&label, 36));
            for v in &self.variants {
                let tally = if is_file {
                    v.by_file.get(key).map(|t| (t.correct, t.cases))
                } else {
                    v.totals.by_expected.get(key).map(|t| (t.correct, t.cases))
                };
                let cell = tally.map_or_else(String::new, |(n, of)| pct(n, of));
                let _ = write!(out, " {cell:<col$}");
            }
            out.push('\n');
        }
        out.lines()
            .map(str::trim_end)
            .fold(String::new(), |mut all, line| {
                all.push_str(line);
                all.push('\n');
                all
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::score::CallVerdict;

    fn result(
        correct: bool,
        action: FirstAction,
        expected: &str,
        reply_ok: Option<bool>,
    ) -> CaseResult {
        CaseResult {
            file: "f.yaml".into(),
            case: 1,
            user: "u".into(),
            lang: Lang::Ru,
            active: vec![],
            expected: vec![expected.into()],
            malformed: action.is_malformed(),
            false_call: expected == "text" && matches!(action, FirstAction::Call { .. }),
            first_action: action,
            first_output: String::new(),
            correct,
            name_correct: correct,
            turn: TurnScope::FirstGeneration,
            stop: TurnStop::Answered,
            reply: "abc".into(),
            reply_tokens: 3,
            turn_ok: reply_ok.map(|ok| ok && correct),
            reply_ok,
            executed: vec![],
            route: None,
            stats: TurnStats {
                ttft_ms: 10.0,
                generated_tokens: 5,
                generations: 1,
                ..TurnStats::default()
            },
        }
    }

    fn call(verdict: CallVerdict) -> FirstAction {
        FirstAction::Call {
            name: "x".into(),
            line: "TOOL_CALL: x".into(),
            args: None,
            verdict,
            problem: None,
        }
    }

    #[test]
    fn totals_add_up() {
        let cases = [
            result(true, FirstAction::Text, "text", None),
            result(false, call(CallVerdict::Valid), "text", None),
            result(
                false,
                call(CallVerdict::UnknownTool),
                "get_current_time",
                Some(true),
            ),
            result(
                true,
                call(CallVerdict::Valid),
                "get_current_time",
                Some(true),
            ),
        ];
        let t = Totals::of(&cases);
        assert_eq!((t.cases, t.correct, t.calls, t.malformed), (4, 2, 3, 1));
        assert_eq!((t.plain_cases, t.false_calls), (2, 1));
        assert_eq!((t.tool_cases, t.tool_correct), (2, 1));
        assert_eq!((t.whole_turn_cases, t.whole_turn_ok, t.reply_ok), (2, 1, 2));
        assert_eq!(
            (t.reply_tokens, t.generated_tokens, t.generations),
            (12, 20, 4)
        );
        assert!((t.accuracy - 0.5).abs() < 1e-9 && (t.ttft_ms_mean - 10.0).abs() < 1e-9);
        assert_eq!(
            t.by_expected["text"],
            Tally {
                cases: 2,
                correct: 1
            }
        );
        let report = EvalReport {
            model: serde_json::Value::Null,
            files: vec!["f.yaml".into()],
            variants: vec![VariantReport {
                variant: "baseline".into(),
                about: String::new(),
                totals: t.clone(),
                by_file: [("f.yaml".to_string(), t)].into(),
                cases: cases.to_vec(),
            }],
        };
        let text = report.text();
        assert!(text.contains("first action correct"), "{text}");
        assert!(text.contains("2/4 (50%)"), "{text}");
        assert!(text.contains("- x?"), "{text}");
    }
}
