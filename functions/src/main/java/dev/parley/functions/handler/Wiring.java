package dev.parley.functions.handler;

import dev.parley.functions.config.AwsClients;
import dev.parley.functions.config.ParleyConfig;
import dev.parley.functions.observability.LogSampling;
import dev.parley.functions.push.SnsPushService;
import dev.parley.functions.runtime.FunctionEnvironment;
import dev.parley.functions.store.DynamoConnectionRegistry;
import dev.parley.functions.store.DynamoConversationRepository;
import dev.parley.functions.store.DynamoMessageLog;
import dev.parley.functions.store.DynamoPushDevices;
import dev.parley.functions.store.ManagementApiPoster;
import dev.parley.functions.usecase.Delivery;
import dev.parley.functions.usecase.Devices;
import dev.parley.functions.usecase.Push;
import dev.parley.functions.usecase.PushEndpoints;
import dev.parley.functions.usecase.Presence;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.MessageLog;
import dev.parley.protocol.PushPlatform;
import java.time.Clock;
import java.util.EnumMap;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The adapters a function's use cases run on, built from its environment once per execution
 * environment (a handler's no-argument constructor): the DynamoDB stores and the Management API,
 * each built once, so that the use cases and SnapStart's priming ({@link PrimedHandler}) share them.
 */
final class Wiring {
    /**
     * At most this many PostToConnection calls in flight per execution environment: the fast path's
     * largest bound, so that a send posts to all its connections in one wave.
     */
    static final int MAX_POSTS_IN_FLIGHT = 64;

    private final ParleyConfig config;
    private final DynamoDbClient dynamo;
    final Clock clock = Clock.systemUTC();

    private Wiring(ParleyConfig config) {
        this.config = config;
        this.dynamo = AwsClients.dynamoDb(config);
        LogSampling.percent(config.logSamplePercent());
    }

    static Wiring fromEnvironment() {
        return new Wiring(ParleyConfig.fromEnvironment());
    }

    private ConnectionRegistry connections;
    private ConversationRepository conversations;
    private MessageLog messages;
    private Delivery delivery;
    private Devices devices;
    private Push push;
    private SnsPushService pushService;
    private Presence presence;

    synchronized ConnectionRegistry connections() {
        if (connections == null) {
            connections = new DynamoConnectionRegistry(dynamo, config.connectionsTable());
        }
        return connections;
    }

    synchronized ConversationRepository conversations() {
        if (conversations == null) {
            conversations = new DynamoConversationRepository(dynamo, config.conversationsTable(), config.membershipsTable());
        }
        return conversations;
    }

    synchronized MessageLog messages() {
        if (messages == null) {
            messages = new DynamoMessageLog(dynamo, AwsClients.dynamoDbWithoutRetries(config), config.messagesTable(), config.conversationsTable(),
                    config.membershipsTable());
        }
        return messages;
    }

    java.time.Duration receiptNoticeInterval() {
        return config.receiptNoticeInterval();
    }

    /** The send's fast path as configured; empty when it is turned off. */
    java.util.Optional<MessageLog.FastPathOffer> fastPath() {
        return config.fastPathMaxConnections() == 0 ? java.util.Optional.empty()
                : java.util.Optional.of(new MessageLog.FastPathOffer(config.fastPathWindow(), config.fastPathMaxConnections()));
    }

    /** Push registrations and mutes (connections table, SNS); cheap to build: its SNS client comes with the first device frame. */
    synchronized Devices devices() {
        if (devices == null) {
            devices = new Devices(pushDevices(), pushService(), conversations());
        }
        return devices;
    }

    /** Offline push, for the fan-out and the publish function. */
    synchronized Push push() {
        if (push == null) {
            push = new Push(pushDevices(), pushService(), new dev.parley.functions.usecase.Badges(conversations(), inbox()), clock,
                    ParleyConfig.pushWindow());
        }
        return push;
    }

    /** The push service's endpoints, for the function that handles the platform applications' endpoint events. */
    PushEndpoints pushEndpoints() {
        return new PushEndpoints(pushDevices(), pushService());
    }

    DynamoPushDevices pushDevices() {
        return new DynamoPushDevices(dynamo, config.connectionsTable());
    }

    private synchronized SnsPushService pushService() {
        if (pushService == null) {
            Map<PushPlatform, String> applications = new EnumMap<>(PushPlatform.class);
            FunctionEnvironment.get(ParleyConfig.FCM_APPLICATION_ARN).ifPresent(arn -> applications.put(PushPlatform.FCM, arn));
            FunctionEnvironment.get(ParleyConfig.APNS_APPLICATION_ARN).ifPresent(arn -> applications.put(PushPlatform.APNS, arn));
            pushService = new SnsPushService(() -> AwsClients.sns(config, FunctionEnvironment.get(ParleyConfig.SNS_ENDPOINT).map(java.net.URI::create)),
                    applications);
        }
        return pushService;
    }

    /** Presence over the connections table and the subscriptions table, told through the Management API. */
    synchronized Presence presence() {
        if (presence == null) {
            presence = new Presence(connections(), presenceSubscriptions(), conversations(), delivery(), new dev.parley.protocol.FrameCodec(), clock);
        }
        return presence;
    }

    /** State-changing frames by request id, in the publishes table (protocol 1.1: the same id is answered once). */
    dev.parley.ports.RequestRecords requestRecords() {
        return new dev.parley.functions.store.DynamoRequestRecords(dynamo, ParleyConfig.table(ParleyConfig.PUBLISHES_TABLE));
    }

    /** Publishing, with the deployment's categories; a topic publish records its fan-out, which the topics table's stream starts. */
    dev.parley.functions.usecase.Notifications notifications(dev.parley.functions.config.PublishSettings settings) {
        return new dev.parley.functions.usecase.Notifications(inbox(), new dev.parley.functions.usecase.TopicAudiences(topics(), topicFeeds(),
                ParleyConfig.topicReadAbove()),
                new dev.parley.functions.store.DynamoPublishRecords(dynamo, ParleyConfig.table(ParleyConfig.PUBLISHES_TABLE)),
                new dev.parley.functions.store.DynamoRateLimits(dynamo, ParleyConfig.table(ParleyConfig.LIMITS_TABLE)), notificationDispatch(),
                clock, settings.categories(), new java.security.SecureRandom());
    }

    /** Sending notifications to devices, each send timed for its redelivery check on the redelivery queue. */
    dev.parley.functions.usecase.NotificationDispatch notificationDispatch() {
        var timers = new dev.parley.functions.store.SqsRedeliveryTimers(() -> AwsClients.sqs(config,
                FunctionEnvironment.get(ParleyConfig.SQS_ENDPOINT).map(java.net.URI::create)), ParleyConfig.table(ParleyConfig.REDELIVERY_QUEUE));
        return new dev.parley.functions.usecase.NotificationDispatch(connections(), delivery(), new dev.parley.protocol.FrameCodec(), timers, push(),
                clock, ParleyConfig.redeliveryTimeout());
    }

    dev.parley.ports.Topics topics() {
        return new dev.parley.functions.store.DynamoTopics(dynamo, ParleyConfig.table(ParleyConfig.TOPICS_TABLE), dev.parley.functions.retry.Backoff.DYNAMODB);
    }

    dev.parley.functions.usecase.TopicSubscribers topicSubscribers() {
        return new dev.parley.functions.usecase.TopicSubscribers(topics(), clock);
    }

    /** The topic fan-out's workers: they deliver as publishing does, and queue the fan-out's next pages. */
    dev.parley.functions.usecase.TopicFanOut topicFanOut(dev.parley.functions.config.PublishSettings settings) {
        return new dev.parley.functions.usecase.TopicFanOut(notifications(settings), topics(), fanOutQueue(), topicFeeds(), delivery(),
                new dev.parley.protocol.FrameCodec(), clock);
    }

    dev.parley.ports.TopicFeeds topicFeeds() {
        return new dev.parley.functions.store.DynamoTopicFeeds(dynamo, ParleyConfig.table(ParleyConfig.TOPICS_TABLE), dev.parley.functions.retry.Backoff.DYNAMODB);
    }

    /** The frame functions' pull of large topics' feeds into an inbox about to be read. */
    dev.parley.functions.usecase.TopicFeedPulls topicFeedPulls() {
        return new dev.parley.functions.usecase.TopicFeedPulls(topicFeeds(), inbox(), dev.parley.functions.config.PublishSettings.categoriesFromEnvironment());
    }

    /** Connections registering in, and leaving, their user's topics' live indexes. */
    dev.parley.functions.usecase.TopicListening topicListening() {
        return new dev.parley.functions.usecase.TopicListening(topicFeeds(), clock);
    }

    private dev.parley.ports.FanOutQueue fanOutQueue;

    /** The topic fan-out's queue, its SQS client made on first use. */
    synchronized dev.parley.ports.FanOutQueue fanOutQueue() {
        if (fanOutQueue == null) {
            fanOutQueue = new dev.parley.functions.store.SqsFanOutQueue(() -> AwsClients.sqs(config,
                    FunctionEnvironment.get(ParleyConfig.SQS_ENDPOINT).map(java.net.URI::create)), ParleyConfig.table(ParleyConfig.FAN_OUT_QUEUE));
        }
        return fanOutQueue;
    }

    dev.parley.functions.usecase.Redelivery redelivery() {
        return new dev.parley.functions.usecase.Redelivery(inbox(), notificationDispatch(), ParleyConfig.redeliveryAttempts());
    }

    /** The key directory: the frame functions' only. */
    dev.parley.ports.KeyDirectory keyDirectory() {
        return new dev.parley.functions.store.DynamoKeyDirectory(dynamo, ParleyConfig.table(ParleyConfig.KEYS_TABLE),
                dev.parley.functions.retry.Backoff.DYNAMODB);
    }

    /** Media in the deployment's bucket: the frame functions' only. */
    dev.parley.functions.usecase.Media media() {
        var bucket = dev.parley.functions.config.MediaSettings.bucket(config);
        var store = new dev.parley.functions.store.S3MediaStore(bucket.signing(), () -> dev.parley.functions.config.MediaSettings.client(bucket),
                () -> dev.parley.functions.config.MediaSettings.presigner(bucket), clock);
        return new dev.parley.functions.usecase.Media(store, conversations(), dev.parley.functions.config.MediaSettings.maxBytes());
    }

    dev.parley.functions.usecase.FrameLimits frameLimits() {
        return new dev.parley.functions.usecase.FrameLimits(new dev.parley.functions.store.DynamoRateLimits(dynamo,
                ParleyConfig.table(ParleyConfig.LIMITS_TABLE)), dev.parley.functions.config.FrameLimitSettings.fromEnvironment(), clock);
    }

    /** Push on or off per notification category, against the deployment's categories. */
    dev.parley.functions.usecase.NotificationPushSettings notificationPushSettings() {
        return new dev.parley.functions.usecase.NotificationPushSettings(pushDevices(),
                dev.parley.functions.config.PublishSettings.categoriesFromEnvironment());
    }

    /** Reactions in the reactions table, listed onto the messages table's items. */
    dev.parley.ports.ReactionStore reactions() {
        return new dev.parley.functions.store.DynamoReactionStore(dynamo, ParleyConfig.table(ParleyConfig.REACTIONS_TABLE), config.messagesTable(),
                dev.parley.functions.retry.Backoff.DYNAMODB);
    }

    dev.parley.ports.Inbox inbox() {
        return new dev.parley.functions.store.DynamoInbox(dynamo, ParleyConfig.table(ParleyConfig.INBOX_TABLE), clock);
    }

    dev.parley.ports.PresenceSubscriptions presenceSubscriptions() {
        return new dev.parley.functions.store.DynamoPresenceSubscriptions(dynamo, ParleyConfig.table(ParleyConfig.PRESENCE_TABLE));
    }

    /** For a function that posts to connections: the Management API's endpoint must be configured. */
    synchronized Delivery delivery() {
        if (delivery == null) {
            delivery = new Delivery(connections(), new ManagementApiPoster(AwsClients.management(config)), clock, MAX_POSTS_IN_FLIGHT);
        }
        return delivery;
    }
}
