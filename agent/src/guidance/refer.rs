//! References to what a tool said: the items of a session's latest list (`1. Матрица (1999)
//! id=tt0133093`), the item the conversation is about, and the words that point at one
//! («включи первый», «удали её», "play the second one", "delete the last one").
//!
//! A tiny model cannot copy `tt0133093` from three messages back; the runtime can. The
//! items are read from the history's tool replies (nothing is stored beside the history),
//! and a pointer in the user's words is resolved to one of them
//! ([`crate::Technique::References`]).

use super::words::{lower_words, spoken_number, stems, EN_ORDINALS, RU_ORDINALS};
use crate::messages::Lang;
use crate::model::{Message, Role};

/// Whether an argument named `name` takes an id (`id`, `…_id`): a value only a tool's reply
/// gives.
pub(crate) fn is_id_arg(name: &str) -> bool {
    name == "id" || name.ends_with("_id")
}

/// One item a request can point at: a numbered line of a tool's list, or the one thing a
/// tool's reply names (`Заметка 3 сохранена.`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item {
    /// The item's own number: its list number, or the one number of the reply.
    pub(crate) number: Option<i64>,
    /// Its id: the value of an `id=` (or `…_id=`) word of its line.
    pub(crate) id: Option<String>,
    /// The stems of its line's words but the id ([`stems`]): what a request names it by
    /// ("the one about the card").
    pub(crate) stems: Vec<String>,
    /// The year its line gives (`Матрица (1999)`): what "the older one" compares.
    pub(crate) year: Option<i32>,
}

/// What a request of a session can point at, for the tools of one set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Referents {
    /// The items of the latest list, in their order.
    pub(crate) items: Vec<Item>,
    /// The tool whose reply the list is.
    pub(crate) list_tool: Option<String>,
    /// The history index of that reply.
    pub(crate) list_at: usize,
    /// The item the conversation is about since then: the last one a call named (by its
    /// id) or a reply named (by its one number).
    pub(crate) focus: Option<Item>,
}

/// What the user's words point at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pointer {
    /// The n-th item (1-based): «второй», "the second one".
    Nth(usize),
    /// The last item: «последнюю», "the last one".
    Last,
    /// The item the conversation is about: «его», «её», "it", "that one".
    This,
    /// The item of the earliest year: "the older one", "the original", «постарше».
    Oldest,
    /// The item of the latest year: "the newer one", "the sequel", «поновее».
    Newest,
}

/// Words that point at the earliest item of a list by its year.
const OLDER_WORDS: &[&str] = &[
    "older",
    "oldest",
    "earlier",
    "earliest",
    "original",
    "постарше",
    "старее",
    "старше",
    "пораньше",
    "оригинал",
    "оригинальный",
    "оригинальную",
    "оригинальная",
    "оригинальное",
];

/// Words that point at the latest item of a list by its year.
const NEWER_WORDS: &[&str] = &[
    "newer",
    "newest",
    "sequel",
    "поновее",
    "новее",
    "посвежее",
    "свежее",
    "продолжение",
    "сиквел",
];

/// The endings a Russian ordinal takes after its stem (the adjective's: «вторник» or
/// «пятница» is no ordinal). English ordinals are whole words.
const RU_ENDINGS: &[&str] = &[
    "ый", "ой", "ий", "ая", "яя", "ую", "юю", "ое", "ее", "ого", "его", "ому", "ему", "ые", "ие",
    "ых", "их", "ей", "ья", "ью", "ье", "ьего", "ьей", "ьему", "ьи",
];

/// Words that point at the item the conversation is about.
const THIS_WORDS: &[&str] = &[
    "его",
    "её",
    "ее",
    "он",
    "она",
    "оно",
    "него",
    "неё",
    "нее",
    "этот",
    "эту",
    "этого",
    "этой",
    "этим",
    "тот",
    "ту",
    "того",
    "it",
    "them",
];

/// Words after which a number is a position in a list: "play number two", «включи номер
/// три», "option 2".
const POSITION_WORDS: &[&str] = &[
    "number",
    "item",
    "option",
    "entry",
    "номер",
    "пункт",
    "вариант",
];

