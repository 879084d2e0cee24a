//! The messages: every text the MODEL sees that Porfiry writes itself.
//!
//! Prompt headers, core tool descriptions, the agent's tool replies, what compaction writes
//! into a request that outgrew the context (and the stop of a turn that cannot fit it) and
//! the replies hosts write for their own tools (the bridge's timed tools, the CLI's notes)
//! come from here, in
//! Russian (the default) or English. The texts live in two tables, [`ru`] and [`en`], keyed
//! by one enum (`Key`): both are exhaustive `match`es, so a key missing from a language does
//! not compile, and the tests check that both languages use the same `{placeholders}`.
//! Nothing else formats model-visible prose, so the wording can be tuned in one place.
//!
//! Texts are short on purpose: the prompt of a small on-device model is measured in tokens.

use std::fmt;
use std::str::FromStr;

mod tables;
mod talk;

pub use talk::AnswerTranscript;

use tables::{en, ru, Key};

/// The language of everything the model sees (prompt and tool replies).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// Russian, the product's language and the default.
    #[default]
    Ru,
    /// English.
    En,
}

impl Lang {
    /// The short code: `ru` or `en`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::Ru => "ru",
            Lang::En => "en",
        }
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// The error of parsing a [`Lang`] from text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown language {0:?} (expected ru or en)")]
pub struct UnknownLang(pub String);

impl FromStr for Lang {
    type Err = UnknownLang;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "ru" => Ok(Lang::Ru),
            "en" => Ok(Lang::En),
            _ => Err(UnknownLang(s.to_string())),
        }
    }
}

