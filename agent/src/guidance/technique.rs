//! The techniques of guidance, one named entry each, and the set of those switched on.

use std::fmt;
use std::str::FromStr;

/// One technique that helps a small model act right: each exists for one failure, is
/// switched on or off on its own ([`crate::Guidance::set`]) and measured by
/// `porfiry eval tools --variant without:<name>` (the figures: `docs/guidance.md`).
///
/// Six are the main switches ([`Technique::MAIN`]); the others refine one of them (or
/// the turn) and do nothing while what they refine is off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Technique {
    /// Route a turn's first action by the request's similarity to example requests (the
    /// model's own embeddings, [`crate::Model::embed`]): the reply is then constrained to the
    /// chosen call, the model filling in its arguments, or to plain text. The failure: a
    /// tiny model never writes a call line of its own (first action 0.25 without it on both
    /// shipped models, 0.80 Gemma / 0.84 SmolLM2 with it on the dev sets).
    Route,
    /// Compare embeddings after the examples' mean is taken off every vector (the
    /// request's too). The failure: a small model's embeddings share a large common
    /// direction that makes every pair of requests look alike.
    Centering,
    /// Add the share of word stems a request shares with an example to the embeddings'
    /// cosine. The failure: the same word in another form («заметку», «заметки») is far
    /// apart in a tiny model's embeddings (without it, routes right on Gemma's dev sets
    /// 79 → 74 of 88).
    StemOverlap,
    /// Weigh each shared stem by how telling it is among the examples (a stem every tool's
    /// examples have, «покажи», counts for little). The failure: common verbs pulling a
    /// request to the wrong tool (unweighted 70 → weighted 71 of 88, Gemma; 35 → 38 of 44,
    /// SmolLM2).
    StemWeights,
    /// Score a target by the mean of its best two examples instead of its nearest one.
    /// The failure: one lucky neighbour (one shared word with one example of the wrong
    /// tool) deciding the route (SmolLM2 held-out 31 → 36 of 38).
    TopTwo,
    /// A tool that needs an id (a required `id` or `…_id` argument, which only a tool's
    /// reply gives) is routable only once a tool of its set has replied in the session.
    /// The failure: a request naming a title routed to a call by id before any search.
    IdAfterReply,
    /// A routed `read_skill` / `enable_toolset` whose name the request says (the most
    /// stems shared with a skill's or set's name and description) is decided outright. The
    /// failure: the model naming a skill or set the request did not mean.
    NamedChoice,
    /// A routed call's one text argument is the text the request sets apart (after its
    /// first colon, else in quotes), decided outright. The failure: the model starting a
    /// text argument late (`show_text|on the screen`); Gemma 142 → 148 of 164 first actions.
    DelimitedText,
    /// A routed call's one integer argument is the number the request says, in digits, as
    /// a word («вторую» → 2), as a Russian number noun («убери двойку») or as the word a
    /// speech recognizer writes for one right after "note" or "number" ("delete note to"),
    /// decided outright. The failure: the model picking another number, or none.
    SpokenNumbers,
    /// The text arguments of a routed call the model writes are a tail of the turn's
    /// words (the model chooses where it starts). The failure: invented argument text.
    TailOfWords,
    /// The words a routed call's text argument is a tail of end before the words that close
    /// the request around it: short, common and closing words and the routed tool's frame
    /// (a stem among the last two words of at least two of its examples: "on my screen").
    /// The failure:
    /// the model starting the tail late, at the closing words (`show_text|on my screen`,
    /// `media_search|there` for "Which movies with Keanu Reeves are there?").
    FrameWords,
    /// A routed call's text argument starts at the first word that says what the request
    /// is about (not a preamble, politeness, common word or the routed tool's frame: a stem
    /// of the first two words of one of its examples, or of two of them). The failure: the
    /// model starting the tail at the last word ("right down that i need to pick up the dry
    /// cleaning on friday" → `notes_add|friday`, "look up the new dune movie" →
    /// `media_search|movie`) or at the first (`notes_add|Would you be so kind as to make a
    /// note …`).
    ContentStart,
    /// Routing compares the request from its first word that is no preamble, politeness or
    /// hedge ("ok so listen", "I was hoping you could", «слушай, короче», «будьте добры»).
    /// The failure: the lead words outweighing the request ("Could you save a note saying
    /// the garage code is 4417?" → out-of-scope, «Будьте добры, объясните, что можно делать с
    /// фильмами» → a greeting).
    LeadWords,
    /// A request that says a tool's action by a word the toolset gives for it (`said:` of
    /// the tool, by stem, not negated: «вычеркни вторую», "bin note three") is routed to
    /// that tool when it is the only one said. The failure: a verb no example uses losing to
    /// the examples' other words («Вычеркни вторую, я уже разобрался» → `show_text`,
    /// "ok the plumber came so you can bin note three" → `notes_add`).
    SaidAction,
    /// A question of what is or was (a question word opening it or a question mark ending
    /// it; no "could you", no text set apart) routed to a tool that takes a text to keep goes
    /// to its set's tool that lists (the one that needs no argument). The failure: a question
    /// about the notes phrased with a writing verb taken for a note to add ("What did I
    /// write down earlier?" → `notes_add|did I write down earlier`).
    QuestionLists,
    /// A request that goes on with the previous turn's ("and also buy cat food" after a note
    /// was added, «и сантехника тоже убери» after one was deleted: it opens with "and",
    /// "plus", «и ещё» or says "too", "as well", «тоже»), asks no question, and is routed to
    /// no tool (a request no tool serves, an acknowledgement, a plain reply) is for the tool
    /// the previous turn called, when it is still offered. The failure: the words left after
    /// the action was dropped ("buy", "post") taken for a request no tool serves.
    Continuation,
    /// A request (no question) that opens with words only one tool's examples open with
    /// (its first word's stem, and the next one's when the first is shared: "make a note …",
    /// "note that …", "plus …"), routed to another tool, is for that tool. The failure: a
    /// request's content outweighing its opening words ("note to self: return the library
    /// books" → `notes_delete`; "note that I already watched Inception" → `media_search`). A route to no tool, a plain reply or an intent is
    /// left as it is: the opening never makes a call of a request that was none.
    OpeningWords,
    /// Every argument of a routed set tool takes its candidates from what the user said
    /// before the model writes anything (`guidance/fill.rs`): numbers said in digits or
    /// words (compounds, halves, a duration converted into the argument's `unit`), an
    /// enum's value by its word or a `said:` word, a yes or no, an entry of a host list
    /// (`values_from`) matched across inflections, a text as one run of the request's
    /// words; the grammar allows only those, and a call whose every argument has one is
    /// decided outright. A required argument nobody said is asked for (`ask_for`), a value
    /// outside its `min`/`max` is answered with the range. The failure: the model writing
    /// the numbers of a host's set ("time 8 minutes" → `timer_start|1`, «на двадцать два»
    /// → `home_heating|2`, a level nobody said).
    SaidArgs,
    /// What a declared set does is no request "this host cannot do": an out-of-scope example
    /// a set's examples cover (two shared stems, one of them the set's own) is left out of
    /// routing, and closing a set is no route for a request that says a value an active
    /// set's tool takes and names no set. The failure: the built-in out-of-scope examples
    /// ("set a timer for ten minutes", "turn the music down") shadowing a host's set that
    /// does exactly that; "now turn it off" closing the home set instead of the light.
    SetsOverScope,
    /// A request that goes on in the set the previous turn acted in — it says a value one of
    /// that set's tools takes, a `said:` word of one of its tools, goes on ("and …", "… too")
    /// or points back — and names no other set's subject is routed among that set's tools,
    /// the previous call's tool first when it takes what was said. The failure: an elliptic
    /// follow-up ("make it 20" after the volume, «и ещё йогурт» after the shopping list, "skip
    /// this one" after a song) routed to whichever built-in tool its few words came nearest
    /// (`notes_add|20`, a film search).
    StayInSet,
    /// Within the set a request is routed to, a request whose opening word only one tool's
    /// declaration says (its `description`, its `ask` question) — and no
    /// example of the routed tool — is for that tool. The failure: a host's few examples
    /// not having the user's verb, so the nearest examples of a sibling decide («Поставь
    /// таймер» → cancelling a timer, "read the shopping list" → adding to it).
    DeclaredWords,
    /// A question of how things stand ("did I leave the bathroom light on?", «какая
    /// температура на отоплении?») goes to the set's reader (its one tool without required
    /// arguments whose examples ask), not to a tool that sets the value it asks about, nor
    /// to a plain reply when it names the set. The failure: the light switched on by a
    /// question, or the model guessing the state.
    StateQuestions,
    /// A question of advice, cause, price or of who ("is it better to cook pasta for ten
    /// minutes or twelve?", "how much does milk cost?", «кто поёт «Группу крови»?») routed to
    /// a set's tool whose examples do not ask is no request of it: the model replies. The
    /// failure: a timer started, a song played or an item added by a question.
    AdviceQuestions,
    /// A remark that asks for nothing — a feeling or a judgement about a set's subject, a
    /// story of the past ("Calendars make me anxious", «Календари такие скучные», «Мама
    /// вчера звонила насчёт отпуска») — is talked about, not sent to the set's tool it came
    /// nearest. The failure: the calendar listed, a unit asked for, a message sent.
    Remarks,
    /// A number said in groups (`8 800 555 35 35`) is one word of that tail. The failure:
    /// a text argument starting inside the number (`show_text|35 35`); Gemma 148 → 149 of 164.
    NumberGroups,
    /// One action per routed turn: once the routed call is answered, the reply is plain
    /// text. The failure: a tiny model calling again and again, or a tool the user did
    /// not ask for.
    OneAction,
    /// The answer after the routed call's reply is one sentence made of that reply's
    /// words. The failure: a tiny model inventing what the tool said ("The time is
    /// 12:12:53.").
    ReplyWords,
    /// In that answer a tool's list numbers (`1.`, `2)`) become commas between its items.
    /// The failure: every Gemma answer after a list was `1.`; whole turns Gemma 6 → 16 of 16.
    ListAsItems,
    /// In the words of a turn, words that open a parenthesis, and in a tool's reply words
    /// with a `=` (`id=tt0146316`), are left out. The failure: machine asides read aloud.
    DropAsides,
    /// Stop a reply at a line that opens a new turn of an invented dialogue, at a blank
    /// line, and a routed plain reply at its first line break. The failure: a base model
    /// writing the rest of the dialogue (mean reply Gemma 254 → 167 tokens, with the
    /// sentence cap).
    TurnEndStops,
    /// A routed plain reply of a request of three words or more stops where it would
    /// repeat the request's first 120 characters. The failure: the base model echoing the
    /// request (Gemma 14 → 0 echoes in 46 plain replies).
    EchoStop,
    /// A routed plain reply stops at the sentences of the prompt's opening. The failure:
    /// the base model reciting its prompt (Gemma 11 → 9 recitals).
    IntroStop,
    /// The most sentences of a reply ([`crate::Guidance::max_sentences`]; spoken replies
    /// are short). The failure: replies running to the token limit (SmolLM2 193 → 48
    /// tokens, with the turn-end stops).
    SentenceCap,
    /// A call may name only the calls the session's state offers, with arguments in their
    /// declared shapes ([`crate::CallSpec`]). The failure: malformed calls and calls of
    /// tools that cannot run (0 malformed in every guided run).
    ConstrainCalls,
    /// After a toolset switch that changed nothing, the next request offers no switch.
    /// The failure: an identical request producing the identical switch until the turn's
    /// model calls run out.
    NoRepeatSwitch,
    /// Worked examples of the call line in the prompt's static head (default off: +1 Gemma
    /// case of 88 for 148 more head tokens).
    FewShot,
    /// Toolsets without an executor on this host are left out of the prompt, the calls and
    /// routing, with the skills bound to them. The failure: calls of tools that can only
    /// answer "no executor on this host".
    HideUnexecutable,
    /// A reply that comes out empty (the stops cut an echo or a recital before a word of
    /// it) says the no-reply phrase of the messages ([`crate::Texts`]). The failure: silence.
    NoReplyPhrase,
    /// Greetings, thanks, farewells, how-are-you, who-are-you, what-can-you-do,
    /// acknowledgements and requests no tool serves are routing targets of their own
    /// ([`crate::Intent`]), answered from the message texts in the user's language (what
    /// the assistant can do: from the host's own tools); a message that sets a text apart
    /// (after a colon, in quotes) is none of them. The failure: a base model answering
    /// "Привет!" with prompt debris, English, or a refusal.
    TalkIntents,
    /// A generated plain reply that the judge's debris and language rules refuse
    /// ([`crate::judge_reply`]) is not given to the user: what was held back is replaced by
    /// the no-reply phrase, and the history keeps what the user was given, never the debris.
    /// The failure: one bad reply copied into every later turn.
    ReplyGate,
    /// A request that asks one simple arithmetic question (two numbers, in digits or words,
    /// and one operation, nothing else but question words) is answered with the computed
    /// result, without a model call. The failure: «Сколько будет семь умножить на восемь?»
    /// routed to the clock, or answered with a guess.
    Arithmetic,
    /// A routed call's id or number argument that the request points at («включи первый»,
    /// «удали её», "play the second one") is filled with that item of the session's latest
    /// tool list (or the item the conversation is about), decided outright; and a request
    /// that points at an item is not routed to the tool that listed it (it acts on the item,
    /// it does not search again). An id the request says aloud ("what's tt0116996 about")
    /// routes among the tools that take an id and is their argument. The failure:
    /// follow-ups going to search, and ids a tiny model cannot copy from three messages back.
    References,
    /// A routed call's argument of a few values (an enum) is the value the request says (a
    /// word with the value's stem: "pause that" → `pause`; or a word the toolset says for it,
    /// `said:` in its YAML: «Останови» → `stop`), decided outright. The failure: the model
    /// leaving an optional action out ("stop it" → `media_play|tt0133093`).
    SaidValue,
    /// A question of the day or date tomorrow, yesterday (and the day after or before) that
    /// asks nothing else is answered from the clock, without a model call. The failure:
    /// «А завтра какой день?» answered with today's time by the clock tool, or a guess.
    DayQuestions,
    /// A question of how many of one unit of time make another («Сколько минут в часе?»,
    /// "How many days are there in a week?"), with a whole answer and nothing else asked, is
    /// answered with the computed count, without a model call. The failure: such questions
    /// routed to the clock tool, or answered with a guess or a refusal.
    UnitQuestions,
    /// A question no tool or conversational intent serves («Какая столица Франции?»,
    /// "Who painted the Mona Lisa?") is asked in a question-and-answer transcript of its own
    /// (a persona line, worked exchanges, the question; the answer's label as the reply's
    /// prefix) instead of the chat prompt, and the answer is given only when the judge
    /// accepts it. The failure: a base model that never saw chat turns answering a question
    /// with the prompt's words, an echo, another language or the refusal.
    AnswerTranscript,
    /// A request routed to a tool only narrowly (the best route ahead of the next by less
    /// than [`crate::Guidance::ask_margin`]) is not acted on: the assistant asks one short
    /// question naming the action (the tool's `ask:` phrase: «Записать это в заметки?»), and
    /// a yes in the next message runs it for the request asked about; a no is acknowledged;
    /// anything else is a new request. The failure: a near tie between two routes decided
    /// by chance — a false call, or the wrong tool.
    AskWhenUnsure,
    /// A set with `route_words:` in its YAML (the catalog's `skills` and `protocol`) is
    /// routed to only when the request says one of them («скил», «протокол», "checklist").
    /// The failure: such a set's examples pulling requests about anything else
    /// («Сделай заметку: …» → `skills_create`, "Start The Matrix" → `protocol_start`).
    RouteWords,
    /// A request that asks how something works or is used («Как у тебя устроены
    /// заметки?», "read up on how you handle films"), or names a skill or instructions, and
    /// whose words name a skill's subject (its name, description, or its toolset's), is
    /// routed to `read_skill`; the skill is the one it names (its toolset's spoken phrase
    /// counts, so "films" names `media`). The failure: the subject's words pulled such a
    /// question to the subject's tools ("how do notes work" → `notes_list`, "Read the skill
    /// about notes" → `notes_list`).
    SkillQuestions,
    /// The reply after a routed skill read is decided from the skill's toolset: what the
    /// assistant does with it (its `spoken:` phrase) and one request to say, its first
    /// example, in the user's language («Я умею записывать, показывать и удалять заметки.
    /// Например, скажите: «Запиши: завтра к девяти в офис».»). A skill without a toolset
    /// that says so leaves the reply the model's. The failure: a base model answering "how
    /// do notes work" after reading the notes skill with the refusal phrase.
    SkillSummary,
    /// A conversational intent takes a request only when its route wins by at least
    /// [`crate::Guidance::intent_margin`] over the next target (the best tool, plain reply
    /// or other intent); else the request goes on as a question or a statement (a plain
    /// reply). The failure: the intents are nearest-neighbour classes with no "none of
    /// these" — "It's my birthday!" → "Goodbye!", «Мне грустно» → «Пожалуйста!».
    IntentMargin,
    /// Calendar facts are computed from the clock ([`crate::Clock`]), never guessed: the days
    /// of a month (a leap February from the clock's year) or of a year, the days until a
    /// date or a holiday, the date and weekday of a holiday or a date, the month before or
    /// after another. The failure: «Сколько дней в феврале?» answered with the current
    /// time, "What day is Christmas?" with a guess.
    CalendarQuestions,
    /// A generated plain reply of a turn that called no tool, held back whole by the reply
    /// gate or empty, becomes an honest decline from the message texts that names what the
    /// assistant can do («Этого я не знаю. Я могу …», "I don't know that. I can …"),
    /// never the catch-all refusal. The failure: a question no tool serves answered with
    /// the refusal or nothing where an answer was due.
    HonestDecline,
    /// Under [`Technique::HonestDecline`], a reply the judge accepts is still declined
    /// honestly when the model was unsure of it: the mean log-probability of the tokens it
    /// chose ([`crate::Confidence::mean_logprob`], from the model's own logits) is below
    /// [`crate::Guidance::min_confidence`]. A model that reports no confidence is never
    /// doubted. The failure: fluent, well-formed replies that are wrong or beside the point
    /// ("The square root of 144 is 14.", "Cats." to "Cats or dogs?", «Яйцо — яйцо, которое
    /// можно варить.») — words the judge's rules cannot tell from an answer.
    ConfidenceGate,
}