/// The ordinal `word` is (either language), as a 1-based position or -1 for the last.
fn ordinal(word: &str) -> Option<i64> {
    let w = word.to_lowercase();
    let ru = RU_ORDINALS.iter().find_map(|(stem, n)| {
        let rest = w.strip_prefix(stem)?;
        RU_ENDINGS.contains(&rest).then_some(*n)
    });
    ru.or_else(|| EN_ORDINALS.iter().find(|(s, _)| w == *s).map(|(_, n)| *n))
}

/// What `request` points at: an ordinal word first («второй», "last"), then a number after a
/// word that numbers a position ([`POSITION_WORDS`]: "number two"), else a word for the
/// item the conversation is about («его», "it", "that one"); `None` when it points at
/// nothing.
pub(crate) fn pointer(request: &str) -> Option<Pointer> {
    let words = lower_words(request);
    // An ordinal before «года» is a year's («девяносто третьего года»), no position.
    let year_words = ["год", "года", "году"];
    let ordinal_said = words.iter().enumerate().find_map(|(i, w)| {
        let year = words
            .get(i + 1)
            .is_some_and(|n| year_words.contains(&n.as_str()));
        if year {
            None
        } else {
            ordinal(w)
        }
    });
    if let Some(n) = ordinal_said {
        return Some(match usize::try_from(n) {
            Ok(n) => Pointer::Nth(n),
            Err(_) => Pointer::Last,
        });
    }
    let numbered = words.windows(2).find_map(|pair| {
        let [noun, n] = pair else { return None };
        if !POSITION_WORDS.contains(&noun.as_str()) {
            return None;
        }
        let n = n
            .parse::<i64>()
            .ok()
            .or_else(|| spoken_number(Lang::En, n))
            .or_else(|| spoken_number(Lang::Ru, n))?;
        usize::try_from(n).ok().filter(|n| *n > 0)
    });
    if let Some(n) = numbered {
        return Some(Pointer::Nth(n));
    }
    if words.iter().any(|w| OLDER_WORDS.contains(&w.as_str())) {
        return Some(Pointer::Oldest);
    }
    if words.iter().any(|w| NEWER_WORDS.contains(&w.as_str())) {
        return Some(Pointer::Newest);
    }
    // "that", "this" and «это» point when nothing follows them ("delete that", «удали это»)
    // or "one" does; else they start a clause ("note that the car is on level three", «это
    // важно»).
    let this = words.iter().enumerate().any(|(i, w)| {
        points_at_this(&words, i, false)
            || (i + 1 == words.len() && matches!(w.as_str(), "that" | "this" | "это"))
    });
    this.then_some(Pointer::This)
}

/// Whether `request` points at the item the conversation is about by a word that points at
/// nothing else: a pronoun of [`THIS_WORDS`] but "it" and "them" ("what time is it" points at
/// nothing), or "that one", "this one".
pub(crate) fn points_surely(request: &str) -> bool {
    let words = lower_words(request);
    (0..words.len()).any(|i| points_at_this(&words, i, true))
}

/// Whether `words[i]` points at the item the conversation is about: a word of
/// [`THIS_WORDS`] (with `surely`, not "it" or "them"), or "one" after "that" or "this".
fn points_at_this(words: &[String], i: usize, surely: bool) -> bool {
    let w = words[i].as_str();
    (THIS_WORDS.contains(&w) && !(surely && matches!(w, "it" | "them")))
        || (w == "one" && i > 0 && matches!(words[i - 1].as_str(), "that" | "this"))
}

/// The id a request says aloud (`tt3659388` in "tell me more about tt3659388"): a word of
/// ASCII letters and digits with at least one letter and at least four digits — the shape of
/// the ids a tool's reply gives (`id=tt0133093`), which no word of speech, number or
/// date has. `None` when it says none or several.
pub(crate) fn said_id(request: &str) -> Option<&str> {
    let mut ids = request
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .map(|w| w.trim_matches(['-', '_']))
        .filter(|w| {
            let digits = w.chars().filter(char::is_ascii_digit).count();
            let letters = w.chars().filter(char::is_ascii_alphabetic).count();
            digits >= 4 && letters >= 1
        });
    let id = ids.next()?;
    ids.next().is_none().then_some(id)
}

