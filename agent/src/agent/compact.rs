//! Keeping every request inside the model's context: the budget, the measure and the
//! compaction of the request's view of the history (never of the history itself).
//!
//! Before every model call the agent measures the request ([`Model::count_tokens`], else
//! [`estimate_tokens`]) against the [`ContextBudget`] of [`Model::context_window`], with the
//! request's reply prefix (decoded with the prompt) counted at its UTF-8 bytes, a bound no
//! tokenizer exceeds ([`prefix_tokens`]). A request
//! that fits is sent as it is. One that does not is compacted, in this order, until it fits
//! under the low-water mark ([`ContextBudget::low_water`]):
//!
//! 1. the oldest tool results (of earlier turns) become a one-line placeholder: the first
//!    line of the result and the call (`name|arguments`) that produced it;
//! 2. the oldest whole exchanges (a user message and everything that answered it) are left
//!    out, one marker line (from the messages) standing for all of them;
//! 3. only if the current turn alone still does not fit: its tool results are cut, oldest
//!    first, then the user's text, each with a marker, only as far as the request
//!    must fit (steps 1–2 aim lower, at the low-water mark, so later turns append again).
//!
//! A message of the current turn too long to fit at any count ([`MAX_TOKEN_BYTES`] a token)
//! is cut to that bound before anything is counted, so no count tokenizes megabytes.
//!
//! The system text, the toolset state message and the current turn are never left out. If
//! even they do not fit, the turn is refused (`Refused`). How far a session is compacted is
//! a record ([`Compacted`]) that only moves forward: until the next compaction every request
//! begins with the same compacted prefix, so a model's KV cache reuses it and a compaction
//! costs one re-prefill, not one per turn. The same history and budgets give the same record
//! and the same requests: compaction depends on the history, the record and the model's own
//! counts (or the estimate) only. It takes the fewest steps that reach the low-water mark,
//! found by a binary search over their number (each step only shrinks the request), so a
//! compaction asks the model to count a few times, not once per step.

use super::session::Compacted;
use crate::call_line::parse_output;
use crate::messages::Texts;
use crate::model::{ContextWindow, Message, Model, Role};

/// After a compaction the conversation (everything but the system text and the state
/// message) takes at most this share, in percent, of the room it has in the budget. The
/// rest is where the following turns append, reusing the cache, until the next compaction.
pub const LOW_WATER_PERCENT: usize = 60;

/// A placeholder keeps at most this many characters of the result's first line...
const PLACEHOLDER_LINE_CHARS: usize = 100;
/// ...and of the call's arguments.
const PLACEHOLDER_ARGS_CHARS: usize = 60;
/// The most rounds of cutting the current turn before the turn is refused (each round
/// shrinks a message, so this only bounds the model's token counts).
const CUT_ROUNDS: usize = 8;
/// The most UTF-8 bytes one token stands for, as far as a message's cut is concerned (the
/// longest tokens of these vocabularies are runs of about 30 spaces). A message of the
/// current turn longer than the request budget times this cannot fit, and a cut keeps at
/// most that much of it: it is cut to that length before anything is counted, so counting
/// never tokenizes more than the context could hold (llama.cpp's tokenizer is worse than
/// linear in the text: a 5 MB message took minutes — defect R12 in RELIABILITY.md).
pub const MAX_TOKEN_BYTES: usize = 64;

