package app.porfiry.core;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Properties;

/**
 * The user's settings (model file, language, context, threads), stored as a properties file in
 * the app's files directory. Immutable; {@code with*} methods return a changed copy.
 */
public final class AssistantSettings {
    /** Languages the assistant speaks (the model's message texts and text-to-speech). */
    public static final String[] LANGUAGES = {"ru", "en"};

    private final String modelFile;
    private final String language;
    private final int contextTokens;
    private final int threads;

    /** Settings with every field given. Unknown languages fall back to {@code "ru"}. */
    public AssistantSettings(String modelFile, String language, int contextTokens, int threads) {
        this.modelFile = modelFile == null ? "" : modelFile.trim();
        this.language = isKnownLanguage(language) ? language : "ru";
        this.contextTokens = Math.max(0, contextTokens);
        this.threads = Math.max(0, threads);
    }

    /** Defaults: no model chosen (the first one found is used), Russian, engine defaults. */
    public static AssistantSettings defaults() {
        return new AssistantSettings("", "ru", 0, 0);
    }

    private static boolean isKnownLanguage(String language) {
        for (String l : LANGUAGES) {
            if (l.equals(language)) {
                return true;
            }
        }
        return false;
    }

    /** The chosen model's file name inside the models folder; empty when none was chosen. */
    public String modelFile() {
        return modelFile;
    }

    /** {@code "ru"} or {@code "en"}. */
    public String language() {
        return language;
    }

    /** Context window in tokens; 0 means the engine's default. */
    public int contextTokens() {
        return contextTokens;
    }

    /** Inference threads; 0 means the engine's default. */
    public int threads() {
        return threads;
    }

    /** A copy with another model file. */
    public AssistantSettings withModelFile(String file) {
        return new AssistantSettings(file, language, contextTokens, threads);
    }

    /** A copy with another language. */
    public AssistantSettings withLanguage(String lang) {
        return new AssistantSettings(modelFile, lang, contextTokens, threads);
    }

    /** A copy with other context and thread counts. */
    public AssistantSettings withResources(int context, int threadCount) {
        return new AssistantSettings(modelFile, language, context, threadCount);
    }

    /** Reads settings from {@code file}; a missing file gives the defaults, bad numbers give 0. */
    public static AssistantSettings load(File file) throws IOException {
        if (!file.isFile()) {
            return defaults();
        }
        Properties p = new Properties();
        try (InputStream in = new FileInputStream(file)) {
            p.load(in);
        }
        return new AssistantSettings(p.getProperty("model", ""), p.getProperty("language", "ru"),
                parse(p.getProperty("context")), parse(p.getProperty("threads")));
    }

    private static int parse(String s) {
        if (s == null) {
            return 0;
        }
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Writes the settings to {@code file} (UTF-8 safe: properties escape non-ASCII). */
    public void save(File file) throws IOException {
        Properties p = new Properties();
        p.setProperty("model", modelFile);
        p.setProperty("language", language);
        p.setProperty("context", Integer.toString(contextTokens));
        p.setProperty("threads", Integer.toString(threads));
        File parent = file.getParentFile();
        if (parent != null && !parent.isDirectory() && !parent.mkdirs()) {
            throw new IOException("cannot create " + parent);
        }
        try (OutputStream out = new FileOutputStream(file)) {
            p.store(out, "Porfiry settings");
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof AssistantSettings)) {
            return false;
        }
        AssistantSettings s = (AssistantSettings) o;
        return modelFile.equals(s.modelFile) && language.equals(s.language)
                && contextTokens == s.contextTokens && threads == s.threads;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(modelFile, language, contextTokens, threads);
    }

    @Override
    public String toString() {
        return "AssistantSettings{model=" + modelFile + ", language=" + language
                + ", context=" + contextTokens + ", threads=" + threads + "}";
    }
}
