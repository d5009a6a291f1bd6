package dev.parley.functions.manifest;

import dev.parley.functions.config.ChangeSettings;
import dev.parley.functions.config.ParleyConfig;
import dev.parley.functions.config.FrameLimitSettings;
import dev.parley.functions.config.PublishSettings;
import dev.parley.functions.handler.AuthorizerHandler;
import dev.parley.functions.handler.ConnectionHandlers;
import dev.parley.functions.handler.FanOutHandler;
import dev.parley.functions.handler.FrameHandler;
import dev.parley.functions.handler.PublishHandler;
import dev.parley.functions.handler.PushEventsHandler;
import dev.parley.functions.handler.ReactionsHandler;
import dev.parley.functions.handler.RedeliveryHandler;
import dev.parley.functions.handler.TopicFanOutHandler;
import dev.parley.functions.handler.TopicPublishesHandler;
import dev.parley.functions.handler.TopicsHandler;
import dev.parley.functions.handler.ReceiptNoticesHandler;
import dev.parley.functions.manifest.FunctionSpec.TableAccess;
import dev.parley.functions.store.TopicsTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Parley's functions and tables: what {@code scripts/run-local} starts and the CDK stack deploys.
 * docs/data-model.md explains the tables and the access patterns they serve.
 */
public final class ParleyManifest {
    public static final String CONNECTIONS = "parley-connections";
    public static final String CONVERSATIONS = "parley-conversations";
    public static final String MEMBERSHIPS = "parley-memberships";
    public static final String MESSAGES = "parley-messages";
    public static final String PRESENCE = "parley-presence";
    public static final String INBOX = "parley-inbox";
    public static final String PUBLISHES = "parley-publishes";
    public static final String LIMITS = "parley-limits";
    public static final String KEYS = "parley-keys";
    public static final String REACTIONS = "parley-reactions";
    /** The media bucket's logical name (the local cloud's bucket; on AWS, CloudFormation names it). */
    public static final String MEDIA = "parley-media";
    /** How long media objects stay: the seeds' 30 days (the stack's parley:mediaRetentionDays overrides it). */
    public static final Duration MEDIA_RETENTION = Duration.ofDays(30);
    public static final String TOPICS = "parley-topics";
    public static final String TOPIC_FANOUT = "parley-topic-fanout";
    public static final String TOPIC_FANOUT_DEAD = "parley-topic-fanout-dead";
    /** The fan-out worker's timeout: a page or a chunk takes well under a second; room for a throttled table's retries. */
    public static final Duration TOPIC_FANOUT_TIMEOUT = Duration.ofSeconds(60);
    public static final String REDELIVERY = "parley-redelivery";
    public static final String REDELIVERY_DEAD = "parley-redelivery-dead";

    /**
     * The client frame types with a route of their own; the others (the inbox's: inbox.list, inbox.mark, notification.ack; the
     * key directory's, rare: keys.upload, keys.count, keys.fetch) reach $default's function, which serves every type.
     */
    public static final List<String> FRAME_ROUTES = List.of(
            "ping", "message.send", "message.edit", "message.delete", "reaction.set", "message.pin", "message.delivered", "message.read", "sync.request", "history.request",
            "conversation.create", "conversation.members.add", "conversation.members.remove", "conversation.list",
            "device.register", "device.unregister", "conversation.mute", "typing", "presence.query", "presence.subscribe",
            "settings.update");

    /** The routes that register devices for push, whose functions alone create and change SNS endpoints. */
    public static final List<String> DEVICE_ROUTES = List.of("device.register", "device.unregister");

    /** The functions that push to offline devices, which alone may publish to SNS endpoints: messages' and notifications'. */
    public static final List<String> PUSH_PUBLISHERS = List.of("fanout", "publish", "topic-fanout");

    /** How often a stream consumer retries a failing record before it quarantines it in its on-failure queue. */
    public static final int STREAM_RETRIES = 3;

    private ParleyManifest() {
    }

