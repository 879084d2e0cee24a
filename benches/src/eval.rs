//! The tool-use and conversation evals (`porfiry eval tools`, `porfiry eval talk`): does the
//! model use its tools, and would a person accept its replies?
//!
//! Cases are data (`evals/*.yaml`): a user's request, the toolsets active before it, and the
//! right *first action* — a tool call (name, and arguments where they matter), a plain reply
//! or a reply declining; or a conversation of such turns. Each case runs in a fresh session
//! through the real agent loop on the real engine, greedy, under a manual clock; the first
//! tool call of each turn's first generation is scored, every reply there is is judged by
//! the agent's judge of replies (`porfiry_agent::judge_reply`), and, where a turn gives
//! `reply_contains` / `reply_matches`, the whole turn's final reply with stand-in tool
//! results is checked.
//!
//! # Pieces
//! - [`EvalFile`] / [`EvalCase`] / [`Expected`]: the case file format ([`load_eval_file`];
//!   unknown keys and malformed cases are errors naming the file and the case).
//! - [`FirstAction`], [`classify_call`], [`score_turn`], [`judge_turn`]: what the model did
//!   first, how it compares with the turn, and what the judge says of the reply — pure
//!   logic, no model.
//! - [`Variant`] / [`EvalSetup`] / [`VARIANTS`]: named sets of agent and generation settings
//!   run side by side; adding a technique is one line in [`VARIANTS`].
//! - [`EvalPlan`] (files × variants, checked against the agents before any model loads),
//!   [`EvalModel`] (the engine and its vocabulary), [`run_eval`] → [`EvalReport`]: per turn
//!   a [`CaseResult`], per variant [`Totals`] (also per file and per expected action).
//!
//! # The report (`--json`)
//! ```text
//! { "model": {engine info: path, architecture, n_ctx, threads, ...},
//!   "files": ["evals/dev_ru.yaml", ...],
//!   "variants": [ { "variant": "baseline", "about": "...",
//!       "totals": TOTALS, "by_file": {"evals/dev_ru.yaml": TOTALS, ...},
//!       "cases": [ CASE, ... ] } ] }
//! TOTALS: cases, correct, accuracy, tool_cases, tool_correct, name_correct, calls,
//!   plain_cases, false_calls, malformed, no_output, whole_turn_cases, whole_turn_ok, reply_ok,
//!   judged, judged_accuracy, replies_judged, acceptable, debris, by_rule {RULE: n},
//!   matches_cases, matches_ok, conversations, conversations_ok,
//!   reply_tokens, reply_tokens_mean, ttft_ms_mean, prompt_tokens, prefilled_tokens,
//!   generated_tokens, generations, turn_ms,
//!   by_expected: {"get_current_time": {cases, correct, judged}, "text": {...}, ...}
//! CASE (one per turn): file, case, turn_index, turns, conversation, user, lang, active,
//!   expected, first_action {kind: text | call | no_output,
//!   name, line, args, verdict: valid | unknown_tool | bad_args, problem?, error?},
//!   first_output, correct, name_correct, false_call, malformed, turn: whole | first_generation,
//!   stop {kind}, reply, reply_tokens, reply_ok, turn_ok (both null without reply_contains),
//!   matches_ok (null without reply_matches), verdict ({verdict: acceptable} |
//!   {verdict: fails, rule: RULE} | null: no reply judged), judged,
//!   executed, and the runtime's TurnStats flattened (generations, prompt_tokens, reused_tokens,
//!   prefilled_tokens, generated_tokens, ttft_ms, turn_ms, ...)
//! ```
//! `cases` and the other counts of TOTALS count turns (a one-turn case is one).
//! `correct` needs a valid call matching an alternative (name and named arguments);
//! `name_correct` only the name. `false_call`: a case accepting a plain reply answered with a
//! call no alternative accepts. `malformed`: an unknown tool or arguments that do not
//! validate. `reply_ok`: the final reply contains every `reply_contains` substring;
//! `turn_ok` (counted in `whole_turn_ok`): that, and the first action correct — an invented
//! answer that happens to contain them does not count. `reply_tokens` counts the final reply
//! in the model's own vocabulary.
//!
//! `judged` (the acceptable-turn rate) is `correct` and the reply as a person would take it:
//! the judge accepts the final reply wherever there is one (a plain reply, or the reply after
//! a call in a turn run whole), a `text` turn's reply is not the catch-all refusal, a
//! `refuse` turn's reply is the refusal or an acceptable reply that declines, and
//! `reply_contains` / `reply_matches` hold. `correct` stays the first action alone, so the
//! figures from before the judge are still reported beside it.
//!
//! # Design decisions
//! - **The first action is the measure of tool use.** It is what tool use means ("Который
//!   час?" must call `get_current_time`, not invent a time) and it does not depend on
//!   stand-ins. A one-turn case that does not check its reply stops after the first
//!   generation (its calls are dispatched, then the turn is cancelled before the next model
//!   call), which keeps a run of the whole set in minutes; a turn with `reply_contains` or
//!   `reply_matches`, and every turn of a conversation, runs whole
//!   ([`EvalOptions::whole_turns`] runs every case whole: `porfiry eval talk`).
//! - **The reply is judged by cheap rules, never by a model.** The judge's rules are
//!   documented and unit-tested in the agent crate; the eval reports the rule each failing
//!   reply broke, so a figure says what went wrong.
//! - **Conversations carry their history.** The turns of a `turns:` case run in one
//!   session, one after another, the stand-ins answering; with `--routes-only` each turn is
//!   routed on the session as it is (nothing is generated, so nothing is added to it).
//! - **A call is judged as the dispatcher would take it.** Known tools are the core tools and
//!   every declared toolset tool (a call of an inactive set's tool is routed by activating the
//!   set, so it is a legitimate action); arguments are validated against the declaration,
//!   and `read_skill` / `enable_toolset` / `disable_toolset` must name a skill or set that
//!   exists. A correct first action is a *valid* call matching an expected alternative.
//! - **Deterministic.** Greedy sampling, a manual clock, every case from the same prepared
//!   head (the session is ended after each case), the engine's idle-time anticipation off
//!   (its timing would decide which tokens are decoded in which batch).
//! - **No accuracy is asserted anywhere.** The tests check the mechanics; the figures are
//!   the eval's output, like speed is the benchmarks'.

mod case;
mod error;
mod report;
mod run;
mod score;
mod variant;

pub use case::{load_eval_file, parse_eval_file, EvalCase, EvalFile, EvalTurn, Expected};
pub use error::EvalError;
pub use report::{CaseResult, EvalReport, Tally, Totals, TurnScope, VariantReport};
pub use run::{run_eval, CaseDone, EvalModel, EvalOptions, EvalPlan, DEFAULT_MAX_TOKENS};
pub use score::{
    classify_call, first_action, judge_turn, reply_regex, score_turn, CallVerdict, FirstAction,
    ReplyScore, Score,
};
pub use variant::{find_variant, EvalSetup, Variant, VARIANTS};