/// How a turn kept its requests inside the model's context
/// ([`TurnOutcome::context`](super::TurnOutcome::context)): the budget, the last request's
/// size and what the turn's compactions did. All zero and `budget: None` for a model
/// without a bounded context. Serializable for hosts.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ContextReport {
    /// The budget of the turn's requests; `None`: the model's context is unbounded and
    /// nothing is measured or compacted.
    pub budget: Option<ContextBudget>,
    /// Tokens of the turn's last request (sent, or refused), as the model counted them or,
    /// with [`ContextReport::estimated`], as the agent estimated them.
    pub request_tokens: usize,
    /// Whether some figure is the agent's estimate (the model cannot count its tokens:
    /// [`estimate_tokens`](crate::estimate_tokens); or a message was too long to count).
    pub estimated: bool,
    /// Compactions in this turn. Each re-prefills the request once from its first changed
    /// message; the requests after it append again.
    pub compactions: usize,
    /// Old tool results this turn's compactions replaced by a one-line placeholder.
    pub tool_results_shortened: usize,
    /// History messages (whole exchanges) this turn's compactions left out of the request.
    pub messages_dropped: usize,
    /// Messages of the turn cut because the request did not fit even without the older ones.
    pub messages_cut: usize,
    /// Tokens this turn's compactions took out of the requests (measured before − after;
    /// the part of a message too long to count that was cut before counting is estimated
    /// at the density of the rest, and [`ContextReport::estimated`] is set).
    pub tokens_dropped: usize,
    /// A reply ended by [`StopReason::MaxTokens`](crate::StopReason::MaxTokens) before the model's reply limit: the
    /// context ran out under it. Needs the model's [`GenerationStats`](crate::GenerationStats);
    /// false without them.
    pub reply_cut_by_context: bool,
}

/// How much of a model's context one request may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ContextBudget {
    /// The context and reply limit the model reported ([`Model::context_window`]).
    pub window: ContextWindow,
    /// Tokens kept free for the reply: the model's reply limit, at most a quarter of the
    /// context (and at least one token).
    pub reply_room: usize,
    /// Tokens a request may take: the context less the reply room.
    pub request: usize,
}

impl ContextBudget {
    /// The budget of a model with this context.
    pub fn of(window: ContextWindow) -> Self {
        let reply_room = window
            .reply_tokens
            .min(window.tokens / 4)
            .max(1)
            .min(window.tokens);
        ContextBudget {
            window,
            reply_room,
            request: window.tokens - reply_room,
        }
    }

    /// The low-water mark of a compaction, for a request whose fixed part (system text and
    /// state message) takes `fixed` tokens: `fixed` plus [`LOW_WATER_PERCENT`] % of the
    /// room left by it.
    pub fn low_water(&self, fixed: usize) -> usize {
        let room = self.request.saturating_sub(fixed);
        fixed + room * LOW_WATER_PERCENT / 100
    }
}

/// The agent's estimate of a request for a model that cannot count its tokens: per message
/// (the system text counted as one) its UTF-8 bytes / 2, rounded up, plus 8 for the chat
/// framing. Errs on the large side: tokenizers average 3–4 bytes per token on English and
/// about 2 on Russian (2 bytes per Cyrillic letter).
pub fn estimate_tokens(system: &str, messages: &[Message]) -> usize {
    estimate_text(system)
        + messages
            .iter()
            .map(|m| estimate_text(&m.content))
            .sum::<usize>()
}

/// The tokens a reply prefix (`TOOL_CALL: name|`, decoded after the generation prompt, in
/// the request's place in the context) may take, at most: its UTF-8 bytes. Every token of a
/// plain tokenization stands for at least one byte (byte-fallback tokens one each), so no
/// vocabulary needs more; a special token stands for many.
pub fn prefix_tokens(prefix: &str) -> usize {
    prefix.len()
}

fn estimate_text(text: &str) -> usize {
    text.len().div_ceil(2) + 8
}

