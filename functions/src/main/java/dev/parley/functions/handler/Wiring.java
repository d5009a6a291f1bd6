package dev.parley.functions.handler;

import dev.parley.functions.config.AwsClients;
import dev.parley.functions.config.ParleyConfig;
import dev.parley.functions.observability.LogSampling;
import dev.parley.functions.store.DynamoConnectionRegistry;
import dev.parley.functions.store.DynamoConversationRepository;
import dev.parley.functions.store.DynamoMessageLog;
import dev.parley.functions.store.ManagementApiPoster;
import dev.parley.functions.usecase.Delivery;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.MessageLog;
import java.time.Clock;
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

    /** For a function that posts to connections: the Management API's endpoint must be configured. */
    synchronized Delivery delivery() {
        if (delivery == null) {
            delivery = new Delivery(connections(), new ManagementApiPoster(AwsClients.management(config)), clock, MAX_POSTS_IN_FLIGHT);
        }
        return delivery;
    }
}
