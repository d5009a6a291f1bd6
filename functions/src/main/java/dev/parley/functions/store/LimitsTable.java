package dev.parley.functions.store;

/**
 * The rate limits' token buckets: one item per bucket ({@link #BUCKET}, e.g. {@code publisher#<arn>}), the tokens it held
 * ({@link #TOKENS}) when it was last taken from ({@link #AT}, epoch ms). TTL ({@link #EXPIRES}) removes a bucket an hour
 * after it would be full again: a missing bucket is a full one.
 */
public final class LimitsTable {
    public static final String BUCKET = "bucket";
    public static final String TOKENS = "tokens";
    public static final String AT = "at";
    public static final String EXPIRES = "expiresAt";

    private LimitsTable() {
    }
}