/// At most `n` characters of `s`, with `…` when it was longer.
fn clip(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// The largest character boundary of `s` at or below `at`.
fn floor_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// What a session's request view is made of: its history and the state message (its text
/// and the history index it is anchored at), rendered through a [`Compacted`] record.
pub(super) struct ViewParts<'a> {
    pub(super) history: &'a [Message],
    pub(super) state: Option<(usize, &'a str)>,
    pub(super) texts: Texts,
}

impl ViewParts<'_> {
    /// The messages of the request: the history as `c` shows it, the state message where
    /// it is anchored, the marker in place of the exchanges left out. A state anchored in
    /// (or at the end of) the part left out opens the view, before the marker, as in a
    /// fresh session — so the head a model prepared for new sessions stays reusable.
    pub(super) fn render(&self, c: &Compacted) -> Vec<Message> {
        let len = self.history.len();
        let dropped = c.dropped_to.min(len);
        let mut out = Vec::with_capacity(len - dropped + 2);
        let state_at = self.state.map(|(at, _)| at);
        let state_first = state_at.is_some_and(|at| at <= dropped);
        if state_first {
            out.extend(self.state_message());
        }
        if dropped > 0 {
            out.push(Message::user(self.texts.earlier_left_out()));
        }
        for i in dropped..len {
            if !state_first && state_at == Some(i) {
                out.extend(self.state_message());
            }
            out.push(self.shown(i, c));
        }
        if !state_first && state_at.is_some_and(|at| at >= len) {
            out.extend(self.state_message());
        }
        out
    }

    /// The part of every request compaction never touches but the system text: the state
    /// message, when there is one.
    fn fixed(&self) -> Vec<Message> {
        self.state_message().into_iter().collect()
    }

    fn state_message(&self) -> Option<Message> {
        self.state.map(|(_, text)| Message::user(text))
    }

    /// History message `i` as `c` shows it: a placeholder, cut, or as it is.
    fn shown(&self, i: usize, c: &Compacted) -> Message {
        let m = &self.history[i];
        let content = if m.role == Role::Tool && i < c.shortened_to {
            self.placeholder(i)
        } else {
            None
        };
        let content = content.or_else(|| {
            c.cuts.get(&i).map(|&keep| {
                let keep = floor_boundary(&m.content, keep);
                self.texts.message_cut(&m.content[..keep])
            })
        });
        match content {
            Some(content) => Message {
                role: m.role,
                name: m.name.clone(),
                content,
            },
            None => m.clone(),
        }
    }

    /// The placeholder of tool result `i`, when it is shorter than the result.
    fn placeholder(&self, i: usize) -> Option<String> {
        let m = &self.history[i];
        let first = m
            .content
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("");
        let text = self
            .texts
            .tool_result_shortened(&self.call_of(i), &clip(first, PLACEHOLDER_LINE_CHARS));
        (text.len() < m.content.len()).then_some(text)
    }

    /// `name|arguments` of the call tool result `i` answers: the matching call line of the
    /// assistant message before it (the k-th result after it answers its k-th kept call).
    fn call_of(&self, i: usize) -> String {
        let name = self.history[i].name.clone().unwrap_or_default();
        let Some(a) = self.history[..i]
            .iter()
            .rposition(|m| m.role == Role::Assistant)
        else {
            return name;
        };
        let k = self.history[a + 1..i]
            .iter()
            .filter(|m| m.role == Role::Tool)
            .count();
        let parsed = parse_output(&self.history[a].content);
        let args = parsed
            .calls()
            .nth(k)
            .filter(|c| c.name == name)
            .and_then(|c| c.line.split_once('|').map(|(_, args)| args.to_string()))
            .map(|args| args.trim().trim_end_matches(['`', '*']).trim().to_string())
            .unwrap_or_default();
        if args.is_empty() {
            name
        } else {
            format!("{name}|{}", clip(&args, PLACEHOLDER_ARGS_CHARS))
        }
    }
}

/// A turn whose request cannot fit the context even compacted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Refused {
    /// Tokens the most compacted request takes.
    pub(super) tokens: usize,
    /// Tokens a request may take.
    pub(super) limit: usize,
}

