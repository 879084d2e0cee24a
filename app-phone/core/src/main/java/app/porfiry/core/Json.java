package app.porfiry.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small reader of the JSON the library returns (no Android classes, no dependencies): objects
 * become {@code Map<String, Object>} (key order kept), arrays {@code List<Object>}, strings
 * {@code String}, integers {@code Long}, other numbers {@code Double}, {@code true}/{@code false}
 * {@code Boolean}, {@code null} null. Malformed text throws {@link IllegalArgumentException}.
 */
public final class Json {
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    /** Parses one JSON value (surrounding whitespace allowed, nothing else after it). */
    public static Object parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("JSON text is null");
        }
        Json p = new Json(text);
        Object v = p.value(0);
        p.space();
        if (p.at != text.length()) {
            throw p.error("text after the value");
        }
        return v;
    }

    /** {@code text} as a JSON object. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(String text) {
        Object v = parse(text);
        if (!(v instanceof Map)) {
            throw new IllegalArgumentException("not a JSON object: " + text);
        }
        return (Map<String, Object>) v;
    }

    /** {@code text} as a JSON array. */
    @SuppressWarnings("unchecked")
    public static List<Object> array(String text) {
        Object v = parse(text);
        if (!(v instanceof List)) {
            throw new IllegalArgumentException("not a JSON array: " + text);
        }
        return (List<Object>) v;
    }

    /** The string at {@code key} (null when absent or null). */
    public static String string(Map<String, Object> o, String key) {
        Object v = o.get(key);
        return v == null ? null : v.toString();
    }

    /** The integer at {@code key} ({@code orElse} when absent or null). */
    public static long number(Map<String, Object> o, String key, long orElse) {
        Object v = o.get(key);
        return v instanceof Number ? ((Number) v).longValue() : orElse;
    }

    /** The boolean at {@code key} ({@code false} when absent). */
    public static boolean bool(Map<String, Object> o, String key) {
        return Boolean.TRUE.equals(o.get(key));
    }

    /** The object at {@code key} (empty when absent or null). */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> child(Map<String, Object> o, String key) {
        Object v = o.get(key);
        return v instanceof Map ? (Map<String, Object>) v : Collections.emptyMap();
    }

    /** The array at {@code key} (empty when absent or null). */
    @SuppressWarnings("unchecked")
    public static List<Object> list(Map<String, Object> o, String key) {
        Object v = o.get(key);
        return v instanceof List ? (List<Object>) v : Collections.emptyList();
    }

    /** The array of strings at {@code key}. */
    public static List<String> strings(Map<String, Object> o, String key) {
        List<String> out = new ArrayList<>();
        for (Object v : list(o, key)) {
            out.add(v == null ? null : v.toString());
        }
        return Collections.unmodifiableList(out);
    }

    private static final int MAX_DEPTH = 64;

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("bad JSON at " + at + ": " + what);
    }

    private void space() {
        while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) {
            throw error("nested too deep");
        }
        space();
        if (at >= text.length()) {
            throw error("unexpected end");
        }
        char c = text.charAt(at);
        switch (c) {
            case '{':
                return object(depth);
            case '[':
                return array(depth);
            case '"':
                return string();
            case 't':
                return word("true", Boolean.TRUE);
            case 'f':
                return word("false", Boolean.FALSE);
            case 'n':
                return word("null", null);
            default:
                return number();
        }
    }

    private Object word(String w, Object v) {
        if (!text.startsWith(w, at)) {
            throw error("unexpected character");
        }
        at += w.length();
        return v;
    }

    private Map<String, Object> object(int depth) {
        Map<String, Object> map = new LinkedHashMap<>();
        at++;
        space();
        if (at < text.length() && text.charAt(at) == '}') {
            at++;
            return map;
        }
        while (true) {
            space();
            if (at >= text.length() || text.charAt(at) != '"') {
                throw error("expected a key");
            }
            String key = string();
            space();
            expect(':');
            map.put(key, value(depth + 1));
            space();
            if (at < text.length() && text.charAt(at) == ',') {
                at++;
                continue;
            }
            expect('}');
            return map;
        }
    }

    private List<Object> array(int depth) {
        List<Object> list = new ArrayList<>();
        at++;
        space();
        if (at < text.length() && text.charAt(at) == ']') {
            at++;
            return list;
        }
        while (true) {
            list.add(value(depth + 1));
            space();
            if (at < text.length() && text.charAt(at) == ',') {
                at++;
                continue;
            }
            expect(']');
            return list;
        }
    }

    private void expect(char c) {
        if (at >= text.length() || text.charAt(at) != c) {
            throw error("expected '" + c + "'");
        }
        at++;
    }

    private String string() {
        at++;
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (at >= text.length()) {
                throw error("unclosed string");
            }
            char c = text.charAt(at++);
            if (c == '"') {
                return sb.toString();
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (at >= text.length()) {
                throw error("unclosed escape");
            }
            char e = text.charAt(at++);
            switch (e) {
                case '"':
                case '\\':
                case '/':
                    sb.append(e);
                    break;
                case 'b':
                    sb.append('\b');
                    break;
                case 'f':
                    sb.append('\f');
                    break;
                case 'n':
                    sb.append('\n');
                    break;
                case 'r':
                    sb.append('\r');
                    break;
                case 't':
                    sb.append('\t');
                    break;
                case 'u':
                    if (at + 4 > text.length()) {
                        throw error("short \\u escape");
                    }
                    try {
                        sb.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    } catch (NumberFormatException ex) {
                        throw error("bad \\u escape");
                    }
                    at += 4;
                    break;
                default:
                    throw error("bad escape");
            }
        }
    }

    private Object number() {
        int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
        String n = text.substring(start, at);
        if (n.isEmpty()) {
            throw error("unexpected character");
        }
        try {
            if (n.indexOf('.') < 0 && n.indexOf('e') < 0 && n.indexOf('E') < 0) {
                return Long.parseLong(n);
            }
            return Double.parseDouble(n);
        } catch (NumberFormatException ex) {
            throw error("bad number " + n);
        }
    }
}
