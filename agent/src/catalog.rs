//! The message catalog: every text the MODEL sees that the agent itself writes.
//!
//! Prompt headers, core tool descriptions and every tool reply come from here, in Russian
//! (the default) or English. Nothing else in the crate formats model-visible prose, so the
//! wording can be tuned in one place and both languages stay in step (the tests below check
//! that each message exists in both and carries the phrases the design requires).
//!
//! Texts are short on purpose: the prompt of a small on-device model is measured in tokens.

use std::fmt;
use std::str::FromStr;

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
#[derive(Debug, Clone, PartialEq, Eq)]
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
}

/// The catalog for one language. Cheap to copy; build one with [`Texts::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Texts(Lang);

fn list(items: &[String], none: &str) -> String {
    if items.is_empty() {
        none.to_string()
    } else {
        items.join(", ")
    }
}

impl Texts {
    pub(crate) fn new(lang: Lang) -> Self {
        Texts(lang)
    }

    fn ru(self) -> bool {
        self.0 == Lang::Ru
    }

    // ---- prompt --------------------------------------------------------------------------

    /// The first lines of the core section: who the assistant is and the call protocol.
    pub(crate) fn core_header(self) -> &'static str {
        if self.ru() {
            "Ты — Порфирий, голосовой помощник. Отвечай коротко.\n\
             Инструмент вызывай отдельной строкой: TOOL_CALL: имя|аргументы"
        } else {
            "You are Porfiry, a voice assistant. Answer briefly.\n\
             Call a tool on a line of its own: TOOL_CALL: name|arguments"
        }
    }

    /// One-line descriptions of the core tools, by tool name.
    pub(crate) fn core_tool(self, name: &str) -> &'static str {
        match (name, self.ru()) {
            ("get_current_time", true) => "текущие дата и время",
            ("get_current_time", false) => "current date and time",
            ("show_text", true) => "показать текст на экране",
            ("show_text", false) => "show text on the screen",
            ("read_skill", true) => "прочитать скилл целиком",
            ("read_skill", false) => "read a skill in full",
            ("enable_toolset", true) => "включить набор инструментов",
            ("enable_toolset", false) => "enable a toolset",
            ("disable_toolset", true) => "выключить набор",
            ("disable_toolset", false) => "disable a toolset",
            _ => "",
        }
    }

    /// Header of the toolset catalog section.
    pub(crate) fn catalog_header(self) -> &'static str {
        if self.ru() {
            "Наборы инструментов (enable_toolset|имя):"
        } else {
            "Toolsets (enable_toolset|name):"
        }
    }

    /// The first line of the active-toolsets section.
    pub(crate) fn active_header(self, names: &[String]) -> String {
        if self.ru() {
            format!("Активные тулсеты: {}", names.join(", "))
        } else {
            format!("Active toolsets: {}", names.join(", "))
        }
    }

    /// Header of the skills index section.
    pub(crate) fn skills_header(self) -> &'static str {
        if self.ru() {
            "Скиллы (read_skill|имя):"
        } else {
            "Skills (read_skill|name):"
        }
    }

    /// The name of an argument type as written in tool lines and errors.
    pub(crate) fn type_name(self, ty: &'static str) -> &'static str {
        match (ty, self.ru()) {
            ("integer", true) => "целое",
            ("number", true) => "число",
            ("boolean", true) => "да/нет",
            ("string", true) => "текст",
            (other, _) => other,
        }
    }

    // ---- tool replies ------------------------------------------------------------------

    /// `enable_toolset` of an inactive set: it is now active; its registry follows.
    pub(crate) fn toolset_enabled(self, set: &str, registry: &str) -> String {
        if self.ru() {
            format!("Тулсет {set} активирован. Реестр:\n{registry}")
        } else {
            format!("Toolset {set} activated. Registry:\n{registry}")
        }
    }

    /// `enable_toolset` of a set that is already active.
    pub(crate) fn toolset_already_active(self, set: &str) -> String {
        if self.ru() {
            format!("Тулсет {set} уже активен, продлеваю таймаут.")
        } else {
            format!("Toolset {set} already active, timeout extended.")
        }
    }

    /// A call of a tool of an inactive set that was NOT executed: the set is activated instead.
    pub(crate) fn substituted(self, set: &str, registry: &str, schema: &str) -> String {
        if self.ru() {
            format!(
                "Тулсет {set} активирован. Реестр:\n{registry}\n\
                 Вызов ещё НЕ выполнялся. Чтобы выполнить, вызови: {schema}"
            )
        } else {
            format!(
                "Toolset {set} activated. Registry:\n{registry}\n\
                 The call was NOT executed yet. To run it, call: {schema}"
            )
        }
    }

    /// `disable_toolset` that switched a set off.
    pub(crate) fn toolset_disabled(self, set: &str) -> String {
        if self.ru() {
            format!("Тулсет {set} выключен.")
        } else {
            format!("Toolset {set} disabled.")
        }
    }

    /// `disable_toolset` with nothing active (not an error).
    pub(crate) fn nothing_active(self) -> String {
        if self.ru() {
            "Выключать нечего: нет активных наборов.".to_string()
        } else {
            "Nothing to disable: no active toolsets.".to_string()
        }
    }

    /// `disable_toolset|set` of a known set that is not active while others are.
    pub(crate) fn toolset_not_active(self, set: &str, active: &[String]) -> String {
        if self.ru() {
            format!("Тулсет {set} не активен; активны: {}.", active.join(", "))
        } else {
            format!(
                "Toolset {set} is not active; active: {}.",
                active.join(", ")
            )
        }
    }

    /// An unknown toolset name.
    pub(crate) fn unknown_toolset(self, set: &str, available: &[String]) -> String {
        if self.ru() {
            format!(
                "Ошибка: набора {set} нет, доступны: {}.",
                list(available, "ничего")
            )
        } else {
            format!(
                "Error: no toolset {set}; available: {}.",
                list(available, "none")
            )
        }
    }

    /// `enable_toolset` without a name.
    pub(crate) fn toolset_name_needed(self, available: &[String]) -> String {
        if self.ru() {
            format!(
                "Ошибка: укажи набор: enable_toolset|имя. Доступны: {}.",
                list(available, "ничего")
            )
        } else {
            format!(
                "Error: name the toolset: enable_toolset|name. Available: {}.",
                list(available, "none")
            )
        }
    }

    /// `read_skill` of an unknown skill.
    pub(crate) fn unknown_skill(self, name: &str, available: &[String]) -> String {
        if self.ru() {
            format!(
                "Ошибка: скилла {name} нет, доступны: {}.",
                list(available, "ничего")
            )
        } else {
            format!(
                "Error: no skill {name}; available: {}.",
                list(available, "none")
            )
        }
    }

    /// `read_skill` answer: the skill's body under its name.
    pub(crate) fn skill_body(self, name: &str, body: &str) -> String {
        if self.ru() {
            format!("Скилл {name}:\n{body}")
        } else {
            format!("Skill {name}:\n{body}")
        }
    }

    /// `show_text` answer.
    pub(crate) fn shown(self) -> String {
        if self.ru() {
            "Показано.".to_string()
        } else {
            "Shown.".to_string()
        }
    }

    /// A call of a tool nobody declares: lists the core tools and the catalog.
    pub(crate) fn unknown_tool(self, name: &str, core: &[String], catalog: &str) -> String {
        if self.ru() {
            format!(
                "Ошибка: инструмента {name} нет. Ядро: {}.\nНаборы:\n{catalog}",
                core.join(", ")
            )
        } else {
            format!(
                "Error: no tool {name}. Core: {}.\nToolsets:\n{catalog}",
                core.join(", ")
            )
        }
    }

    /// A call whose prefix names a set that has no such tool.
    pub(crate) fn unknown_tool_in_set(self, name: &str, set: &str, tools: &[String]) -> String {
        if self.ru() {
            format!(
                "Ошибка: инструмента {name} нет. В наборе {set}: {}.",
                tools.join(", ")
            )
        } else {
            format!(
                "Error: no tool {name}. Toolset {set} has: {}.",
                tools.join(", ")
            )
        }
    }

    /// Arguments that do not match the declaration; `schema` is the tool's line.
    pub(crate) fn bad_args(self, tool: &str, problem: &ArgProblem, schema: &str) -> String {
        let why = self.arg_problem(problem);
        if self.ru() {
            format!("Ошибка: аргументы {tool} неверны: {why}. Схема: {schema}")
        } else {
            format!("Error: invalid arguments for {tool}: {why}. Schema: {schema}")
        }
    }

    /// One argument problem, as a clause.
    pub(crate) fn arg_problem(self, problem: &ArgProblem) -> String {
        match (problem, self.ru()) {
            (ArgProblem::Missing(a), true) => format!("нет аргумента {a}"),
            (ArgProblem::Missing(a), false) => format!("missing argument {a}"),
            (ArgProblem::Unknown(a), true) => format!("лишний аргумент {a}"),
            (ArgProblem::Unknown(a), false) => format!("unknown argument {a}"),
            (ArgProblem::TooMany(n), true) => format!("слишком много аргументов ({n})"),
            (ArgProblem::TooMany(n), false) => format!("too many arguments ({n})"),
            (ArgProblem::NotA(a, ty), true) => {
                format!("{a} должен быть: {}", self.type_name(ty))
            }
            (ArgProblem::NotA(a, ty), false) => format!("{a} must be {ty}"),
            (ArgProblem::NotOneOf(a, v), true) => {
                format!("{a} должен быть одним из: {}", v.join("/"))
            }
            (ArgProblem::NotOneOf(a, v), false) => {
                format!("{a} must be one of: {}", v.join("/"))
            }
            (ArgProblem::Repeated(a), true) => format!("аргумент {a} дважды"),
            (ArgProblem::Repeated(a), false) => format!("argument {a} given twice"),
        }
    }

    /// A declared tool whose host registered no executor.
    pub(crate) fn no_executor(self, tool: &str) -> String {
        if self.ru() {
            format!("Ошибка: для {tool} нет исполнителя на этом устройстве.")
        } else {
            format!("Error: {tool} has no executor on this host.")
        }
    }

    /// A host executor reported an error.
    pub(crate) fn tool_failed(self, tool: &str, error: &str) -> String {
        if self.ru() {
            format!("Ошибка {tool}: {error}")
        } else {
            format!("Error in {tool}: {error}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both() -> [Texts; 2] {
        [Texts::new(Lang::Ru), Texts::new(Lang::En)]
    }

    #[test]
    fn lang_parses_and_prints() {
        assert_eq!("ru".parse::<Lang>(), Ok(Lang::Ru));
        assert_eq!(" EN ".parse::<Lang>(), Ok(Lang::En));
        assert!("de".parse::<Lang>().is_err());
        assert_eq!(Lang::default(), Lang::Ru);
        assert_eq!(Lang::En.to_string(), "en");
    }

    #[test]
    fn design_phrases_are_present() {
        let ru = Texts::new(Lang::Ru);
        let en = Texts::new(Lang::En);
        let avail = vec!["a".to_string(), "b".to_string()];
        let cases: Vec<(String, &str)> = vec![
            (
                ru.toolset_already_active("media"),
                "уже активен, продлеваю таймаут",
            ),
            (
                en.toolset_already_active("media"),
                "already active, timeout extended",
            ),
            (ru.nothing_active(), "нет активных наборов"),
            (en.nothing_active(), "no active toolsets"),
            (
                ru.unknown_toolset("X", &avail),
                "набора X нет, доступны: a, b",
            ),
            (
                en.unknown_toolset("X", &avail),
                "no toolset X; available: a, b",
            ),
            (
                ru.substituted("media", "r", "s"),
                "Тулсет media активирован. Реестр:",
            ),
            (
                ru.substituted("media", "r", "s"),
                "Вызов ещё НЕ выполнялся.",
            ),
            (
                en.substituted("media", "r", "s"),
                "Toolset media activated. Registry:",
            ),
            (
                en.substituted("media", "r", "s"),
                "The call was NOT executed yet.",
            ),
            (en.no_executor("media_play"), "no executor on this host"),
        ];
        for (text, phrase) in cases {
            assert!(text.contains(phrase), "{text:?} lacks {phrase:?}");
        }
    }

    #[test]
    fn every_core_tool_has_a_description_in_both_languages() {
        for t in both() {
            for name in crate::tools::CORE_TOOL_NAMES {
                assert!(!t.core_tool(name).is_empty(), "{name} in {t:?}");
            }
        }
    }

    #[test]
    fn languages_differ_for_every_reply() {
        let [ru, en] = both();
        let p = ArgProblem::Missing("q".into());
        assert_ne!(ru.bad_args("t", &p, "s"), en.bad_args("t", &p, "s"));
        assert_ne!(ru.shown(), en.shown());
        assert_ne!(ru.core_header(), en.core_header());
        assert_ne!(ru.unknown_tool("x", &[], ""), en.unknown_tool("x", &[], ""));
    }
}
