package app.porfiry.core;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The options of {@link PorfiryNative#open}, written as its JSON object. A builder: each setter
 * returns this; options left unset are left out, so the library's defaults apply. Not
 * thread-safe.
 *
 * <pre>
 *   Assistant a = Assistant.open(new AssistantOptions(modelPath)
 *           .dataDir(filesDir.getPath()).skills(skillsDir).context(2048).language("ru"));
 * </pre>
 */
public final class AssistantOptions {
    private final Map<String, Object> values = new LinkedHashMap<>();
    private final List<String> skills = new ArrayList<>();
    private final List<String> toolsets = new ArrayList<>();

    /** Options for {@code model}: a GGUF path or a model id of the library's manifest. */
    public AssistantOptions(String model) {
        values.put("model", model);
    }

    /** Adds a folder of the user's skills (loaded over the built-in ones). */
    public AssistantOptions skills(String dir) {
        skills.add(dir);
        return this;
    }

    /** Adds a folder of the user's toolsets (loaded over the built-in ones). */
    public AssistantOptions toolsets(String dir) {
        toolsets.add(dir);
        return this;
    }

    /** Whether the built-in skills and toolsets (embedded in the library) load first (default true). */
    public AssistantOptions builtin(boolean on) {
        values.put("builtin", on);
        return this;
    }

    /** Context window in tokens (0: the model's recommended default). */
    public AssistantOptions context(int tokens) {
        values.put("context", tokens);
        return this;
    }

    /** CPU threads for inference (0: the engine's default). */
    public AssistantOptions threads(int n) {
        values.put("threads", n);
        return this;
    }

    /**
     * CPU threads for prompt batches (prefill), when they should differ from {@link #threads}
     * (which then counts for one-token decodes); 0: the same as {@code threads}.
     */
    public AssistantOptions threadsBatch(int n) {
        values.put("threads_batch", n);
        return this;
    }

    /** Most tokens per generation (0: the engine's default). */
    public AssistantOptions maxTokens(int n) {
        values.put("max_tokens", n);
        return this;
    }

    /** Sessions whose KV cache is kept at once (default 1). */
    public AssistantOptions sessions(int n) {
        values.put("sessions", n);
        return this;
    }

    /** {@code "ru"} (default) or {@code "en"}. */
    public AssistantOptions language(String code) {
        values.put("language", code);
        return this;
    }

    /** {@code "gemma"} or {@code "chatml"} (default: known from the model). */
    public AssistantOptions chatFormat(String format) {
        values.put("chat_format", format);
        return this;
    }

    /** The data directory: the built-ins are unpacked there and snapshots kept in its {@code kv/}. */
    public AssistantOptions dataDir(String dir) {
        values.put("data_dir", dir);
        return this;
    }

    /** Where head snapshots go (default {@code <dataDir>/kv}). */
    public AssistantOptions kvDir(String dir) {
        values.put("kv_dir", dir);
        return this;
    }

    /** The deadline of the library's own host tools, in milliseconds. */
    public AssistantOptions toolTimeoutMs(long ms) {
        values.put("tool_timeout_ms", ms);
        return this;
    }

    /** The time one turn may take, in milliseconds (default 20000; 0: no limit). */
    public AssistantOptions turnBudgetMs(long ms) {
        values.put("turn_budget_ms", ms);
        return this;
    }

    /**
     * Barge-in (default on): a new message interrupts the session's running turn and takes in
     * its queued ones; off: every message is answered in order.
     */
    public AssistantOptions bargeIn(boolean on) {
        values.put("barge_in", on);
        return this;
    }

    /**
     * The catalog file of skills and protocols: the agent's {@code skills} toolset runs over it
     * (search, load, create skills, propose protocols). The settings screen opens the same file
     * with {@link Catalog#open(String, AssistantOptions)}.
     */
    public AssistantOptions catalog(String path) {
        values.put("catalog", path);
        return this;
    }

    /**
     * The JSON object {@link PorfiryNative#catalogOpen} takes for {@code path}, with this
     * assistant's skill folders, built-ins and data directory: the settings screen syncs the same
     * shared entries the assistant does.
     */
    public String catalogJson(String path) {
        StringBuilder sb = new StringBuilder("{");
        boolean first = key(sb, "path", true);
        quote(sb, path);
        for (String k : new String[] {"builtin", "data_dir"}) {
            Object v = values.get(k);
            if (v == null) {
                continue;
            }
            first = key(sb, k, first);
            if (v instanceof String) {
                quote(sb, (String) v);
            } else {
                sb.append(v);
            }
        }
        list(sb, "skills", skills, first);
        return sb.append('}').toString();
    }

    /** The JSON object {@link PorfiryNative#open} takes. */
    public String toJson() {
        StringBuilder sb = new StringBuilder("{");
        boolean first = true;
        for (Map.Entry<String, Object> e : values.entrySet()) {
            first = key(sb, e.getKey(), first);
            Object v = e.getValue();
            if (v instanceof String) {
                quote(sb, (String) v);
            } else {
                sb.append(v);
            }
        }
        first = list(sb, "skills", skills, first);
        list(sb, "toolsets", toolsets, first);
        return sb.append('}').toString();
    }

    private static boolean list(StringBuilder sb, String name, List<String> items, boolean first) {
        if (items.isEmpty()) {
            return first;
        }
        key(sb, name, first);
        sb.append('[');
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            quote(sb, items.get(i));
        }
        sb.append(']');
        return false;
    }

    private static boolean key(StringBuilder sb, String key, boolean first) {
        if (!first) {
            sb.append(',');
        }
        quote(sb, key);
        sb.append(':');
        return false;
    }

    /** Appends {@code s} as a JSON string. */
    static void quote(StringBuilder sb, String s) {
        if (s == null) {
            sb.append("null");
            return;
        }
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                default:
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }

    @Override
    public String toString() {
        return toJson();
    }
}
