package app.porfiry.core;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.FileInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The app's media library, the data behind the {@code media_*} tools.
 *
 * <p>Read from a UTF-8 TSV file ({@code id<TAB>title<TAB>year<TAB>description}, {@code #} starts
 * a comment) in the app's files directory ({@code files/media/catalog.tsv}); the app ships a small
 * built-in sample when the file is absent.
 */
public final class MediaCatalog {
    /** One title. */
    public static final class Item {
        /** Stable id the model passes to media_info / media_play. */
        public final String id;
        /** Title as displayed. */
        public final String title;
        /** Release year (0 when unknown). */
        public final int year;
        /** One-paragraph description. */
        public final String description;

        /** An item. */
        public Item(String id, String title, int year, String description) {
            this.id = id;
            this.title = title;
            this.year = year;
            this.description = description;
        }
    }

    private final List<Item> items;

    /** A catalog of the given items. */
    public MediaCatalog(List<Item> items) {
        this.items = Collections.unmodifiableList(new ArrayList<>(items));
    }

    /** The built-in sample library. */
    public static MediaCatalog sample() {
        List<Item> l = new ArrayList<>();
        l.add(new Item("tomb-raider-2018", "Tomb Raider: Лара Крофт", 2018,
                "Лара Крофт ищет отца на острове у берегов Японии."));
        l.add(new Item("tomb-raider-2001", "Lara Croft: Tomb Raider", 2001,
                "Lara Croft races to find the two halves of an ancient triangle."));
        l.add(new Item("stalker-1979", "Сталкер", 1979,
                "Проводник ведёт писателя и учёного через Зону к Комнате."));
        l.add(new Item("solaris-1972", "Солярис", 1972,
                "Психолог прилетает на станцию над океаном планеты Солярис."));
        l.add(new Item("arrival-2016", "Arrival", 2016,
                "A linguist learns the language of visitors whose ships hover over Earth."));
        return new MediaCatalog(l);
    }

    /** Reads a TSV catalog. Malformed lines are skipped; an unreadable file throws. */
    public static MediaCatalog load(File tsv) throws IOException {
        List<Item> l = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(
                new InputStreamReader(new FileInputStream(tsv), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\t", -1);
                if (f.length < 2 || f[0].trim().isEmpty()) {
                    continue;
                }
                int year = 0;
                if (f.length > 2) {
                    try {
                        year = Integer.parseInt(f[2].trim());
                    } catch (NumberFormatException e) {
                        year = 0;
                    }
                }
                l.add(new Item(f[0].trim(), f[1].trim(), year, f.length > 3 ? f[3].trim() : ""));
            }
        }
        return new MediaCatalog(l);
    }

    /** Every item. */
    public List<Item> items() {
        return items;
    }

    /** Items whose title or description contains every word of {@code query} (case-insensitive). */
    public List<Item> search(String query, int limit) {
        String[] words = query.toLowerCase(Locale.ROOT).trim().split("\\s+");
        List<Item> out = new ArrayList<>();
        for (Item it : items) {
            String hay = (it.title + " " + it.description + " " + it.id).toLowerCase(Locale.ROOT);
            boolean all = true;
            for (String w : words) {
                if (!w.isEmpty() && !hay.contains(w)) {
                    all = false;
                    break;
                }
            }
            if (all) {
                out.add(it);
                if (out.size() == limit) {
                    break;
                }
            }
        }
        return out;
    }

    /** The item with this id, or null. */
    public Item byId(String id) {
        for (Item it : items) {
            if (it.id.equals(id.trim())) {
                return it;
            }
        }
        return null;
    }
}
