//! Golden tests of FunctionGemma's format: declarations, calls, responses, parsing and
//! the visible-text filter.

use super::*;
use crate::args::validate_args;
use serde_json::json;

fn decl(name: &str, ty: ArgType, required: bool, description: Option<&str>) -> ArgDecl {
    let description = description.map(Into::into);
    ArgDecl {
        name: name.into(),
        ty,
        required,
        description,
        said: Vec::new(),
        ..Default::default()
    }
}

fn enum_of(values: &[&str]) -> ArgType {
    ArgType::Enum(values.iter().map(|v| v.to_string()).collect())
}

fn w(body: &str) -> String {
    format!("{CALL_START}{body}{CALL_END}")
}

fn call(name: &str, args: Value) -> ToolCall {
    let Value::Object(map) = args else {
        panic!("not an object")
    };
    ToolCall {
        name: name.into(),
        args: RawArgs::Json(map),
        line: String::new(),
    }
}

/// The calls of `text`, all of which must parse, as (name, arguments as JSON).
fn ok(text: &str) -> Vec<(String, Value)> {
    let calls = parse_calls(text).into_iter().map(|r| r.expect(text));
    calls
        .map(|c| match c.args {
            RawArgs::Json(map) => (c.name, Value::Object(map)),
            other => panic!("{other:?}"),
        })
        .collect()
}

#[test]
fn declaration_golden_string_enum_integer() {
    let args = [
        decl("id", ArgType::String, true, Some("из media_search")),
        decl("action", enum_of(&["play", "pause", "stop"]), false, None),
        decl("position", ArgType::Integer, true, Some("секунды")),
    ];
    assert_eq!(
            render_declaration("media_play", "запуск/управление просмотром", &args),
            "<start_function_declaration>declaration:media_play{description:<escape>запуск/управление просмотром<escape>,\
parameters:{properties:{id:{description:<escape>из media_search<escape>,type:<escape>STRING<escape>},\
action:{enum:[<escape>play<escape>,<escape>pause<escape>,<escape>stop<escape>],type:<escape>STRING<escape>},\
position:{description:<escape>секунды<escape>,type:<escape>INTEGER<escape>}},\
required:[<escape>id<escape>,<escape>position<escape>],type:<escape>OBJECT<escape>}}<end_function_declaration>"
        );
}

#[test]
fn developer_turn_matches_the_documented_weather_example() {
    let location = "The city and state, e.g. \"San Francisco, CA\" or \"Tokyo, JP\"";
    let unit = "The unit to return the temperature in.";
    let tool = ToolDecl {
        name: "get_current_weather".into(),
        description: "Gets the current weather in a given location.".into(),
        args: vec![
            decl("location", ArgType::String, true, Some(location)),
            decl(
                "unit",
                enum_of(&["celsius", "fahrenheit"]),
                false,
                Some(unit),
            ),
        ],
        examples: vec![],
        ask: vec![],
        said: vec![],
    };
    assert_eq!(
            render_developer_turn(&[tool]),
            "You are a model that can do function calling with the following functions\
<start_function_declaration>declaration:get_current_weather{description:<escape>Gets the current weather in a given location.<escape>,\
parameters:{properties:{location:{description:<escape>The city and state, e.g. \"San Francisco, CA\" or \"Tokyo, JP\"<escape>,type:<escape>STRING<escape>},\
unit:{description:<escape>The unit to return the temperature in.<escape>,enum:[<escape>celsius<escape>,<escape>fahrenheit<escape>],type:<escape>STRING<escape>}},\
required:[<escape>location<escape>],type:<escape>OBJECT<escape>}}<end_function_declaration>"
        );
}

#[test]
fn declarations_without_args() {
    let one = "<start_function_declaration>declaration:get_current_time{description:<escape>время<escape>,\
parameters:{properties:{},required:[],type:<escape>OBJECT<escape>}}<end_function_declaration>";
    assert_eq!(render_declaration("get_current_time", "время", &[]), one);
    let tool = |n: &str| ToolDecl {
        name: n.into(),
        description: "время".into(),
        args: vec![],
        examples: vec![],
        ask: vec![],
        said: vec![],
    };
    let two = render_declarations(&[tool("get_current_time"), tool("x_b")]);
    assert_eq!(
        two,
        format!("{one}{}", one.replace("get_current_time", "x_b"))
    );
}