impl Technique {
    /// Every technique, in the order of the documentation.
    pub const ALL: [Technique; 54] = [
        Technique::Route,
        Technique::Centering,
        Technique::StemOverlap,
        Technique::StemWeights,
        Technique::TopTwo,
        Technique::IdAfterReply,
        Technique::NamedChoice,
        Technique::DelimitedText,
        Technique::SpokenNumbers,
        Technique::TailOfWords,
        Technique::NumberGroups,
        Technique::OneAction,
        Technique::ReplyWords,
        Technique::ListAsItems,
        Technique::DropAsides,
        Technique::TurnEndStops,
        Technique::EchoStop,
        Technique::IntroStop,
        Technique::SentenceCap,
        Technique::ConstrainCalls,
        Technique::NoRepeatSwitch,
        Technique::FewShot,
        Technique::HideUnexecutable,
        Technique::NoReplyPhrase,
        Technique::TalkIntents,
        Technique::ReplyGate,
        Technique::Arithmetic,
        Technique::References,
        Technique::SaidValue,
        Technique::DayQuestions,
        Technique::UnitQuestions,
        Technique::AnswerTranscript,
        Technique::AskWhenUnsure,
        Technique::RouteWords,
        Technique::SkillQuestions,
        Technique::SkillSummary,
        Technique::FrameWords,
        Technique::ContentStart,
        Technique::LeadWords,
        Technique::SaidAction,
        Technique::QuestionLists,
        Technique::Continuation,
        Technique::OpeningWords,
        Technique::SaidArgs,
        Technique::SetsOverScope,
        Technique::StayInSet,
        Technique::DeclaredWords,
        Technique::StateQuestions,
        Technique::AdviceQuestions,
        Technique::Remarks,
        Technique::IntentMargin,
        Technique::CalendarQuestions,
        Technique::HonestDecline,
        Technique::ConfidenceGate,
    ];

