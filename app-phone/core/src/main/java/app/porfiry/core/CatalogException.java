package app.porfiry.core;

/**
 * The catalog store refused a call or failed: {@link #getMessage()} is the store's own text,
 * verbatim (the settings screen shows it as it is, e.g. {@code "a protocol needs these keys:
 * missing post_checks, on_blocked"}); {@link #code()} says which kind of refusal it is.
 */
public final class CatalogException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The document is not one the store accepts (format, missing keys, bad values). */
    public static final String INVALID_DOCUMENT = "invalid_document";
    /** No such entry, proposal or run. */
    public static final String NOT_FOUND = "not_found";
    /** Another entry of this owner and kind has the name. */
    public static final String DUPLICATE = "duplicate";
    /** A shared entry (imported from the skill folders) cannot be changed. */
    public static final String READ_ONLY = "read_only";
    /** A document of the other kind cannot replace an entry. */
    public static final String KIND_CHANGED = "kind_changed";
    /** The proposal was decided already. */
    public static final String ALREADY_DECIDED = "already_decided";
    /** Accepting was refused by the store; the proposal stays pending with the reason. */
    public static final String PROPOSAL_REFUSED = "proposal_refused";
    /** The file was written by a newer Porfiry; it was not changed. */
    public static final String NEWER_SCHEMA = "newer_schema";
    /** The file is not a catalog; it was not changed. */
    public static final String NOT_A_CATALOG = "not_a_catalog";

    private final String code;

    /** Thrown by the library with the store's code and message. */
    public CatalogException(String code, String message) {
        super(message);
        this.code = code;
    }

    /**
     * One of the constants above, or {@code "ambiguous"}, {@code "corrupt"}, {@code "database"},
     * {@code "refused"} (anything else the store refuses).
     */
    public String code() {
        return code;
    }
}