    public static Manifest manifest() {
        Map<String, String> tables = Map.of(
                ParleyConfig.CONNECTIONS_TABLE, CONNECTIONS, ParleyConfig.CONVERSATIONS_TABLE, CONVERSATIONS,
                ParleyConfig.MEMBERSHIPS_TABLE, MEMBERSHIPS, ParleyConfig.MESSAGES_TABLE, MESSAGES, ParleyConfig.PRESENCE_TABLE, PRESENCE,
                ParleyConfig.INBOX_TABLE, INBOX);
        Map<String, TableAccess> everyTable = new java.util.HashMap<>();
        for (String table : List.of(CONNECTIONS, CONVERSATIONS, MEMBERSHIPS, MESSAGES, PRESENCE, INBOX, LIMITS, KEYS, TOPICS, PUBLISHES, REACTIONS)) {
            everyTable.put(table, TableAccess.READ_WRITE);
        }
        // The frame functions' send takes the fast path for conversations up to this bound (docs/functions.md);
        // scripts/run-local --fast-path-max-connections and the stack's parley:fastPathMaxConnections override it.
        Map<String, String> frames = new java.util.HashMap<>(tables);
        frames.put(ParleyConfig.FAST_PATH_MAX_CONNECTIONS, Integer.toString(ParleyConfig.DEFAULT_FAST_PATH_MAX_CONNECTIONS));
        frames.put(ParleyConfig.FAST_PATH_WINDOW_MS, Long.toString(ParleyConfig.DEFAULT_FAST_PATH_WINDOW.toMillis()));
        frames.put(ParleyConfig.TYPING_INTERVAL_MS, Long.toString(ParleyConfig.DEFAULT_TYPING_INTERVAL.toMillis()));
        frames.put(ChangeSettings.EDIT_WINDOW_MINUTES, Long.toString(ChangeSettings.DEFAULT_EDIT_WINDOW_MINUTES));
        frames.put(ChangeSettings.DELETE_WINDOW_HOURS, Long.toString(ChangeSettings.DEFAULT_DELETE_WINDOW_HOURS));
        // settings.update checks push switches against the deployment's notification categories (the stack fills in its own).
        frames.put(PublishSettings.CATEGORIES, PublishSettings.DEFAULT_CATEGORIES);
        // Per-user and per-connection rate limits, each bucket a counter in the limits table (FrameLimits).
        frames.putAll(FrameLimitSettings.defaultEnvironment());
        frames.put(ParleyConfig.LIMITS_TABLE, LIMITS);
        frames.put(ParleyConfig.KEYS_TABLE, KEYS);
        frames.put(ParleyConfig.REACTIONS_TABLE, REACTIONS); // reaction.set stores them; a delete erases the message's
        frames.put(ParleyConfig.TOPICS_TABLE, TOPICS); // topic.mute marks the subscriber's own subscription
        // A state-changing frame's request id is recorded with its answer there for a day (protocol 1.1).
        frames.put(ParleyConfig.PUBLISHES_TABLE, PUBLISHES);
        // Media: grants signed for the media bucket (the stack names it and grants its media prefix), objects up to the maximum.
        frames.put(dev.parley.functions.config.MediaSettings.BUCKET, MEDIA);
        frames.put(dev.parley.functions.config.MediaSettings.MAX_BYTES, Long.toString(dev.parley.functions.usecase.Media.DEFAULT_MAX_BYTES));
        // A ping renews the lease $connect starts (scripts/run-local --connection-lease-ms overrides it).
        String lease = Long.toString(ParleyConfig.DEFAULT_CONNECTION_LEASE.toMillis());
        frames.put(ParleyConfig.CONNECTION_LEASE_MS, lease);
        Map<String, String> connectionEnds = new java.util.HashMap<>(tables);
        connectionEnds.put(ParleyConfig.TOPICS_TABLE, TOPICS); // connections join and leave their users' topics' live indexes
        connectionEnds.put(ParleyConfig.CONNECTION_LEASE_MS, lease);
        // $connect refuses a user's connection past the cap (429).
        Map<String, String> connect = new java.util.HashMap<>(connectionEnds);
        connect.put(FrameLimitSettings.CONNECTIONS_PER_USER, FrameLimitSettings.defaultConnectionsPerUser());
        List<FunctionSpec> functions = new ArrayList<>();
        functions.add(new FunctionSpec("authorizer", AuthorizerHandler.class.getName(), 512, Duration.ofSeconds(5), Map.of(),
                new Trigger.WebSocketAuthorizer(List.of("route.request.querystring.token")), Map.of(), false));
        // $connect and $disconnect write their connection, and tell the user's presence subscribers when it came online or went
        // offline (their watchers read, a post to each); $disconnect also ends the closing connection's own subscriptions.
        functions.add(new FunctionSpec("connect", ConnectionHandlers.Connect.class.getName(), 512, Duration.ofSeconds(5), connect,
                new Trigger.WebSocketRoute("$connect"), Map.of(CONNECTIONS, TableAccess.READ_WRITE, PRESENCE, TableAccess.READ, TOPICS, TableAccess.READ_WRITE), true));
        functions.add(new FunctionSpec("disconnect", ConnectionHandlers.Disconnect.class.getName(), 512, Duration.ofSeconds(5), connectionEnds,
                new Trigger.WebSocketRoute("$disconnect"), Map.of(CONNECTIONS, TableAccess.READ_WRITE, PRESENCE, TableAccess.READ_WRITE, TOPICS,
                TableAccess.READ_WRITE), true));
        functions.add(new FunctionSpec("default", FrameHandler.class.getName(), 1024, Duration.ofSeconds(10), frames,
                new Trigger.WebSocketRoute("$default"), everyTable, true));
        for (String route : FRAME_ROUTES) {
            Map<String, String> environment = frames;
            if (DEVICE_ROUTES.contains(route)) {
                // These register devices for push: the deployment fills in its platform applications (none: ""), and grants
                // SNS's endpoint calls to the functions that name them, and to no other.
                environment = new java.util.HashMap<>(frames);
                environment.put(ParleyConfig.FCM_APPLICATION_ARN, "");
                environment.put(ParleyConfig.APNS_APPLICATION_ARN, "");
            }
            functions.add(new FunctionSpec("route-" + route.replace('.', '-'), FrameHandler.class.getName(), 1024, Duration.ofSeconds(10),
                    environment, new Trigger.WebSocketRoute(route), everyTable, true));
        }
        // The fan-out publishes to offline devices (the stack grants SNS's Publish to PUSH_PUBLISHERS); the badge reads
        // memberships and the inbox's counts.
        Map<String, String> fanOut = new java.util.HashMap<>(tables);
        fanOut.put(ParleyConfig.PUSH_WINDOW_MS, Long.toString(ParleyConfig.DEFAULT_PUSH_WINDOW.toMillis()));
        // Three retries, then the record goes to the on-failure queue: a record that fails four times in a row is poison (the
        // injected 1 % of failed invocations fail four in a row once in 10^8), and every record behind it in its lane waits
        // for it. A quarantined message is still stored: its members get it on their next sync.
        functions.add(new FunctionSpec("fanout", FanOutHandler.class.getName(), 1024, Duration.ofSeconds(30), fanOut,
                new Trigger.StreamMapping(MESSAGES, 100, Duration.ZERO, Trigger.StartingPosition.TRIM_HORIZON, 10, true, true, STREAM_RETRIES,
                        Duration.ofHours(1), Optional.of("parley-fanout-failures")),
                // It writes whom a message mentions (MentionRecords): the members' rows, and the head for "*".
                Map.of(MESSAGES, TableAccess.STREAM, CONNECTIONS, TableAccess.READ_WRITE, CONVERSATIONS, TableAccess.READ_WRITE,
                        MEMBERSHIPS, TableAccess.READ_WRITE, INBOX, TableAccess.READ),
                true));
        // Receipts are told to senders from the memberships stream, coalesced by turns (ReceiptNotices), not by a batching
        // window, which would delay every receipt. Parallel batches per shard: a user's records stay in order in one of them,
        // and a batch waiting for a turn holds back only its part. The timeout covers a batch's waits at the longest interval.
        functions.add(new FunctionSpec("receipts", ReceiptNoticesHandler.class.getName(), 512, Duration.ofSeconds(30), tables,
                new Trigger.StreamMapping(MEMBERSHIPS, 100, Duration.ZERO, Trigger.StartingPosition.TRIM_HORIZON, 10, true, true, STREAM_RETRIES,
                        Duration.ofHours(1), Optional.of("parley-receipts-failures")),
                Map.of(MEMBERSHIPS, TableAccess.READ_WRITE, CONVERSATIONS, TableAccess.READ_WRITE, MESSAGES, TableAccess.READ,
                        CONNECTIONS, TableAccess.READ_WRITE), true));
        // Reactions are listed onto their messages, and members told, from the reactions table's stream: per message at most once
        // a second, by a turn on the message's item (ReactionListings), whatever the number of reactions. Large batches, so that
        // a storm on one message (every record on one key, so in one of the parallel lanes) is read as fast as it is written.
        Map<String, String> reacting = new java.util.HashMap<>(tables);
        reacting.put(ParleyConfig.REACTIONS_TABLE, REACTIONS);
        functions.add(new FunctionSpec("reactions", ReactionsHandler.class.getName(), 1024, Duration.ofSeconds(30), reacting,
                new Trigger.StreamMapping(REACTIONS, 1000, Duration.ZERO, Trigger.StartingPosition.TRIM_HORIZON, 10, true, true, STREAM_RETRIES,
                        Duration.ofHours(1), Optional.of("parley-reactions-failures")),
                Map.of(REACTIONS, TableAccess.READ, MESSAGES, TableAccess.READ_WRITE, CONVERSATIONS, TableAccess.READ, MEMBERSHIPS, TableAccess.READ,
                        CONNECTIONS, TableAccess.READ_WRITE), true));
        // The cleanup of dead push tokens: the platforms' endpoint events, checked against the endpoint and the device registered.
        functions.add(new FunctionSpec("push-events", PushEventsHandler.class.getName(), 512, Duration.ofSeconds(30), tables,
                new Trigger.PushEndpointEvents(), Map.of(CONNECTIONS, TableAccess.READ_WRITE), false));
        // The publish API: stores each recipient's notification and sends it to their live devices, or pushes to their offline ones
        // (marking the push on the user's item; the badge reads memberships).
        Map<String, String> publish = new java.util.HashMap<>(tables);
        publish.put(PublishSettings.CATEGORIES, PublishSettings.DEFAULT_CATEGORIES);
        publish.put(PublishSettings.PUBLISHERS, "{}");
        publish.put(ParleyConfig.PUBLISHES_TABLE, PUBLISHES);
        publish.put(ParleyConfig.LIMITS_TABLE, LIMITS);
        // Each send to a device is timed for its redelivery check, on the redelivery queue.
        publish.put(ParleyConfig.REDELIVERY_QUEUE, REDELIVERY);
        publish.put(ParleyConfig.REDELIVERY_TIMEOUT_SECONDS, Long.toString(ParleyConfig.DEFAULT_REDELIVERY_TIMEOUT.toSeconds()));
        publish.put(ParleyConfig.TOPICS_TABLE, TOPICS); // a topic publish records its fan-out, or appends to its topic's feed
        // Above this many subscribers a topic fans out on read (scripts/run-local --topic-read-above, parley:topicReadAbove).
        publish.put(ParleyConfig.TOPIC_READ_ABOVE, Long.toString(dev.parley.functions.usecase.TopicAudiences.DEFAULT_READ_ABOVE));
        Map<String, TableAccess> publishing = Map.of(INBOX, TableAccess.READ_WRITE, CONNECTIONS, TableAccess.READ_WRITE,
                PUBLISHES, TableAccess.READ_WRITE, LIMITS, TableAccess.READ_WRITE, CONVERSATIONS, TableAccess.READ, MEMBERSHIPS, TableAccess.READ,
                TOPICS, TableAccess.READ_WRITE);
        functions.add(new FunctionSpec("publish", PublishHandler.class.getName(), 1024, Duration.ofSeconds(29), publish,
                new Trigger.HttpRoute("POST", "/notifications"), publishing, true));
        // Managing topics' subscribers: one function per method, as API Gateway routes a method and a path to one integration.
        Map<String, String> topicsEnvironment = new java.util.HashMap<>(tables);
        topicsEnvironment.putAll(Map.of(PublishSettings.CATEGORIES, PublishSettings.DEFAULT_CATEGORIES, PublishSettings.PUBLISHERS, "{}",
                ParleyConfig.TOPICS_TABLE, TOPICS));
        for (String method : List.of("PUT", "DELETE")) {
            functions.add(new FunctionSpec("topics-" + method.toLowerCase(java.util.Locale.ROOT), TopicsHandler.class.getName(), 512, Duration.ofSeconds(29),
                    topicsEnvironment, new Trigger.HttpRoute(method, "/topics/{key}/subscribers"), Map.of(TOPICS, TableAccess.READ_WRITE), false));
        }
        // A topic publish's fan-out starts from the topics table's stream once the publish has landed: no queue on the publish's
        // path. Only the two inserts that start one reach the function (the table's other writes are filtered out by Lambda).
        Map<String, String> topicPublishes = new java.util.HashMap<>(tables);
        topicPublishes.put(ParleyConfig.FAN_OUT_QUEUE, TOPIC_FANOUT);
        functions.add(new FunctionSpec("topic-publishes", TopicPublishesHandler.class.getName(), 512, Duration.ofSeconds(30), topicPublishes,
                new Trigger.StreamMapping(TOPICS, 100, Duration.ZERO, Trigger.StartingPosition.TRIM_HORIZON, 10, true, true, STREAM_RETRIES,
                        Duration.ofHours(1), Optional.of("parley-topic-publishes-failures"), List.of(
                        new Trigger.StreamFilter("INSERT", TopicsTable.PK, TopicsTable.FAN_OUT),
                        new Trigger.StreamFilter("INSERT", TopicsTable.SK, TopicsTable.FEED_ENTRY))),
                Map.of(TOPICS, TableAccess.STREAM), true));
        // The topic fan-out's workers: a piece of work an invocation, so that chunks run in parallel (docs/notifications.md).
        Map<String, String> topicFanOut = new java.util.HashMap<>(publish);
        topicFanOut.remove(PublishSettings.PUBLISHERS);
        topicFanOut.put(ParleyConfig.FAN_OUT_QUEUE, TOPIC_FANOUT);
        functions.add(new FunctionSpec("topic-fanout", TopicFanOutHandler.class.getName(), 1024, TOPIC_FANOUT_TIMEOUT, topicFanOut,
                new Trigger.QueueMapping(TOPIC_FANOUT, 1, Duration.ZERO), publishing, true));
        // The redelivery checks: ten at a time, each a check of one device's acknowledgement (docs/notifications.md).
        Map<String, String> redelivery = new java.util.HashMap<>(tables);
        redelivery.put(ParleyConfig.REDELIVERY_QUEUE, REDELIVERY);
        redelivery.put(ParleyConfig.REDELIVERY_TIMEOUT_SECONDS, Long.toString(ParleyConfig.DEFAULT_REDELIVERY_TIMEOUT.toSeconds()));
        redelivery.put(ParleyConfig.REDELIVERY_ATTEMPTS, Integer.toString(ParleyConfig.DEFAULT_REDELIVERY_ATTEMPTS));
        functions.add(new FunctionSpec("redelivery", RedeliveryHandler.class.getName(), 512, Duration.ofSeconds(30), redelivery,
                new Trigger.QueueMapping(REDELIVERY, 10, Duration.ZERO), Map.of(INBOX, TableAccess.READ_WRITE, CONNECTIONS, TableAccess.READ_WRITE),
                true));
        return new Manifest(functions, ParleyTables.tables(), queues(), buckets());
    }

    /**
     * The queues: the redelivery checks wait in one (a visibility timeout six times the function's, as Lambda advises), and
     * a check that failed five times goes to its dead-letter queue, which is alarmed.
     */
    static List<QueueSpec> queues() {
        return List.of(new QueueSpec(REDELIVERY_DEAD, Duration.ofSeconds(30), Optional.empty()),
                new QueueSpec(REDELIVERY, Duration.ofSeconds(180), Optional.of(new QueueSpec.DeadLetters(REDELIVERY_DEAD, 5))),
                new QueueSpec(TOPIC_FANOUT_DEAD, Duration.ofSeconds(30), Optional.empty()),
                new QueueSpec(TOPIC_FANOUT, TOPIC_FANOUT_TIMEOUT.multipliedBy(6), Optional.of(new QueueSpec.DeadLetters(TOPIC_FANOUT_DEAD, 5))));
    }

    /** The media bucket: objects go after the retention (docs/media.md). */
    static List<BucketSpec> buckets() {
        return List.of(new BucketSpec(MEDIA, MEDIA_RETENTION));
    }
}
