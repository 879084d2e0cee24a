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

mod talk;

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

/// Declares the message keys and `Key::ALL` (every key, for the tests) in one list.
macro_rules! keys {
    ($($key:ident),* $(,)?) => {
        /// One message; each has a text in [`ru`] and in [`en`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        enum Key {
            $($key),*
        }

        impl Key {
            #[cfg(test)]
            const ALL: &'static [Key] = &[$(Key::$key),*];
        }
    };
}

keys! {
    // prompt
    CoreHeader,
    CoreGetCurrentTime,
    CoreShowText,
    CoreReadSkill,
    CoreEnableToolset,
    CoreDisableToolset,
    FewShot,
    ToolsetIndexHeader,
    ActiveHeader,
    SkillsHeader,
    TypeInteger,
    TypeNumber,
    TypeBoolean,
    TypeString,
    // the agent's tool replies
    ToolsetEnabled,
    ToolsetAlreadyActive,
    Substituted,
    ToolsetDisabled,
    NothingActive,
    ToolsetNotActive,
    UnknownToolset,
    NoneAvailable,
    ToolsetNameNeeded,
    UnknownSkill,
    SkillBody,
    Shown,
    UnknownTool,
    UnknownToolInSet,
    BadArgs,
    ArgMissing,
    ArgUnknown,
    ArgTooMany,
    ArgNotA,
    ArgNotOneOf,
    ArgRepeated,
    NoExecutor,
    ToolFailed,
    // what compaction writes in a request that outgrew the context
    ToolResultShortened,
    EarlierLeftOut,
    MessageCut,
    MessageTooLong,
    // turn control: what a turn without an answer says, the interruption marker, reminders
    TurnInterrupted,
    TurnCancelled,
    TurnOutOfTime,
    TurnTooManySteps,
    TurnModelFailed,
    TurnNoReply,
    TurnTooLong,
    TurnReminder,
    // replies hosts write for their own tools
    HostToolTimeout,
    HostToolStopped,
    HostToolVanished,
    HostToolNotStarted,
    HostToolPanicked,
    HostToolNoResult,
    HostToolCallFailed,
    NoteEmpty,
    NoteSaved,
    NotesNone,
    NoteMissing,
    NoteDeleted,
    NotesFileFailed,
    NoteNumberNeeded,
    NotesUnknownTool,
    CatalogNothingFound,
    CatalogPreconditions,
    CatalogSteps,
    CatalogPostChecks,
    CatalogOnDeviation,
    CatalogOnBlocked,
    CatalogOnAlreadyDone,
    CatalogContext,
    CatalogSkillCreated,
    CatalogSkillUpdated,
    CatalogSkillUnchanged,
    CatalogProtocolViaCreate,
    CatalogProtocolViaUpdate,
    CatalogSkillProposed,
    CatalogProposed,
    CatalogProposedReplacing,
    CatalogRefused,
    CatalogUnknownTool,
    CatalogIndexSkill,
    CatalogIndexProtocol,
    ProposalAccepted,
    ProposalRejected,
    ProtocolStarted,
    ProtocolStepMarked,
    ProtocolStepsAllClosed,
    ProtocolStepFailed,
    ProtocolFinished,
    ProtocolCancelled,
    ProtocolFailed,
    ProtocolStatusHeader,
    ProtocolNoRun,
    ProtocolUnknownTool,
    ProtocolReminder,
    ProtocolReminderClosed,
    ProtocolReminderFailed,
    ProtocolFinishNudge,
}