/// The numbered lines of a tool's reply as items (`1. …`, `2) …`); empty when it has none.
fn list_items(reply: &str) -> Vec<Item> {
    reply
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let digits = line.chars().take_while(char::is_ascii_digit).count();
            if digits == 0 || digits > 3 {
                return None;
            }
            let rest = &line[digits..];
            let rest = rest.strip_prefix('.').or_else(|| rest.strip_prefix(')'))?;
            if !rest.starts_with(char::is_whitespace) || rest.trim().is_empty() {
                return None;
            }
            let id_word = |w: &str| {
                let (key, value) = w.split_once('=')?;
                let key = key.to_lowercase();
                let value = value.trim_end_matches([',', ';', '.', ')']);
                (is_id_arg(&key) && !value.is_empty()).then(|| value.to_owned())
            };
            let id = rest.split_whitespace().find_map(id_word);
            let text: Vec<&str> = rest
                .split_whitespace()
                .filter(|w| !w.contains('='))
                .collect();
            let year = text.iter().find_map(|w| {
                let w = w.trim_matches(|c: char| !c.is_ascii_digit());
                let year: i32 = w.parse().ok().filter(|_| w.len() == 4)?;
                (1870..=2100).contains(&year).then_some(year)
            });
            Some(Item {
                number: line[..digits].parse().ok(),
                id,
                stems: stems(&text.join(" ")),
                year,
            })
        })
        .collect()
}

/// The one whole number a reply without a list names (`Заметка 3 сохранена.`); `None` when
/// it names none or several.
fn one_number(reply: &str) -> Option<i64> {
    let mut numbers = reply
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty());
    let n = numbers.next()?.parse().ok()?;
    numbers.next().is_none().then_some(n)
}

/// What the tools whose names start with `prefix` (a set's `media_`; `""`: every tool)
/// left to point at in `history`: the items of the latest list, and the focus — the last
/// item a later call named by its id, or a later reply named by its one number.
pub(crate) fn referents(history: &[Message], prefix: &str) -> Referents {
    let mut out = Referents::default();
    for (at, m) in history.iter().enumerate() {
        match m.role {
            Role::Tool => {
                let Some(name) = m.name.as_deref().filter(|n| n.starts_with(prefix)) else {
                    continue;
                };
                let items = list_items(&m.content);
                if !items.is_empty() {
                    out.items = items;
                    out.list_tool = Some(name.to_owned());
                    out.list_at = at;
                    out.focus = None;
                } else if let Some(number) = one_number(&m.content) {
                    out.focus = Some(
                        out.items
                            .iter()
                            .find(|i| i.number == Some(number))
                            .cloned()
                            .unwrap_or(Item {
                                number: Some(number),
                                id: None,
                                stems: Vec::new(),
                                year: None,
                            }),
                    );
                }
            }
            Role::Assistant => {
                let named = out.items.iter().find(|i| {
                    i.id.as_deref().is_some_and(|id| {
                        m.content
                            .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '-')
                            .any(|w| w == id)
                    })
                });
                if let Some(item) = named {
                    out.focus = Some(item.clone());
                }
            }
            Role::User => {}
        }
    }
    out
}

/// Whether two stems ([`stems`]) are of one word in another form: equal, or sharing their
/// first four letters («врачу», «врача»; "card" is no "car").
fn same_word(a: &str, b: &str) -> bool {
    let four = |s: &str| s.chars().count() >= 4;
    a == b || (four(a) && four(b) && a.chars().take(4).eq(b.chars().take(4)))
}

