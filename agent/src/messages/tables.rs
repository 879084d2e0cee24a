//! The message tables: one key per message (`Key`) and its text in Russian ([`ru`]) and
//! English ([`en`]), both exhaustive `match`es.

/// Declares the message keys and `Key::ALL` (every key, for the tests) in one list.
macro_rules! keys {
    ($($key:ident),* $(,)?) => {
        /// One message; each has a text in [`ru`] and in [`en`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(super) enum Key {
            $($key),*
        }

        impl Key {
            #[cfg(test)]
            pub(super) const ALL: &'static [Key] = &[$(Key::$key),*];
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
    ArgOutOfRange,
    RangeBetween,
    RangeAtLeast,
    RangeAtMost,
    ValueOutOfRange,
    AskForValue,
    AskForNamed,
    AskWhichOf,
    NotInList,
    FillDropped,
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
    // ask when unsure: the core tools' questions, the reply to a no
    AskTime,
    AskShowText,
    AskDeclined,
    // the reply after a skill read: what its toolset does and a request to say
    SkillSummary,
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
pub(super) fn ru(key: Key) -> &'static str {
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
        Key::UnknownTool => "Ошибка: инструмента {name} нет. Ядро: {core}.\nНаборы:\n{index}",
        Key::UnknownToolInSet => "Ошибка: инструмента {name} нет. В наборе {set}: {tools}.",
        Key::BadArgs => "Ошибка: аргументы {tool} неверны: {why}. Схема: {schema}",
        Key::ArgMissing => "нет аргумента {arg}",
        Key::ArgUnknown => "лишний аргумент {arg}",
        Key::ArgTooMany => "слишком много аргументов ({count})",
        Key::ArgNotA => "{arg} должен быть: {type}",
        Key::ArgNotOneOf => "{arg} должен быть одним из: {values}",
        Key::ArgRepeated => "аргумент {arg} дважды",
        Key::ArgOutOfRange => "аргумент {arg} = {value} вне диапазона: {range}",
        Key::RangeBetween => "от {min} до {max}",
        Key::RangeAtLeast => "не меньше {min}",
        Key::RangeAtMost => "не больше {max}",
        Key::ValueOutOfRange => "Так не получится: можно {range}.",
        Key::AskForValue => "Уточните, пожалуйста: {what}?",
        Key::AskForNamed => "Уточните, пожалуйста, {what}.",
        Key::AskWhichOf => "Какой именно: {values}?",
        Key::NotInList => "Такого нет в списке. Есть: {values}. Какой выбрать?",
        Key::FillDropped => "Хорошо, не буду.",
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
        Key::AskTime => "Сказать, который час?",
        Key::AskShowText => "Показать это на экране?",
        Key::AskDeclined => "Хорошо, не буду. Что сделать?",
        Key::SkillSummary => "Я умею {can}. Например, скажите: «{example}».",
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
pub(super) fn en(key: Key) -> &'static str {
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
        Key::UnknownTool => "Error: no tool {name}. Core: {core}.\nToolsets:\n{index}",
        Key::UnknownToolInSet => "Error: no tool {name}. Toolset {set} has: {tools}.",
        Key::BadArgs => "Error: invalid arguments for {tool}: {why}. Schema: {schema}",
        Key::ArgMissing => "missing argument {arg}",
        Key::ArgUnknown => "unknown argument {arg}",
        Key::ArgTooMany => "too many arguments ({count})",
        Key::ArgNotA => "{arg} must be {type}",
        Key::ArgNotOneOf => "{arg} must be one of: {values}",
        Key::ArgRepeated => "argument {arg} given twice",
        Key::ArgOutOfRange => "argument {arg} = {value} is out of range: {range}",
        Key::RangeBetween => "from {min} to {max}",
        Key::RangeAtLeast => "at least {min}",
        Key::RangeAtMost => "at most {max}",
        Key::ValueOutOfRange => "I can't do that: it can be {range}.",
        Key::AskForValue => "Could you tell me {what}?",
        Key::AskForNamed => "Could you tell me the {what}?",
        Key::AskWhichOf => "Which one: {values}?",
        Key::NotInList => "That isn't on the list. There's {values}. Which one?",
        Key::FillDropped => "Okay, I won't.",
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
        Key::AskTime => "Should I tell you the time?",
        Key::AskShowText => "Should I show that on the screen?",
        Key::AskDeclined => "Okay, I won't. What should I do?",
        Key::SkillSummary => "I can {can}. For example, say: \"{example}\".",
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
