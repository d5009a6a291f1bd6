package dev.parley.local.sns;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;

import dev.parley.local.Servers;
import dev.parley.local.dynamodb.server.Json;
import dev.parley.model.Utf8;
import java.io.InputStream;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;

/**
 * The part of SNS that mobile push uses, over SNS's Query protocol (form-encoded requests, XML
 * answers), so {@code SnsClient} works with an endpoint override: platform applications, platform
 * endpoints (idempotent per token), their attributes, and Publish to an endpoint with
 * {@code MessageStructure=json}, and the applications' endpoint events ({@code EventEndpointCreated},
 * {@code EventEndpointUpdated}, {@code EventEndpointDeleted}, {@code EventDeliveryFailure}) sent to the
 * topics their attributes name, whose in-process subscribers get them asynchronously, as SNS delivers.
 * Nothing leaves the machine: every push lands in an outbox ({@link #outbox()}, {@code GET /_parley/outbox},
 * and the log) as the platform would have received it. Faults ({@link #faults()}, {@code /_parley/faults})
 * expire a token, throttle publishes, or fail a share of them.
 */
public final class SnsEmulator implements AutoCloseable {
    static final String NAMESPACE = "http://sns.amazonaws.com/doc/2010-03-31/";
    /** FCM's and APNs' own payload limit. */
    static final int MAX_PLATFORM_PAYLOAD_BYTES = 4096;
    static final int MAX_MESSAGE_BYTES = 256 * 1024;
    private static final Set<String> PLATFORMS = Set.of("GCM", "APNS", "APNS_SANDBOX", "ADM", "BAIDU", "MPNS", "WNS");
    private static final String ARN_PREFIX = "arn:aws:sns:local:000000000000:";

    /** An application; its attributes change in place, so that its endpoints see them. */
    private record Application(String arn, String name, String platform, Map<String, String> attributes) {
    }

    /** The application attributes that name a topic for each endpoint event, by the event's type. */
    static final Map<String, String> EVENT_ATTRIBUTES = Map.of("EndpointCreated", "EventEndpointCreated",
            "EndpointUpdated", "EventEndpointUpdated", "EndpointDeleted", "EventEndpointDeleted", "DeliveryFailure", "EventDeliveryFailure");

    private static final class Endpoint {
        final String arn;
        final Application application;
        final Map<String, String> attributes = new LinkedHashMap<>();

        Endpoint(String arn, Application application) {
            this.arn = arn;
            this.application = application;
        }
    }

    private final Map<String, Application> applications = new ConcurrentHashMap<>();
    private final Map<String, Endpoint> endpoints = new ConcurrentHashMap<>();
    private final List<Delivery> outbox = new CopyOnWriteArrayList<>();
    private final SnsFaults faults = new SnsFaults(42);
    private final Map<String, List<java.util.function.Consumer<Notification>>> topics = new ConcurrentHashMap<>();
    /** Delivers topic notifications off the request's thread: SNS answers the call before its subscribers hear of it. */
    private final java.util.concurrent.ExecutorService notifications = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor();
    private final Clock clock;
    private final Server server;
    private final URI endpoint;

