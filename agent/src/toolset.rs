//! Toolsets: groups of host tools the model enables per session.
//!
//! Declared in YAML (`toolsets/*.yaml`), declarations only — the host supplies executors
//! (see [`crate::ToolExecutor`]). Every tool name starts with `<set>_`, which names the set a
//! call belongs to (its owner set) without any side table.
//!
//! ```yaml
//! name: media
//! description: управление медиа и воспроизведением (search/info/play)
//! tools:
//!   - name: media_search
//!     description: поиск по названию
//!     args:
//!       - {name: query, type: string, required: true, description: название или его часть}
//! ```

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::args::{tool_line, ArgDecl, ArgType, DurationUnit};
use crate::diag::{Loaded, Problem};
use crate::load::{
    has_extension, insert_sorted, load_folder, report_override, visible_entries, ItemFormat,
};
use crate::messages::{Lang, Texts};
use crate::tools::CORE_TOOL_NAMES;

/// One declared tool of a toolset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolDecl {
    /// Its name, `<set>_<action>`, lower case.
    pub name: String,
    /// One line for the model.
    pub description: String,
    /// Its arguments, in positional order.
    pub args: Vec<ArgDecl>,
    /// Short example requests that call for this tool, per language (for routing by
    /// similarity; never shown to the model).
    pub examples: Vec<(Lang, String)>,
    /// The short question that names the tool's action, per language (`ask: {ru: …, en:
    /// …}`): asked when a request is routed to the tool only narrowly
    /// ([`crate::Technique::AskWhenUnsure`]). Optional; [`ToolDecl::ask_in`] falls back.
    pub ask: Vec<(Lang, String)>,
    /// Words that say the tool's action and no other tool's (`said:` in the YAML, any
    /// language: «вычеркни», "erase"), matched by stem: a request that says one is routed to
    /// the tool ([`crate::Technique::SaidAction`]). Never shown to the model.
    pub said: Vec<String>,
}

impl ToolDecl {
    /// The question that names the tool's action in `lang`: its `ask` phrase, else `None`
    /// (a tool without one is not asked about: its description is for the model, not a
    /// question a person understands).
    pub fn ask_in(&self, lang: Lang) -> Option<&str> {
        self.ask
            .iter()
            .find(|(l, _)| *l == lang)
            .map(|(_, t)| t.as_str())
    }

    /// The examples in `lang`.
    pub fn examples_in(&self, lang: Lang) -> impl Iterator<Item = &str> {
        self.examples
            .iter()
            .filter(move |(l, _)| *l == lang)
            .map(|(_, t)| t.as_str())
    }
}

/// Most words said for one value of an enum argument (`said:`).
pub const SAID_LIMIT: usize = 24;
/// Most example requests per tool and language.
pub const EXAMPLES_LIMIT: usize = 32;
/// Longest example request, in characters.
pub const EXAMPLE_CHARS: usize = 200;
/// Most entries of a set's `heard_as:`.
pub const HEARD_AS_LIMIT: usize = 32;
/// Most words of a phrase of `heard_as:`, said or meant.
pub const HEARD_AS_WORDS: usize = 6;

/// One toolset declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolset {
    /// The set's name (lower case identifier; the prefix of its tools).
    pub name: String,
    /// Its one-line entry of the prompt's toolset index.
    pub description: String,
    /// Its tools, in declaration order.
    pub tools: Vec<ToolDecl>,
    /// What the assistant says it can do with the set, per language (`spoken: {ru: …,
    /// en: …}`): a phrase that follows «Я умею» / "I can" when the user asks what the
    /// assistant can do. Optional; [`Toolset::spoken_in`] falls back.
    pub spoken: Vec<(Lang, String)>,
    /// Words a request must say (a word of the request starting with one, any case) to be
    /// routed to the set's tools (`route_words:`; [`crate::Technique::RouteWords`]): a set
    /// about a thing a person names when they mean it (skills, protocols) does not pull
    /// requests about anything else. Empty: any request may be.
    pub route_words: Vec<String>,
    /// How a speech recognizer or a user says a phrase of the set's requests, and the phrase
    /// meant (`heard_as: {"pop down": "jot down", "за пиши": "запиши"}`): each said phrase
    /// (lower case, 1–[`HEARD_AS_WORDS`] words) is read as its meaning before a request is
    /// routed ([`crate::Technique::LeadWords`]). At most [`HEARD_AS_LIMIT`] entries.
    pub heard_as: Vec<(String, String)>,
    /// The file it came from.
    pub path: PathBuf,
}