    /// The main switches: [`crate::Guidance::none`] has them all off.
    pub const MAIN: [Technique; 6] = [
        Technique::Route,
        Technique::ConstrainCalls,
        Technique::FewShot,
        Technique::SentenceCap,
        Technique::TurnEndStops,
        Technique::HideUnexecutable,
    ];

    /// The name in `--variant without:<name>` and in the docs (kebab case).
    pub fn name(self) -> &'static str {
        match self {
            Technique::Route => "route",
            Technique::Centering => "centering",
            Technique::StemOverlap => "stem-overlap",
            Technique::StemWeights => "stem-weights",
            Technique::TopTwo => "top-two",
            Technique::IdAfterReply => "id-after-reply",
            Technique::NamedChoice => "named-choice",
            Technique::DelimitedText => "delimited-text",
            Technique::SpokenNumbers => "spoken-numbers",
            Technique::TailOfWords => "tail-of-words",
            Technique::NumberGroups => "number-groups",
            Technique::OneAction => "one-action",
            Technique::ReplyWords => "reply-words",
            Technique::ListAsItems => "list-as-items",
            Technique::DropAsides => "drop-asides",
            Technique::TurnEndStops => "turn-end-stops",
            Technique::EchoStop => "echo-stop",
            Technique::IntroStop => "intro-stop",
            Technique::SentenceCap => "sentence-cap",
            Technique::ConstrainCalls => "constrain-calls",
            Technique::NoRepeatSwitch => "no-repeat-switch",
            Technique::FewShot => "few-shot",
            Technique::HideUnexecutable => "hide-unexecutable",
            Technique::NoReplyPhrase => "no-reply-phrase",
            Technique::TalkIntents => "talk-intents",
            Technique::ReplyGate => "reply-gate",
            Technique::Arithmetic => "arithmetic",
            Technique::References => "references",
            Technique::SaidValue => "said-value",
            Technique::DayQuestions => "day-questions",
            Technique::UnitQuestions => "unit-questions",
            Technique::AnswerTranscript => "answer-transcript",
            Technique::AskWhenUnsure => "ask-when-unsure",
            Technique::RouteWords => "route-words",
            Technique::SkillQuestions => "skill-questions",
            Technique::SkillSummary => "skill-summary",
            Technique::FrameWords => "frame-words",
            Technique::ContentStart => "content-start",
            Technique::LeadWords => "lead-words",
            Technique::SaidAction => "said-action",
            Technique::QuestionLists => "question-lists",
            Technique::Continuation => "continuation",
            Technique::OpeningWords => "opening-words",
            Technique::SaidArgs => "said-args",
            Technique::SetsOverScope => "sets-over-scope",
            Technique::StayInSet => "stay-in-set",
            Technique::DeclaredWords => "declared-words",
            Technique::StateQuestions => "state-questions",
            Technique::AdviceQuestions => "advice-questions",
            Technique::Remarks => "remarks",
            Technique::IntentMargin => "intent-margin",
            Technique::CalendarQuestions => "calendar-questions",
            Technique::HonestDecline => "honest-decline",
            Technique::ConfidenceGate => "confidence-gate",
        }
    }

    /// The main technique this one refines (it does nothing while that one is off);
    /// `None` for a main technique and for the turn's own ([`Technique::NoReplyPhrase`],
    /// [`Technique::ReplyGate`], [`Technique::Arithmetic`], …, and
    /// [`Technique::ConfidenceGate`], which refines the turn's own honest decline).
    pub fn refines(self) -> Option<Technique> {
        use Technique::*;
        match self {
            Centering | StemOverlap | StemWeights | TopTwo | IdAfterReply | NamedChoice
            | DelimitedText | SpokenNumbers | TailOfWords | NumberGroups | OneAction
            | ReplyWords | ListAsItems | DropAsides | TalkIntents | References | SaidValue
            | AnswerTranscript | AskWhenUnsure | RouteWords | SkillQuestions | SkillSummary
            | FrameWords | ContentStart | LeadWords | SaidAction | QuestionLists | Continuation
            | OpeningWords | SaidArgs | SetsOverScope | StayInSet | DeclaredWords
            | StateQuestions | AdviceQuestions | Remarks | IntentMargin => Some(Route),
            EchoStop | IntroStop => Some(TurnEndStops),
            NoRepeatSwitch => Some(ConstrainCalls),
            Route | ConstrainCalls | FewShot | SentenceCap | TurnEndStops | HideUnexecutable
            | NoReplyPhrase | ReplyGate | Arithmetic | DayQuestions | UnitQuestions
            | CalendarQuestions | HonestDecline | ConfidenceGate => None,
        }
    }

    /// Whether the technique changes the prompt (what it shows), not only what a request
    /// may produce: the worked examples and the hidden toolsets. Every other technique
    /// leaves the system text and the messages of a request as they are.
    pub fn shapes_prompt(self) -> bool {
        matches!(self, Technique::FewShot | Technique::HideUnexecutable)
    }

    /// Whether the technique decides the reply the user gets in place of the model's: a
    /// conversational message answered from the message texts, a reply the gate held
    /// back, an arithmetic question computed, a question asked before acting. The history
    /// then holds what the user got. Every other technique leaves the turn's reply the
    /// model's.
    pub fn decides_reply(self) -> bool {
        matches!(
            self,
            Technique::TalkIntents
                | Technique::ReplyGate
                | Technique::Arithmetic
                | Technique::DayQuestions
                | Technique::UnitQuestions
                | Technique::AnswerTranscript
                | Technique::AskWhenUnsure
                | Technique::SkillSummary
                | Technique::CalendarQuestions
                | Technique::HonestDecline
                | Technique::ConfidenceGate
        )
    }

    fn bit(self) -> u64 {
        1 << (self as u64)
    }
}