#[test]
fn call_and_response_goldens() {
    let c = call(
        "media_play",
        json!({"id": "tt1", "position": 42, "loop": true, "x": 2.5}),
    );
    assert_eq!(
        render_call(&c),
        w("call:media_play{id:<escape>tt1<escape>,loop:true,position:42,x:2.5}")
    );
    let parts = |p: &[&str]| ToolCall {
        args: RawArgs::Parts(p.iter().map(|s| s.to_string()).collect()),
        ..call("media_play", json!({}))
    };
    assert_eq!(
        render_call(&parts(&["id=tt1", "action = pause"])),
        w("call:media_play{id:<escape>tt1<escape>,action:<escape>pause<escape>}")
    );
    assert_eq!(
        render_call(&parts(&["Лара", "q=1"])),
        w("call:media_play{arg1:<escape>Лара<escape>,q:<escape>1<escape>}")
    );
    assert_eq!(render_call(&parts(&[])), w("call:media_play{}"));
    let decls = [
        decl("id", ArgType::String, true, None),
        decl("action", enum_of(&["play", "pause"]), false, None),
        decl("n", ArgType::Integer, false, None),
    ];
    let raw = RawArgs::Parts(vec!["tt 1".into(), "PAUSE".into(), "7".into()]);
    assert_eq!(
        render_args("media_play", &validate_args(&decls, &raw).unwrap()),
        w("call:media_play{id:<escape>tt 1<escape>,action:<escape>pause<escape>,n:7}")
    );
    assert_eq!(
            render_response("get_current_time", "10:00, суббота {x}"),
            "<start_function_response>response:get_current_time{value:<escape>10:00, суббота {x}<escape>}<end_function_response>"
        );
    // `<escape>` cannot appear inside a string: it is dropped.
    assert_eq!(
        render_response("t", "a<escape>b"),
        "<start_function_response>response:t{value:<escape>ab<escape>}<end_function_response>"
    );
}

#[test]
fn round_trip() {
    let args =
        json!({"text": "a, b: {c} [d]", "n": -3, "ok": false, "l": ["x", 1], "o": {"k": "v"}});
    let text = render_call(&call("show_text", args.clone()));
    assert_eq!(ok(&text), [("show_text".to_string(), args)]);
    let parsed = parse_calls(&text).remove(0).unwrap();
    assert_eq!(
        (parsed.line.as_str(), render_call(&parsed)),
        (text.as_str(), text.clone())
    );
}

#[test]
fn tricky_escaped_values() {
    let text = w("call:Show_Text{text:<escape>a, b: {c}<escape>, n: 3,\n  e:<escape><escape>}");
    let want = json!({"text": "a, b: {c}", "n": 3, "e": ""});
    assert_eq!(ok(&text), [("show_text".into(), want)]);
    let text = w(" call : x_y { q : <escape> ]«}»: <escape> } ");
    assert_eq!(ok(&text), [("x_y".into(), json!({"q": " ]«}»: "}))]);
}

#[test]
fn numbers_booleans_and_empty_args() {
    let text = w("call:t{i:42,neg:-7,x:3.5,e:1e3,t:true,f:false,z:null,w:pause,big:1e999}");
    let want = json!({"i": 42, "neg": -7, "x": 3.5, "e": 1000.0, "t": true, "f": false,
                          "z": null, "w": "pause", "big": "1e999"});
    assert_eq!(ok(&text), [("t".into(), want)]);
    // What the dispatcher makes of them.
    let decls = [
        decl("i", ArgType::Integer, true, None),
        decl("x", ArgType::Number, true, None),
        decl("t", ArgType::Boolean, true, None),
        decl("w", enum_of(&["play", "pause"]), true, None),
    ];
    let c = parse_calls(&w("call:t{i:42,x:3.5,t:true,w:<escape>Pause<escape>}")).remove(0);
    let args = validate_args(&decls, &c.unwrap().args).unwrap();
    assert_eq!(args.to_string(), "i=42|x=3.5|t=true|w=pause");
    for body in [
        "call:get_time{}",
        "call:get_time{ }",
        "call:get_time",
        "get_time{}",
    ] {
        assert_eq!(ok(&w(body)), [("get_time".into(), json!({}))], "{body}");
    }
}

#[test]
fn several_calls_with_text_and_garbage_between() {
    let text = format!(
        "Сейчас. {} мусор }}{{ {CALL_END} <escape>\n{}хвост",
        w("call:a_x{q:<escape>1<escape>}"),
        w("call:b_y{}")
    );
    let want = [("a_x".into(), json!({"q": "1"})), ("b_y".into(), json!({}))];
    assert_eq!(ok(&text), want);
    assert!(parse_calls("no calls here <end_function_call> {a:1}").is_empty());
}

