package app.porfiry.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/** A bounded, thread-safe log of what the assistant did (tool calls, shown text, errors). */
public final class ToolActivityLog {
    /** One line of the log. */
    public static final class Entry {
        /** What happened. */
        public enum Kind { TOOL_STARTED, TOOL_FINISHED, TOOL_FAILED, SHOW_TEXT, ERROR }

        /** What happened. */
        public final Kind kind;
        /** The tool name (empty for SHOW_TEXT and ERROR). */
        public final String tool;
        /** Arguments, result, shown text or error message. */
        public final String detail;

        Entry(Kind kind, String tool, String detail) {
            this.kind = kind;
            this.tool = tool;
            this.detail = detail;
        }

        @Override
        public String toString() {
            switch (kind) {
                case TOOL_STARTED: return "→ " + tool + "|" + detail;
                case TOOL_FINISHED: return "✓ " + tool + ": " + detail;
                case TOOL_FAILED: return "✗ " + tool + ": " + detail;
                case SHOW_TEXT: return "▣ " + detail;
                default: return "! " + detail;
            }
        }
    }

    private final int capacity;
    private final Deque<Entry> entries = new ArrayDeque<>();

    /** A log that keeps the last {@code capacity} entries. */
    public ToolActivityLog(int capacity) {
        this.capacity = Math.max(1, capacity);
    }

    synchronized void add(Entry.Kind kind, String tool, String detail) {
        if (entries.size() == capacity) {
            entries.removeFirst();
        }
        entries.addLast(new Entry(kind, tool == null ? "" : tool, detail == null ? "" : detail));
    }

    /** The entries, oldest first. */
    public synchronized List<Entry> entries() {
        return new ArrayList<>(entries);
    }
}
