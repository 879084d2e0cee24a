//! Variants: named sets of agent and generation settings, run side by side.
//!
//! A variant is a function that changes an [`EvalSetup`] — the agent's configuration, the
//! generation settings, the skill and toolset folders — after it has been filled from a case
//! file. A technique that should raise tool use is one more line in [`VARIANTS`] (and its
//! function), then `porfiry eval tools --variant baseline --variant NAME FILE...`. Every
//! guidance technique also has its ablation, `without:<technique>` ([`WITHOUT`]): the
//! product as shipped with that one technique off.

use std::path::PathBuf;

use porfiry_agent::{AgentConfig, Guidance, Technique};
use porfiry_engine::GenerateConfig;

use super::error::EvalError;

/// What a case file runs on under one variant.
#[derive(Debug, Clone)]
pub struct EvalSetup {
    /// The agent's settings (the file's language; the product's defaults otherwise).
    pub agent: AgentConfig,
    /// Every generation's settings (greedy, [`super::DEFAULT_MAX_TOKENS`], tool-call grammar).
    pub generate: GenerateConfig,
    /// Skill folders in override order (the file's, else the built-in ones).
    pub skill_dirs: Vec<PathBuf>,
    /// Toolset folders in override order (the file's, else the built-in ones).
    pub toolset_dirs: Vec<PathBuf>,
    /// The on-device catalog on: the `skills` and `protocol` toolsets declared (as
    /// [`porfiry_runtime::RuntimeConfig::catalog`] declares them for a host) over a fresh,
    /// temporary catalog per file, its executors and run hook attached.
    pub catalog: bool,
}

/// A named set of settings.
#[derive(Debug, Clone, Copy)]
pub struct Variant {
    /// The name (`--variant NAME`).
    pub name: &'static str,
    /// One line on what it changes.
    pub about: &'static str,
    /// The change.
    pub apply: fn(&mut EvalSetup),
}

impl Variant {
    /// A variant (for [`VARIANTS`]).
    pub const fn new(name: &'static str, about: &'static str, apply: fn(&mut EvalSetup)) -> Self {
        Self { name, about, apply }
    }
}

/// Every variant, the default first. Add a technique here: one line and its function.
pub const VARIANTS: &[Variant] = &[
    Variant::new(
        "baseline",
        "the product as shipped: default agent settings (guidance on), greedy, the file's folders",
        baseline,
    ),
    Variant::new(
        "bare",
        "no guidance at all: the prompt alone (no routing, no call constraint, no reply stops)",
        bare,
    ),
    Variant::new(
        "grammar",
        "bare + calls constrained to the state's names and argument shapes",
        grammar,
    ),
    Variant::new(
        "few-shot",
        "bare + worked examples of the call line in the prompt's head",
        few_shot,
    ),
    Variant::new(
        "route",
        "bare + routing the first action by embedding similarity to example requests",
        route,
    ),
    Variant::new(
        "short",
        "bare + replies stopped at turn openers, blank lines and 3 sentences",
        short,
    ),
    Variant::new("no-route", "the shipped guidance without routing", no_route),
    Variant::new(
        "baseline+few-shot",
        "the shipped guidance plus worked examples in the head",
        baseline_few_shot,
    ),
    Variant::new(
        "baseline+answer-transcript",
        "the shipped guidance plus questions of fact asked in a question-and-answer transcript",
        baseline_answer_transcript,
    ),
    Variant::new(
        "catalog",
        "baseline + the on-device catalog's skills and protocol toolsets (as `ask --catalog`), \
         over a fresh temporary catalog per file",
        catalog,
    ),
];

fn baseline(_: &mut EvalSetup) {}

fn bare(s: &mut EvalSetup) {
    s.agent.guidance = Guidance::none();
}

fn grammar(s: &mut EvalSetup) {
    bare(s);
    s.agent.guidance.set(Technique::ConstrainCalls, true);
}

fn few_shot(s: &mut EvalSetup) {
    bare(s);
    s.agent.guidance.set(Technique::FewShot, true);
}

fn route(s: &mut EvalSetup) {
    bare(s);
    s.agent.guidance.set(Technique::Route, true);
}

fn short(s: &mut EvalSetup) {
    bare(s);
    s.agent.guidance.set(Technique::TurnEndStops, true);
    s.agent.guidance.set(Technique::SentenceCap, true);
    s.agent.guidance.max_sentences = Guidance::default().max_sentences;
}

fn no_route(s: &mut EvalSetup) {
    s.agent.guidance.set(Technique::Route, false);
}

