package dev.parley.functions.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.functions.runtime.FunctionEnvironment;
import dev.parley.functions.usecase.Notifications;
import dev.parley.functions.usecase.TopicGrants;
import dev.parley.ports.RateLimits;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The publish API's settings: the notification categories the deployment knows ({@value #CATEGORIES}: a JSON object from
 * each name to {@code {"window_seconds": N, "critical": true|false}}, both optional), and who may publish which
 * ({@value #PUBLISHERS}: a JSON object from an IAM principal's ARN to the categories it may publish, or to an object with
 * {@code categories}, optional {@code per_second} and {@code burst}, and optional {@code topics}: the topic keys, prefixes
 * ending in {@code *}, or {@code *}, whose subscribers it may manage and to which it may publish). A bad value fails the cold
 * start, naming the variable.
 */
public record PublishSettings(Map<String, Notifications.Category> categories, Map<String, Allowed> publishers) {
    /**
     * What one publisher may do: publish these categories, this many notifications a second (each recipient one).
     * {@code principal} is the ARN the settings name it by: its limit and its idempotency keys are its own whichever session
     * of a role calls.
     */
    public record Allowed(String principal, Set<String> categories, RateLimits.Limit limit, TopicGrants topics) {
        public Allowed {
            categories = Set.copyOf(categories);
        }
    }

    /** A publisher's rate limit unless it names its own: 1,000 notifications a second, 10,000 at once (ten 1000-recipient publishes). */
    public static final RateLimits.Limit DEFAULT_LIMIT = new RateLimits.Limit(1000, 10_000);

    public static final String CATEGORIES = "PARLEY_NOTIFICATION_CATEGORIES";
    public static final String PUBLISHERS = "PARLEY_PUBLISHERS";
    /** The categories a deployment has unless it names its own: likes coalesce for 10 minutes; security notices are critical. */
    public static final String DEFAULT_CATEGORIES = "{\"comments\":{},\"likes\":{\"window_seconds\":600},\"follows\":{\"window_seconds\":3600},"
            + "\"security\":{\"critical\":true}}";
    /** A coalescing window longer than a day would hold one notification's count open for good. */
    public static final Duration LONGEST_WINDOW = Duration.ofDays(1);
    private static final ObjectMapper JSON = new ObjectMapper();

    public PublishSettings {
        categories = Map.copyOf(categories);
        publishers = Map.copyOf(publishers);
    }

    public static PublishSettings fromEnvironment() {
        return parse(FunctionEnvironment.get(CATEGORIES).orElse(DEFAULT_CATEGORIES), FunctionEnvironment.get(PUBLISHERS).orElse("{}"));
    }

    /** The categories alone, for the functions that do not publish: the frame functions check push settings against them. */
    public static Map<String, Notifications.Category> categoriesFromEnvironment() {
        return parse(FunctionEnvironment.get(CATEGORIES).orElse(DEFAULT_CATEGORIES), "{}").categories();
    }

    public static PublishSettings parse(String categoriesJson, String publishersJson) {
        Map<String, Notifications.Category> categories = new LinkedHashMap<>();
        object(CATEGORIES, categoriesJson).properties().forEach(entry -> {
            JsonNode settings = entry.getValue();
            if (!settings.isObject()) {
                throw new IllegalStateException(CATEGORIES + ": category '" + entry.getKey() + "' must map to an object");
            }
            Optional<Duration> window = Optional.empty();
            if (settings.has("window_seconds")) {
                JsonNode seconds = settings.get("window_seconds");
                if (!seconds.canConvertToLong() || seconds.asLong() < 1 || seconds.asLong() > LONGEST_WINDOW.toSeconds()) {
                    throw new IllegalStateException(CATEGORIES + ": '" + entry.getKey() + "'.window_seconds must be 1 to " + LONGEST_WINDOW.toSeconds()
                            + ", was " + seconds);
                }
                window = Optional.of(Duration.ofSeconds(seconds.asLong()));
            }
            boolean critical = settings.path("critical").asBoolean(false);
            try {
                categories.put(entry.getKey(), new Notifications.Category(entry.getKey(), window, critical));
            } catch (RuntimeException e) {
                throw new IllegalStateException(CATEGORIES + ": '" + entry.getKey() + "' " + e.getMessage(), e);
            }
        });
        Map<String, Allowed> publishers = new HashMap<>();
        object(PUBLISHERS, publishersJson).properties().forEach(entry -> {
            // Either the categories alone, or {"categories": [...], "per_second": N, "burst": M}.
            JsonNode value = entry.getValue();
            JsonNode named = value.isObject() ? value.path("categories") : value;
            if (!named.isArray()) {
                throw new IllegalStateException(PUBLISHERS + ": '" + entry.getKey() + "' must map to an array of categories, or an object with one");
            }
            Set<String> allowed = new HashSet<>();
            named.forEach(category -> {
                if (!categories.containsKey(category.asText())) {
                    throw new IllegalStateException(PUBLISHERS + ": '" + entry.getKey() + "' names category '" + category.asText()
                            + "', which " + CATEGORIES + " does not define");
                }
                allowed.add(category.asText());
            });
            RateLimits.Limit limit = DEFAULT_LIMIT;
            if (value.isObject() && (value.has("per_second") || value.has("burst"))) {
                try {
                    limit = new RateLimits.Limit(value.path("per_second").asDouble(DEFAULT_LIMIT.perSecond()), value.path("burst").asDouble(DEFAULT_LIMIT.burst()));
                } catch (IllegalArgumentException e) {
                    throw new IllegalStateException(PUBLISHERS + ": '" + entry.getKey() + "': " + e.getMessage(), e);
                }
            }
            List<String> topics = new java.util.ArrayList<>();
            JsonNode namedTopics = value.path("topics");
            if (!namedTopics.isMissingNode() && !namedTopics.isArray()) {
                throw new IllegalStateException(PUBLISHERS + ": '" + entry.getKey() + "'.topics must be an array of topic keys or prefixes ending in *");
            }
            namedTopics.forEach(topic -> topics.add(topic.asText()));
            TopicGrants grants;
            try {
                grants = new TopicGrants(topics);
            } catch (RuntimeException e) {
                throw new IllegalStateException(PUBLISHERS + ": '" + entry.getKey() + "'.topics: " + e.getMessage(), e);
            }
            publishers.put(principalKey(entry.getKey()), new Allowed(entry.getKey(), allowed, limit, grants));
        });
        return new PublishSettings(categories, publishers);
    }

    private static JsonNode object(String variable, String json) {
        try {
            JsonNode node = JSON.readTree(json);
            if (node == null || !node.isObject()) {
                throw new IllegalStateException(variable + " must be a JSON object");
            }
            return node;
        } catch (JacksonException e) {
            throw new IllegalStateException(variable + " is not JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** The publisher a caller's ARN names, if it may publish at all. */
    public Optional<Notifications.Publisher> publisher(String callerArn) {
        return Optional.ofNullable(publishers.get(principalKey(callerArn)))
                .map(allowed -> new Notifications.Publisher(allowed.principal(), allowed.categories(), allowed.limit(), allowed.topics()));
    }

    /**
     * How a principal is matched: a role by its account and name, whether named by its IAM ARN ({@code arn:aws:iam::1:role/path/name})
     * or by the ARN API Gateway gives a caller that assumed it ({@code arn:aws:sts::1:assumed-role/name/session}); anything else
     * as it is.
     */
    static String principalKey(String arn) {
        String[] parts = arn.split(":", 6);
        if (parts.length == 6 && parts[0].equals("arn")) {
            String account = parts[4];
            String resource = parts[5];
            if (parts[2].equals("iam") && resource.startsWith("role/")) {
                return "role:" + account + ":" + resource.substring(resource.lastIndexOf('/') + 1);
            }
            if (parts[2].equals("sts") && resource.startsWith("assumed-role/")) {
                String[] role = resource.split("/");
                if (role.length >= 2) {
                    return "role:" + account + ":" + role[1];
                }
            }
        }
        return arn;
    }
}
