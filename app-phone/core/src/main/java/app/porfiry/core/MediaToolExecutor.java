package app.porfiry.core;

import java.util.List;

/**
 * Executes the {@code media} toolset ({@code toolsets/media.yaml}) over a {@link MediaCatalog}:
 * {@code media_search|query}, {@code media_info|id}, {@code media_play|id[|play|pause|stop]}.
 * Arguments arrive positional, {@code |}-separated, in declaration order.
 *
 * <p>Replies are compact data lines for a small model ({@code id | title (year)}). Bad arguments
 * throw {@link IllegalArgumentException}; the bridge turns that into a tool error that tells the
 * model what went wrong.
 */
public final class MediaToolExecutor implements ToolExecutor {
    /** Plays a title (on Android: an intent to the player app). */
    public interface Player {
        /** Start playing {@code item}. */
        void play(MediaCatalog.Item item);

        /** Pause or stop what is playing ({@code "pause"} or {@code "stop"}). */
        default void control(String action) {
        }
    }

    private static final int SEARCH_LIMIT = 5;

    private final MediaCatalog catalog;
    private final Player player;

    /** An executor over {@code catalog} that starts playback with {@code player}. */
    public MediaToolExecutor(MediaCatalog catalog, Player player) {
        this.catalog = catalog;
        this.player = player;
    }

    @Override
    public String execute(String tool, String args) {
        String a = args == null ? "" : args.trim();
        switch (tool) {
            case "media_search": {
                if (a.isEmpty()) {
                    throw new IllegalArgumentException("media_search needs a query: media_search|<title words>");
                }
                List<MediaCatalog.Item> found = catalog.search(a, SEARCH_LIMIT);
                if (found.isEmpty()) {
                    return "0 results for: " + a;
                }
                StringBuilder sb = new StringBuilder();
                for (MediaCatalog.Item it : found) {
                    if (sb.length() > 0) {
                        sb.append('\n');
                    }
                    sb.append(it.id).append(" | ").append(it.title);
                    if (it.year > 0) {
                        sb.append(" (").append(it.year).append(')');
                    }
                }
                return sb.toString();
            }
            case "media_info": {
                MediaCatalog.Item it = require(tool, a);
                return it.id + " | " + it.title + (it.year > 0 ? " (" + it.year + ")" : "")
                        + "\n" + it.description;
            }
            case "media_play": {
                String[] parts = a.split("\\|", -1);
                MediaCatalog.Item it = require(tool, parts[0].trim());
                String action = parts.length > 1 && !parts[1].trim().isEmpty() ? parts[1].trim() : "play";
                switch (action) {
                    case "play":
                        player.play(it);
                        return "playing: " + it.id + " | " + it.title;
                    case "pause":
                    case "stop":
                        player.control(action);
                        return action + ": " + it.id;
                    default:
                        throw new IllegalArgumentException("media_play action must be play, pause or stop, got " + action);
                }
            }
            default:
                throw new IllegalArgumentException("unknown media tool: " + tool
                        + " (known: media_search, media_info, media_play)");
        }
    }

    private MediaCatalog.Item require(String tool, String id) {
        if (id.isEmpty()) {
            throw new IllegalArgumentException(tool + " needs an id from media_search: " + tool + "|<id>");
        }
        MediaCatalog.Item it = catalog.byId(id);
        if (it == null) {
            throw new IllegalArgumentException("no title with id " + id + "; use an id from media_search");
        }
        return it;
    }
}
