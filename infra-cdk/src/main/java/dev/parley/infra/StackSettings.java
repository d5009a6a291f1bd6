package dev.parley.infra;

import dev.parley.functions.config.ParleyConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import software.amazon.awscdk.services.logs.RetentionDays;

/**
 * What an engineer may choose at deploy time without touching code, read from CDK context
 * ({@code cdk deploy -c parley:stage=prod}, or cdk.json). Secrets are never here: the JWT secret or
 * JWKS URL are stack parameters, and push credentials are named Secrets Manager secrets.
 *
 * @param stackName     the CloudFormation stack's name
 * @param functionsJar  the one artifact every function runs ({@code mvn package} builds it)
 * @param stageName     the WebSocket API stage, the last part of the URL
 * @param throttleRate  the stage's steady request rate limit, per second
 * @param throttleBurst the stage's burst limit
 * @param logRetention  how long function logs are kept
 * @param retainData    keep the tables (and their data) when the stack is deleted
 * @param fcmSecret     a Secrets Manager secret holding the FCM service-account JSON; none, no Android push
 * @param apnsSecret    a Secrets Manager secret with JSON keys signingKey, keyId, teamId, bundleId; none, no iOS push
 * @param apnsSandbox   register the APNs application against Apple's sandbox (development builds)
 * @param pushCredentialsRevision a number to change after changing a push secret's value, so the
 *                      platform applications are updated with it (CloudFormation does not notice
 *                      a secret's new value by itself)
 * @param logSamplePercent the percentage of messages whose per-message log lines the functions write
 *                      (errors, warnings and metrics are always written)
 * @param fastPathMaxConnections the send's fast path (docs/functions.md): conversations of at most this
 *                      many members and live connections are delivered by the send itself; 0 turns it off
 * @param pushWindowSeconds how long after a push a device gets no other for the same conversation
 *                      (docs/functions.md, "Offline push"), 1 to 3600
 * @param webSocketAccessLogs write the WebSocket stage's access log (connects, frames, disconnects); needs the account's
 *                      API Gateway CloudWatch Logs role, set once per account and region (docs/deploy.md)
 * @param mediaRetentionDays how long media objects stay before the bucket's lifecycle rule deletes them
 * @param mediaMaxBytes the largest media object an upload grant allows
 * @param mediaCorsOrigins the web origins browsers may upload and download media from (none: apps only)
 * @param topicReadAbove topics with more subscribers than this fan out on read (docs/notifications.md)
 * @param editWindowMinutes how long after sending a sender may edit a message (docs/protocol.md, "Messages that change")
 * @param deleteWindowHours how long after sending a sender may delete a message for everyone (a group's admins: any time)
 */
