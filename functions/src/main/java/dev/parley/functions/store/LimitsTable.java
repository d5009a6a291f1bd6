package dev.parley.functions.store;

/**
 * The rate limits' windows: one item per limit and window ({@link #BUCKET}: {@code publisher#<arn>#<window start, epoch ms>}),
 * holding what the window admitted so far ({@link #USED}). TTL ({@link #EXPIRES}) removes it an hour after the window ends.
 */
public final class LimitsTable {
    public static final String BUCKET = "bucket";
    public static final String USED = "used";
    public static final String EXPIRES = "expiresAt";

    private LimitsTable() {
    }
}