impl Toolset {
    /// The tool called `name` (lower case).
    pub fn tool(&self, name: &str) -> Option<&ToolDecl> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// Whether `request` may be routed to the set's tools: it has no
    /// [`Toolset::route_words`], or a word of the request starts with one of them.
    pub fn routes(&self, request: &str) -> bool {
        if self.route_words.is_empty() {
            return true;
        }
        let lower = request.to_lowercase();
        lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| self.route_words.iter().any(|r| w.starts_with(r.as_str())))
    }

    /// What the assistant says it can do with the set in `lang`: its `spoken` phrase, else
    /// its description up to a parenthesis when the description is written in `lang`'s
    /// script, else `None` (a host's set described in another language is not read out in
    /// the wrong one).
    pub fn spoken_in(&self, lang: Lang) -> Option<&str> {
        if let Some((_, s)) = self.spoken.iter().find(|(l, _)| *l == lang) {
            return Some(s);
        }
        let head = self.description.split('(').next().unwrap_or("").trim();
        let cyrillic = head.chars().any(|c| ('\u{400}'..='\u{4ff}').contains(&c));
        let latin = head.chars().any(|c| c.is_ascii_alphabetic());
        let fits = match lang {
            Lang::Ru => cyrillic && !latin,
            Lang::En => latin && !cyrillic,
        };
        (fits && !head.is_empty()).then_some(head)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawToolset {
    name: Option<String>,
    description: Option<String>,
    #[serde(default)]
    tools: Vec<RawTool>,
    #[serde(default)]
    spoken: BTreeMap<String, String>,
    #[serde(default)]
    route_words: Vec<String>,
    #[serde(default)]
    heard_as: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTool {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    args: Vec<RawArg>,
    #[serde(default)]
    examples: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    ask: BTreeMap<String, String>,
    #[serde(default)]
    said: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawArg {
    name: String,
    #[serde(rename = "type", default = "default_type")]
    ty: String,
    #[serde(default)]
    required: bool,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    values: Vec<String>,
    #[serde(default)]
    said: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    min: Option<f64>,
    #[serde(default)]
    max: Option<f64>,
    #[serde(default)]
    unit: Option<String>,
    #[serde(default)]
    ask_for: BTreeMap<String, String>,
    #[serde(default)]
    values_from: Option<String>,
}

fn default_type() -> String {
    "string".to_string()
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(x) if x.is_ascii_lowercase())
        && c.all(|x| x.is_ascii_lowercase() || x.is_ascii_digit() || x == '_')
        && !s.ends_with('_')
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Parse one toolset file's YAML.
pub fn parse_toolset(text: &str, path: &Path) -> Result<Toolset, Problem> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    crate::load::check_flow(text)?;
    let raw: RawToolset = serde_norway::from_str(text).map_err(|e| Problem::Yaml {
        line: e.location().map(|l| l.line()),
        message: e.to_string(),
    })?;
    let name = raw
        .name
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .ok_or(Problem::MissingField("name"))?;
    if !is_ident(&name) || name.len() > 32 {
        return Err(Problem::BadName {
            name,
            why: "a toolset name is a lower-case identifier (a-z, 0-9, _), at most 32 characters",
        });
    }
    let description = raw
        .description
        .map(|d| one_line(&d))
        .filter(|d| !d.is_empty())
        .ok_or(Problem::MissingField("description"))?;
    if raw.tools.is_empty() {
        return Err(Problem::NoTools);
    }
    let prefix = format!("{name}_");
    let mut tools = Vec::new();
    let mut seen = HashSet::new();
    for t in raw.tools {
        let bad = |why: String| Problem::BadTool {
            tool: t.name.clone(),
            why,
        };
        if !is_ident(&t.name) || !t.name.starts_with(&prefix) || t.name.len() == prefix.len() {
            return Err(bad(format!(
                "a tool name is a lower-case identifier that starts with \"{prefix}\""
            )));
        }
        if CORE_TOOL_NAMES.contains(&t.name.as_str()) {
            return Err(bad("clashes with a core tool".into()));
        }
        if !seen.insert(t.name.clone()) {
            return Err(bad("declared twice".into()));
        }
        let mut args = Vec::new();
        let mut arg_names = HashSet::new();
        for a in t.args {
            if !is_ident(&a.name) {
                return Err(bad(format!(
                    "argument {:?} is not a lower-case identifier",
                    a.name
                )));
            }
            if !arg_names.insert(a.name.clone()) {
                return Err(bad(format!("argument {:?} declared twice", a.name)));
            }
            let ty = match a.ty.as_str() {
                "string" => ArgType::String,
                "integer" => ArgType::Integer,
                "number" => ArgType::Number,
                "boolean" => ArgType::Boolean,
                "enum" if a.values.is_empty() => {
                    return Err(bad(format!("enum argument {:?} has no values", a.name)))
                }
                "enum" => ArgType::Enum(a.values.iter().map(|v| v.trim().to_string()).collect()),
                other => {
                    return Err(bad(format!(
                        "argument {:?} has unknown type {other:?} (string, integer, number, boolean, enum)",
                        a.name
                    )))
                }
            };
            if !a.values.is_empty() && !matches!(ty, ArgType::Enum(_)) {
                return Err(bad(format!(
                    "argument {:?} has values but is not an enum",
                    a.name
                )));
            }
            let mut said = Vec::new();
            for (value, words) in &a.said {
                let value = value.trim();
                let known =
                    matches!(&ty, ArgType::Enum(values) if values.iter().any(|v| v == value));
                if !known {
                    return Err(bad(format!(
                        "argument {:?} says words for {value:?}, which is not one of its values",
                        a.name
                    )));
                }
                let words: Vec<String> = words
                    .iter()
                    .map(|w| one_line(w))
                    .filter(|w| !w.is_empty())
                    .collect();
                if words.len() > SAID_LIMIT {
                    return Err(bad(format!(
                        "argument {:?} says more than {SAID_LIMIT} words for {value:?}",
                        a.name
                    )));
                }
                said.push((value.to_string(), words));
            }
            let numeric = matches!(ty, ArgType::Integer | ArgType::Number);
            for (key, bound) in [("min", a.min), ("max", a.max)] {
                match bound {
                    Some(_) if !numeric => {
                        return Err(bad(format!(
                            "argument {:?} has {key} but is not an integer or number",
                            a.name
                        )))
                    }
                    Some(b) if !b.is_finite() => {
                        return Err(bad(format!("argument {:?}: {key} is not finite", a.name)))
                    }
                    _ => {}
                }
            }
            if let (Some(lo), Some(hi)) = (a.min, a.max) {
                if lo > hi {
                    return Err(bad(format!(
                        "argument {:?}: min {lo} is greater than max {hi}",
                        a.name
                    )));
                }
            }
            let unit = match a.unit.as_deref() {
                None => None,
                Some(_) if !numeric => {
                    return Err(bad(format!(
                        "argument {:?} has a unit but is not an integer or number",
                        a.name
                    )))
                }
                Some(u) => Some(DurationUnit::from_name(u).ok_or_else(|| {
                    bad(format!(
                        "argument {:?} has unknown unit {u:?} (seconds, minutes, hours, days)",
                        a.name
                    ))
                })?),
            };
            let values_from = match a.values_from.as_deref().map(str::trim) {
                None => None,
                Some(_) if ty != ArgType::String => {
                    return Err(bad(format!(
                        "argument {:?} has values_from but is not a string",
                        a.name
                    )))
                }
                Some(list) if !is_ident(list) => {
                    return Err(bad(format!(
                        "argument {:?}: values_from {list:?} is not a lower-case identifier",
                        a.name
                    )))
                }
                Some(list) => Some(list.to_string()),
            };
            let ask_for = phrases("ask_for", &a.ask_for).map_err(|p| bad(p.to_string()))?;
            args.push(ArgDecl {
                name: a.name,
                ty,
                required: a.required,
                description: a
                    .description
                    .map(|d| one_line(&d))
                    .filter(|d| !d.is_empty()),
                said,
                min: a.min,
                max: a.max,
                unit,
                ask_for,
                values_from,
            });
        }
        let mut examples = Vec::new();
        for (code, texts) in &t.examples {
            let lang: Lang = code
                .parse()
                .map_err(|_| bad(format!("examples for unknown language {code:?} (ru or en)")))?;
            if texts.len() > EXAMPLES_LIMIT {
                return Err(bad(format!(
                    "{} examples in {code}, at most {EXAMPLES_LIMIT}",
                    texts.len()
                )));
            }
            for text in texts {
                let text = one_line(text);
                if text.is_empty() || text.chars().count() > EXAMPLE_CHARS {
                    return Err(bad(format!(
                        "an example in {code} is empty or longer than {EXAMPLE_CHARS} characters"
                    )));
                }
                examples.push((lang, text));
            }
        }
        let ask = phrases("ask", &t.ask).map_err(|p| bad(p.to_string()))?;
        if t.said.len() > SAID_LIMIT {
            return Err(bad(format!(
                "more than {SAID_LIMIT} words said for its action"
            )));
        }
        let mut said = Vec::new();
        for w in &t.said {
            let w = w.trim().to_lowercase();
            if w.chars().count() < 3 || !w.chars().all(char::is_alphanumeric) {
                return Err(bad(format!(
                    "{w:?} said for its action is not a word of three letters or more"
                )));
            }
            said.push(w);
        }
        tools.push(ToolDecl {
            name: t.name,
            description: one_line(&t.description),
            args,
            examples,
            ask,
            said,
        });
    }
    let spoken = phrases("spoken", &raw.spoken)?;
    let mut route_words = Vec::new();
    for w in &raw.route_words {
        let w = w.trim().to_lowercase();
        if w.chars().count() < 2 || !w.chars().all(char::is_alphanumeric) {
            return Err(Problem::BadField {
                field: "route_words",
                why: format!("{w:?} is not a word of two letters or more"),
            });
        }
        route_words.push(w);
    }
    if raw.heard_as.len() > HEARD_AS_LIMIT {
        return Err(Problem::BadField {
            field: "heard_as",
            why: format!("{} entries, at most {HEARD_AS_LIMIT}", raw.heard_as.len()),
        });
    }
    let mut heard_as = Vec::new();
    for (said, meant) in &raw.heard_as {
        let phrase = |p: &str| {
            let words: Vec<String> = p.split_whitespace().map(str::to_lowercase).collect();
            (!words.is_empty() && words.len() <= HEARD_AS_WORDS).then(|| words.join(" "))
        };
        match (phrase(said), phrase(meant)) {
            (Some(said), Some(meant)) => heard_as.push((said, meant)),
            _ => {
                return Err(Problem::BadField {
                    field: "heard_as",
                    why: format!(
                        "{said:?}: {meant:?} is not two phrases of 1 to {HEARD_AS_WORDS} words"
                    ),
                })
            }
        }
    }
    Ok(Toolset {
        name,
        description,
        tools,
        spoken,
        route_words,
        heard_as,
        path: path.to_path_buf(),
    })
}

/// The per-language phrases of a `field` (`{ru: …, en: …}`): each one line, not empty, at
/// most [`EXAMPLE_CHARS`] characters.
fn phrases(
    field: &'static str,
    raw: &BTreeMap<String, String>,
) -> Result<Vec<(Lang, String)>, Problem> {
    let mut out = Vec::new();
    for (code, text) in raw {
        let bad = |why: String| Problem::BadField { field, why };
        let lang: Lang = code
            .parse()
            .map_err(|_| bad(format!("unknown language {code:?} (ru or en)")))?;
        let text = one_line(text);
        if text.is_empty() || text.chars().count() > EXAMPLE_CHARS {
            return Err(bad(format!(
                "the phrase in {code} is empty or longer than {EXAMPLE_CHARS} characters"
            )));
        }
        out.push((lang, text));
    }
    Ok(out)
}

/// The toolset files of one folder, sorted: `*.yaml` and `*.yml`.
fn toolset_files(dir: &Path) -> Result<Vec<PathBuf>, std::io::Error> {
    let mut files = visible_entries(dir)?;
    files.retain(|p| !p.is_dir() && has_extension(p, &["yaml", "yml"]));
    Ok(files)
}

/// How toolsets are found and read: [`toolset_files`], [`parse_toolset`] (no warnings),
/// names compared as written (they are lower-case identifiers).
const TOOLSET_FORMAT: ItemFormat<Toolset> = ItemFormat {
    files: toolset_files,
    parse: |text, path| parse_toolset(text, path).map(|set| (set, Vec::new())),
    name: |set| (set.name.clone(), set.name.clone()),
};

/// All toolset declarations of an agent, sorted by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolsetRegistry {
    sets: Vec<Toolset>,
}

impl ToolsetRegistry {
    /// A registry of exactly these sets; a later set replaces an earlier one of the same name.
    pub fn from_toolsets(sets: impl IntoIterator<Item = Toolset>) -> Self {
        let mut reg = ToolsetRegistry::default();
        for s in sets {
            reg.insert(s);
        }
        reg
    }

    /// Add or replace (same name); returns the replaced set.
    pub fn insert(&mut self, set: Toolset) -> Option<Toolset> {
        insert_sorted(&mut self.sets, set, |s| s.name.clone())
    }

    /// Load source folders in order, with the same discipline as skills: bad files are
    /// reported and skipped, duplicates within a folder are errors, a later folder
    /// overrides an earlier one (reported as a warning).
    pub fn load<P: AsRef<Path>>(sources: &[P]) -> Loaded<ToolsetRegistry> {
        let mut reg = ToolsetRegistry::default();
        let mut diagnostics = Vec::new();
        for dir in sources {
            load_folder(
                dir.as_ref(),
                &TOOLSET_FORMAT,
                &mut diagnostics,
                |set, path, diagnostics| {
                    let previous = reg.insert(set).map(|p| (p.name, p.path));
                    report_override(diagnostics, path, previous);
                },
            );
        }
        Loaded {
            value: reg,
            diagnostics,
        }
    }

    /// The set called `name` (case ignored).
    pub fn get(&self, name: &str) -> Option<&Toolset> {
        let name = name.trim().to_lowercase();
        self.sets.iter().find(|s| s.name == name)
    }

    /// All sets, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = &Toolset> {
        self.sets.iter()
    }

    /// All set names, sorted.
    pub fn names(&self) -> Vec<String> {
        self.sets.iter().map(|s| s.name.clone()).collect()
    }

    /// Whether there are no sets.
    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }

    /// The set a tool belongs to by its name: the set whose `<name>_` starts `tool` (the
    /// longest such name).
    pub fn owner_set(&self, tool: &str) -> Option<&Toolset> {
        self.sets
            .iter()
            .filter(|s| {
                tool.len() > s.name.len() + 1
                    && tool.starts_with(s.name.as_str())
                    && tool.as_bytes()[s.name.len()] == b'_'
            })
            .max_by_key(|s| s.name.len())
    }

    /// The toolset index lines of the prompt (`name — description`), one per set.
    pub fn index_lines(&self) -> Vec<String> {
        self.sets
            .iter()
            .map(|s| format!("{} — {}", s.name, s.description))
            .collect()
    }

    pub(crate) fn registry_text(&self, texts: Texts, set: &Toolset) -> String {
        set.tools
            .iter()
            .map(|t| tool_line(texts, &t.name, &t.description, &t.args))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The toolset the crate's tests declare: two media tools, one with an enum argument.
#[cfg(test)]
pub(crate) const MEDIA_FIXTURE: &str = "\
name: media
description: управление медиа и воспроизведением (search/info/play)
tools:
  - name: media_search          # must start with \"<set name>_\"
    description: поиск по названию
    args:
      - {name: query, type: string, required: true, description: название или его часть}
  - name: media_play
    description: запуск/управление просмотром
    args:
      - {name: id, type: string, required: true}
      - {name: action, type: enum, values: [play, pause, stop], required: false}
";

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const MEDIA: &str = MEDIA_FIXTURE;

    fn parse(text: &str) -> Result<Toolset, Problem> {
        parse_toolset(text, Path::new("t.yaml"))
    }

    #[test]
    fn the_issue_example_parses() {
        let s = parse(MEDIA).unwrap();
        assert_eq!(s.name, "media");
        assert_eq!(s.tools.len(), 2);
        assert_eq!(
            s.tool("media_play").unwrap().args[1].ty,
            ArgType::Enum(vec!["play".into(), "pause".into(), "stop".into()])
        );
        assert!(s.tool("media_search").unwrap().args[0].required);
        assert!(s.tool("media_play").unwrap().args[1].said.is_empty());
    }

    #[test]
    fn an_enum_says_its_values_in_other_words() {
        let text = "name: x\ndescription: d\ntools: [{name: x_a, args: [{name: q, type: enum, values: [pause, stop], said: {stop: [останови, \" стоп \"]}}]}]";
        let s = parse(text).unwrap();
        assert_eq!(
            s.tool("x_a").unwrap().args[0].said,
            [(
                "stop".to_string(),
                vec!["останови".to_string(), "стоп".to_string()]
            )]
        );
    }

    #[test]
    fn an_argument_declares_its_range_unit_question_and_host_list() {
        let text = "name: timer\ndescription: d\ntools:\n  - name: timer_start\n    args:\n      - {name: minutes, type: integer, required: true, min: 1, max: 1440, unit: minutes, ask_for: {ru: 'На сколько минут?', en: 'For how many minutes?'}}\n      - {name: who, values_from: contacts}";
        let s = parse(text).unwrap();
        let [minutes, who] = s.tools[0].args.as_slice() else {
            panic!("two arguments");
        };
        assert_eq!((minutes.min, minutes.max), (Some(1.0), Some(1440.0)));
        assert_eq!(minutes.unit, Some(DurationUnit::Minutes));
        assert_eq!(minutes.ask_for_in(Lang::En), Some("For how many minutes?"));
        assert!(minutes.in_range(1.0) && minutes.in_range(1440.0));
        assert!(!minutes.in_range(0.0) && !minutes.in_range(1441.0));
        assert_eq!(who.values_from.as_deref(), Some("contacts"));
        assert_eq!(who.ask_for_in(Lang::Ru), None);
        // A value outside the range is never a valid call.
        let raw = crate::args::RawArgs::Parts(vec!["0".into()]);
        let problem = crate::args::validate_args(&s.tools[0].args, &raw).unwrap_err();
        assert!(matches!(
            problem,
            crate::messages::ArgProblem::OutOfRange { .. }
        ));
        assert_eq!(
            Texts::new(Lang::Ru).arg_problem(&problem),
            "аргумент minutes = 0 вне диапазона: от 1 до 1440"
        );
    }

    #[test]
    fn declaration_errors() {
        let table: &[(&str, &str)] = &[
            ("description: d\ntools: [{name: x_a}]", "missing name"),
            ("name: x\ntools: [{name: x_a}]", "missing description"),
            ("name: x\ndescription: d", "no tools"),
            (
                "name: X-1\ndescription: d\ntools: [{name: x_a}]",
                "bad name",
            ),
            (
                "name: x\ndescription: d\ntools: [{name: y_a}]",
                "starts with \"x_\"",
            ),
            (
                "name: x\ndescription: d\ntools: [{name: x_}]",
                "starts with",
            ),
            (
                "name: x\ndescription: d\ntools: [{name: x_a}, {name: x_a}]",
                "declared twice",
            ),
            (
                "name: x\ndescription: d\ntools: [{name: x_a, args: [{name: q, type: enum}]}]",
                "has no values",
            ),
            (
                "name: x\ndescription: d\ntools: [{name: x_a, args: [{name: q, type: date}]}]",
                "unknown type",
            ),
            (
                "name: x\ndescription: d\ntools: [{name: x_a, args: [{name: q, type: enum, values: [a], said: {b: [bee]}}]}]",
                "not one of its values",
            ),
            (
                "name: x\ndescription: d\ntools: [{name: x_a, args: [{name: q, said: {b: [bee]}}]}]",
                "not one of its values",
            ),
            (
                "name: x\ndescription: d\ntools: [{name: x_a, args: [{name: q}, {name: q}]}]",
                "declared twice",
            ),
            (
                "name: x\ndescription: d\ntools: [{name: x_a, args: [{name: q, requried: true}]}]",
                "unknown field",
            ),
            (
                "name: read\ndescription: d\ntools: [{name: read_skill}]",
                "clashes",
            ),
            ("name: x\ndescription: d\ntools: [oops", "YAML error"),
            (
                "name: x\ndescription: d\nspoken: {de: etwas}\ntools: [{name: x_a}]",
                "unknown language",
            ),
            (
                "name: x\ndescription: d\nspoken: {en: ' '}\ntools: [{name: x_a}]",
                "empty",
            ),
            (
                "name: x\ndescription: d\ntools: [{name: x_a, ask: {fr: 'Oui?'}}]",
                "tool \"x_a\": ask: unknown language",
            ),
            (
                "name: x\ndescription: d\ntools: [{name: x_a, said: ['cross off']}]",
                "said for its action is not a word",
            ),
            (
                "name: x\ndescription: d\ntools: [{name: x_a, said: [ok]}]",
                "said for its action is not a word",
            ),
            (
                "name: x\ndescription: d\ntools: [{name: x_a, args: [{name: q, min: 1}]}]",
                "has min but is not an integer or number",
            ),
            (
                "name: x\ndescription: d\ntools: [{name: x_a, args: [{name: q, type: integer, min: 5, max: 1}]}]",
                "min 5 is greater than max 1",
            ),
            (
                "name: x\ndescription: d\ntools: [{name: x_a, args: [{name: q, type: integer, unit: weeks}]}]",
                "unknown unit",
            ),
            (
                "name: x\ndescription: d\ntools: [{name: x_a, args: [{name: q, type: integer, values_from: rooms}]}]",
                "values_from but is not a string",
            ),
            (
                "name: x\ndescription: d\ntools: [{name: x_a, args: [{name: q, values_from: My-List}]}]",
                "not a lower-case identifier",
            ),
            (
                "name: x\ndescription: d\ntools: [{name: x_a, args: [{name: q, ask_for: {de: 'Was?'}}]}]",
                "ask_for: unknown language",
            ),
        ];
        for (text, want) in table {
            let got = parse(text).map(|_| ()).unwrap_err().to_string();
            assert!(got.contains(want), "{text:?}: {got}");
        }
    }

    #[test]
    fn heard_as_is_read_lower_case_and_bounded() {
        let set = parse(
            "name: x\ndescription: d\nheard_as: {'Pop Down': jot down}\ntools: [{name: x_a}]",
        )
        .unwrap();
        assert_eq!(
            set.heard_as,
            [("pop down".to_string(), "jot down".to_string())]
        );
        for bad in ["{'': a}", "{a: '  '}", "{a b c d e f g: x}"] {
            let text = format!("name: x\ndescription: d\nheard_as: {bad}\ntools: [{{name: x_a}}]");
            assert!(
                parse(&text).unwrap_err().to_string().contains("heard_as"),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_set_with_route_words_routes_only_the_requests_that_say_one() {
        let set = parse(
            "name: skills\ndescription: d\nroute_words: [Скил, protocol]\ntools: [{name: skills_a}]",
        )
        .unwrap();
        assert_eq!(set.route_words, ["скил", "protocol"]);
        assert!(set.routes("Какие скилы ты знаешь?"));
        assert!(set.routes("Run the backup PROTOCOLS"));
        assert!(!set.routes("Сделай заметку: позвонить врачу"));
        assert!(
            !set.routes("Что такое маскил?"),
            "a word that only contains one"
        );
        let open = parse("name: x\ndescription: d\ntools: [{name: x_a}]").unwrap();
        assert!(open.routes("anything"));
        let bad = parse("name: x\ndescription: d\nroute_words: ['a b']\ntools: [{name: x_a}]");
        assert!(bad.unwrap_err().to_string().contains("route_words"));
    }

    #[test]
    fn words_said_for_an_action_are_lower_case_words() {
        let set =
            parse("name: x\ndescription: d\ntools: [{name: x_a, said: [' Вычеркни', ERASE]}, {name: x_b}]")
                .unwrap();
        assert_eq!(set.tool("x_a").unwrap().said, ["вычеркни", "erase"]);
        assert!(set.tool("x_b").unwrap().said.is_empty());
    }

    #[test]
    fn a_tool_s_question_is_asked_in_the_language_it_is_written_in() {
        let set = parse(
            "name: x\ndescription: d\ntools: [{name: x_a, ask: {ru: 'Сделать?', en: ' Do it? '}}, {name: x_b}]",
        )
        .unwrap();
        let a = set.tool("x_a").unwrap();
        assert_eq!(a.ask_in(Lang::Ru), Some("Сделать?"));
        assert_eq!(a.ask_in(Lang::En), Some("Do it?"));
        assert_eq!(set.tool("x_b").unwrap().ask_in(Lang::Ru), None);
    }

    #[test]
    fn a_set_says_what_it_does_in_the_language_asked_or_not_at_all() {
        let set = parse(
            "name: notes\ndescription: заметки пользователя (записать, удалить)\n\
             spoken: {en: keep your notes}\ntools: [{name: notes_add}]",
        )
        .unwrap();
        assert_eq!(set.spoken_in(Lang::En), Some("keep your notes"));
        assert_eq!(set.spoken_in(Lang::Ru), Some("заметки пользователя"));
        let plain =
            parse("name: lights\ndescription: smart lights\ntools: [{name: lights_on}]").unwrap();
        assert_eq!(plain.spoken_in(Lang::En), Some("smart lights"));
        assert_eq!(plain.spoken_in(Lang::Ru), None);
    }

    #[test]
    fn a_tool_s_owner_set_is_named_by_its_prefix() {
        let mk = |n: &str| Toolset {
            spoken: Vec::new(),
            route_words: Vec::new(),
            heard_as: Vec::new(),
            name: n.into(),
            description: "d".into(),
            tools: vec![],
            path: PathBuf::new(),
        };
        let reg = ToolsetRegistry::from_toolsets([mk("media"), mk("smart"), mk("smart_home")]);
        let owner = |t: &str| reg.owner_set(t).map(|s| s.name.as_str());
        assert_eq!(owner("media_search"), Some("media"));
        assert_eq!(owner("smart_home_light"), Some("smart_home"));
        assert_eq!(owner("smart_x"), Some("smart"));
        assert_eq!(owner("media"), None);
        assert_eq!(owner("media_"), None);
        assert_eq!(owner("mediax_search"), None);
        assert_eq!(owner("get_current_time"), None);
    }

    #[test]
    fn folders_merge_with_diagnostics() {
        let a = crate::load::fresh_temp_dir("ts-a");
        let b = crate::load::fresh_temp_dir("ts-b");
        fs::write(a.join("media.yaml"), MEDIA).unwrap();
        fs::write(a.join("media2.yml"), MEDIA).unwrap();
        fs::write(a.join("bad.yaml"), "name: [").unwrap();
        fs::write(a.join("readme.txt"), "not yaml").unwrap();
        fs::write(
            b.join("m.yaml"),
            "name: media\ndescription: other\ntools: [{name: media_x}]",
        )
        .unwrap();
        let loaded = ToolsetRegistry::load(&[&a, &b]);
        let lines: Vec<String> = loaded.diagnostics.iter().map(|d| d.to_string()).collect();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(lines[0].contains("bad.yaml: YAML error"));
        assert!(lines[1].contains("media2.yml: duplicate name"));
        assert!(lines[2].starts_with("warning ") && lines[2].contains("overrides"));
        assert_eq!(loaded.value.get("MEDIA").unwrap().description, "other");
        fs::remove_dir_all(&a).ok();
        fs::remove_dir_all(&b).ok();
    }

    #[test]
    fn unreadable_files_and_folders_are_diagnostics() {
        let d = crate::load::fresh_temp_dir("ts-bad");
        fs::write(d.join("latin1.yaml"), b"name: caf\xe9\n").unwrap();
        fs::write(d.join(".hidden.yaml"), "name: [").unwrap();
        fs::create_dir_all(d.join("dir.yaml")).unwrap();
        fs::write(d.join("media.yaml"), MEDIA).unwrap();
        let loaded = ToolsetRegistry::load(&[d.clone(), d.join("missing")]);
        let lines: Vec<String> = loaded.diagnostics.iter().map(|d| d.to_string()).collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines[0].contains("latin1.yaml: cannot read: not UTF-8"),
            "{lines:?}"
        );
        assert!(lines[1].contains("missing: cannot read"), "{lines:?}");
        assert_eq!(loaded.value.names(), ["media"]);
        fs::remove_dir_all(&d).ok();
    }
}