fn baseline_few_shot(s: &mut EvalSetup) {
    s.agent.guidance.set(Technique::FewShot, true);
}

fn baseline_answer_transcript(s: &mut EvalSetup) {
    s.agent.guidance.set(Technique::AnswerTranscript, true);
}

fn catalog(s: &mut EvalSetup) {
    s.catalog = true;
}

/// The shipped guidance with technique number `I` of [`Technique::ALL`] off.
fn without<const I: usize>(s: &mut EvalSetup) {
    s.agent.guidance.set(Technique::ALL[I], false);
}

/// `without:<technique>` for every technique of [`Technique::ALL`], in its order.
macro_rules! ablations {
    ($($i:literal $name:literal),* $(,)?) => {
        [$(Variant::new(
            concat!("without:", $name),
            concat!("the shipped guidance with the technique ", $name, " off"),
            without::<$i>,
        )),*]
    };
}

/// The ablation of every guidance technique: `without:<technique>` is the product as
/// shipped ([`Guidance::default`]) with that technique off (`docs/guidance.md`).
pub const WITHOUT: [Variant; Technique::ALL.len()] = ablations![
    0 "route",
    1 "centering",
    2 "stem-overlap",
    3 "stem-weights",
    4 "top-two",
    5 "id-after-reply",
    6 "named-choice",
    7 "delimited-text",
    8 "spoken-numbers",
    9 "tail-of-words",
    10 "number-groups",
    11 "one-action",
    12 "reply-words",
    13 "list-as-items",
    14 "drop-asides",
    15 "turn-end-stops",
    16 "echo-stop",
    17 "intro-stop",
    18 "sentence-cap",
    19 "constrain-calls",
    20 "no-repeat-switch",
    21 "few-shot",
    22 "hide-unexecutable",
    23 "no-reply-phrase",
    24 "talk-intents",
    25 "reply-gate",
    26 "arithmetic",
    27 "references",
    28 "said-value",
    29 "day-questions",
    30 "unit-questions",
    31 "answer-transcript",
    32 "ask-when-unsure",
    33 "route-words",
    34 "skill-questions",
    35 "skill-summary",
    36 "frame-words",
    37 "content-start",
    38 "lead-words",
    39 "said-action",
    40 "question-lists",
    41 "continuation",
    42 "opening-words",
    43 "said-args",
    44 "sets-over-scope",
    45 "stay-in-set",
    46 "declared-words",
    47 "state-questions",
    48 "advice-questions",
    49 "remarks",
    50 "intent-margin",
    51 "calendar-questions",
    52 "honest-decline",
    53 "confidence-gate",
];

/// The variant called `name`: one of [`VARIANTS`], or `without:<technique>` ([`WITHOUT`]).
///
/// # Errors
/// [`EvalError::UnknownVariant`] listing the registered ones.
pub fn find_variant(name: &str) -> Result<&'static Variant, EvalError> {
    VARIANTS
        .iter()
        .chain(WITHOUT.iter())
        .find(|v| v.name == name.trim())
        .ok_or_else(|| EvalError::UnknownVariant {
            name: name.to_string(),
            available: VARIANTS
                .iter()
                .map(|v| v.name.to_string())
                .chain(["without:<technique>".to_string()])
                .collect(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_baseline_comes_first() {
        assert_eq!(VARIANTS[0].name, "baseline");
        for (i, v) in VARIANTS.iter().enumerate() {
            assert!(!v.name.is_empty() && !v.name.contains(char::is_whitespace));
            assert!(VARIANTS[..i].iter().all(|w| w.name != v.name), "{}", v.name);
        }
        assert!(find_variant("baseline").is_ok());
        let e = find_variant("magic").unwrap_err().to_string();
        assert!(e.contains("magic") && e.contains("baseline"), "{e}");
    }

    #[test]
    fn every_technique_has_its_ablation() {
        for (t, v) in Technique::ALL.into_iter().zip(WITHOUT.iter()) {
            assert_eq!(v.name, format!("without:{}", t.name()));
            assert!(find_variant(v.name).is_ok());
            let mut setup = EvalSetup {
                agent: AgentConfig::default(),
                generate: GenerateConfig::default(),
                skill_dirs: Vec::new(),
                toolset_dirs: Vec::new(),
                catalog: false,
            };
            (v.apply)(&mut setup);
            assert_eq!(setup.agent.guidance, Guidance::default().without(t), "{t}");
        }
        assert!(find_variant("without:magic").is_err());
    }
}