/// The messages of a request for `system` + `parts` that fits `model`'s context, compacting
/// the view (advancing `record`) when it does not; the figures go to `report`. The current
/// turn begins at history index `turn_start` (a user message). `reserve` is what the request
/// carries after its messages (the reply prefix's bound, [`prefix_tokens`]): it is counted in
/// every measure. With no bounded context the view is returned as the record shows it.
pub(super) fn fit(
    system: &str,
    parts: &ViewParts<'_>,
    turn_start: usize,
    record: &mut Compacted,
    model: &mut dyn Model,
    report: &mut ContextReport,
    reserve: usize,
) -> Result<Vec<Message>, Refused> {
    let messages = parts.render(record);
    let Some(window) = model.context_window() else {
        return Ok(messages);
    };
    let budget = ContextBudget::of(window);
    report.budget = Some(budget);
    // A refused turn leaves the record and the figures as they were.
    let (saved_record, saved_report) = (record.clone(), report.clone());
    let precut_bytes = precut(parts, turn_start, record, budget, report);
    let messages = match precut_bytes {
        0 => messages,
        _ => parts.render(record),
    };
    let mut c = Compactor {
        system,
        parts,
        turn_start: turn_start.min(parts.history.len()),
        record,
        meter: Meter {
            model,
            estimated: false,
            reserve,
        },
        report,
        messages,
        total: 0,
    };
    c.total = c.meter.measure(system, &c.messages);
    if c.total > budget.request || precut_bytes > 0 {
        // What was cut before counting, at the density of what was counted.
        let precut_tokens = match precut_bytes {
            0 => 0,
            bytes => {
                c.report.estimated = true;
                let counted =
                    system.len() + c.messages.iter().map(|m| m.content.len()).sum::<usize>();
                (bytes as u128 * c.total as u128 / counted.max(1) as u128) as usize
            }
        };
        let before = c.total + precut_tokens;
        c.report.compactions += 1;
        let fixed = c.meter.measure(system, &parts.fixed());
        let target = budget.low_water(fixed);
        c.shorten_and_drop(target);
        if c.total > budget.request {
            // The current turn itself is cut only as far as the request must: what the
            // model reads of this turn (the user's words, the newest results) is worth
            // more than room for turns to come.
            c.cut(budget.request);
        }
        c.report.tokens_dropped += before.saturating_sub(c.total);
    }
    let (total, estimated, messages) = (c.total, c.meter.estimated, c.messages);
    if total > budget.request {
        *record = saved_record;
        *report = saved_report;
    }
    report.request_tokens = total;
    report.estimated |= estimated;
    if total > budget.request {
        return Err(Refused {
            tokens: total,
            limit: budget.request,
        });
    }
    Ok(messages)
}

/// Cut every message of the current turn (from history index `turn_start` on) longer than
/// the budget can hold at [`MAX_TOKEN_BYTES`] a token to that length, in `record` (what any
/// cut of it would keep is within that part). The bytes cut off.
fn precut(
    parts: &ViewParts<'_>,
    turn_start: usize,
    record: &mut Compacted,
    budget: ContextBudget,
    report: &mut ContextReport,
) -> usize {
    let limit = budget.request.saturating_mul(MAX_TOKEN_BYTES);
    let mut removed = 0;
    for (i, m) in parts.history.iter().enumerate().skip(turn_start) {
        let kept = record.cuts.get(&i).copied().unwrap_or(m.content.len());
        if kept > limit {
            let keep = floor_boundary(&m.content, limit);
            removed += kept - keep;
            if record.cuts.insert(i, keep).is_none() {
                report.messages_cut += 1;
            }
        }
    }
    removed
}

/// Counts requests with the model's own vocabulary, or estimates them.
struct Meter<'m> {
    model: &'m mut dyn Model,
    /// Whether some count was an estimate.
    estimated: bool,
    /// Tokens every request carries after its messages (the reply prefix's bound).
    reserve: usize,
}

impl Meter<'_> {
    fn measure(&mut self, system: &str, messages: &[Message]) -> usize {
        let counted = match self.model.count_tokens(system, messages) {
            Some(n) => n,
            None => {
                self.estimated = true;
                estimate_tokens(system, messages)
            }
        };
        counted + self.reserve
    }
}

/// One step of compaction (steps 1 and 2), as the record it moves to.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Tool results before this history index are shortened.
    ShortenTo(usize),
    /// History messages before this index (an exchange start) are left out.
    DropTo(usize),
}

/// `base` advanced by `steps`.
fn apply(base: &Compacted, steps: &[Step]) -> Compacted {
    let mut record = base.clone();
    for step in steps {
        match *step {
            Step::ShortenTo(i) => record.shortened_to = record.shortened_to.max(i),
            Step::DropTo(j) => record.dropped_to = record.dropped_to.max(j),
        }
    }
    // Cuts of messages left out no longer show.
    record.cuts = record.cuts.split_off(&record.dropped_to);
    record
}

