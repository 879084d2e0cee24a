//! The eval's results: per case, per variant totals, and the text report.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use porfiry_agent::{Confidence, Lang, Route, TurnStop, Verdict};
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

/// One turn of a case under one variant (a one-turn case: the case).
#[derive(Debug, Clone, serde::Serialize)]
pub struct CaseResult {
    /// The case file (its file name).
    pub file: String,
    /// The case's 1-based position in the file.
    pub case: usize,
    /// The turn's 1-based position in its case.
    pub turn_index: usize,
    /// The case's turns.
    pub turns: usize,
    /// The case is a conversation (`turns:` in its file).
    pub conversation: bool,
    /// The turn goes on with what an earlier tool turn of its conversation left
    /// ([`super::EvalCase::follow_up`]).
    pub follow_up: bool,
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
    /// visible text; with `--routes-only`: what the turn decides before the model writes —
    /// a decided call line, a question —, empty when the model would write).
    pub reply: String,
    /// `reply` in the model's tokens.
    pub reply_tokens: usize,
    /// With `reply_contains`: whether the final reply contains every substring
    /// (case-insensitive), however it got there; `null` without.
    pub reply_ok: Option<bool>,
    /// With `reply_contains`: the whole turn succeeded — the first action is correct and the
    /// final reply contains every substring (a lucky invention does not count); `null` without.
    pub turn_ok: Option<bool>,
    /// With `reply_matches`: whether the final reply matches it (case-insensitive); `null`
    /// without.
    pub matches_ok: Option<bool>,
    /// With `calls`: whether the whole turn executed exactly those calls, in order
    /// (switches not counted); `null` without.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls_ok: Option<bool>,
    /// The judge of replies on the final reply (`{"verdict": "acceptable"}` or
    /// `{"verdict": "fails", "rule": NAME}`); `null` when there was no reply to judge (the
    /// turn stopped after its first generation's call).
    pub verdict: Option<Verdict>,
    /// The turn is right judged as a person would ([`super::ReplyScore::judged`]): the first
    /// action right, the reply accepted by the judge, `reply_contains` / `reply_matches`
    /// holding.
    pub judged: bool,
    /// The tools executed during the turn, in order.
    pub executed: Vec<String>,
    /// The tool the turn asked about instead of acting, its route being narrow
    /// ([`porfiry_agent::Technique::AskWhenUnsure`]): the reply is the question, and the
    /// first action is a plain reply (right only where one is expected).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asked: Option<String>,
    /// Where routing sent the first action (target, score, margin, nearest example);
    /// `null` when the turn was not routed.
    pub route: Option<Route>,
    /// The turn declined honestly in place of the model's reply
    /// ([`porfiry_agent::Technique::HonestDecline`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub declined: bool,
    /// It declined because the model was unsure of a reply the judge accepted
    /// ([`porfiry_agent::Technique::ConfidenceGate`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unsure: bool,
    /// How probable the model found the tokens of the turn's generated plain reply (a turn
    /// that called no tool), when the model reports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<Confidence>,
    /// The turn's figures (the runtime's one definition: tokens, TTFT, times).
    #[serde(flatten)]
    pub stats: TurnStats,
}

impl CaseResult {
    /// The turn's first expected action: `text`, `refuse` or a tool name (how
    /// [`Totals::by_expected`] groups turns).
    pub fn kind(&self) -> String {
        let first = self.expected.first().map_or("text", String::as_str);
        first.split('{').next().unwrap_or(first).to_string()
    }

    /// Whether the turn accepts a plain reply (`text` or `refuse`).
    pub fn accepts_text(&self) -> bool {
        self.expected.iter().any(|e| e == "text" || e == "refuse")
    }
}