    private SnsEmulator(String host, int port, Clock clock) throws Exception {
        this.clock = clock;
        server = Servers.create(host, port, "sns-emulator", 32);
        Servers.start(server, new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                return SnsEmulator.this.handle(request, response, callback);
            }
        }, "the SNS emulator");
        endpoint = URI.create("http://" + host + ":" + Servers.port(server));
    }

    /** An emulator on a free port of 127.0.0.1. */
    public static SnsEmulator start() {
        return start("127.0.0.1", 0, Clock.systemUTC());
    }

    public static SnsEmulator start(String host, int port, Clock clock) {
        try {
            return new SnsEmulator(host, port, clock);
        } catch (Exception e) {
            throw new IllegalStateException("starting the SNS emulator failed", e);
        }
    }

    /** The URL to give {@code SnsClient.endpointOverride}. */
    public URI endpoint() {
        return endpoint;
    }

    /** Every push so far, in order. */
    public List<Delivery> outbox() {
        return List.copyOf(outbox);
    }

    /** The fault switches. */
    public SnsFaults faults() {
        return faults;
    }

    /** Creates a topic (or finds the one of that name) and returns its ARN. */
    public String createTopic(String name) {
        if (!name.matches("[A-Za-z0-9_-]{1,256}")) {
            throw SnsError.invalidParameter("Topic Name Reason: must be 1 to 256 letters, digits, underscores or hyphens");
        }
        String arn = ARN_PREFIX + name;
        topics.computeIfAbsent(arn, key -> new CopyOnWriteArrayList<>());
        return arn;
    }

    /** Subscribes to a topic in-process: the local cloud's Lambda subscriptions. */
    public void subscribe(String topicArn, java.util.function.Consumer<Notification> subscriber) {
        List<java.util.function.Consumer<Notification>> subscribers = topics.get(topicArn);
        if (subscribers == null) {
            throw new IllegalArgumentException("no topic " + topicArn);
        }
        subscribers.add(subscriber);
    }

    /** Sets attributes of a platform application (its event topics, for one), as SetPlatformApplicationAttributes does. */
    public void setPlatformApplicationAttributes(String applicationArn, Map<String, String> attributes) {
        Application application = application(applicationArn);
        attributes.forEach((key, value) -> {
            if (EVENT_ATTRIBUTES.containsValue(key) && !value.isEmpty() && !topics.containsKey(value)) {
                throw SnsError.notFound("Topic does not exist: " + key + " names " + value);
            }
        });
        application.attributes().putAll(attributes);
    }

    // ---- the Query protocol -------------------------------------------------------------------------

    private boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (Request.getPathInContext(request).equals("/_parley/faults")) {
            return faultsAdmin(request, response, callback);
        }
        if ("GET".equals(request.getMethod()) && "/_parley/outbox".equals(Request.getPathInContext(request))) {
            ArrayNode deliveries = Json.NODES.arrayNode();
            outbox.forEach(d -> deliveries.addObject().put("at", d.at().toString()).put("messageId", d.messageId())
                    .put("endpointArn", d.endpointArn()).put("platform", d.platform()).put("token", d.token()).put("payload", d.payload())
                    .put("delivered", d.delivered()).put("failure", d.failure()));
            respond(response, callback, 200, "application/json", Json.MAPPER.writeValueAsString(deliveries));
            return true;
        }
        Map<String, String> form;
        try (InputStream in = Request.asInputStream(request)) {
            form = parseForm(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        String requestId = UUID.randomUUID().toString();
        String action = form.getOrDefault("Action", "");
        try {
            String result = switch (action) {
                case "CreatePlatformApplication" -> createPlatformApplication(form);
                case "GetPlatformApplicationAttributes" -> getPlatformApplicationAttributes(form);
                case "SetPlatformApplicationAttributes" -> {
                    setPlatformApplicationAttributes(required(form, "PlatformApplicationArn"), attributes(form, "Attributes"));
                    yield "";
                }
                case "CreateTopic" -> element("TopicArn", createTopic(required(form, "Name")));
                case "DeletePlatformApplication" -> deletePlatformApplication(form);
                case "CreatePlatformEndpoint" -> createPlatformEndpoint(form);
                case "GetEndpointAttributes" -> getEndpointAttributes(form);
                case "SetEndpointAttributes" -> setEndpointAttributes(form);
                case "DeleteEndpoint" -> deleteEndpoint(form);
                case "ListEndpointsByPlatformApplication" -> listEndpoints(form);
                case "Publish" -> publish(form);
                default -> throw new SnsError(400, "InvalidAction", "Parley's local SNS does not support the action " + action
                        + "; it serves mobile push: platform applications, platform endpoints, Publish to an endpoint, and topics for"
                        + " the applications' endpoint events");
            };
            String xml = "<" + action + "Response xmlns=\"" + NAMESPACE + "\"><" + action + "Result>" + result + "</" + action + "Result>"
                    + "<ResponseMetadata><RequestId>" + requestId + "</RequestId></ResponseMetadata></" + action + "Response>";
            respond(response, callback, 200, "text/xml", xml);
        } catch (SnsError e) {
            String xml = "<ErrorResponse xmlns=\"" + NAMESPACE + "\"><Error><Type>Sender</Type><Code>" + e.code + "</Code><Message>"
                    + escape(e.getMessage()) + "</Message></Error><RequestId>" + requestId + "</RequestId></ErrorResponse>";
            respond(response, callback, e.status, "text/xml", xml);
        }
        return true;
    }

    /** Every platform endpoint, by ARN, with a copy of its attributes: what a tester checks after a registration. */
    public Map<String, Map<String, String>> endpoints() {
        Map<String, Map<String, String>> all = new LinkedHashMap<>();
        endpoints.forEach((arn, endpoint) -> {
            synchronized (endpoint) {
                all.put(arn, Map.copyOf(endpoint.attributes));
            }
        });
        return all;
    }

    /**
     * Creates a platform application (or finds the one of that name), as the stack's custom resource does on AWS; the local
     * cloud makes one per platform at start, with no credentials, since nothing leaves the machine.
     */
    public String platformApplication(String name, String platform) {
        String arn = ARN_PREFIX + "app/" + platform + "/" + name;
        applications.computeIfAbsent(arn, key -> new Application(arn, name, platform, new ConcurrentHashMap<>()));
        return arn;
    }

    private String createPlatformApplication(Map<String, String> form) {
        String name = required(form, "Name");
        String platform = required(form, "Platform");
        if (!PLATFORMS.contains(platform)) {
            throw SnsError.invalidParameter("Platform Reason: " + platform + " is not supported");
        }
        if (!name.matches("[A-Za-z0-9_.-]{1,256}")) {
            throw SnsError.invalidParameter("Name Reason: must be 1 to 256 letters, digits, periods, underscores or hyphens");
        }
        String arn = platformApplication(name, platform);
        setPlatformApplicationAttributes(arn, attributes(form, "Attributes"));
        return element("PlatformApplicationArn", arn);
    }

    private String getPlatformApplicationAttributes(Map<String, String> form) {
        Application application = application(required(form, "PlatformApplicationArn"));
        Map<String, String> attributes = new LinkedHashMap<>(application.attributes());
        attributes.remove("PlatformCredential");
        attributes.putIfAbsent("Enabled", "true");
        return attributesXml(attributes);
    }

    private String deletePlatformApplication(Map<String, String> form) {
        String arn = required(form, "PlatformApplicationArn");
        applications.remove(arn);
        endpoints.values().removeIf(e -> e.application.arn().equals(arn));
        return "";
    }

    private String createPlatformEndpoint(Map<String, String> form) {
        Application application = application(required(form, "PlatformApplicationArn"));
        String token = required(form, "Token");
        Map<String, String> attributes = attributes(form, "Attributes");
        String customUserData = form.get("CustomUserData");
        synchronized (endpoints) {
            for (Endpoint existing : endpoints.values()) {
                if (existing.application == application && existing.attributes.get("Token").equals(token)) {
                    // The same token again is the same endpoint; with other attributes, SNS refuses it.
                    boolean same = (customUserData == null || customUserData.equals(existing.attributes.get("CustomUserData")))
                            && attributes.entrySet().stream().allMatch(e -> e.getValue().equals(existing.attributes.get(e.getKey())));
                    if (!same) {
                        throw SnsError.invalidParameter("Token Reason: Endpoint " + existing.arn
                                + " already exists with the same Token, but different attributes.");
                    }
                    return element("EndpointArn", existing.arn);
                }
            }
            String arn = ARN_PREFIX + "endpoint/" + application.platform() + "/" + application.name() + "/" + UUID.randomUUID();
            Endpoint created = new Endpoint(arn, application);
            created.attributes.put("Token", token);
            created.attributes.put("Enabled", "true");
            if (customUserData != null) {
                created.attributes.put("CustomUserData", customUserData);
            }
            created.attributes.putAll(attributes);
            endpoints.put(arn, created);
            endpointEvent(application, "EndpointCreated", arn, null);
            return element("EndpointArn", arn);
        }
    }

    private String getEndpointAttributes(Map<String, String> form) {
        Endpoint endpoint = endpoint(required(form, "EndpointArn"));
        synchronized (endpoint) {
            return attributesXml(endpoint.attributes);
        }
    }

    private String setEndpointAttributes(Map<String, String> form) {
        Endpoint endpoint = endpoint(required(form, "EndpointArn"));
        Map<String, String> attributes = attributes(form, "Attributes");
        attributes.forEach((key, value) -> {
            if (!Set.of("Token", "Enabled", "CustomUserData").contains(key)) {
                throw SnsError.invalidParameter("Attributes Reason: " + key + " is not a valid attribute");
            }
            if (key.equals("Enabled") && !Set.of("true", "false").contains(value)) {
                throw SnsError.invalidParameter("Attributes Reason: Enabled must be true or false");
            }
        });
        synchronized (endpoint) {
            endpoint.attributes.putAll(attributes);
        }
        endpointEvent(endpoint.application, "EndpointUpdated", endpoint.arn, null);
        return "";
    }

    private String deleteEndpoint(Map<String, String> form) {
        Endpoint deleted = endpoints.remove(required(form, "EndpointArn"));
        if (deleted != null) {
            endpointEvent(deleted.application, "EndpointDeleted", deleted.arn, null);
        }
        return "";
    }

    private String listEndpoints(Map<String, String> form) {
        Application application = application(required(form, "PlatformApplicationArn"));
        StringBuilder xml = new StringBuilder("<Endpoints>");
        for (Endpoint endpoint : endpoints.values()) {
            if (endpoint.application == application) {
                synchronized (endpoint) {
                    xml.append("<member>").append(element("EndpointArn", endpoint.arn)).append(attributesXml(endpoint.attributes)).append("</member>");
                }
            }
        }
        return xml.append("</Endpoints>").toString();
    }

    private String publish(Map<String, String> form) {
        String targetArn = form.containsKey("TargetArn") ? form.get("TargetArn") : required(form, "TopicArn");
        String message = required(form, "Message");
        if (Utf8.length(message) > MAX_MESSAGE_BYTES) {
            throw SnsError.invalidParameter("Message too long");
        }
        faults.publishFault().ifPresent(fault -> {
            throw fault;
        });
        Endpoint endpoint = endpoints.get(targetArn);
        if (endpoint == null) {
            // What SNS answers for a deleted endpoint's ARN.
            throw SnsError.invalidParameter("TargetArn Reason: No endpoint found for the target arn specified");
        }
        String platform = endpoint.application.platform();
        String payload = platformPayload(message, form.get("MessageStructure"), platform);
        if (Utf8.length(payload) > MAX_PLATFORM_PAYLOAD_BYTES) {
            throw SnsError.invalidParameter("Message Reason: the " + platform + " payload is " + Utf8.length(payload)
                    + " bytes; the platform takes at most " + MAX_PLATFORM_PAYLOAD_BYTES);
        }
        String token;
        synchronized (endpoint) {
            if (!"true".equals(endpoint.attributes.get("Enabled"))) {
                throw SnsError.endpointDisabled();
            }
            token = endpoint.attributes.get("Token");
        }
        String messageId = UUID.randomUUID().toString();
        boolean expired = faults.takeExpired(token);
        if (expired) {
            synchronized (endpoint) {
                endpoint.attributes.put("Enabled", "false");
            }
            endpointEvent(endpoint.application, "DeliveryFailure", endpoint.arn, messageId);
            endpointEvent(endpoint.application, "EndpointUpdated", endpoint.arn, null);
        }
        Delivery delivery = new Delivery(clock.instant(), messageId, endpoint.arn, platform, token, payload, !expired,
                expired ? "the platform refused the token (expired or unregistered); the endpoint is now disabled" : "");
        outbox.add(delivery);
        System.getLogger(SnsEmulator.class.getName()).log(System.Logger.Level.INFO,
                "push " + (expired ? "FAILED" : "delivered") + " to " + platform + " token " + token + ": " + payload);
        return element("MessageId", messageId);
    }

    /**
     * Sends an endpoint event to the topic the application names for it, if it names one. The message is
     * the JSON SNS sends: {@code EventType}, {@code EndpointArn}, {@code Resource} (the application),
     * {@code Service}, {@code Time}, and for a delivery failure {@code FailureType}, {@code FailureMessage},
     * {@code DeliveryAttempts} and the failed publish's {@code MessageId}.
     */
    private void endpointEvent(Application application, String type, String endpointArn, String failedMessageId) {
        String topic = application.attributes().get(EVENT_ATTRIBUTES.get(type));
        if (topic == null || topic.isEmpty() || !topics.containsKey(topic)) {
            return;
        }
        Instant now = clock.instant();
        com.fasterxml.jackson.databind.node.ObjectNode event = Json.NODES.objectNode();
        if (failedMessageId != null) {
            event.put("DeliveryAttempts", 1);
        }
        event.put("EndpointArn", endpointArn).put("EventType", type);
        if (failedMessageId != null) {
            event.put("FailureMessage", "Platform token associated with the endpoint is not valid").put("FailureType", "InvalidPlatformToken")
                    .put("MessageId", failedMessageId);
        }
        event.put("Resource", application.arn()).put("Service", "SNS").put("Time", now.toString());
        Notification notification = new Notification(topic, UUID.randomUUID().toString(),
                type + " event for app " + application.name() + " (" + application.platform() + ")", event.toString(), now);
        for (java.util.function.Consumer<Notification> subscriber : topics.get(topic)) {
            notifications.execute(() -> {
                try {
                    subscriber.accept(notification);
                } catch (RuntimeException e) {
                    System.getLogger(SnsEmulator.class.getName()).log(System.Logger.Level.WARNING, "a subscriber of " + topic + " failed", e);
                }
            });
        }
    }

    private boolean faultsAdmin(Request request, Response response, Callback callback) throws Exception {
        try {
            switch (request.getMethod()) {
                case "GET" -> {
                }
                case "DELETE" -> faults.clear();
                case "POST" -> {
                    JsonNode body;
                    try (InputStream in = Request.asInputStream(request)) {
                        body = Json.MAPPER.readTree(in);
                    }
                    if (body == null || !body.isObject()) {
                        throw new IllegalArgumentException("the body must be a JSON object: {\"expireToken\": \"TOKEN\", \"throttlePublishes\": N,"
                                + " \"failPublishPercent\": P}");
                    }
                    body.fieldNames().forEachRemaining(field -> {
                        if (!Set.of("expireToken", "throttlePublishes", "failPublishPercent").contains(field)) {
                            throw new IllegalArgumentException("unknown fault " + field + "; the faults are expireToken, throttlePublishes, failPublishPercent");
                        }
                    });
                    if (body.has("expireToken")) {
                        faults.expireToken(textField(body, "expireToken"));
                    }
                    if (body.has("throttlePublishes")) {
                        faults.throttlePublishes(intField(body, "throttlePublishes"));
                    }
                    if (body.has("failPublishPercent")) {
                        faults.failPublishes(intField(body, "failPublishPercent"));
                    }
                }
                default -> {
                    respond(response, callback, 405, "text/plain", "GET, POST or DELETE");
                    return true;
                }
            }
            respond(response, callback, 200, "application/json", Json.MAPPER.writeValueAsString(faults.describe()));
        } catch (IllegalArgumentException | com.fasterxml.jackson.core.JacksonException e) {
            respond(response, callback, 400, "application/json",
                    Json.MAPPER.writeValueAsString(Map.of("error", String.valueOf(e.getMessage()))));
        }
        return true;
    }

    private static String textField(JsonNode body, String field) {
        if (!body.get(field).isTextual() || body.get(field).textValue().isEmpty()) {
            throw new IllegalArgumentException(field + " must be a non-empty string");
        }
        return body.get(field).textValue();
    }

    private static int intField(JsonNode body, String field) {
        if (!body.get(field).canConvertToInt() || !body.get(field).isIntegralNumber()) {
            throw new IllegalArgumentException(field + " must be a whole number");
        }
        return body.get(field).intValue();
    }

    /**
     * What the platform gets: with MessageStructure=json, the platform's own key (GCM, APNS,
     * APNS_SANDBOX) or else "default", which must be there; otherwise the message itself.
     */
    private static String platformPayload(String message, String structure, String platform) {
        if (structure == null) {
            return message;
        }
        if (!structure.equals("json")) {
            throw SnsError.invalidParameter("MessageStructure Reason: only json is supported");
        }
        JsonNode json;
        try {
            json = Json.MAPPER.readTree(message);
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw SnsError.invalidParameter("Message Structure - JSON message body failed to parse");
        }
        if (json == null || !json.isObject()) {
            throw SnsError.invalidParameter("Message Structure - JSON message body failed to parse");
        }
        if (!json.has("default")) {
            throw SnsError.invalidParameter("Message Structure - No default entry in JSON message body");
        }
        JsonNode specific = json.get(platform);
        JsonNode chosen = specific != null ? specific : json.get("default");
        return chosen.isTextual() ? chosen.textValue() : chosen.toString();
    }

    // ---- form and XML ---------------------------------------------------------------------------------

    private Application application(String arn) {
        Application application = applications.get(arn);
        if (application == null) {
            throw SnsError.notFound("PlatformApplication does not exist");
        }
        return application;
    }

    private Endpoint endpoint(String arn) {
        Endpoint endpoint = endpoints.get(arn);
        if (endpoint == null) {
            throw SnsError.notFound("Endpoint does not exist");
        }
        return endpoint;
    }

    private static String required(Map<String, String> form, String name) {
        String value = form.get(name);
        if (value == null || value.isEmpty()) {
            throw SnsError.invalidParameter(name + " Reason: cannot be empty");
        }
        return value;
    }

    /** The Query protocol's map: {@code Attributes.entry.N.key} and {@code Attributes.entry.N.value}. */
    private static Map<String, String> attributes(Map<String, String> form, String prefix) {
        Map<String, String> attributes = new LinkedHashMap<>();
        for (int i = 1; form.containsKey(prefix + ".entry." + i + ".key"); i++) {
            attributes.put(form.get(prefix + ".entry." + i + ".key"), form.getOrDefault(prefix + ".entry." + i + ".value", ""));
        }
        return attributes;
    }

    private static Map<String, String> parseForm(String body) {
        Map<String, String> form = new LinkedHashMap<>();
        for (String pair : body.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            form.put(key, value);
        }
        return form;
    }

    private static String attributesXml(Map<String, String> attributes) {
        StringBuilder xml = new StringBuilder("<Attributes>");
        attributes.forEach((key, value) -> xml.append("<entry><key>").append(escape(key)).append("</key><value>")
                .append(escape(value)).append("</value></entry>"));
        return xml.append("</Attributes>").toString();
    }

    private static String element(String name, String value) {
        return "<" + name + ">" + escape(value) + "</" + name + ">";
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static void respond(Response response, Callback callback, int status, String contentType, String body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
    }

    @Override
    public void close() {
        notifications.shutdownNow();
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("stopping the SNS emulator failed", e);
        }
    }

}
