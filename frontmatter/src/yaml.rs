//! Front matter YAML → JSON, bounded in time and memory.
//!
//! The YAML is deserialized straight into a `serde_json::Value` through a seed that counts
//! every value it builds (aliases count once per expansion) and every level it descends.
//! serde_norway's own alias guard counts alias *jumps*, not the values they produce: an
//! anchored list of N items referenced M times passes it and builds N×M values. Counting
//! what is built keeps memory bounded whatever the aliases do.
//!
//! libyaml's scanner also costs time proportional to tokens × flow nesting (`[`, `{`):
//! a 256 KiB line of `[` takes minutes. Flow collections are therefore capped by counting
//! their opening characters before parsing ([`MAX_FLOW_OPENINGS`]); block lists and
//! mappings (`- item`, `key: value` lines) are not limited that way.
//!
//! Only what JSON holds with the same meaning is accepted: text keys, no YAML tags, finite
//! numbers. Duplicate keys are refused.

use std::cell::{Cell, RefCell};
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::error::FrontMatterError;

/// The most YAML values a front matter may build (aliases counted expanded).
pub const MAX_YAML_NODES: usize = 100_000;
/// The deepest nesting of lists and mappings a front matter may have (the top mapping is
/// level 1).
pub const MAX_YAML_DEPTH: usize = 32;

/// The most `[` and `{` characters a front matter (or another YAML file the agent reads:
/// a toolset, a scenario) may hold, anywhere, quoted or not: the count is made before
/// parsing, so it cannot be fooled.
///
/// Why 128: the worst a document of [`MAX_DOCUMENT_BYTES`](crate::MAX_DOCUMENT_BYTES) can
/// do at this limit (every opening nested, the rest of the document tokens inside them)
/// costs the scanner 0.15 s in an optimised x86 build, against 0.32 s at 256; the shipped
/// and test files open at most 64 (a long scenario), and every document a catalog has
/// stored was accepted under 128 already.
pub const MAX_FLOW_OPENINGS: usize = 128;

/// Refuses YAML with more than [`MAX_FLOW_OPENINGS`] `[` and `{` characters, before any
/// parser sees it.
///
/// # Errors
/// [`FrontMatterError::TooManyBrackets`].
pub fn check_flow(yaml: &str) -> Result<(), FrontMatterError> {
    let openings = yaml.bytes().filter(|b| matches!(b, b'[' | b'{')).count();
    if openings > MAX_FLOW_OPENINGS {
        return Err(FrontMatterError::TooManyBrackets {
            limit: MAX_FLOW_OPENINGS,
        });
    }
    Ok(())
}

/// The shared state of one deserialization: values built so far, and the refusal that
/// stopped it (serde's errors are strings; the typed reason waits here).
struct Budget {
    nodes: Cell<usize>,
    refusal: RefCell<Option<FrontMatterError>>,
}

impl Budget {
    fn refuse<E: de::Error>(&self, why: FrontMatterError) -> E {
        let message = why.to_string();
        self.refusal.borrow_mut().get_or_insert(why);
        E::custom(message)
    }

    fn count<E: de::Error>(&self) -> Result<(), E> {
        let n = self.nodes.get() + 1;
        self.nodes.set(n);
        if n > MAX_YAML_NODES {
            return Err(self.refuse(FrontMatterError::TooManyNodes {
                limit: MAX_YAML_NODES,
            }));
        }
        Ok(())
    }
}