public record StackSettings(
        String stackName,
        Path functionsJar,
        String stageName,
        int throttleRate,
        int throttleBurst,
        RetentionDays logRetention,
        boolean retainData,
        Optional<String> fcmSecret,
        Optional<String> apnsSecret,
        boolean apnsSandbox,
        int pushCredentialsRevision,
        int fastPathMaxConnections,
        int logSamplePercent,
        int pushWindowSeconds,
        String notificationCategories,
        String publishers,
        Map<String, String> rateLimits,
        boolean webSocketAccessLogs,
        int mediaRetentionDays,
        long mediaMaxBytes,
        List<String> mediaCorsOrigins,
        int topicReadAbove,
        long editWindowMinutes,
        long deleteWindowHours) {

    public static final String STACK_NAME = "parley:stackName";
    public static final String STAGE = "parley:stage";
    public static final String THROTTLE_RATE = "parley:throttleRate";
    public static final String THROTTLE_BURST = "parley:throttleBurst";
    public static final String LOG_RETENTION_DAYS = "parley:logRetentionDays";
    public static final String RETAIN_DATA = "parley:retainData";
    public static final String FCM_SECRET = "parley:fcmSecret";
    public static final String APNS_SECRET = "parley:apnsSecret";
    public static final String APNS_SANDBOX = "parley:apnsSandbox";
    public static final String PUSH_CREDENTIALS_REVISION = "parley:pushCredentialsRevision";
    public static final String FUNCTIONS_JAR = "parley:functionsJar";
    public static final String FAST_PATH_MAX_CONNECTIONS = "parley:fastPathMaxConnections";
    public static final String LOG_SAMPLE_PERCENT = "parley:logSamplePercent";
    public static final String PUSH_WINDOW_SECONDS = "parley:pushWindowSeconds";
    /** The notification categories (JSON, as PARLEY_NOTIFICATION_CATEGORIES): each one's coalescing window and whether it is critical. */
    public static final String NOTIFICATION_CATEGORIES = "parley:notificationCategories";
    /**
     * The frames' rate limits that differ from Parley's defaults (JSON: a limit's name to {@code "PER_SECOND/BURST"}, or to a
     * number for {@code connections_per_user}): {@code messages}, {@code creations}, {@code presence}, {@code reads}.
     */
    public static final String RATE_LIMITS = "parley:rateLimits";
    /** Who may publish which categories (JSON: an IAM principal's ARN to its categories); nobody by default. */
    public static final String PUBLISHERS = "parley:publishers";
    public static final String WEBSOCKET_ACCESS_LOGS = "parley:webSocketAccessLogs";
    public static final String MEDIA_RETENTION_DAYS = "parley:mediaRetentionDays";
    public static final String MEDIA_MAX_BYTES = "parley:mediaMaxBytes";
    public static final String TOPIC_READ_ABOVE = "parley:topicReadAbove";
    /** Comma-separated origins (https://chat.example.com), or * for any. */
    public static final String MEDIA_CORS_ORIGINS = "parley:mediaCorsOrigins";
    public static final String EDIT_WINDOW_MINUTES = "parley:editWindowMinutes";
    public static final String DELETE_WINDOW_HOURS = "parley:deleteWindowHours";

    /** Where {@code mvn package} leaves the functions' artifact, relative to the repository root. */
    public static final Path DEFAULT_FUNCTIONS_JAR = Path.of("functions", "target", "parley-functions.jar");

    public StackSettings {
        // CloudFormation's rule for stack names, checked here so a bad one is named before anything is built.
        if (!stackName.matches("[A-Za-z][A-Za-z0-9-]{0,127}")) {
            throw new IllegalArgumentException(STACK_NAME + " must start with a letter and be 1 to 128 letters, digits or -, was '" + stackName + "'");
        }
        if (!stageName.matches("[A-Za-z0-9_-]{1,128}")) {
            throw new IllegalArgumentException(STAGE + " must be 1 to 128 letters, digits, - or _, was '" + stageName + "'");
        }
        if (throttleRate < 1 || throttleBurst < 1) {
            throw new IllegalArgumentException(THROTTLE_RATE + " and " + THROTTLE_BURST + " must be at least 1, were "
                    + throttleRate + " and " + throttleBurst);
        }
        ParleyConfig.fastPathMaxConnectionsProblem(fastPathMaxConnections).ifPresent(problem -> {
            throw new IllegalArgumentException(FAST_PATH_MAX_CONNECTIONS + " " + problem);
        });
        if (logSamplePercent < 0 || logSamplePercent > 100) {
            throw new IllegalArgumentException(LOG_SAMPLE_PERCENT + " must be 0 to 100, was " + logSamplePercent);
        }
        try {
            dev.parley.functions.config.PublishSettings.parse(notificationCategories, publishers);
        } catch (IllegalStateException e) {
            throw new IllegalArgumentException(NOTIFICATION_CATEGORIES + " or " + PUBLISHERS + ": " + e.getMessage(), e);
        }
        long longest = dev.parley.functions.config.ParleyConfig.LONGEST_PUSH_WINDOW.toSeconds();
        if (pushWindowSeconds < 1 || pushWindowSeconds > longest) {
            throw new IllegalArgumentException(PUSH_WINDOW_SECONDS + " must be 1 to " + longest + ", was " + pushWindowSeconds);
        }
        rateLimits = Map.copyOf(rateLimits);
        rateLimits.forEach((name, value) -> {
            try {
                dev.parley.functions.config.FrameLimitSettings.check(name, value);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(RATE_LIMITS + ": " + e.getMessage(), e);
            }
        });
        if (mediaRetentionDays < 1 || mediaRetentionDays > 3650) {
            throw new IllegalArgumentException(MEDIA_RETENTION_DAYS + " must be 1 to 3650 days, was " + mediaRetentionDays);
        }
        if (editWindowMinutes < 1 || editWindowMinutes > dev.parley.functions.config.ChangeSettings.LONGEST_EDIT_WINDOW_MINUTES) {
            throw new IllegalArgumentException(EDIT_WINDOW_MINUTES + " must be 1 to " + dev.parley.functions.config.ChangeSettings.LONGEST_EDIT_WINDOW_MINUTES + " minutes, was "
                    + editWindowMinutes);
        }
        if (deleteWindowHours < 1 || deleteWindowHours > dev.parley.functions.config.ChangeSettings.LONGEST_DELETE_WINDOW_HOURS) {
            throw new IllegalArgumentException(DELETE_WINDOW_HOURS + " must be 1 to " + dev.parley.functions.config.ChangeSettings.LONGEST_DELETE_WINDOW_HOURS + " hours, was "
                    + deleteWindowHours);
        }
        if (topicReadAbove < 0) {
            throw new IllegalArgumentException(TOPIC_READ_ABOVE + " must be at least 0 subscribers, was " + topicReadAbove);
        }
        if (mediaMaxBytes < 1 || mediaMaxBytes > dev.parley.functions.config.MediaSettings.LARGEST_MAX_BYTES) {
            throw new IllegalArgumentException(MEDIA_MAX_BYTES + " must be 1 to " + dev.parley.functions.config.MediaSettings.LARGEST_MAX_BYTES
                    + " bytes (S3's largest POST), was " + mediaMaxBytes);
        }
        double dailyBytes = rateLimits.containsKey("media_bytes") ? dev.parley.ports.RateLimits.Limit.parse(rateLimits.get("media_bytes")).burst()
                : dev.parley.functions.usecase.FrameLimits.Settings.DEFAULT_MEDIA_BYTES.burst();
        if (mediaMaxBytes > dailyBytes) {
            throw new IllegalArgumentException(MEDIA_MAX_BYTES + " (" + mediaMaxBytes + ") is more than a user may upload in a day ("
                    + (long) dailyBytes + ", " + RATE_LIMITS + "' media_bytes): no grant that large could ever be given");
        }
        mediaCorsOrigins = List.copyOf(mediaCorsOrigins);
        for (String origin : mediaCorsOrigins) {
            if (!origin.equals("*") && !origin.matches("https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?")) {
                throw new IllegalArgumentException(MEDIA_CORS_ORIGINS + " must be origins like https://chat.example.com, or *, was '" + origin + "'");
            }
        }
        if (pushCredentialsRevision < 0) {
            throw new IllegalArgumentException(PUSH_CREDENTIALS_REVISION + " must be 0 or more, was " + pushCredentialsRevision);
        }
        if (!Files.isRegularFile(functionsJar)) {
            throw new IllegalArgumentException("the functions' artifact " + functionsJar.toAbsolutePath()
                    + " does not exist: build it first with `mvn -pl functions -am package` (scripts/deploy does)");
        }
    }

    /**
     * The settings from context values ({@code context} answers null for an absent key), with Parley's
     * defaults for the rest. A value that is not what its key needs is refused with the key's name.
     */
    public static StackSettings fromContext(Function<String, Object> context, Path repositoryRoot) {
        Path jar = text(context, FUNCTIONS_JAR).map(Path::of).orElse(DEFAULT_FUNCTIONS_JAR);
        return new StackSettings(
                text(context, STACK_NAME).orElse("Parley"),
                repositoryRoot.resolve(jar).normalize(),
                text(context, STAGE).orElse("prod"),
                number(context, THROTTLE_RATE, 1000),
                number(context, THROTTLE_BURST, 2000),
                retention(number(context, LOG_RETENTION_DAYS, 30)),
                bool(context, RETAIN_DATA, true),
                text(context, FCM_SECRET),
                text(context, APNS_SECRET),
                bool(context, APNS_SANDBOX, false),
                number(context, PUSH_CREDENTIALS_REVISION, 0),
                number(context, FAST_PATH_MAX_CONNECTIONS, ParleyConfig.DEFAULT_FAST_PATH_MAX_CONNECTIONS),
                number(context, LOG_SAMPLE_PERCENT, ParleyConfig.DEPLOYED_LOG_SAMPLE_PERCENT),
                number(context, PUSH_WINDOW_SECONDS, (int) ParleyConfig.DEFAULT_PUSH_WINDOW.toSeconds()),
                json(context, NOTIFICATION_CATEGORIES).orElse(dev.parley.functions.config.PublishSettings.DEFAULT_CATEGORIES),
                json(context, PUBLISHERS).orElse("{}"),
                rateLimits(json(context, RATE_LIMITS).orElse("{}")),
                bool(context, WEBSOCKET_ACCESS_LOGS, false),
                number(context, MEDIA_RETENTION_DAYS, (int) dev.parley.functions.manifest.ParleyManifest.MEDIA_RETENTION.toDays()),
                text(context, MEDIA_MAX_BYTES).map(value -> {
                    try {
                        return Long.parseLong(value);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException(MEDIA_MAX_BYTES + " must be a whole number of bytes, was '" + value + "'");
                    }
                }).orElse(dev.parley.functions.usecase.Media.DEFAULT_MAX_BYTES),
                text(context, MEDIA_CORS_ORIGINS).map(value -> java.util.Arrays.stream(value.split(",")).map(String::strip)
                        .filter(origin -> !origin.isEmpty()).toList()).orElse(List.of()),
                number(context, TOPIC_READ_ABOVE, (int) dev.parley.functions.usecase.TopicAudiences.DEFAULT_READ_ABOVE),
                number(context, EDIT_WINDOW_MINUTES, (int) dev.parley.functions.config.ChangeSettings.DEFAULT_EDIT_WINDOW_MINUTES),
                number(context, DELETE_WINDOW_HOURS, (int) dev.parley.functions.config.ChangeSettings.DEFAULT_DELETE_WINDOW_HOURS));
    }

    /** {@link #RATE_LIMITS}'s object, each value as text. */
    private static Map<String, String> rateLimits(String json) {
        try {
            com.fasterxml.jackson.databind.JsonNode limits = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json);
            if (!limits.isObject()) {
                throw new IllegalArgumentException(RATE_LIMITS + " must be a JSON object, was " + json);
            }
            Map<String, String> parsed = new java.util.LinkedHashMap<>();
            limits.properties().forEach(entry -> parsed.put(entry.getKey(), entry.getValue().asText()));
            return parsed;
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw new IllegalArgumentException(RATE_LIMITS + " is not JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** A JSON value: given as text (-c key='{...}') or as an object in cdk.json. */
    private static Optional<String> json(Function<String, Object> context, String key) {
        Object value = context.apply(key);
        if (value == null || value instanceof String) {
            return text(context, key);
        }
        try {
            return Optional.of(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(value));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(key + " must be JSON: " + e.getOriginalMessage(), e);
        }
    }

    private static Optional<String> text(Function<String, Object> context, String key) {
        return Optional.ofNullable(context.apply(key)).map(String::valueOf).map(String::strip).filter(v -> !v.isEmpty());
    }

    private static int number(Function<String, Object> context, String key, int fallback) {
        return text(context, key).map(value -> {
            try {
                return Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + " must be a whole number, was '" + value + "'");
            }
        }).orElse(fallback);
    }

    private static boolean bool(Function<String, Object> context, String key, boolean fallback) {
        return text(context, key).map(value -> switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(key + " must be true or false, was '" + value + "'");
        }).orElse(fallback);
    }

    /** CloudWatch Logs' retention periods in days, in the order of {@link RetentionDays}' constants (INFINITE last). */
    private static final int[] RETENTION_DAYS = {1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192,
            2557, 2922, 3288, 3653};

    private static RetentionDays retention(int days) {
        for (int i = 0; i < RETENTION_DAYS.length; i++) {
            if (RETENTION_DAYS[i] == days) {
                return RetentionDays.values()[i];
            }
        }
        throw new IllegalArgumentException(LOG_RETENTION_DAYS + " must be one of CloudWatch Logs' retention periods "
                + java.util.Arrays.toString(RETENTION_DAYS) + ", was " + days);
    }
}