#[test]
fn unterminated_calls() {
    let tail = "<start_function_call>call:b{q:<escape>x";
    let got = parse_calls(&format!("{} и {tail}", w("call:a{}")));
    assert!(got[0].is_ok());
    assert_eq!(
        got[1],
        Err(FunctionCallError::Unterminated { text: tail.into() })
    );
    assert!(got[1]
        .as_ref()
        .unwrap_err()
        .to_string()
        .contains("without <end_function_call>"));
    let got = parse_calls(&format!("{CALL_START}call:a{{{}", w("call:b{}")));
    let first = FunctionCallError::Unterminated {
        text: "<start_function_call>call:a{".into(),
    };
    assert_eq!(got[0], Err(first));
    assert_eq!(got[1].as_ref().map(|c| c.name.as_str()), Ok("b"));
}

#[test]
fn bad_names_and_bad_arguments() {
    let names = [
        ("call:{a:1}", ""),
        ("call:get weather{}", "get weather"),
        ("call:погода{}", "погода"),
        ("call:", ""),
        ("call:1x{}", "1x"),
        ("response:x{}", "response:x"),
    ];
    for (body, name) in names {
        let text = w(body);
        let want = FunctionCallError::BadName {
            name: name.into(),
            text: text.clone(),
        };
        assert_eq!(parse_calls(&text), [Err(want)], "{body}");
    }
    let deep = format!("call:x{{a:{}1{}}}", "[".repeat(200), "]".repeat(200));
    let table = [
        ("call:x{a}", "expected ':' after \"a\" at \"}\""),
        ("call:x{a:1 b:2}", "expected a value"),
        ("call:x{a:<escape>oops}", "closing <escape>"),
        ("call:x{a:1,a:2}", "\"a\" given twice"),
        ("call:x{a:1}}", "expected the end of the call at \"}\""),
        ("call:x{a:}", "expected a value"),
        ("call:x{:1}", "expected an argument name"),
        ("call:x{a:[1,2}", "expected ',' or ']' at \"}\""),
        ("call:x{a:1", "expected ',' or '}', found the end"),
        (deep.as_str(), "nested too deep"),
    ];
    for (body, why) in table {
        let text = w(body);
        let got = parse_calls(&text).remove(0).unwrap_err();
        assert!(
            matches!(got, FunctionCallError::BadArguments { .. }),
            "{body}: {got:?}"
        );
        let message = got.to_string();
        assert!(
            message.starts_with("function call x: bad argument syntax: "),
            "{message}"
        );
        assert!(message.contains(why), "{body}: {message}");
        assert_eq!(got.text(), text);
    }
}

#[test]
fn visible_text_removes_blocks() {
    let c = w("call:a{q:<escape>}<escape>}");
    assert_eq!(visible_text(&format!("Ищу.{c}")), "Ищу.");
    assert_eq!(visible_text(&format!("A {c} B {c}C")), "A  B C");
    assert_eq!(visible_text(&format!("A{c}{RESP_START}")), "A");
    let response = render_response("a", "1");
    assert_eq!(visible_text(&format!("A{response}B")), "AB");
    assert_eq!(
        visible_text("Ищу.<start_function_call>call:a{q:<escape>неза"),
        "Ищу."
    );
    let plain = "Просто текст {a:1} <end_function_call>";
    assert_eq!(visible_text(plain), plain);
}

#[test]
fn the_documented_calls_parse() {
    // The model outputs shown in Google's FunctionGemma guides.
    let table = [
            (
                "<start_function_call>call:get_current_weather{location:<escape>Tokyo, Japan<escape>}<end_function_call>",
                "get_current_weather",
                json!({"location": "Tokyo, Japan"}),
            ),
            (
                "<start_function_call>call:get_current_temperature{location:<escape>Paris<escape>,unit:<escape>celsius<escape>}<end_function_call>",
                "get_current_temperature",
                json!({"location": "Paris", "unit": "celsius"}),
            ),
            (
                "<start_function_call>call:get_current_temperature{location:<escape>London<escape>}<end_function_call>",
                "get_current_temperature",
                json!({"location": "London"}),
            ),
        ];
    for (text, name, args) in table {
        assert_eq!(ok(text), [(name.to_string(), args.clone())], "{text}");
        let parsed = parse_output(text);
        let calls: Vec<&ToolCall> = parsed.calls().collect();
        assert_eq!((calls.len(), calls[0].line.as_str()), (1, text));
        assert_eq!(parsed.visible(), "");
    }
}