impl fmt::Display for Technique {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no technique's ([`Technique::from_str`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown guidance technique {0:?}")]
pub struct UnknownTechnique(pub String);

impl FromStr for Technique {
    type Err = UnknownTechnique;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim();
        Technique::ALL
            .into_iter()
            .find(|t| t.name() == name)
            .ok_or_else(|| UnknownTechnique(name.to_string()))
    }
}

/// A set of techniques (a bit per technique).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Techniques(u64);

impl Techniques {
    /// Every technique.
    pub(crate) fn all() -> Self {
        Techniques(Technique::ALL.iter().fold(0, |bits, t| bits | t.bit()))
    }

    pub(crate) fn contains(self, t: Technique) -> bool {
        self.0 & t.bit() != 0
    }

    pub(crate) fn set(&mut self, t: Technique, on: bool) {
        if on {
            self.0 |= t.bit();
        } else {
            self.0 &= !t.bit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_parse_back() {
        for (i, t) in Technique::ALL.iter().enumerate() {
            assert_eq!(t.name().parse::<Technique>(), Ok(*t));
            assert!(Technique::ALL[..i].iter().all(|u| u.name() != t.name()));
            assert!(Technique::ALL[..i].iter().all(|u| u != t));
        }
        assert!("magic".parse::<Technique>().is_err());
    }

    #[test]
    fn a_refinement_refines_a_main_technique() {
        for t in Technique::ALL {
            match t.refines() {
                Some(main) => assert!(Technique::MAIN.contains(&main), "{t}"),
                None => assert!(
                    Technique::MAIN.contains(&t)
                        || matches!(
                            t,
                            Technique::NoReplyPhrase
                                | Technique::ReplyGate
                                | Technique::Arithmetic
                                | Technique::DayQuestions
                                | Technique::UnitQuestions
                                | Technique::CalendarQuestions
                                | Technique::HonestDecline
                                | Technique::ConfidenceGate
                        ),
                    "{t}"
                ),
            }
        }
    }

    #[test]
    fn a_set_holds_what_was_put_in() {
        let mut s = Techniques::default();
        assert!(!s.contains(Technique::NoReplyPhrase));
        s.set(Technique::NoReplyPhrase, true);
        assert!(s.contains(Technique::NoReplyPhrase) && !s.contains(Technique::Route));
        assert!(Technique::ALL
            .into_iter()
            .all(|t| Techniques::all().contains(t)));
        s.set(Technique::NoReplyPhrase, false);
        assert_eq!(s, Techniques::default());
    }
}