/// Cases and correct first actions of one group.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Tally {
    /// Cases.
    pub cases: usize,
    /// Of those, correct first actions.
    pub correct: usize,
    /// Of those, right as judged ([`CaseResult::judged`]).
    pub judged: usize,
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
    /// Turns that asked before acting ([`CaseResult::asked`]).
    pub asked: usize,
    /// Of those, questions about a tool the turn expects (a yes would have run it).
    pub asked_right: usize,
    /// Of those, turns that accept a plain reply (the question spared a call).
    pub asked_plain: usize,
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
    /// Right as judged: the first action and the judge of replies ([`CaseResult::judged`]).
    /// `correct` is the first action alone, as before the judge.
    pub judged: usize,
    /// `judged / cases` (0 without cases): the acceptable-turn rate.
    pub judged_accuracy: f64,
    /// Turns whose final reply was judged (all but those stopped after a call).
    pub replies_judged: usize,
    /// Of those, replies the judge accepts.
    pub acceptable: usize,
    /// Of the judged replies, those failing a debris rule (`Rule::is_debris`).
    pub debris: usize,
    /// Judged replies by the rule they fail (rule name → replies).
    pub by_rule: BTreeMap<String, usize>,
    /// With `reply_matches`: turns.
    pub matches_cases: usize,
    /// Of those, replies matching.
    pub matches_ok: usize,
    /// Conversations (cases given as `turns:`) among the turns.
    pub conversations: usize,
    /// Of those, conversations whose every turn is right as judged.
    pub conversations_ok: usize,
    /// Follow-up turns ([`CaseResult::follow_up`]).
    pub follow_ups: usize,
    /// Of those, correct first actions.
    pub follow_ups_correct: usize,
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
    /// Turns that declined honestly in place of the model's reply.
    pub declined: usize,
    /// Of those, turns declined because the model was unsure of its reply.
    pub unsure: usize,
}

impl Totals {
    /// The figures of `cases`.
    pub fn of<'a>(cases: impl IntoIterator<Item = &'a CaseResult>) -> Self {
        let mut t = Totals::default();
        let mut ttft = 0.0;
        let mut conversations: BTreeMap<(String, usize), bool> = BTreeMap::new();
        for c in cases {
            t.judged += usize::from(c.judged);
            t.declined += usize::from(c.declined);
            t.unsure += usize::from(c.unsure);
            if let Some(v) = c.verdict {
                t.replies_judged += 1;
                t.acceptable += usize::from(v.is_acceptable());
                if let Some(rule) = v.rule() {
                    t.debris += usize::from(rule.is_debris());
                    *t.by_rule.entry(rule.name().to_string()).or_default() += 1;
                }
            }
            if let Some(ok) = c.matches_ok {
                t.matches_cases += 1;
                t.matches_ok += usize::from(ok);
            }
            if c.conversation {
                let all = conversations
                    .entry((c.file.clone(), c.case))
                    .or_insert(true);
                *all &= c.judged;
            }
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
            if let Some(tool) = &c.asked {
                t.asked += 1;
                t.asked_right += usize::from(c.expected.iter().any(|e| expects_tool(e, tool)));
                t.asked_plain += usize::from(c.accepts_text());
            }
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
            t.follow_ups += usize::from(c.follow_up);
            t.follow_ups_correct += usize::from(c.follow_up && c.correct);
            let tally = t.by_expected.entry(c.kind()).or_default();
            tally.cases += 1;
            tally.correct += usize::from(c.correct);
            tally.judged += usize::from(c.judged);
        }
        t.conversations = conversations.len();
        t.conversations_ok = conversations.values().filter(|ok| **ok).count();
        if t.cases > 0 {
            let n = t.cases as f64;
            t.accuracy = t.correct as f64 / n;
            t.judged_accuracy = t.judged as f64 / n;
            t.reply_tokens_mean = t.reply_tokens as f64 / n;
            t.ttft_ms_mean = ttft / n;
        }
        t
    }
}