/// The Russian table.
fn ru(key: Key) -> &'static str {
    match key {
        Key::CoreHeader => {
            "Ты — Порфирий, голосовой помощник. Отвечай коротко.\n\
             Инструмент вызывай отдельной строкой: TOOL_CALL: имя|аргументы"
        }
        Key::CoreGetCurrentTime => "текущие дата и время",
        Key::CoreShowText => "показать текст на экране",
        Key::CoreReadSkill => "прочитать скилл целиком",
        Key::CoreEnableToolset => "включить набор инструментов",
        Key::CoreDisableToolset => "выключить набор",
        Key::FewShot => {
            "Примеры:\n\
             Пользователь: Сколько времени?\n\
             Ты: TOOL_CALL: get_current_time\n\
             Инструмент: 08:05, пятница, 14 марта 2025 (2025-03-14T08:05:00+03:00)\n\
             Ты: Сейчас 08:05.\n\
             Пользователь: Выведи на экран: купить билеты\n\
             Ты: TOOL_CALL: show_text|купить билеты\n\
             Инструмент: Показано.\n\
             Ты: Готово.\n\
             Пользователь: Как дела?\n\
             Ты: Хорошо, спасибо! Чем помочь?"
        }
        Key::ToolsetIndexHeader => "Наборы инструментов (enable_toolset|имя):",
        Key::ActiveHeader => "Активные тулсеты: {names}",
        Key::SkillsHeader => "Скиллы (read_skill|имя):",
        Key::TypeInteger => "целое",
        Key::TypeNumber => "число",
        Key::TypeBoolean => "да/нет",
        Key::TypeString => "текст",
        Key::ToolsetEnabled => "Тулсет {set} активирован. Реестр:\n{registry}",
        Key::ToolsetAlreadyActive => "Тулсет {set} уже активен, продлеваю таймаут.",
        Key::Substituted => {
            "Тулсет {set} активирован. Реестр:\n{registry}\n\
             Вызов ещё НЕ выполнялся. Чтобы выполнить, вызови: {schema}"
        }
        Key::ToolsetDisabled => "Тулсет {set} выключен.",
        Key::NothingActive => "Выключать нечего: нет активных наборов.",
        Key::ToolsetNotActive => "Тулсет {set} не активен; активны: {active}.",
        Key::UnknownToolset => "Ошибка: набора {set} нет, доступны: {available}.",
        Key::NoneAvailable => "ничего",
        Key::ToolsetNameNeeded => "Ошибка: укажи набор: enable_toolset|имя. Доступны: {available}.",
        Key::UnknownSkill => "Ошибка: скилла {name} нет, доступны: {available}.",
        Key::SkillBody => "Скилл {name}:\n{body}",
        Key::Shown => "Показано.",
        Key::UnknownTool => "Ошибка: инструмента {name} нет. Ядро: {core}.\nНаборы:\n{catalog}",
        Key::UnknownToolInSet => "Ошибка: инструмента {name} нет. В наборе {set}: {tools}.",
        Key::BadArgs => "Ошибка: аргументы {tool} неверны: {why}. Схема: {schema}",
        Key::ArgMissing => "нет аргумента {arg}",
        Key::ArgUnknown => "лишний аргумент {arg}",
        Key::ArgTooMany => "слишком много аргументов ({count})",
        Key::ArgNotA => "{arg} должен быть: {type}",
        Key::ArgNotOneOf => "{arg} должен быть одним из: {values}",
        Key::ArgRepeated => "аргумент {arg} дважды",
        Key::NoExecutor => "Ошибка: для {tool} нет исполнителя на этом устройстве.",
        Key::ToolFailed => "Ошибка {tool}: {error}",
        Key::ToolResultShortened => "{first} … [старый результат {call} сокращён]",
        Key::EarlierLeftOut => "[Более ранняя часть разговора опущена.]",
        Key::MessageCut => "{text} … [обрезано: сообщение не помещалось в контекст]",
        Key::MessageTooLong => {
            "сообщение слишком длинное: запрос занимает {tokens} токенов, контекст вмещает {limit}"
        }
        Key::TurnInterrupted => "[перебит пользователем]",
        Key::TurnCancelled => "Прервано.",
        Key::TurnOutOfTime => "Не успел ответить. Спросите ещё раз, пожалуйста.",
        Key::TurnTooManySteps => "Не получилось довести до конца. Скажите иначе, пожалуйста.",
        Key::TurnModelFailed => "Не получилось ответить. Попробуйте ещё раз.",
        Key::TurnNoReply => "Простите, тут я не помогу.",
        Key::TurnTooLong => "Это слишком длинно для меня. Скажите короче, пожалуйста.",
        Key::TurnReminder => {
            "[Напоминание: вопрос пользователя: «{question}». Активные наборы: {active}. \
            Ответь коротко или вызови нужный инструмент.]"
        }
        Key::HostToolTimeout => "инструмент не ответил за {ms} мс",
        Key::HostToolStopped => "не дождался ответа: ход прерван",
        Key::HostToolVanished => "инструмент завершился без ответа",
        Key::HostToolNotStarted => "не удалось запустить инструмент: {error}",
        Key::HostToolPanicked => "внутренняя ошибка: {error}",
        Key::HostToolNoResult => "{tool} не вернул результат",
        Key::HostToolCallFailed => "сбой вызова {tool}: {error}",
        Key::NoteEmpty => "пустая заметка не сохранена",
        Key::NotesFileFailed => "файл заметок недоступен, ничего не изменено: {error}",
        Key::NoteSaved => "Заметка {number} сохранена.",
        Key::NotesNone => "Заметок нет.",
        Key::NoteMissing => "нет заметки {number}; всего заметок: {count}",
        Key::NoteDeleted => "Заметка {number} удалена: {text}",
        Key::NoteNumberNeeded => "нужен номер заметки: notes_delete|номер",
        Key::NotesUnknownTool => "инструмента {tool} в наборе notes нет",
        Key::CatalogNothingFound => "В каталоге ничего не нашлось.",
        Key::CatalogPreconditions => "Предусловия",
        Key::CatalogSteps => "Шаги",
        Key::CatalogPostChecks => "Проверки после",
        Key::CatalogOnDeviation => "Если ход отклонился от плана",
        Key::CatalogOnBlocked => "Если завершить нельзя",
        Key::CatalogOnAlreadyDone => "Если результат шага уже есть",
        Key::CatalogContext => "Контекст",
        Key::CatalogSkillCreated => "Скил «{name}» записан ({id}).",
        Key::CatalogSkillUpdated => "Скил «{name}» обновлён до версии {version}.",
        Key::CatalogSkillUnchanged => "Скил «{name}» не изменился.",
        Key::CatalogProtocolViaCreate => {
            "«{name}» — протокол: протоколы не записываются напрямую; предложи его через \
             skills_propose|документ, решит пользователь"
        }
        Key::CatalogProtocolViaUpdate => {
            "«{name}» — протокол: изменённый документ отправь в skills_propose|документ, решит \
             пользователь"
        }
        Key::CatalogSkillProposed => {
            "«{name}» — скил: его записывают через skills_create|документ; предлагают только \
             протоколы"
        }
        Key::CatalogProposed => {
            "Предложение {id}: протокол «{name}», шагов: {steps}. Ждёт решения пользователя."
        }
        Key::CatalogProposedReplacing => {
            "Предложение {id}: новая версия протокола «{name}» ({entry}), шагов: {steps}. Ждёт \
             решения пользователя."
        }
        Key::CatalogRefused => "каталог отказал: {reason}",
        Key::CatalogUnknownTool => "инструмента {tool} в наборе skills нет",
        Key::CatalogIndexSkill => "{name} — {description} (читать: skills_load|{name})",
        Key::CatalogIndexProtocol => "{name} — протокол: {description} (skills_load|{name})",
        Key::ProposalAccepted => {
            "Пользователь принял предложение {id}: протокол «{name}» записан в каталог ({entry})."
        }
        Key::ProposalRejected => {
            "Пользователь отклонил предложение {id}: протокол «{name}» не записан{reason}."
        }
        Key::ProtocolStarted => {
            "Протокол «{name}» запущен ({run}). Шаги:\n{steps}\nОтмечай каждый: \
             protocol_step|номер|done|как проверено; в конце protocol_finish|отчёт."
        }
        Key::ProtocolStepMarked => "Шаг {step}: {status}. Открыты шаги: {open}.",
        Key::ProtocolStepsAllClosed => {
            "Шаг {step}: {status}. Открытых шагов нет: заверши protocol_finish|отчёт (каждая \
             проверка и её результат)."
        }
        Key::ProtocolStepFailed => {
            "Шаг {step} не выполнен. Теперь протокол можно закрыть только protocol_fail|причина \
             (какой шаг, почему, в каком всё состоянии)."
        }
        Key::ProtocolFinished => "Протокол «{name}» выполнен, отчёт записан.",
        Key::ProtocolCancelled => "Протокол «{name}» отменён: {reason}",
        Key::ProtocolFailed => "Протокол «{name}» закрыт как невыполненный: {reason}",
        Key::ProtocolStatusHeader => "Протокол «{name}» ({run}, версия {version}):",
        Key::ProtocolNoRun => "Сейчас никакой протокол не выполняется.",
        Key::ProtocolUnknownTool => "инструмента {tool} в наборе protocol нет",
        Key::ProtocolReminder => {
            "[Идёт протокол «{name}». Открытые шаги: {open}. Отмечай protocol_step|номер|done|как \
             проверено; закрыть: protocol_finish|отчёт, protocol_cancel|причина.]"
        }
        Key::ProtocolReminderClosed => {
            "[Идёт протокол «{name}»: все шаги закрыты, заверши его protocol_finish|отчёт.]"
        }
        Key::ProtocolReminderFailed => {
            "[Идёт протокол «{name}»: шаг {step} не выполнен, закрой его protocol_fail|причина.]"
        }
        Key::ProtocolFinishNudge => {
            "Протокол «{name}» не закрыт, хотя открытых шагов нет. Заверши его сейчас: \
             protocol_finish|отчёт (каждая проверка и её результат)."
        }
    }
}