#[test]
fn parse_output_reads_a_generation_like_the_tool_call_parser() {
    let call = w("call:get_current_time{}");
    let parsed = parse_output(&format!("Сейчас. {call}{call} после"));
    assert_eq!(
        parsed.segments,
        [
            Segment::Text("Сейчас. ".into()),
            Segment::Call(parse_calls(&call).remove(0).unwrap()),
            Segment::Call(parse_calls(&call).remove(0).unwrap()),
            Segment::Text(" после".into()),
        ]
    );
    assert_eq!(parsed.visible(), "Сейчас. ");
    // A response block the model invented ends the output.
    let invented = format!("А{call}{}Б{call}", render_response("get_current_time", "1"));
    let parsed = parse_output(&invented);
    assert_eq!(parsed.calls().count(), 1);
    assert!(!parsed
        .segments
        .iter()
        .any(|s| matches!(s, Segment::Text(t) if t.contains('Б'))));
    // Cut short: closed when that parses; bad blocks still name their tool.
    let cut = |text: &str| parse_output(text).calls().next().cloned().unwrap();
    let c = cut("<start_function_call>call:media_search{query:<escape>Лара<escape>");
    assert_eq!(
        (c.name.as_str(), c.line.ends_with(CALL_END)),
        ("media_search", true)
    );
    assert_eq!(
        c.args,
        RawArgs::Json(json!({"query": "Лара"}).as_object().unwrap().clone())
    );
    let c = cut("<start_function_call>call:media_search{query:<escape>Лар");
    assert_eq!(
        (c.name.as_str(), c.args.clone()),
        ("", RawArgs::Parts(vec![]))
    );
    let c = cut(&w("call:Get Time{}"));
    assert_eq!(c.name, "get time");
    let c = cut(&w("call:media_play{id:}"));
    assert_eq!(
        (c.name.as_str(), c.args),
        ("media_play", RawArgs::Parts(vec![]))
    );
    assert!(parse_output("просто текст").segments == [Segment::Text("просто текст".into())]);
}

#[test]
fn the_filter_streams_exactly_the_visible_text() {
    let call = w("call:show_text{text:<escape>Привет<escape>}");
    let outputs = [
        format!("Сейчас покажу. {call} потом"),
        format!("{call}"),
        "Просто ответ <start_of_turn> и <start_func".to_string(),
        format!("Текст{}выдумка{call}", render_response("t", "1")),
        "Без вызова.".to_string(),
    ];
    for output in &outputs {
        let want = parse_output(output).visible();
        for size in [1, 2, 5, 64] {
            let chars: Vec<char> = output.chars().collect();
            let mut filter = VisibleFilter::new();
            let mut got = String::new();
            for piece in chars.chunks(size) {
                let piece: String = piece.iter().collect();
                let out = filter.push(&piece);
                assert!(
                    !out.contains('<') || !out.contains("<start_function"),
                    "{out}"
                );
                got.push_str(&out);
            }
            got.push_str(&filter.finish());
            assert_eq!(got, want, "{output:?} in pieces of {size}");
        }
    }
}

#[test]
fn markers_are_stripped_from_text() {
    assert_eq!(strip_markers("a<escape>b<start_function_call>c"), "abc");
    assert_eq!(strip_markers("<start_<escape>function_call>x"), "x");
    assert_eq!(
        render_declaration("t", "d<end_function_declaration>", &[]),
        render_declaration("t", "d", &[])
    );
}

#[test]
fn prefixes_never_panic() {
    let c = w("call:media_search{query:<escape>Лара, «Крофт» {1}<escape>, n: 4.5, ok:true, l:[<escape>я<escape>]}");
    let full = format!("Ищу… {c} потом {c}");
    let ends = full.char_indices().map(|(i, _)| i).chain([full.len()]);
    for prefix in ends.map(|i| &full[..i]) {
        let got = parse_calls(prefix);
        assert_eq!(got.len(), prefix.matches(CALL_START).count(), "{prefix}");
        let complete = prefix.matches(CALL_END).count();
        for (k, r) in got.iter().enumerate() {
            match r {
                Ok(c) => assert!(k < complete && c.name == "media_search", "{prefix}"),
                Err(e) => assert!(
                    k >= complete && matches!(e, FunctionCallError::Unterminated { .. }),
                    "{prefix}: {e:?}"
                ),
            }
        }
        assert!(!visible_text(prefix).contains(CALL_START), "{prefix}");
    }
    // Every prefix of the inside, closed early, is one call or one error.
    let inner = c
        .strip_prefix(CALL_START)
        .and_then(|c| c.strip_suffix(CALL_END))
        .unwrap();
    for i in inner.char_indices().map(|(i, _)| i) {
        assert_eq!(parse_calls(&w(&inner[..i])).len(), 1, "{}", &inner[..i]);
    }
}