/// Whether the expected action `expected` (`name` or `name{…}`) is a call of `tool`.
fn expects_tool(expected: &str, tool: &str) -> bool {
    expected.split('{').next() == Some(tool)
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
    /// The text report: one line per turn with every variant's result side by side (two
    /// marks: the first action, then the turn as judged — `+` right, `-` not —, the first
    /// action, and the rule the reply broke), then the totals, one column per variant.
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
            let label = if c.turns > 1 || c.conversation {
                format!("{stem}#{}.{} {}", c.case, c.turn_index, c.user)
            } else {
                format!("{stem}#{} {}", c.case, c.user)
            };
            let _ = write!(
                out,
                "{:<48} {:<30}",
                clip(&label, 48),
                clip(&c.expected.join(" | "), 30)
            );
            for v in &self.variants {
                let cell = match v.cases.get(i) {
                    Some(r) => {
                        let mark = |ok: bool| if ok { '+' } else { '-' };
                        let mut cell = format!(
                            "{}{} {}",
                            mark(r.correct),
                            mark(r.judged),
                            r.first_action.label()
                        );
                        if let Some(rule) = r.verdict.and_then(Verdict::rule) {
                            let _ = write!(cell, " !{rule}");
                        }
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
            ("judged (action + reply judge)", |t| pct(t.judged, t.cases)),
            ("replies acceptable", |t| {
                pct(t.acceptable, t.replies_judged)
            }),
            ("  with debris", |t| pct(t.debris, t.replies_judged)),
            ("reply matches (reply_matches)", |t| {
                pct(t.matches_ok, t.matches_cases)
            }),
            ("conversations all judged right", |t| {
                pct(t.conversations_ok, t.conversations)
            }),
            ("follow-ups: first action correct", |t| {
                pct(t.follow_ups_correct, t.follow_ups)
            }),
            ("false calls (plain-reply cases)", |t| {
                pct(t.false_calls, t.plain_cases)
            }),
            ("asked first (right tool / plain)", |t| {
                format!("{} ({} / {})", t.asked, t.asked_right, t.asked_plain)
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
        // Per file and per expected kind: first actions right, then the same groups judged.
        for judged in [false, true] {
            let prefix = if judged { "judged " } else { "" };
            let files = (first.by_file.keys()).map(|k| (format!("{prefix}file {k}"), k, true));
            let kinds = (first.totals.by_expected.keys())
                .map(|k| (format!("{prefix}expected {k}"), k, false));
            for (label, key, is_file) in files.chain(kinds) {
                let _ = write!(out, "{:<36}", clip(&label, 36));
                for v in &self.variants {
                    let tally = if is_file {
                        (v.by_file.get(key))
                            .map(|t| (if judged { t.judged } else { t.correct }, t.cases))
                    } else {
                        (v.totals.by_expected.get(key))
                            .map(|t| (if judged { t.judged } else { t.correct }, t.cases))
                    };
                    let cell = tally.map_or_else(String::new, |(n, of)| pct(n, of));
                    let _ = write!(out, " {cell:<col$}");
                }
                out.push('\n');
            }
        }
        // The judge's failures by rule.
        let rules: std::collections::BTreeSet<&String> = self
            .variants
            .iter()
            .flat_map(|v| v.totals.by_rule.keys())
            .collect();
        for rule in rules {
            let _ = write!(out, "{:<36}", clip(&format!("reply fails {rule}"), 36));
            for v in &self.variants {
                let n = v.totals.by_rule.get(rule).copied().unwrap_or(0);
                let _ = write!(out, " {n:<col$}");
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
            turn_index: 1,
            turns: 1,
            conversation: false,
            follow_up: false,
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
            matches_ok: None,
            calls_ok: None,
            verdict: Some(Verdict::Acceptable),
            judged: correct,
            executed: vec![],
            asked: None,
            route: None,
            declined: false,
            unsure: false,
            confidence: None,
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
                correct: 1,
                judged: 1
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
        assert!(text.contains("-- x?"), "{text}");
    }

    #[test]
    fn judged_turns_and_conversations_add_up() {
        use porfiry_agent::Rule;
        let mut turns: Vec<CaseResult> = (1..=3)
            .map(|i| {
                let mut r = result(true, FirstAction::Text, "text", None);
                (r.case, r.turn_index, r.turns, r.conversation) = (1, i, 3, true);
                r
            })
            .collect();
        turns[1].verdict = Some(Verdict::Fails(Rule::Echo));
        turns[1].judged = false;
        let mut other = result(true, FirstAction::Text, "refuse", None);
        (other.case, other.turns, other.conversation) = (2, 1, true);
        other.verdict = Some(Verdict::Fails(Rule::Pipe));
        other.judged = false;
        turns.push(other);
        let mut single = result(true, call(CallVerdict::Valid), "x", None);
        single.case = 3;
        single.verdict = None;
        turns.push(single);
        let t = Totals::of(&turns);
        assert_eq!((t.cases, t.correct, t.judged), (5, 5, 3));
        assert_eq!((t.replies_judged, t.acceptable, t.debris), (4, 2, 1));
        assert_eq!(
            t.by_rule,
            [("echo".to_string(), 1), ("pipe".to_string(), 1)].into()
        );
        assert_eq!((t.conversations, t.conversations_ok), (2, 0));
        assert_eq!(t.by_expected["refuse"].judged, 0);
        assert_eq!(t.plain_cases, 4);
        let report = EvalReport {
            model: serde_json::Value::Null,
            files: vec!["f.yaml".into()],
            variants: vec![VariantReport {
                variant: "baseline".into(),
                about: String::new(),
                totals: t.clone(),
                by_file: [("f.yaml".to_string(), t)].into(),
                cases: turns,
            }],
        };
        let text = report.text();
        for needle in [
            "f#1.2 u",
            "+- text !echo",
            "reply fails pipe",
            "judged (action + reply judge)",
        ] {
            assert!(text.contains(needle), "{needle:?} in {text}");
        }
    }
}