/// The English table.
fn en(key: Key) -> &'static str {
    match key {
        Key::CoreHeader => {
            "You are Porfiry, a voice assistant. Answer briefly.\n\
             Call a tool on a line of its own: TOOL_CALL: name|arguments"
        }
        Key::CoreGetCurrentTime => "current date and time",
        Key::CoreShowText => "show text on the screen",
        Key::CoreReadSkill => "read a skill in full",
        Key::CoreEnableToolset => "enable a toolset",
        Key::CoreDisableToolset => "disable a toolset",
        Key::FewShot => {
            "Examples:\n\
             User: What's the time?\n\
             You: TOOL_CALL: get_current_time\n\
             Tool: 08:05, Friday, March 14, 2025 (2025-03-14T08:05:00+00:00)\n\
             You: It is 08:05.\n\
             User: Put on the screen: buy tickets\n\
             You: TOOL_CALL: show_text|buy tickets\n\
             Tool: Shown.\n\
             You: Done.\n\
             User: How are you?\n\
             You: Fine, thanks! How can I help?"
        }
        Key::ToolsetIndexHeader => "Toolsets (enable_toolset|name):",
        Key::ActiveHeader => "Active toolsets: {names}",
        Key::SkillsHeader => "Skills (read_skill|name):",
        Key::TypeInteger => "integer",
        Key::TypeNumber => "number",
        Key::TypeBoolean => "boolean",
        Key::TypeString => "string",
        Key::ToolsetEnabled => "Toolset {set} activated. Registry:\n{registry}",
        Key::ToolsetAlreadyActive => "Toolset {set} already active, timeout extended.",
        Key::Substituted => {
            "Toolset {set} activated. Registry:\n{registry}\n\
             The call was NOT executed yet. To run it, call: {schema}"
        }
        Key::ToolsetDisabled => "Toolset {set} disabled.",
        Key::NothingActive => "Nothing to disable: no active toolsets.",
        Key::ToolsetNotActive => "Toolset {set} is not active; active: {active}.",
        Key::UnknownToolset => "Error: no toolset {set}; available: {available}.",
        Key::NoneAvailable => "none",
        Key::ToolsetNameNeeded => {
            "Error: name the toolset: enable_toolset|name. Available: {available}."
        }
        Key::UnknownSkill => "Error: no skill {name}; available: {available}.",
        Key::SkillBody => "Skill {name}:\n{body}",
        Key::Shown => "Shown.",
        Key::UnknownTool => "Error: no tool {name}. Core: {core}.\nToolsets:\n{catalog}",
        Key::UnknownToolInSet => "Error: no tool {name}. Toolset {set} has: {tools}.",
        Key::BadArgs => "Error: invalid arguments for {tool}: {why}. Schema: {schema}",
        Key::ArgMissing => "missing argument {arg}",
        Key::ArgUnknown => "unknown argument {arg}",
        Key::ArgTooMany => "too many arguments ({count})",
        Key::ArgNotA => "{arg} must be {type}",
        Key::ArgNotOneOf => "{arg} must be one of: {values}",
        Key::ArgRepeated => "argument {arg} given twice",
        Key::NoExecutor => "Error: {tool} has no executor on this host.",
        Key::ToolFailed => "Error in {tool}: {error}",
        Key::ToolResultShortened => "{first} … [older result of {call}, shortened]",
        Key::EarlierLeftOut => "[Earlier parts of the conversation were left out.]",
        Key::MessageCut => "{text} … [cut: the message did not fit the context]",
        Key::MessageTooLong => {
            "message too long: the request takes {tokens} tokens, the context holds {limit}"
        }
        Key::TurnInterrupted => "[interrupted by the user]",
        Key::TurnCancelled => "Stopped.",
        Key::TurnOutOfTime => "I ran out of time. Please ask again.",
        Key::TurnTooManySteps => "I couldn't finish that. Please put it another way.",
        Key::TurnModelFailed => "I couldn't answer. Please try again.",
        Key::TurnNoReply => "Sorry, I can't help with that.",
        Key::TurnTooLong => "That is too long for me. Please say it shorter.",
        Key::TurnReminder => {
            "[Reminder: the user asked: \"{question}\". Active sets: {active}. \
            Answer briefly or call the tool you need.]"
        }
        Key::HostToolTimeout => "the tool did not answer within {ms} ms",
        Key::HostToolStopped => "stopped waiting: the turn was interrupted",
        Key::HostToolVanished => "the tool stopped without an answer",
        Key::HostToolNotStarted => "cannot start the tool: {error}",
        Key::HostToolPanicked => "internal error: {error}",
        Key::HostToolNoResult => "{tool} returned no result",
        Key::HostToolCallFailed => "{tool} failed: {error}",
        Key::NoteEmpty => "an empty note was not saved",
        Key::NotesFileFailed => "the notes file cannot be used, nothing was changed: {error}",
        Key::NoteSaved => "Note {number} saved.",
        Key::NotesNone => "No notes.",
        Key::NoteMissing => "no note {number}; there are {count} notes",
        Key::NoteDeleted => "Note {number} deleted: {text}",
        Key::NoteNumberNeeded => "a note number is needed: notes_delete|number",
        Key::NotesUnknownTool => "the notes toolset has no tool {tool}",
        Key::CatalogNothingFound => "Nothing found in the catalog.",
        Key::CatalogPreconditions => "Preconditions",
        Key::CatalogSteps => "Steps",
        Key::CatalogPostChecks => "Post-checks",
        Key::CatalogOnDeviation => "If the run deviates from the plan",
        Key::CatalogOnBlocked => "If it cannot be completed",
        Key::CatalogOnAlreadyDone => "If a step's result already exists",
        Key::CatalogContext => "Context",
        Key::CatalogSkillCreated => "Skill \"{name}\" saved ({id}).",
        Key::CatalogSkillUpdated => "Skill \"{name}\" updated to version {version}.",
        Key::CatalogSkillUnchanged => "Skill \"{name}\" is unchanged.",
        Key::CatalogProtocolViaCreate => {
            "\"{name}\" is a protocol: protocols are not written directly; propose it with \
             skills_propose|document and the user decides"
        }
        Key::CatalogProtocolViaUpdate => {
            "\"{name}\" is a protocol: send the changed document to skills_propose|document; \
             the user decides"
        }
        Key::CatalogSkillProposed => {
            "\"{name}\" is a skill: save it with skills_create|document; only protocols are \
             proposed"
        }
        Key::CatalogProposed => {
            "Proposal {id}: protocol \"{name}\", {steps} steps. Waiting for the user to accept \
             or reject it."
        }
        Key::CatalogProposedReplacing => {
            "Proposal {id}: a new version of protocol \"{name}\" ({entry}), {steps} steps. \
             Waiting for the user to accept or reject it."
        }
        Key::CatalogRefused => "the catalog refused: {reason}",
        Key::CatalogUnknownTool => "the skills toolset has no tool {tool}",
        Key::CatalogIndexSkill => "{name} — {description} (read: skills_load|{name})",
        Key::CatalogIndexProtocol => "{name} — protocol: {description} (skills_load|{name})",
        Key::ProposalAccepted => {
            "The user accepted proposal {id}: protocol \"{name}\" is in the catalog ({entry})."
        }
        Key::ProposalRejected => {
            "The user rejected proposal {id}: protocol \"{name}\" was not written{reason}."
        }
        Key::ProtocolStarted => {
            "Protocol \"{name}\" started ({run}). Steps:\n{steps}\nMark each one: \
             protocol_step|number|done|how it was checked; at the end protocol_finish|report."
        }
        Key::ProtocolStepMarked => "Step {step}: {status}. Open steps: {open}.",
        Key::ProtocolStepsAllClosed => {
            "Step {step}: {status}. No step is open: finish with protocol_finish|report (each \
             post-check and its result)."
        }
        Key::ProtocolStepFailed => {
            "Step {step} failed. The protocol can now only be closed with protocol_fail|reason \
             (which step, why, what state things are in)."
        }
        Key::ProtocolFinished => "Protocol \"{name}\" done, the report is recorded.",
        Key::ProtocolCancelled => "Protocol \"{name}\" cancelled: {reason}",
        Key::ProtocolFailed => "Protocol \"{name}\" closed as failed: {reason}",
        Key::ProtocolStatusHeader => "Protocol \"{name}\" ({run}, version {version}):",
        Key::ProtocolNoRun => "No protocol is running now.",
        Key::ProtocolUnknownTool => "the protocol toolset has no tool {tool}",
        Key::ProtocolReminder => {
            "[Protocol \"{name}\" is running. Open steps: {open}. Mark them with \
             protocol_step|number|done|how it was checked; close it with protocol_finish|report \
             or protocol_cancel|reason.]"
        }
        Key::ProtocolReminderClosed => {
            "[Protocol \"{name}\" is running: every step is closed, finish it with \
             protocol_finish|report.]"
        }
        Key::ProtocolReminderFailed => {
            "[Protocol \"{name}\" is running: step {step} failed, close it with \
             protocol_fail|reason.]"
        }
        Key::ProtocolFinishNudge => {
            "Protocol \"{name}\" is not closed although no step is open. Finish it now: \
             protocol_finish|report (each post-check and its result)."
        }
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

    /// Worked examples of the protocol for the prompt's head (a request, the call line, the
    /// tool's reply, a short answer), in this language.
    pub(crate) fn few_shot(self) -> &'static str {
        self.get(Key::FewShot)
    }

    /// The first lines of the core section: who the assistant is and the call protocol.
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
            &[
                ("name", name),
                ("core", &core.join(", ")),
                ("catalog", index),
            ],
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
        }
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

    /// The `{name}` placeholders of a template, sorted.
    fn placeholders(template: &str) -> Vec<&str> {
        let mut names: Vec<&str> = template
            .split('{')
            .skip(1)
            .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
            .collect();
        names.sort_unstable();
        names
    }

    #[test]
    fn both_tables_have_every_key_with_the_same_placeholders() {
        assert!(Key::ALL.len() > 40);
        for &key in Key::ALL {
            let (r, e) = (ru(key), en(key));
            assert!(!r.is_empty() && !e.is_empty(), "{key:?} is empty");
            assert_ne!(r, e, "{key:?} is not translated");
            assert_eq!(placeholders(r), placeholders(e), "{key:?}: {r:?} vs {e:?}");
            for name in placeholders(r) {
                assert!(
                    !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase()),
                    "{key:?}: odd placeholder {name:?}"
                );
            }
        }
    }

    #[test]
    fn every_placeholder_is_filled() {
        let avail = vec!["a".to_string()];
        for t in both() {
            let problems = [
                ArgProblem::Missing("q".into()),
                ArgProblem::Unknown("q".into()),
                ArgProblem::TooMany(3),
                ArgProblem::NotA("q".into(), "integer"),
                ArgProblem::NotOneOf("q".into(), avail.clone()),
                ArgProblem::Repeated("q".into()),
            ];
            let mut texts = vec![
                t.active_header(&avail),
                t.toolset_enabled("s", "r"),
                t.toolset_already_active("s"),
                t.substituted("s", "r", "x"),
                t.toolset_disabled("s"),
                t.toolset_not_active("s", &avail),
                t.unknown_toolset("s", &[]),
                t.toolset_name_needed(&avail),
                t.unknown_skill("n", &avail),
                t.skill_body("n", "b"),
                t.unknown_tool("n", &avail, "c"),
                t.unknown_tool_in_set("n", "s", &avail),
                t.no_executor("x"),
                t.tool_failed("x", "e"),
                t.tool_result_shortened("x|q", "first"),
                t.message_cut("kept"),
                t.message_too_long(900, 576),
                t.host_tool_timeout(5),
                t.host_tool_not_started("e"),
                t.host_tool_panicked("e"),
                t.host_tool_no_result("x"),
                t.host_tool_call_failed("x", "e"),
                t.note_saved(1),
                t.note_missing(2, 1),
                t.note_deleted(1, "n"),
                t.notes_unknown_tool("notes_x"),
                t.catalog_skill_created("n", "#1"),
                t.catalog_skill_updated("n", 2),
                t.catalog_skill_unchanged("n"),
                t.catalog_protocol_via_create("n"),
                t.catalog_protocol_via_update("n"),
                t.catalog_skill_proposed("n"),
                t.catalog_proposed("#1", "n", 3),
                t.catalog_proposed_replacing("#1", "n", "#2", 3),
                t.catalog_refused("r"),
                t.catalog_unknown_tool("skills_x"),
                t.catalog_index_line(false, "n", "d"),
                t.catalog_index_line(true, "n", "d"),
                t.proposal_accepted("#1", "n", "#2"),
                t.proposal_rejected("#1", "n", Some("r")),
                t.proposal_rejected("#1", "n", None),
                t.protocol_started("n", "#1", "1. a"),
                t.protocol_step_marked(1, "done", "2"),
                t.protocol_step_marked(1, "done", ""),
                t.protocol_step_failed(1),
                t.protocol_finished("n"),
                t.protocol_cancelled("n", "r"),
                t.protocol_failed("n", "r"),
                t.protocol_status_header("n", "#1", 2),
                t.protocol_no_run(),
                t.protocol_unknown_tool("protocol_x"),
                t.protocol_reminder("n", "2. b"),
                t.protocol_reminder_closed("n"),
                t.protocol_reminder_failed("n", 1),
                t.protocol_finish_nudge("n"),
            ];
            texts.extend(problems.iter().map(|p| t.bad_args("x", p, "x|q")));
            for text in texts {
                assert!(
                    !text.contains('{') && !text.contains('}'),
                    "{t:?}: {text:?}"
                );
            }
        }
    }

    #[test]
    fn fill_expands_each_placeholder_once() {
        assert_eq!(fill("a {x} b {x}", &[("x", "{x}")]), "a {x} b {x}");
        assert_eq!(fill("{y} {x", &[("x", "1")]), "{y} {x");
        assert_eq!(fill("{x}{x}", &[("x", "Ж")]), "ЖЖ");
    }

    #[test]
    fn host_replies_come_in_the_agent_language() {
        let [ru, en] = both();
        assert_eq!(ru.host_tool_timeout(50), "инструмент не ответил за 50 мс");
        assert_eq!(
            en.host_tool_timeout(50),
            "the tool did not answer within 50 ms"
        );
        assert_eq!(ru.note_saved(2), "Заметка 2 сохранена.");
        assert_eq!(en.note_deleted(1, "x"), "Note 1 deleted: x");
        assert_eq!(en.lang(), Lang::En);
    }
}