impl Referents {
    /// The item `pointer` points at: the n-th or last of the list, or the focus (else the
    /// list's first item: "play it" right after a search).
    pub(crate) fn resolve(&self, pointer: Pointer) -> Option<&Item> {
        match pointer {
            Pointer::Nth(n) => self.items.get(n.checked_sub(1)?),
            Pointer::Last => self.items.last(),
            Pointer::This => self.focus.as_ref().or(self.items.first()),
            Pointer::Oldest => self.by_year(false),
            Pointer::Newest => self.by_year(true),
        }
    }

    /// The item of the list of the latest year (`newest`) or of the earliest; `None` unless
    /// two items give different years (no year tells "the older one" then).
    fn by_year(&self, newest: bool) -> Option<&Item> {
        let dated = self.items.iter().filter_map(|i| Some((i.year?, i)));
        let (min, max) = (
            dated.clone().min_by_key(|(y, _)| *y)?,
            dated.max_by_key(|(y, _)| *y)?,
        );
        if min.0 == max.0 {
            return None;
        }
        Some(if newest { max.1 } else { min.1 })
    }

    /// The one item of the list a request of `request_stems` names by its words ("delete the
    /// one about the card", «включи тот, где Том Хэнкс»): the item sharing the most stems
    /// with it, counting only stems some other item lacks (every Matrix of a search is "the
    /// matrix"); between items sharing as many, the one with the fewest words the request
    /// leaves out ("jurassic world" is Jurassic World, not The Lost World: Jurassic Park).
    /// `None` when no item shares one, or two are named as well.
    pub(crate) fn named(&self, request_stems: &[String]) -> Option<&Item> {
        let has = |stems: &[String], stem: &str| stems.iter().any(|s| same_word(s, stem));
        let telling = |stem: &str| self.items.iter().any(|i| !has(&i.stems, stem));
        // The request's telling stems an item has, and how many of its own it leaves unsaid.
        let fit = |item: &Item| {
            let shared: Vec<&String> = request_stems
                .iter()
                .filter(|s| has(&item.stems, s) && telling(s))
                .collect();
            let unsaid = item.stems.iter().filter(|s| !has(request_stems, s)).count();
            (shared, unsaid)
        };
        let mut best: Option<(&Item, Vec<&String>, usize)> = None;
        let mut tied = false;
        for item in &self.items {
            let (shared, unsaid) = fit(item);
            if shared.is_empty() {
                continue;
            }
            let better = match &best {
                None => true,
                Some((_, b, _)) if shared.len() != b.len() => shared.len() > b.len(),
                // Named by the same words: the closer fit; by others: neither.
                Some((_, b, u)) if shared == *b => {
                    if unsaid == *u {
                        tied = true;
                    }
                    unsaid < *u
                }
                Some(_) => {
                    tied = true;
                    false
                }
            };
            if better {
                best = Some((item, shared, unsaid));
                tied = false;
            }
        }
        if tied {
            return None;
        }
        best.map(|(item, _, _)| item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, content: &str) -> Message {
        Message {
            role: Role::Tool,
            name: Some(name.to_owned()),
            content: content.to_owned(),
        }
    }

    const FILMS: &str =
        "1. Матрица (1999) id=tt0133093\n2. Матрица: Перезагрузка (2003) id=tt0234215";

    #[test]
    fn ordinals_and_pronouns_point_and_other_words_do_not() {
        assert_eq!(pointer("Включи первый"), Some(Pointer::Nth(1)));
        assert_eq!(pointer("Расскажи про второй"), Some(Pointer::Nth(2)));
        assert_eq!(pointer("Удали третью"), Some(Pointer::Nth(3)));
        assert_eq!(pointer("Удали последнюю"), Some(Pointer::Last));
        assert_eq!(pointer("Delete the last one"), Some(Pointer::Last));
        assert_eq!(pointer("Play the second one"), Some(Pointer::Nth(2)));
        assert_eq!(pointer("Ой, удали её"), Some(Pointer::This));
        assert_eq!(pointer("OK, start it"), Some(Pointer::This));
        assert_eq!(pointer("Tell me about that one"), Some(Pointer::This));
        assert_eq!(pointer("actually delete that"), Some(Pointer::This));
        assert_eq!(pointer("great, start this!"), Some(Pointer::This));
        assert_eq!(pointer("note that the car is on level three"), None);
        assert_eq!(pointer("Ой, нет, удали это"), Some(Pointer::This));
        assert_eq!(pointer("а он про что"), Some(Pointer::This));
        assert_eq!(
            pointer("расскажи про тот, что девяносто третьего года"),
            Some(Pointer::This)
        );
        assert_eq!(
            pointer("фильм третьего года и второй"),
            Some(Pointer::Nth(2))
        );
        assert_eq!(pointer("Это важно, запиши"), None);
        assert_eq!(pointer("play number two"), Some(Pointer::Nth(2)));
        assert_eq!(pointer("Включи номер 3"), Some(Pointer::Nth(3)));
        assert_eq!(pointer("Option four, please"), Some(Pointer::Nth(4)));
        assert_eq!(pointer("Find number plates"), None);
        assert_eq!(pointer("Запиши на вторник"), None);
        assert_eq!(pointer("В пятницу в кино"), None);
        assert_eq!(pointer("One more note"), None);
        assert_eq!(pointer("Поставь на паузу"), None);
        // By year: the earliest or latest of the list.
        assert_eq!(pointer("the older one"), Some(Pointer::Oldest));
        assert_eq!(pointer("давай ту, что постарше"), Some(Pointer::Oldest));
        assert_eq!(pointer("is the sequel any good"), Some(Pointer::Newest));
        assert_eq!(pointer("включи поновее"), Some(Pointer::Newest));
        assert_eq!(pointer("find me a new comedy"), None);
    }

    #[test]
    fn a_pronoun_points_surely_and_it_may_not() {
        assert!(points_surely("сколько она идёт"));
        assert!(points_surely("Tell me about that one"));
        assert!(!points_surely("what time is it"));
        assert!(!points_surely("Сколько времени"));
    }

    #[test]
    fn the_older_and_the_newer_are_told_by_the_years_of_the_list() {
        let r = referents(&[tool("media_search", FILMS)], "media_");
        assert_eq!(r.resolve(Pointer::Oldest), Some(&r.items[0]));
        assert_eq!(r.resolve(Pointer::Newest), Some(&r.items[1]));
        let undated = referents(&[tool("notes_list", "1. хлеб\n2. молоко")], "notes_");
        assert_eq!(undated.resolve(Pointer::Newest), None);
    }

    #[test]
    fn a_list_s_items_keep_their_numbers_and_ids() {
        let r = referents(&[tool("media_search", FILMS)], "media_");
        assert_eq!(r.list_tool.as_deref(), Some("media_search"));
        assert_eq!(r.items.len(), 2);
        assert_eq!(r.items[1].number, Some(2));
        assert_eq!(r.items[1].id.as_deref(), Some("tt0234215"));
        assert_eq!(r.resolve(Pointer::Nth(2)), Some(&r.items[1]));
        assert_eq!(r.resolve(Pointer::Last), Some(&r.items[1]));
        assert_eq!(r.resolve(Pointer::Nth(3)), None);
        assert_eq!(r.resolve(Pointer::Nth(0)), None);
        // Nothing said about either yet: "it" is the first found.
        assert_eq!(r.resolve(Pointer::This), Some(&r.items[0]));
        // Another set's tools leave nothing to point at.
        assert_eq!(
            referents(&[tool("media_search", FILMS)], "notes_"),
            Referents::default()
        );
    }

    #[test]
    fn the_focus_follows_the_calls_and_the_replies() {
        let mut history = vec![
            tool("media_search", FILMS),
            Message::assistant("TOOL_CALL: media_info|tt0234215"),
            tool("media_info", "Матрица: Перезагрузка (2003): 138 мин."),
        ];
        let r = referents(&history, "media_");
        assert_eq!(
            r.resolve(Pointer::This).and_then(|i| i.id.as_deref()),
            Some("tt0234215")
        );
        history.push(Message::assistant("TOOL_CALL: media_play|tt0133093"));
        let r = referents(&history, "media_");
        assert_eq!(
            r.resolve(Pointer::This).and_then(|i| i.id.as_deref()),
            Some("tt0133093")
        );

        // A reply that names one number (a note just added) is what "it" is.
        let notes = vec![
            tool("notes_list", "1. купить хлеб\n2. позвонить врачу"),
            tool("notes_add", "Заметка 3 сохранена."),
        ];
        let r = referents(&notes, "notes_");
        assert_eq!(r.resolve(Pointer::This).and_then(|i| i.number), Some(3));
        assert_eq!(r.resolve(Pointer::Last).and_then(|i| i.number), Some(2));
        // A new list starts over.
        let mut again = notes.clone();
        again.push(tool("notes_list", "1. купить хлеб"));
        let r = referents(&again, "notes_");
        assert_eq!(r.focus, None);
        assert_eq!(r.items.len(), 1);
    }

    #[test]
    fn an_item_is_named_by_the_words_only_it_has() {
        let notes = referents(
            &[tool(
                "notes_list",
                "1. renew the car insurance\n2. buy a birthday card for Ana\n3. water the plants",
            )],
            "notes_",
        );
        let named = |request: &str| notes.named(&stems(request)).and_then(|i| i.number);
        assert_eq!(named("remove the one about the card"), Some(2));
        assert_eq!(named("the plant one, it's done"), Some(3));
        assert_eq!(named("the insurance is done, delete it"), Some(1));
        assert_eq!(named("delete a note"), None);
        // Two items named as much: neither.
        assert_eq!(named("the card and the plants"), None);

        let dinosaurs = referents(
            &[tool(
                "media_search",
                "1. Jurassic Park (1993) id=tt0107290\n2. Jurassic World (2015) id=tt0369610\n\
                 3. The Lost World: Jurassic Park (1997) id=tt0119567",
            )],
            "media_",
        );
        let n = |request: &str| dinosaurs.named(&stems(request)).and_then(|i| i.number);
        // Both the second and the third have "world": the second leaves less unsaid.
        assert_eq!(n("play jurassic world"), Some(2));
        assert_eq!(n("what's the lost world one like"), Some(3));
        assert_eq!(n("the one from 1993"), Some(1));
        assert_eq!(n("play jurassic park"), Some(1));

        let films = referents(
            &[tool(
                "media_search",
                "1. Матрица (1999) id=tt0133093\n2. Матрица: Перезагрузка (2003) id=tt0234215",
            )],
            "media_",
        );
        let id = |request: &str| films.named(&stems(request)).and_then(|i| i.id.clone());
        assert_eq!(id("Включи «Перезагрузку»").as_deref(), Some("tt0234215"));
        assert_eq!(
            id("Включи тот, что 1999 года").as_deref(),
            Some("tt0133093")
        );
        // A word every item has tells none apart; the id is no word of an item.
        assert_eq!(id("Включи матрицу"), None);
        assert_eq!(id("Включи tt0133093"), None);
    }

    #[test]
    fn an_id_said_aloud_is_told_from_numbers_and_words() {
        assert_eq!(said_id("tell me more about tt3659388"), Some("tt3659388"));
        assert_eq!(
            said_id("Расскажи про tt0133093, пожалуйста"),
            Some("tt0133093")
        );
        assert_eq!(said_id("play B07-XK2931"), Some("B07-XK2931"));
        assert_eq!(said_id("Запиши: код от калитки 4512"), None);
        assert_eq!(said_id("Позвони на 8 800 555 35 35"), None);
        assert_eq!(said_id("Meeting on 2026-05-21 at 14:05"), None);
        assert_eq!(said_id("Show Windows 10 on the screen"), None);
        assert_eq!(said_id("compare tt0133093 and tt0234215"), None);
    }

    #[test]
    fn odd_lines_are_no_items() {
        assert!(list_items("2026. год\n12:30 обед\n1.5 литра\n1.").is_empty());
        assert_eq!(one_number("Заметка удалена."), None);
        assert_eq!(one_number("136 мин, 1999"), None);
        assert_eq!(
            list_items("  3) позвонить id=")
                .first()
                .and_then(|i| i.id.clone()),
            None
        );
    }
}