/// One compaction in progress: the view as the record shows it and its measure.
struct Compactor<'a, 'm> {
    system: &'a str,
    parts: &'a ViewParts<'a>,
    turn_start: usize,
    record: &'a mut Compacted,
    meter: Meter<'m>,
    report: &'a mut ContextReport,
    messages: Vec<Message>,
    total: usize,
}

impl Compactor<'_, '_> {
    fn remeasure(&mut self) {
        self.messages = self.parts.render(self.record);
        self.total = self.meter.measure(self.system, &self.messages);
    }

    /// Steps 1 and 2: the fewest of them, in order, that bring the request under `target`
    /// — all of them when even that is not enough. The request shrinks with every step, so
    /// a binary search over their number finds it with a few measures, each exact.
    fn shorten_and_drop(&mut self, target: usize) {
        let steps = self.steps();
        if steps.is_empty() {
            return;
        }
        let base = self.record.clone();
        let (parts, system, meter) = (self.parts, self.system, &mut self.meter);
        let mut measure = |n: usize| {
            let record = apply(&base, &steps[..n]);
            let messages = parts.render(&record);
            let total = meter.measure(system, &messages);
            (total, record, messages)
        };
        let mut best = measure(steps.len());
        if best.0 <= target {
            // The fewest steps under the mark: `high` always reaches it.
            let (mut low, mut high) = (1, steps.len());
            while low < high {
                let mid = (low + high) / 2;
                let tried = measure(mid);
                if tried.0 <= target {
                    high = mid;
                    best = tried;
                } else {
                    low = mid + 1;
                }
            }
        }
        let (total, record, messages) = best;
        let history = parts.history;
        self.report.messages_dropped += record.dropped_to - base.dropped_to;
        self.report.tool_results_shortened += (base.shortened_to.max(record.dropped_to)
            ..record.shortened_to)
            .filter(|&i| history[i].role == Role::Tool && parts.placeholder(i).is_some())
            .count();
        *self.record = record;
        self.messages = messages;
        self.total = total;
    }

    /// Every step compaction can still take before the current turn, in order: shorten
    /// each tool result not shortened yet, then leave out each exchange not left out yet.
    fn steps(&self) -> Vec<Step> {
        let history = self.parts.history;
        let from = self.record.shortened_to.max(self.record.dropped_to);
        let shorten = (from..self.turn_start)
            .filter(|&i| history[i].role == Role::Tool)
            .map(|i| Step::ShortenTo(i + 1));
        let drop = (self.record.dropped_to + 1..=self.turn_start)
            .filter(|&j| history[j].role == Role::User)
            .map(Step::DropTo);
        shorten.chain(drop).collect()
    }

    /// Step 3: cut the current turn's tool results, oldest first (the newest is what the
    /// model answers from) — its user text only once no tool result is left to give —,
    /// round by round, until the request is under `target`; stops when nothing is left to
    /// cut. A
    /// round measures the request without the message's text and keeps the share of it
    /// that fits (so the cut follows the model's own tokens, not an average).
    fn cut(&mut self, target: usize) {
        let history = self.parts.history;
        for _ in 0..CUT_ROUNDS {
            if self.total <= target {
                return;
            }
            let kept = |i: usize| {
                self.record
                    .cuts
                    .get(&i)
                    .copied()
                    .unwrap_or(history[i].content.len())
            };
            // The turn's tool results give first, oldest first, the newest last of them;
            // the user's own words only when no result is left to give.
            let turn = self.turn_start..history.len();
            let tools = turn.clone().filter(|&i| history[i].role == Role::Tool);
            let users = turn.filter(|&i| history[i].role == Role::User);
            let Some(i) = tools.chain(users).find(|&i| kept(i) > 0) else {
                return;
            };
            let kept = kept(i);
            let with_text = self.total;
            if self.record.cuts.insert(i, 0).is_none() {
                self.report.messages_cut += 1;
            }
            self.remeasure();
            let without = self.total;
            if without < target && with_text > without {
                let share =
                    kept as u128 * (target - without) as u128 / (with_text - without) as u128;
                let keep = floor_boundary(&history[i].content, share as usize);
                if keep > 0 {
                    self.record.cuts.insert(i, keep);
                    self.remeasure();
                }
            }
        }
    }
}
