package app.porfiry.core;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * What the assistant needs in the app's files directory, what was found there and, for what is
 * missing, how to put it there.
 *
 * <p>Layout (the push scripts in {@code app-phone/scripts/} write exactly this):
 * <pre>
 *   files/models/*.gguf      the language model (one is chosen in the settings)
 *   files/skills/*.md        the user's skills (knowledge the model reads on demand), over the built-in ones
 *   files/toolsets/*         the user's toolset definitions (groups of tools), over the built-in ones
 *   files/settings.properties
 *   files/catalog.sqlite     the catalog of skills and protocols (the settings screen; see {@link #openCatalog})
 *   files/builtin/, files/kv/  written by the library: the built-in skills and toolsets unpacked from
 *                            libporfiry.so, and the KV snapshots of the prompt head
 * </pre>
 *
 * <p>The repository's skills and toolsets are built into libporfiry.so: the app ships no copies.
 * {@link #openOptions} passes the files directory as the library's data directory and the user's
 * folders only when they exist.
 */
public final class AssistantFiles {
    /** The app's package name (for the adb commands in the explanations). */
    public static final String PACKAGE = "app.porfiry.phone";

    private final File filesDir;
    private final List<File> models;
    private final List<File> skills;
    private final List<File> toolsets;
    private final File chosenModel;
    private final List<String> problems;

    private AssistantFiles(File filesDir, List<File> models, List<File> skills, List<File> toolsets,
                           File chosenModel, List<String> problems) {
        this.filesDir = filesDir;
        this.models = models;
        this.skills = skills;
        this.toolsets = toolsets;
        this.chosenModel = chosenModel;
        this.problems = problems;
    }

    /** The models folder. */
    public static File modelsDir(File filesDir) {
        return new File(filesDir, "models");
    }

    /** The skills folder. */
    public static File skillsDir(File filesDir) {
        return new File(filesDir, "skills");
    }

    /** The catalog file of skills and protocols. */
    public static File catalogFile(File filesDir) {
        return new File(filesDir, "catalog.sqlite");
    }

    /** The toolsets folder. */
    public static File toolsetsDir(File filesDir) {
        return new File(filesDir, "toolsets");
    }

    /** The settings file. */
    public static File settingsFile(File filesDir) {
        return new File(filesDir, "settings.properties");
    }

    /** Looks at {@code filesDir} with the given settings. Never throws on a missing folder. */
    public static AssistantFiles scan(File filesDir, AssistantSettings settings) {
        List<File> models = list(modelsDir(filesDir), ".gguf");
        List<File> skills = list(skillsDir(filesDir), ".md");
        List<File> toolsets = list(toolsetsDir(filesDir), "");
        List<String> problems = new ArrayList<>();
        File chosen = null;
        if (models.isEmpty()) {
            problems.add("No model: " + modelsDir(filesDir) + " has no .gguf file. From a computer "
                    + "with the repository run: app-phone/scripts/push-model --app "
                    + "models/cache/gemma-3-270m-q4_k_m.gguf");
        } else if (settings.modelFile().isEmpty()) {
            chosen = models.get(0);
        } else {
            for (File m : models) {
                if (m.getName().equals(settings.modelFile())) {
                    chosen = m;
                }
            }
            if (chosen == null) {
                problems.add("The model chosen in the settings (" + settings.modelFile()
                        + ") is not in " + modelsDir(filesDir) + "; choose one of: " + names(models));
            }
        }
        if (skills.isEmpty()) {
            problems.add("No skills of your own: " + skillsDir(filesDir) + " has no .md file, so only "
                    + "the built-in skills (in libporfiry.so) are used. To add or change some, run: "
                    + "app-phone/scripts/push-skills --app --skills DIR --toolsets DIR");
        }
        if (toolsets.isEmpty()) {
            problems.add("No toolsets of your own: " + toolsetsDir(filesDir) + " is empty, so only the "
                    + "built-in toolsets (in libporfiry.so) are used. To add or change some, run: "
                    + "app-phone/scripts/push-skills --app --skills DIR --toolsets DIR");
        }
        return new AssistantFiles(filesDir, models, skills, toolsets, chosen,
                Collections.unmodifiableList(problems));
    }