/// Why arguments did not validate (rendered by [`Texts::arg_problem`]).
#[derive(Debug, Clone, PartialEq)]
pub enum ArgProblem {
    /// A required argument is absent or empty.
    Missing(String),
    /// A named argument the tool does not declare.
    Unknown(String),
    /// More positional values than declared arguments.
    TooMany(usize),
    /// A value of the wrong type: (argument, expected type name).
    NotA(String, &'static str),
    /// An enum value outside its set: (argument, allowed values).
    NotOneOf(String, Vec<String>),
    /// The same argument given twice.
    Repeated(String),
    /// A number outside its declared `min`/`max`.
    OutOfRange {
        /// The argument.
        arg: String,
        /// The value given.
        value: f64,
        /// Its declared smallest value.
        min: Option<f64>,
        /// Its declared largest value.
        max: Option<f64>,
    },
}

/// A number as said in a message: a whole number without a fraction, else its shortest
/// decimal form.
pub(crate) fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// Replaces each `{name}` of `template` by its value in `args`, in one pass (a value that
/// itself contains braces is never expanded again). Unknown placeholders stay as written.
fn fill(template: &str, args: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = after.find('}').and_then(|close| {
            let name = &after[..close];
            args.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v, close))
        });
        match value {
            Some((v, close)) => {
                out.push_str(v);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The messages in one language. Cheap to copy; build one with [`Texts::new`].
///
/// The agent renders the prompt and its own replies with it; hosts use the public methods
/// for the replies of their own tools, in the language the agent is configured with
/// ([`crate::Agent::config`]`().lang`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Texts(Lang);

impl Texts {
    /// The messages in `lang`.
    pub fn new(lang: Lang) -> Self {
        Texts(lang)
    }

    /// Its language.
    pub fn lang(self) -> Lang {
        self.0
    }

    fn get(self, key: Key) -> &'static str {
        match self.0 {
            Lang::Ru => ru(key),
            Lang::En => en(key),
        }
    }

    fn fill(self, key: Key, args: &[(&str, &str)]) -> String {
        fill(self.get(key), args)
    }

    fn list(self, items: &[String]) -> String {
        if items.is_empty() {
            self.get(Key::NoneAvailable).to_string()
        } else {
            items.join(", ")
        }
    }

    // ---- prompt --------------------------------------------------------------------------

    /// Worked examples of the call line for the prompt's head (a request, the call line, the
    /// tool's reply, a short answer), in this language.
    pub(crate) fn few_shot(self) -> &'static str {
        self.get(Key::FewShot)
    }

    /// The first lines of the core section: who the assistant is and the call line.
    pub(crate) fn core_header(self) -> &'static str {
        self.get(Key::CoreHeader)
    }

    /// One-line descriptions of the core tools, by tool name (empty for other names).
    pub(crate) fn core_tool(self, name: &str) -> &'static str {
        let key = match name {
            "get_current_time" => Key::CoreGetCurrentTime,
            "show_text" => Key::CoreShowText,
            "read_skill" => Key::CoreReadSkill,
            "enable_toolset" => Key::CoreEnableToolset,
            "disable_toolset" => Key::CoreDisableToolset,
            _ => return "",
        };
        self.get(key)
    }

    /// Header of the prompt's toolset index section.
    pub(crate) fn toolset_index_header(self) -> &'static str {
        self.get(Key::ToolsetIndexHeader)
    }

    /// The first line of the active-toolsets section.
    pub(crate) fn active_header(self, names: &[String]) -> String {
        self.fill(Key::ActiveHeader, &[("names", &names.join(", "))])
    }

    /// Header of the skills index section.
    pub(crate) fn skills_header(self) -> &'static str {
        self.get(Key::SkillsHeader)
    }

    /// The name of an argument type as written in tool lines and errors (other names are
    /// returned as they are).
    pub(crate) fn type_name(self, ty: &'static str) -> &'static str {
        let key = match ty {
            "integer" => Key::TypeInteger,
            "number" => Key::TypeNumber,
            "boolean" => Key::TypeBoolean,
            "string" => Key::TypeString,
            other => return other,
        };
        self.get(key)
    }

    // ---- the agent's tool replies ------------------------------------------------------

    /// `enable_toolset` of an inactive set: it is now active; its registry follows.
    pub(crate) fn toolset_enabled(self, set: &str, registry: &str) -> String {
        self.fill(Key::ToolsetEnabled, &[("set", set), ("registry", registry)])
    }

    /// `enable_toolset` of a set that is already active.
    pub(crate) fn toolset_already_active(self, set: &str) -> String {
        self.fill(Key::ToolsetAlreadyActive, &[("set", set)])
    }

    /// A call of a tool of an inactive set that was NOT executed: the set is activated instead.
    pub(crate) fn substituted(self, set: &str, registry: &str, schema: &str) -> String {
        self.fill(
            Key::Substituted,
            &[("set", set), ("registry", registry), ("schema", schema)],
        )
    }

    /// `disable_toolset` that switched a set off.
    pub(crate) fn toolset_disabled(self, set: &str) -> String {
        self.fill(Key::ToolsetDisabled, &[("set", set)])
    }

    /// `disable_toolset` with nothing active (not an error).
    pub(crate) fn nothing_active(self) -> String {
        self.get(Key::NothingActive).to_string()
    }

    /// `disable_toolset|set` of a known set that is not active while others are.
    pub(crate) fn toolset_not_active(self, set: &str, active: &[String]) -> String {
        self.fill(
            Key::ToolsetNotActive,
            &[("set", set), ("active", &active.join(", "))],
        )
    }

    /// An unknown toolset name.
    pub(crate) fn unknown_toolset(self, set: &str, available: &[String]) -> String {
        self.fill(
            Key::UnknownToolset,
            &[("set", set), ("available", &self.list(available))],
        )
    }

    /// `enable_toolset` without a name.
    pub(crate) fn toolset_name_needed(self, available: &[String]) -> String {
        self.fill(
            Key::ToolsetNameNeeded,
            &[("available", &self.list(available))],
        )
    }

    /// `read_skill` of an unknown skill.
    pub(crate) fn unknown_skill(self, name: &str, available: &[String]) -> String {
        self.fill(
            Key::UnknownSkill,
            &[("name", name), ("available", &self.list(available))],
        )
    }

    /// `read_skill` answer: the skill's body under its name.
    pub(crate) fn skill_body(self, name: &str, body: &str) -> String {
        self.fill(Key::SkillBody, &[("name", name), ("body", body)])
    }

    /// `show_text` answer.
    pub(crate) fn shown(self) -> String {
        self.get(Key::Shown).to_string()
    }

    /// A call of a tool nobody declares: lists the core tools and the toolset index.
    pub(crate) fn unknown_tool(self, name: &str, core: &[String], index: &str) -> String {
        self.fill(
            Key::UnknownTool,
            &[("name", name), ("core", &core.join(", ")), ("index", index)],
        )
    }

    /// A call whose prefix names a set that has no such tool.
    pub(crate) fn unknown_tool_in_set(self, name: &str, set: &str, tools: &[String]) -> String {
        self.fill(
            Key::UnknownToolInSet,
            &[("name", name), ("set", set), ("tools", &tools.join(", "))],
        )
    }

    /// Arguments that do not match the declaration; `schema` is the tool's line.
    pub(crate) fn bad_args(self, tool: &str, problem: &ArgProblem, schema: &str) -> String {
        let why = self.arg_problem(problem);
        self.fill(
            Key::BadArgs,
            &[("tool", tool), ("why", &why), ("schema", schema)],
        )
    }

    /// One argument problem, as a clause.
    pub(crate) fn arg_problem(self, problem: &ArgProblem) -> String {
        match problem {
            ArgProblem::Missing(a) => self.fill(Key::ArgMissing, &[("arg", a)]),
            ArgProblem::Unknown(a) => self.fill(Key::ArgUnknown, &[("arg", a)]),
            ArgProblem::TooMany(n) => self.fill(Key::ArgTooMany, &[("count", &n.to_string())]),
            ArgProblem::NotA(a, ty) => {
                self.fill(Key::ArgNotA, &[("arg", a), ("type", self.type_name(ty))])
            }
            ArgProblem::NotOneOf(a, v) => {
                self.fill(Key::ArgNotOneOf, &[("arg", a), ("values", &v.join("/"))])
            }
            ArgProblem::Repeated(a) => self.fill(Key::ArgRepeated, &[("arg", a)]),
            ArgProblem::OutOfRange {
                arg,
                value,
                min,
                max,
            } => self.fill(
                Key::ArgOutOfRange,
                &[
                    ("arg", arg),
                    ("value", &number_text(*value)),
                    ("range", &self.range(*min, *max)),
                ],
            ),
        }
    }

    /// A declared range as said: «от 10 до 30», "at least 1".
    pub(crate) fn range(self, min: Option<f64>, max: Option<f64>) -> String {
        match (min, max) {
            (Some(a), Some(b)) => self.fill(
                Key::RangeBetween,
                &[("min", &number_text(a)), ("max", &number_text(b))],
            ),
            (Some(a), None) => self.fill(Key::RangeAtLeast, &[("min", &number_text(a))]),
            (None, Some(b)) => self.fill(Key::RangeAtMost, &[("max", &number_text(b))]),
            (None, None) => String::new(),
        }
    }

    /// What the user hears when a value they said is outside its argument's range: the
    /// range it may take.
    pub fn value_out_of_range(self, min: Option<f64>, max: Option<f64>) -> String {
        self.fill(Key::ValueOutOfRange, &[("range", &self.range(min, max))])
    }

    /// The question asking for a missing argument described as `what` (its description);
    /// `named`: `what` is only the argument's name ("the minutes").
    pub fn ask_for_value(self, what: &str, named: bool) -> String {
        let key = if named {
            Key::AskForNamed
        } else {
            Key::AskForValue
        };
        self.fill(key, &[("what", what)])
    }

    /// The question asking which of `values` the user means.
    pub fn ask_which_of(self, values: &[String]) -> String {
        self.fill(Key::AskWhichOf, &[("values", &values.join(", "))])
    }

    /// The reply to a name said that a host's list lacks: the list's entries, and which.
    pub fn not_in_list(self, values: &[String]) -> String {
        self.fill(Key::NotInList, &[("values", &values.join(", "))])
    }

    /// The reply to a no after the assistant asked for a missing value.
    pub fn fill_dropped(self) -> &'static str {
        self.get(Key::FillDropped)
    }

    /// A declared tool whose host registered no executor.
    pub(crate) fn no_executor(self, tool: &str) -> String {
        self.fill(Key::NoExecutor, &[("tool", tool)])
    }

    /// A host executor reported an error.
    pub(crate) fn tool_failed(self, tool: &str, error: &str) -> String {
        self.fill(Key::ToolFailed, &[("tool", tool), ("error", error)])
    }

    // ---- what compaction writes (a request that outgrew the context) -------------------

    /// An old tool result shown in short: the first line of the result (`first`) and the
    /// call that produced it (`call`: `name|arguments`).
    pub(crate) fn tool_result_shortened(self, call: &str, first: &str) -> String {
        self.fill(
            Key::ToolResultShortened,
            &[("call", call), ("first", first)],
        )
    }

    /// The one marker line standing for the exchanges left out of a request.
    pub(crate) fn earlier_left_out(self) -> &'static str {
        self.get(Key::EarlierLeftOut)
    }

    /// A message too long for the context, cut: `text` is the part kept.
    pub(crate) fn message_cut(self, text: &str) -> String {
        self.fill(Key::MessageCut, &[("text", text)])
    }

    /// Why a turn was refused: even compacted, the request takes `tokens` tokens and the
    /// context holds `limit` for a request.
    pub(crate) fn message_too_long(self, tokens: usize, limit: usize) -> String {
        self.fill(
            Key::MessageTooLong,
            &[
                ("tokens", &tokens.to_string()),
                ("limit", &limit.to_string()),
            ],
        )
    }

    // ---- turn control ---------------------------------------------------------------

    /// The marker after the delivered part of a reply the user interrupted (in the history).
    pub fn turn_interrupted(self) -> &'static str {
        self.get(Key::TurnInterrupted)
    }

    /// What a cancelled turn tells the host (not spoken: the user stopped it).
    pub fn turn_cancelled(self) -> &'static str {
        self.get(Key::TurnCancelled)
    }

    /// What a turn whose time budget ran out says.
    pub fn turn_out_of_time(self) -> &'static str {
        self.get(Key::TurnOutOfTime)
    }

    /// What a turn that reached the iteration limit says.
    pub fn turn_too_many_steps(self) -> &'static str {
        self.get(Key::TurnTooManySteps)
    }

    /// What a turn whose model failed says.
    pub fn turn_model_failed(self) -> &'static str {
        self.get(Key::TurnModelFailed)
    }

    /// What a plain reply says when the model's own came out empty: it only repeated the
    /// request or the prompt's opening, which the reply's stops cut.
    pub fn turn_no_reply(self) -> &'static str {
        self.get(Key::TurnNoReply)
    }

    /// The question that names a core tool's action, asked when a request is routed to it
    /// only narrowly ([`crate::Technique::AskWhenUnsure`]); `None` for the tools a person
    /// is never asked about (reading a skill, switching toolsets).
    pub(crate) fn core_ask(self, name: &str) -> Option<&'static str> {
        let key = match name {
            "get_current_time" => Key::AskTime,
            "show_text" => Key::AskShowText,
            _ => return None,
        };
        Some(self.get(key))
    }

    /// The reply to a no after the assistant asked whether to act.
    pub fn ask_declined(self) -> &'static str {
        self.get(Key::AskDeclined)
    }

    /// The reply after a skill was read ([`crate::Technique::SkillSummary`]): what the
    /// assistant does with the skill's toolset (`can`, the set's spoken phrase) and one
    /// request the user may say (`example`).
    pub(crate) fn skill_summary(self, can: &str, example: &str) -> String {
        self.fill(Key::SkillSummary, &[("can", can), ("example", example)])
    }

    /// What a turn too long for the context says.
    pub fn turn_too_long(self) -> &'static str {
        self.get(Key::TurnTooLong)
    }

    /// The reminder a long turn's latest tool result carries: the user's `question` and
    /// the `active` sets (`—` when none).
    pub(crate) fn turn_reminder(self, question: &str, active: &[String]) -> String {
        let active = if active.is_empty() {
            "—".to_string()
        } else {
            active.join(", ")
        };
        self.fill(
            Key::TurnReminder,
            &[("question", question), ("active", &active)],
        )
    }

    // ---- replies hosts write for their own tools ---------------------------------------

    /// A host tool that did not answer within its deadline of `ms` milliseconds.
    pub fn host_tool_timeout(self, ms: u128) -> String {
        self.fill(Key::HostToolTimeout, &[("ms", &ms.to_string())])
    }

    /// A host tool whose answer was no longer waited for: the turn was cancelled.
    pub fn host_tool_stopped(self) -> &'static str {
        self.get(Key::HostToolStopped)
    }

    /// A host tool whose thread ended without an answer.
    pub fn host_tool_vanished(self) -> String {
        self.get(Key::HostToolVanished).to_string()
    }

    /// A host tool that could not be started (`error`: why).
    pub fn host_tool_not_started(self, error: &str) -> String {
        self.fill(Key::HostToolNotStarted, &[("error", error)])
    }

    /// A host tool that panicked (`error`: the panic message).
    pub fn host_tool_panicked(self, error: &str) -> String {
        self.fill(Key::HostToolPanicked, &[("error", error)])
    }

    /// A host tool that returned nothing (a Java `null`).
    pub fn host_tool_no_result(self, tool: &str) -> String {
        self.fill(Key::HostToolNoResult, &[("tool", tool)])
    }

    /// A host tool whose call failed in the host's machinery (`error`: why).
    pub fn host_tool_call_failed(self, tool: &str, error: &str) -> String {
        self.fill(Key::HostToolCallFailed, &[("tool", tool), ("error", error)])
    }

    /// The notes file could not be read or written (`error`: the file and why); the notes
    /// are as they were.
    pub fn notes_file_failed(self, error: &str) -> String {
        self.fill(Key::NotesFileFailed, &[("error", error)])
    }

    /// `notes_add` of a note that is empty after whitespace is folded.
    pub fn note_empty(self) -> String {
        self.get(Key::NoteEmpty).to_string()
    }

    /// `notes_add` succeeded; the note is number `number`.
    pub fn note_saved(self, number: usize) -> String {
        self.fill(Key::NoteSaved, &[("number", &number.to_string())])
    }

    /// `notes_list` with no notes.
    pub fn notes_none(self) -> String {
        self.get(Key::NotesNone).to_string()
    }

    /// `notes_delete` of a number that is not a note (`count` notes exist).
    pub fn note_missing(self, number: i64, count: usize) -> String {
        self.fill(
            Key::NoteMissing,
            &[
                ("number", &number.to_string()),
                ("count", &count.to_string()),
            ],
        )
    }

    /// `notes_delete` removed note `number`, whose text was `text`.
    pub fn note_deleted(self, number: i64, text: &str) -> String {
        self.fill(
            Key::NoteDeleted,
            &[("number", &number.to_string()), ("text", text)],
        )
    }

    /// `notes_delete` without a number.
    pub fn note_number_needed(self) -> String {
        self.get(Key::NoteNumberNeeded).to_string()
    }

    /// A call of a `notes_` tool the notes executor does not know.
    pub fn notes_unknown_tool(self, tool: &str) -> String {
        self.fill(Key::NotesUnknownTool, &[("tool", tool)])
    }

    /// `skills_search` found nothing.
    pub fn catalog_nothing_found(self) -> String {
        self.get(Key::CatalogNothingFound).to_string()
    }

    /// The headings of a loaded protocol (`skills_load`), in this order: preconditions,
    /// steps, post-checks, on deviation, on blocked, on already done, context.
    pub fn catalog_headings(self) -> [&'static str; 7] {
        [
            Key::CatalogPreconditions,
            Key::CatalogSteps,
            Key::CatalogPostChecks,
            Key::CatalogOnDeviation,
            Key::CatalogOnBlocked,
            Key::CatalogOnAlreadyDone,
            Key::CatalogContext,
        ]
        .map(|k| self.get(k))
    }

    /// `skills_create` wrote skill `name` as entry `id` (`#12`).
    pub fn catalog_skill_created(self, name: &str, id: &str) -> String {
        self.fill(Key::CatalogSkillCreated, &[("name", name), ("id", id)])
    }

    /// `skills_update` wrote version `version` of skill `name`.
    pub fn catalog_skill_updated(self, name: &str, version: u32) -> String {
        self.fill(
            Key::CatalogSkillUpdated,
            &[("name", name), ("version", &version.to_string())],
        )
    }

    /// `skills_update` with the stored document: nothing written.
    pub fn catalog_skill_unchanged(self, name: &str) -> String {
        self.fill(Key::CatalogSkillUnchanged, &[("name", name)])
    }

    /// `skills_create` of a protocol document: refused, points at `skills_propose`.
    pub fn catalog_protocol_via_create(self, name: &str) -> String {
        self.fill(Key::CatalogProtocolViaCreate, &[("name", name)])
    }

    /// `skills_update` of a protocol (entry or document): refused, points at `skills_propose`.
    pub fn catalog_protocol_via_update(self, name: &str) -> String {
        self.fill(Key::CatalogProtocolViaUpdate, &[("name", name)])
    }

    /// `skills_propose` of a skill document: refused, points at `skills_create`.
    pub fn catalog_skill_proposed(self, name: &str) -> String {
        self.fill(Key::CatalogSkillProposed, &[("name", name)])
    }

    /// `skills_propose` stored proposal `id` of a new protocol `name` with `steps` steps.
    pub fn catalog_proposed(self, id: &str, name: &str, steps: usize) -> String {
        self.fill(
            Key::CatalogProposed,
            &[("id", id), ("name", name), ("steps", &steps.to_string())],
        )
    }

    /// `skills_propose` stored proposal `id`: a new version of protocol `name` (entry
    /// `entry`) with `steps` steps.
    pub fn catalog_proposed_replacing(
        self,
        id: &str,
        name: &str,
        entry: &str,
        steps: usize,
    ) -> String {
        self.fill(
            Key::CatalogProposedReplacing,
            &[
                ("id", id),
                ("name", name),
                ("entry", entry),
                ("steps", &steps.to_string()),
            ],
        )
    }

    /// The catalog refused a `skills_` call; `reason` is the store's own text.
    pub fn catalog_refused(self, reason: &str) -> String {
        self.fill(Key::CatalogRefused, &[("reason", reason)])
    }

    /// A call of a `skills_` tool the catalog executor does not know.
    pub fn catalog_unknown_tool(self, tool: &str) -> String {
        self.fill(Key::CatalogUnknownTool, &[("tool", tool)])
    }

    /// A line of the skills index for a personal catalog entry (loaded with `skills_load`).
    pub fn catalog_index_line(self, protocol: bool, name: &str, description: &str) -> String {
        let key = if protocol {
            Key::CatalogIndexProtocol
        } else {
            Key::CatalogIndexSkill
        };
        self.fill(key, &[("name", name), ("description", description)])
    }

    /// The hidden note of a session whose proposal `id` of protocol `name` the user
    /// accepted: the entry written is `entry` (`#12`).
    pub fn proposal_accepted(self, id: &str, name: &str, entry: &str) -> String {
        self.fill(
            Key::ProposalAccepted,
            &[("id", id), ("name", name), ("entry", entry)],
        )
    }

    /// The hidden note of a session whose proposal `id` of protocol `name` the user
    /// rejected, with the user's reason when there is one.
    pub fn proposal_rejected(self, id: &str, name: &str, reason: Option<&str>) -> String {
        let reason = reason
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(|r| format!(": {r}"))
            .unwrap_or_default();
        self.fill(
            Key::ProposalRejected,
            &[("id", id), ("name", name), ("reason", &reason)],
        )
    }

    /// `protocol_start` opened run `run` (`#3`) of protocol `name`; `steps` are its numbered
    /// step lines.
    pub fn protocol_started(self, name: &str, run: &str, steps: &str) -> String {
        self.fill(
            Key::ProtocolStarted,
            &[("name", name), ("run", run), ("steps", steps)],
        )
    }

    /// `protocol_step` marked step `step` as `status`; `open` lists the steps still open
    /// (empty: none is, and the reply says how to finish).
    pub fn protocol_step_marked(self, step: u32, status: &str, open: &str) -> String {
        let step = step.to_string();
        if open.is_empty() {
            self.fill(
                Key::ProtocolStepsAllClosed,
                &[("step", &step), ("status", status)],
            )
        } else {
            self.fill(
                Key::ProtocolStepMarked,
                &[("step", &step), ("status", status), ("open", open)],
            )
        }
    }

    /// `protocol_step` marked step `step` failed: only `protocol_fail` closes the run now.
    pub fn protocol_step_failed(self, step: u32) -> String {
        self.fill(Key::ProtocolStepFailed, &[("step", &step.to_string())])
    }

    /// `protocol_finish` closed the run of `name` as done.
    pub fn protocol_finished(self, name: &str) -> String {
        self.fill(Key::ProtocolFinished, &[("name", name)])
    }

    /// `protocol_cancel` closed the run of `name` as cancelled.
    pub fn protocol_cancelled(self, name: &str, reason: &str) -> String {
        self.fill(
            Key::ProtocolCancelled,
            &[("name", name), ("reason", reason)],
        )
    }

    /// `protocol_fail` closed the run of `name` as failed.
    pub fn protocol_failed(self, name: &str, reason: &str) -> String {
        self.fill(Key::ProtocolFailed, &[("name", name), ("reason", reason)])
    }

    /// The first line of `protocol_status`: run `run` of `name` at version `version`.
    pub fn protocol_status_header(self, name: &str, run: &str, version: u32) -> String {
        self.fill(
            Key::ProtocolStatusHeader,
            &[
                ("name", name),
                ("run", run),
                ("version", &version.to_string()),
            ],
        )
    }

    /// A `protocol_` call while the session runs no protocol.
    pub fn protocol_no_run(self) -> String {
        self.get(Key::ProtocolNoRun).to_string()
    }

    /// A call of a `protocol_` tool the executor does not know.
    pub fn protocol_unknown_tool(self, tool: &str) -> String {
        self.fill(Key::ProtocolUnknownTool, &[("tool", tool)])
    }

    /// The reminder every request carries while protocol `name` runs with steps `open`
    /// open (their numbers and texts).
    pub fn protocol_reminder(self, name: &str, open: &str) -> String {
        self.fill(Key::ProtocolReminder, &[("name", name), ("open", open)])
    }

    /// The reminder while protocol `name` runs with every step closed.
    pub fn protocol_reminder_closed(self, name: &str) -> String {
        self.fill(Key::ProtocolReminderClosed, &[("name", name)])
    }

    /// The reminder while protocol `name` runs with step `step` failed.
    pub fn protocol_reminder_failed(self, name: &str, step: u32) -> String {
        self.fill(
            Key::ProtocolReminderFailed,
            &[("name", name), ("step", &step.to_string())],
        )
    }

    /// What a turn that answered while protocol `name` is still running with no open step
    /// is told, once, before one more generation.
    pub fn protocol_finish_nudge(self, name: &str) -> String {
        self.fill(Key::ProtocolFinishNudge, &[("name", name)])
    }
}

#[cfg(test)]
mod tests;
