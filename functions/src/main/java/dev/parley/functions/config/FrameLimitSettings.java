package dev.parley.functions.config;

import dev.parley.functions.runtime.FunctionEnvironment;
import dev.parley.functions.usecase.FrameLimits;
import dev.parley.ports.RateLimits;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The frame functions' rate limits from their environment: each limit as {@code PER_SECOND/BURST}, the connection cap as a
 * number. The manifest sets the defaults ({@link FrameLimits.Settings#DEFAULTS}); the stack's {@code parley:rateLimits} and
 * {@code scripts/run-local --rate-limit} override them. A bad value fails the cold start, naming the variable.
 */
public final class FrameLimitSettings {
    public static final String MESSAGES = "PARLEY_LIMIT_MESSAGES";
    public static final String CREATIONS = "PARLEY_LIMIT_CREATIONS";
    public static final String PRESENCE = "PARLEY_LIMIT_PRESENCE";
    public static final String READS = "PARLEY_LIMIT_READS";
    public static final String FRAMES = "PARLEY_LIMIT_FRAMES";
    public static final String KEY_FETCHES = "PARLEY_LIMIT_KEY_FETCHES";
    public static final String KEY_FETCHES_OF_ONE_USER = "PARLEY_LIMIT_KEY_FETCHES_OF_ONE_USER";
    public static final String MEDIA_GRANTS = "PARLEY_LIMIT_MEDIA_GRANTS";
    public static final String MEDIA_BYTES = "PARLEY_LIMIT_MEDIA_BYTES";
    public static final String CONNECTIONS_PER_USER = "PARLEY_LIMIT_CONNECTIONS_PER_USER";
    /** The names settings use for each (the stack's context and run-local's option), to their variables. */
    public static final Map<String, String> NAMES = Map.of("messages", MESSAGES, "creations", CREATIONS, "presence", PRESENCE, "reads", READS,
            "frames", FRAMES, "key_fetches", KEY_FETCHES, "key_fetches_of_one_user", KEY_FETCHES_OF_ONE_USER, "media_grants", MEDIA_GRANTS,
            "media_bytes", MEDIA_BYTES, "connections_per_user", CONNECTIONS_PER_USER);

    private FrameLimitSettings() {
    }

    public static FrameLimits.Settings fromEnvironment() {
        FrameLimits.Settings defaults = FrameLimits.Settings.DEFAULTS;
        return new FrameLimits.Settings(limit(MESSAGES, defaults.messages()), limit(CREATIONS, defaults.creations()),
                limit(PRESENCE, defaults.presence()), limit(READS, defaults.reads()), limit(FRAMES, defaults.frames()),
                limit(KEY_FETCHES, defaults.keyFetches()), limit(KEY_FETCHES_OF_ONE_USER, defaults.keyFetchesOfOneUser()),
                limit(MEDIA_GRANTS, defaults.mediaGrants()), limit(MEDIA_BYTES, defaults.mediaBytes()), connections(defaults.connectionsPerUser()));
    }

    /** The variables for Parley's defaults, as the manifest gives them to the frame functions. */
    public static Map<String, String> defaultEnvironment() {
        return environment(FrameLimits.Settings.DEFAULTS);
    }

    /** The most connections a user may hold at once unless the deployment says otherwise. */
    public static String defaultConnectionsPerUser() {
        return Integer.toString(FrameLimits.Settings.DEFAULTS.connectionsPerUser());
    }

    static Map<String, String> environment(FrameLimits.Settings settings) {
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put(MESSAGES, settings.messages().toString());
        environment.put(CREATIONS, settings.creations().toString());
        environment.put(PRESENCE, settings.presence().toString());
        environment.put(READS, settings.reads().toString());
        environment.put(FRAMES, settings.frames().toString());
        environment.put(KEY_FETCHES, settings.keyFetches().toString());
        environment.put(KEY_FETCHES_OF_ONE_USER, settings.keyFetchesOfOneUser().toString());
        environment.put(MEDIA_GRANTS, settings.mediaGrants().toString());
        environment.put(MEDIA_BYTES, settings.mediaBytes().toString());
        environment.put(CONNECTIONS_PER_USER, Integer.toString(settings.connectionsPerUser()));
        return environment;
    }

    /** Checks one setting's value as the functions would read it; the message names the setting. */
    public static void check(String name, String value) {
        String variable = NAMES.get(name);
        if (variable == null) {
            throw new IllegalArgumentException("no rate limit '" + name + "'; there are " + NAMES.keySet());
        }
        if (variable.equals(CONNECTIONS_PER_USER)) {
            parseConnections(variable, value);
        } else {
            parseLimit(variable, value);
        }
    }

    private static RateLimits.Limit limit(String variable, RateLimits.Limit fallback) {
        return FunctionEnvironment.get(variable).map(value -> parseLimit(variable, value)).orElse(fallback);
    }

    private static int connections(int fallback) {
        return FunctionEnvironment.get(CONNECTIONS_PER_USER).map(value -> parseConnections(CONNECTIONS_PER_USER, value)).orElse(fallback);
    }

    private static RateLimits.Limit parseLimit(String variable, String value) {
        try {
            return RateLimits.Limit.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(variable + ": " + e.getMessage(), e);
        }
    }

    private static int parseConnections(String variable, String value) {
        try {
            int connections = Integer.parseInt(value.strip());
            if (connections < 1 || connections > 1000) {
                throw new NumberFormatException();
            }
            return connections;
        } catch (NumberFormatException e) {
            throw new IllegalStateException(variable + " must be a whole number of connections, 1 to 1000, was '" + value + "'");
        }
    }
}