    private static List<File> list(File dir, String suffix) {
        File[] files = dir.listFiles();
        if (files == null) {
            return Collections.emptyList();
        }
        List<File> out = new ArrayList<>();
        for (File f : files) {
            if (f.isFile() && f.getName().endsWith(suffix) && !f.getName().startsWith(".")) {
                out.add(f);
            }
        }
        out.sort((a, b) -> a.getName().compareTo(b.getName()));
        return Collections.unmodifiableList(out);
    }

    private static String names(List<File> files) {
        List<String> n = new ArrayList<>();
        for (File f : files) {
            n.add(f.getName());
        }
        return String.join(", ", n);
    }

    /** Whether the assistant can start: a model was found and chosen. */
    public boolean ready() {
        return chosenModel != null;
    }

    /** The model to load, or null when {@link #ready()} is false. */
    public File chosenModel() {
        return chosenModel;
    }

    /** Every .gguf found, sorted by name. */
    public List<File> models() {
        return models;
    }

    /** Every skill file found. */
    public List<File> skills() {
        return skills;
    }

    /** Every toolset file found. */
    public List<File> toolsets() {
        return toolsets;
    }

    /**
     * The options to open the chosen model with {@code settings}: the files directory as the data
     * directory, the user's skills and toolsets folders when they exist (over the built-in ones),
     * the catalog of skills and protocols (the file the settings screen opens), context, threads
     * and language from the settings.
     *
     * @throws IllegalStateException when no model was chosen ({@link #ready()} is false)
     */
    public AssistantOptions openOptions(AssistantSettings settings) {
        if (chosenModel == null) {
            throw new IllegalStateException("no model chosen: " + problems);
        }
        AssistantOptions o = new AssistantOptions(chosenModel.getPath())
                .dataDir(filesDir.getPath())
                .context(settings.contextTokens())
                .threads(settings.threads())
                .language(settings.language())
                .catalog(catalogFile(filesDir).getPath());
        if (skillsDir(filesDir).isDirectory()) {
            o.skills(skillsDir(filesDir).getPath());
        }
        if (toolsetsDir(filesDir).isDirectory()) {
            o.toolsets(toolsetsDir(filesDir).getPath());
        }
        return o;
    }

    /**
     * Opens the catalog file for the settings screen (no model needed): the built-in skills and
     * the user's skills folder are synced in as shared entries, as {@link #openOptions} loads
     * them. The assistant gets the same file through {@link #openOptions}.
     */
    public Catalog openCatalog() {
        List<String> dirs = new ArrayList<>();
        if (skillsDir(filesDir).isDirectory()) {
            dirs.add(skillsDir(filesDir).getPath());
        }
        return Catalog.open(catalogFile(filesDir).getPath(), filesDir.getPath(), dirs);
    }

    /** What is missing, each with how to fix it; empty when everything is there. */
    public List<String> problems() {
        return problems;
    }

    /** A human-readable summary: what was found, then what is missing. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append("Files: ").append(filesDir).append('\n');
        sb.append("Models (").append(models.size()).append("): ")
                .append(models.isEmpty() ? "none" : names(models)).append('\n');
        if (chosenModel != null) {
            sb.append("Using model: ").append(chosenModel.getName()).append(" (")
                    .append(chosenModel.length() / (1024 * 1024)).append(" MiB)\n");
        }
        sb.append("Skills (").append(skills.size()).append("): ")
                .append(skills.isEmpty() ? "none" : names(skills)).append('\n');
        sb.append("Toolsets (").append(toolsets.size()).append("): ")
                .append(toolsets.isEmpty() ? "none" : names(toolsets)).append('\n');
        for (String p : problems) {
            sb.append("! ").append(p).append('\n');
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return "AssistantFiles" + Arrays.asList(models, skills, toolsets);
    }
}