/// Reads `yaml` (a front matter from the document's first line, so line numbers are the
/// document's) into a JSON value: [`check_flow`] first, then the counted parse.
///
/// # Errors
/// [`FrontMatterError::TooManyBrackets`], [`FrontMatterError::TooManyNodes`],
/// [`FrontMatterError::TooDeep`], [`FrontMatterError::Unsupported`],
/// [`FrontMatterError::DuplicateKey`], and the parser's [`FrontMatterError::Yaml`].
pub fn read_yaml(yaml: &str) -> Result<Value, FrontMatterError> {
    check_flow(yaml)?;
    let budget = Budget {
        nodes: Cell::new(0),
        refusal: RefCell::new(None),
    };
    let node = Node {
        budget: &budget,
        depth: 1,
    };
    let result = node.deserialize(serde_norway::Deserializer::from_str(yaml));
    match result {
        Ok(v) => Ok(v),
        Err(e) => Err(budget
            .refusal
            .into_inner()
            .unwrap_or_else(|| FrontMatterError::Yaml {
                line: e.location().map(|l| l.line()),
                message: e.to_string(),
            })),
    }
}

/// One value at nesting level `depth`.
#[derive(Clone, Copy)]
struct Node<'b> {
    budget: &'b Budget,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'b> Node<'b> {
    /// The level inside this list or mapping; refused when this one is too deep already.
    fn inner<E: de::Error>(self) -> Result<Node<'b>, E> {
        if self.depth > MAX_YAML_DEPTH {
            return Err(self.budget.refuse(FrontMatterError::TooDeep {
                limit: MAX_YAML_DEPTH,
            }));
        }
        Ok(Node {
            budget: self.budget,
            depth: self.depth + 1,
        })
    }

    fn scalar<E: de::Error>(self, v: Value) -> Result<Value, E> {
        self.budget.count()?;
        Ok(v)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        self.scalar(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        self.scalar(Value::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        self.scalar(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        match Number::from_f64(v) {
            Some(n) => self.scalar(Value::Number(n)),
            None => Err(self.budget.refuse(FrontMatterError::Unsupported {
                what: "a number that is not finite (.inf, .nan)",
            })),
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.scalar(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        self.scalar(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.scalar(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.scalar(Value::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.budget.count()?;
        let inner = self.inner()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.budget.count()?;
        let inner = self.inner()?;
        let mut out = Map::new();
        while let Some(key) = map.next_key_seed(Key(self.budget))? {
            if out.contains_key(&key) {
                return Err(self.budget.refuse(FrontMatterError::DuplicateKey { key }));
            }
            let value = map.next_value_seed(inner)?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, _: A) -> Result<Value, A::Error> {
        Err(self
            .budget
            .refuse(FrontMatterError::Unsupported { what: "a YAML tag" }))
    }
}

/// A mapping key: text only (a number or `null` as a key would change meaning in JSON).
#[derive(Clone, Copy)]
struct Key<'b>(&'b Budget);

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = String;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_any(self)
    }
}

impl Key<'_> {
    fn refuse<E: de::Error>(self) -> E {
        self.0.refuse(FrontMatterError::Unsupported {
            what: "a key that is not text",
        })
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a text key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        self.0.count()?;
        Ok(v.to_owned())
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<String, E> {
        self.0.count()?;
        Ok(v)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<String, E> {
        Err(self.refuse())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<String, E> {
        Err(self.refuse())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<String, E> {
        Err(self.refuse())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<String, E> {
        Err(self.refuse())
    }

    fn visit_unit<E: de::Error>(self) -> Result<String, E> {
        Err(self.refuse())
    }

    fn visit_none<E: de::Error>(self) -> Result<String, E> {
        Err(self.refuse())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<String, A::Error> {
        Err(self.refuse())
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<String, A::Error> {
        Err(self.refuse())
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, _: A) -> Result<String, A::Error> {
        Err(self
            .0
            .refuse(FrontMatterError::Unsupported { what: "a YAML tag" }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(yaml: &str) -> Result<Value, FrontMatterError> {
        read_yaml(yaml)
    }

    #[test]
    fn scalars_lists_and_maps_become_json() {
        let v = json("a: 1\nb: -2\nc: 1.5\nd: true\ne: ~\nf: text\ng: [x, 'y']\nh: {k: v}")
            .expect("valid");
        assert_eq!(
            v,
            serde_json::json!({"a": 1, "b": -2, "c": 1.5, "d": true, "e": null, "f": "text",
                "g": ["x", "y"], "h": {"k": "v"}})
        );
    }

    #[test]
    fn an_empty_document_is_null() {
        assert_eq!(json("").expect("empty"), Value::Null);
    }

    #[test]
    fn what_json_cannot_hold_is_refused() {
        let cases = [
            ("1: x", "a key that is not text"),
            ("~: x", "a key that is not text"),
            ("[a]: x", "a key that is not text"),
            ("a: !custom x", "a YAML tag"),
            ("a: .inf", "a number that is not finite (.inf, .nan)"),
            ("a: .nan", "a number that is not finite (.inf, .nan)"),
        ];
        for (yaml, what) in cases {
            assert_eq!(
                json(yaml),
                Err(FrontMatterError::Unsupported { what }),
                "{yaml}"
            );
        }
    }

    #[test]
    fn duplicate_keys_are_refused() {
        assert_eq!(
            json("a: 1\nb: 2\na: 3"),
            Err(FrontMatterError::DuplicateKey { key: "a".into() })
        );
    }

    #[test]
    fn nesting_is_bounded() {
        let ok = format!(
            "a: {}1{}",
            "[".repeat(MAX_YAML_DEPTH - 1),
            "]".repeat(MAX_YAML_DEPTH - 1)
        );
        assert!(json(&ok).is_ok());
        let deep = format!(
            "a: {}1{}",
            "[".repeat(MAX_YAML_DEPTH),
            "]".repeat(MAX_YAML_DEPTH)
        );
        assert_eq!(
            json(&deep),
            Err(FrontMatterError::TooDeep {
                limit: MAX_YAML_DEPTH
            })
        );
        // Block nesting is counted as it is built.
        let block = format!("a:\n  {}x", "- ".repeat(100));
        assert_eq!(
            json(&block),
            Err(FrontMatterError::TooDeep {
                limit: MAX_YAML_DEPTH
            })
        );
        // Flow nesting is refused before libyaml sees it.
        let abyss = format!("a: {}", "[".repeat(100_000));
        assert_eq!(
            json(&abyss),
            Err(FrontMatterError::TooManyBrackets {
                limit: MAX_FLOW_OPENINGS
            })
        );
    }

    #[test]
    fn flow_openings_are_counted_before_parsing() {
        let at_limit = "[".repeat(MAX_FLOW_OPENINGS);
        assert_eq!(check_flow(&at_limit), Ok(()));
        let over = FrontMatterError::TooManyBrackets {
            limit: MAX_FLOW_OPENINGS,
        };
        assert_eq!(check_flow(&format!("{at_limit}{{")), Err(over.clone()));
        // Quoted ones count too: the count cannot be fooled.
        let quoted = format!("a: '{}'", "[".repeat(MAX_FLOW_OPENINGS + 1));
        assert_eq!(check_flow(&quoted), Err(over.clone()));
        assert_eq!(json(&quoted), Err(over));
        // Block collections are not counted.
        assert_eq!(check_flow(&"- a\n".repeat(1_000)), Ok(()));
    }

    #[test]
    fn quadratic_alias_expansion_is_bounded() {
        // One anchored list of 2,000 items referenced 2,000 times: 4 million values if built.
        let items = vec!["x"; 2000].join(", ");
        let refs = vec!["*a"; 2000].join(", ");
        let yaml = format!("a: &a [{items}]\nb: [{refs}]");
        assert!(yaml.len() < 20_000);
        assert_eq!(
            json(&yaml),
            Err(FrontMatterError::TooManyNodes {
                limit: MAX_YAML_NODES
            })
        );
    }

    #[test]
    fn yaml_errors_carry_the_document_line() {
        match json("---\na: 1\nb: [unclosed\n") {
            Err(FrontMatterError::Yaml {
                line: Some(line), ..
            }) => assert_eq!(line, 4),
            other => panic!("expected a YAML error with a line, got {other:?}"),
        }
    }
}
