package app.porfiry.tests;

import java.util.Objects;

/** Minimal assertions (no JUnit on this machine). */
final class Check {
    private Check() {}

    static void isTrue(boolean cond, String what) {
        if (!cond) {
            throw new AssertionError(what);
        }
    }

    static void eq(Object want, Object got, String what) {
        if (!Objects.equals(want, got)) {
            throw new AssertionError(what + ": want <" + want + "> got <" + got + ">");
        }
    }

    static void contains(String hay, String needle, String what) {
        if (hay == null || !hay.contains(needle)) {
            throw new AssertionError(what + ": <" + hay + "> does not contain <" + needle + ">");
        }
    }

    interface Body {
        void run() throws Exception;
    }

    /** Runs body and returns the exception it threw, failing if it threw none or another type. */
    static <T extends Throwable> T throwsA(Class<T> type, Body body, String what) {
        try {
            body.run();
        } catch (Throwable t) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
            throw new AssertionError(what + ": threw " + t + " instead of " + type.getSimpleName(), t);
        }
        throw new AssertionError(what + ": threw nothing, expected " + type.getSimpleName());
    }

    /** The value of a top-level "key": in a flat JSON text (number, string or bool), as text. */
    static String json(String json, String key) {
        String k = "\"" + key + "\":";
        int at = json.indexOf(k);
        if (at < 0) {
            return null;
        }
        int start = at + k.length();
        if (json.charAt(start) == '"') {
            int end = start + 1;
            while (json.charAt(end) != '"' || json.charAt(end - 1) == '\\') {
                end++;
            }
            return json.substring(start + 1, end);
        }
        int end = start;
        while (end < json.length() && ",}]".indexOf(json.charAt(end)) < 0) {
            end++;
        }
        return json.substring(start, end);
    }
}
