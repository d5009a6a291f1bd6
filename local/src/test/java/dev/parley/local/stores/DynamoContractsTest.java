package dev.parley.local.stores;

import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.store.MembershipsTable;
import dev.parley.model.ConversationId;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.testsupport.ports.ConnectionRegistryContract;
import dev.parley.testsupport.ports.ConversationRepositoryContract;
import dev.parley.testsupport.ports.MessageLogContract;
import dev.parley.testsupport.ports.PushDevicesContract;
import org.junit.jupiter.api.AfterEach;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The ports' contract suites against the DynamoDB adapters on the emulator: the same tests the
 * in-memory fakes pass (test-support), so the fakes the use cases are tested on cannot drift from the
 * stores the functions run on.
 */
class DynamoContractsTest {

    /** Starts the tables when a suite first asks for its stores, and stops them after each test. */
    private static final class OnTheEmulator {
        private EmulatedTables tables;

        EmulatedTables tables() {
            if (tables == null) {
                tables = new EmulatedTables();
            }
            return tables;
        }

        void stop() {
            if (tables != null) {
                tables.close();
                tables = null;
            }
        }
    }

    @Nested
    class Connections extends ConnectionRegistryContract {
        private final OnTheEmulator emulated = new OnTheEmulator();

        @Override
        protected ConnectionRegistry registry() {
            return emulated.tables().connections();
        }

        @AfterEach
        void stop() {
            emulated.stop();
        }
    }

    @Nested
    class TopicSubscriptions extends dev.parley.testsupport.ports.TopicsContract {
        private final OnTheEmulator emulated = new OnTheEmulator();

        @Override
        protected dev.parley.ports.Topics topics() {
            return new dev.parley.functions.store.DynamoTopics(emulated.tables().dynamo, ParleyManifest.TOPICS, emulated.tables().backoff);
        }

        @Override
        protected dev.parley.ports.TopicFeeds feeds() {
            return new dev.parley.functions.store.DynamoTopicFeeds(emulated.tables().dynamo, ParleyManifest.TOPICS, emulated.tables().backoff);
        }

        /** Transactions cancelled for a conflict with another under way, a third of the time: every append lands, once, in order. */
        @org.junit.jupiter.api.Test
        void appendsThatMeetAConflictingTransactionTryAgainAndLandInOrder() {
            dev.parley.model.TopicKey topic = dev.parley.model.TopicKey.of("match:busy");
            emulated.tables().emulator.faults().add(new dev.parley.local.dynamodb.Faults.Rule("TransactWriteItems", ParleyManifest.TOPICS,
                    dev.parley.local.dynamodb.Faults.Kind.TRANSACTION_CONFLICT, 0.33, 0));
            java.util.Random random = new java.util.Random(8);
            java.util.List<dev.parley.model.NotificationId> ids = new java.util.ArrayList<>();
            java.util.List<dev.parley.model.NotificationId> positions = new java.util.ArrayList<>();
            for (int i = 0; i < 12; i++) {
                ids.add(dev.parley.model.NotificationId.at(System.currentTimeMillis(), random));
                positions.add(feeds().append(topic, ids.getLast(),
                        dev.parley.protocol.PublishRequest.parse("{\"topic\":\"match:busy\",\"category\":\"goals\",\"content\":{\"title\":\"" + i + "\"}}")));
            }
            org.assertj.core.api.Assertions.assertThat(emulated.tables().waits).as("some appends waited after a conflict").isNotEmpty();
            org.assertj.core.api.Assertions.assertThat(positions).isSorted().doesNotHaveDuplicates();
            org.assertj.core.api.Assertions.assertThat(feeds().entries(topic, java.util.Optional.empty(), 0, 100))
                    .extracting(dev.parley.ports.TopicFeeds.Entry::id).containsExactlyElementsOf(ids);
        }

        /** Another function whose clock runs an hour ahead landed an entry: this one's lands after it all the same. */
        @org.junit.jupiter.api.Test
        void anEntryLandsAfterANewerPositionFromAClockAhead() {
            dev.parley.model.TopicKey topic = dev.parley.model.TopicKey.of("match:clock");
            dev.parley.model.NotificationId ahead = dev.parley.model.NotificationId.at(System.currentTimeMillis() + 3_600_000, new java.util.Random(3));
            emulated.tables().dynamo.putItem(b -> b.tableName(ParleyManifest.TOPICS).item(Map.of("pk", AttributeValue.fromS("T#" + topic.value()),
                    "sk", AttributeValue.fromS("#"), "newest", AttributeValue.fromS(ahead.value()))));
            dev.parley.model.NotificationId id = dev.parley.model.NotificationId.at(System.currentTimeMillis(), new java.util.Random(4));
            dev.parley.model.NotificationId position = feeds().append(topic, id,
                    dev.parley.protocol.PublishRequest.parse("{\"topic\":\"match:clock\",\"category\":\"goals\",\"content\":{\"title\":\"late\"}}"));
            org.assertj.core.api.Assertions.assertThat(position).isGreaterThan(ahead);
            org.assertj.core.api.Assertions.assertThat(feeds().newest(java.util.List.of(topic))).containsEntry(topic, position);
            org.assertj.core.api.Assertions.assertThat(feeds().entries(topic, java.util.Optional.of(ahead), 0, 10))
                    .extracting(dev.parley.ports.TopicFeeds.Entry::id).containsExactly(id);
        }

        /**
         * What the stores write to the topics table, read back from its stream: the inserts of a fan-out's record and of a
         * feed entry start their publish's first work, and the topic-publishes mapping's filters let exactly those through.
         */
        @org.junit.jupiter.api.Test
        void theStreamStartsEachLandedPublishOnceAndTheFiltersLetNothingElseThrough() {
            dev.parley.model.TopicKey topic = dev.parley.model.TopicKey.of("match:stream");
            dev.parley.protocol.PublishRequest onWrite = dev.parley.protocol.PublishRequest.parse(
                    "{\"topic\":\"match:stream\",\"category\":\"goals\",\"content\":{\"title\":\"small\"}}");
            dev.parley.protocol.PublishRequest onRead = dev.parley.protocol.PublishRequest.parse(
                    "{\"topic\":\"match:stream\",\"category\":\"goals\",\"content\":{\"title\":\"huge\"}}");
            dev.parley.model.NotificationId written = dev.parley.model.NotificationId.at(System.currentTimeMillis(), new java.util.Random(5));
            dev.parley.model.NotificationId read = dev.parley.model.NotificationId.at(System.currentTimeMillis(), new java.util.Random(6));
            topics().subscribe(topic, java.util.List.of(UserId.of("fan-1"), UserId.of("fan-2")), 1);
            topics().beginFanOut(written, onWrite);
            topics().beginFanOut(written, onWrite); // a retried publish: no second insert
            topics().advanceFanOut(written, java.util.Optional.empty(), java.util.Optional.of(UserId.of("fan-2")));
            feeds().append(topic, read, onRead);
            feeds().listen(new dev.parley.ports.TopicFeeds.Listener(dev.parley.model.ConnectionId.of("Conn1="), UserId.of("fan-1"),
                    dev.parley.model.DeviceId.DEFAULT, false), feeds().followed(UserId.of("fan-1"), 10), System.currentTimeMillis() + 60_000);

            var mapping = (dev.parley.functions.manifest.Trigger.StreamMapping) ParleyManifest.manifest().function("topic-publishes").orElseThrow().trigger();
            var filters = mapping.filters().stream().map(filter -> dev.parley.local.lambda.EventPattern.parse(filter.pattern())).toList();
            java.util.List<dev.parley.ports.FanOutQueue.Work> started = new java.util.ArrayList<>();
            int records = 0;
            try (var streams = software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient.builder()
                    .endpointOverride(emulated.tables().emulator.endpoint()).region(software.amazon.awssdk.regions.Region.US_EAST_1)
                    .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                            software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("local", "local")))
                    .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create()).build()) {
                String arn = emulated.tables().dynamo.describeTable(b -> b.tableName(ParleyManifest.TOPICS)).table().latestStreamArn();
                for (var shard : streams.describeStream(b -> b.streamArn(arn)).streamDescription().shards()) {
                    String iterator = streams.getShardIterator(b -> b.streamArn(arn).shardId(shard.shardId())
                            .shardIteratorType(software.amazon.awssdk.services.dynamodb.model.ShardIteratorType.TRIM_HORIZON)).shardIterator();
                    for (var record : streams.getRecords(b -> b.shardIterator(iterator)).records()) {
                        records++;
                        var keys = dev.parley.local.dynamodb.server.Json.NODES.objectNode();
                        record.dynamodb().keys().forEach((name, value) -> keys.putObject(name).put("S", value.s()));
                        var event = dev.parley.local.dynamodb.server.Json.NODES.objectNode().put("eventName", record.eventNameAsString());
                        event.putObject("dynamodb").set("Keys", keys);
                        boolean passes = filters.stream().anyMatch(filter -> filter.matches(event));
                        var start = record.dynamodb().hasNewImage()
                                ? dev.parley.functions.store.TopicsTable.fanOutStart(record.dynamodb().newImage()) : java.util.List.<dev.parley.ports.FanOutQueue.Work>of();
                        org.assertj.core.api.Assertions.assertThat(passes).as(event.toString())
                                .isEqualTo(!start.isEmpty() && "INSERT".equals(record.eventNameAsString()));
                        if (passes) {
                            started.addAll(start);
                        }
                    }
                }
            }
            org.assertj.core.api.Assertions.assertThat(records).as("subscriptions, counts, the head, the cursor, the live index").isGreaterThan(8);
            java.util.List<dev.parley.ports.FanOutQueue.Work> expected = new java.util.ArrayList<>(
                    dev.parley.ports.FanOutQueue.Live.everyShard(read, onRead));
            expected.add(new dev.parley.ports.FanOutQueue.Page(written, onWrite, java.util.Optional.empty()));
            org.assertj.core.api.Assertions.assertThat(started).containsExactlyInAnyOrderElementsOf(expected);
        }

        @org.junit.jupiter.api.Test
        void anItemThatShouldStartAFanOutButCarriesNoPublishIsAnError() {
            var entry = Map.of("pk", AttributeValue.fromS("T#match:x"), "sk", AttributeValue.fromS("N#01HZZZZZZZZZZZZZZZZZZZZZZZ"));
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> dev.parley.functions.store.TopicsTable.fanOutStart(entry))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("request");
            var record = Map.of("pk", AttributeValue.fromS("F#not-an-id"), "sk", AttributeValue.fromS("#"), "request", AttributeValue.fromS("{}"));
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> dev.parley.functions.store.TopicsTable.fanOutStart(record))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("F#not-an-id");
        }

        @AfterEach
        void stop() {
            emulated.stop();
        }
    }

    @Nested
    class Keys extends dev.parley.testsupport.ports.KeyDirectoryContract {
        private final OnTheEmulator emulated = new OnTheEmulator();

        @Override
        protected dev.parley.ports.KeyDirectory directory() {
            return new dev.parley.functions.store.DynamoKeyDirectory(emulated.tables().dynamo, ParleyManifest.KEYS, emulated.tables().backoff);
        }

        /** Throttling and 500s on a third of the claims' requests: fetches fail and are retried, and no key is handed out twice. */
        @org.junit.jupiter.api.Test
        void underFaultsNoOneTimeKeyIsHandedOutTwice() throws Exception {
            dev.parley.ports.KeyDirectory keys = directory();
            keys.upload(BOB, PHONE, upload("bob-identity", 1, 10));
            var faults = emulated.tables().emulator.faults();
            for (String operation : java.util.List.of("UpdateItem", "DeleteItem")) {
                faults.add(new dev.parley.local.dynamodb.Faults.Rule(operation, ParleyManifest.KEYS, dev.parley.local.dynamodb.Faults.Kind.THROTTLING, 0.2, 0));
                faults.add(new dev.parley.local.dynamodb.Faults.Rule(operation, ParleyManifest.KEYS,
                        dev.parley.local.dynamodb.Faults.Kind.INTERNAL_SERVER_ERROR, 0.15, 0));
            }
            java.util.List<Integer> handedOut = new java.util.concurrent.CopyOnWriteArrayList<>();
            java.util.concurrent.atomic.AtomicInteger failed = new java.util.concurrent.atomic.AtomicInteger();
            try (var threads = java.util.concurrent.Executors.newFixedThreadPool(16)) {
                for (int i = 0; i < 64; i++) {
                    threads.submit(() -> {
                        try {
                            keys.fetch(BOB, java.util.Optional.empty()).orElseThrow().bundle().devices().getFirst().preKey()
                                    .ifPresent(key -> handedOut.add(key.keyId()));
                        } catch (RuntimeException faulted) {
                            failed.incrementAndGet();
                        }
                    });
                }
            }
            org.assertj.core.api.Assertions.assertThat(emulated.tables().emulator.faults().errorsInjected()).as("faults were met").isPositive();
            org.assertj.core.api.Assertions.assertThat(handedOut).as("never twice").doesNotHaveDuplicates().hasSizeLessThanOrEqualTo(10);
            faults.clear();
            org.assertj.core.api.Assertions.assertThat(keys.count(BOB, PHONE).preKeys()).as("what is left is what no fetch took")
                    .isLessThanOrEqualTo(10 - handedOut.size());
        }

        @AfterEach
        void stop() {
            emulated.stop();
        }
    }

    @Nested
    class Buckets extends dev.parley.testsupport.ports.RateLimitsContract {
        private final OnTheEmulator emulated = new OnTheEmulator();

        @Override
        protected dev.parley.ports.RateLimits limits() {
            return new dev.parley.functions.store.DynamoRateLimits(emulated.tables().dynamo, ParleyManifest.LIMITS);
        }

        @AfterEach
        void stop() {
            emulated.stop();
        }
    }

    @Nested
    class Requests extends dev.parley.testsupport.ports.RequestRecordsContract {
        private final OnTheEmulator emulated = new OnTheEmulator();

        @Override
        protected dev.parley.ports.RequestRecords records() {
            return new dev.parley.functions.store.DynamoRequestRecords(emulated.tables().dynamo, ParleyManifest.PUBLISHES);
        }

        @AfterEach
        void stop() {
            emulated.stop();
        }
    }

    @Nested
    class Publishes extends dev.parley.testsupport.ports.PublishRecordsContract {
        private final OnTheEmulator emulated = new OnTheEmulator();

        @Override
        protected dev.parley.ports.PublishRecords records() {
            return new dev.parley.functions.store.DynamoPublishRecords(emulated.tables().dynamo, ParleyManifest.PUBLISHES);
        }

        @AfterEach
        void stop() {
            emulated.stop();
        }
    }

    @Nested
    class Inboxes extends dev.parley.testsupport.ports.InboxContract {
        private final OnTheEmulator emulated = new OnTheEmulator();

        @Override
        protected dev.parley.ports.Inbox inbox() {
            return new dev.parley.functions.store.DynamoInbox(emulated.tables().dynamo, ParleyManifest.INBOX, java.time.Clock.systemUTC());
        }

        @AfterEach
        void stop() {
            emulated.stop();
        }
    }

    @Nested
    class PresenceWatchers extends dev.parley.testsupport.ports.PresenceSubscriptionsContract {
        private final OnTheEmulator emulated = new OnTheEmulator();

        @Override
        protected dev.parley.ports.PresenceSubscriptions subscriptions() {
            return new dev.parley.functions.store.DynamoPresenceSubscriptions(emulated.tables().dynamo, ParleyManifest.PRESENCE);
        }

        @AfterEach
        void stop() {
            emulated.stop();
        }
    }

    @Nested
    class PushRegistrations extends PushDevicesContract {
        private final OnTheEmulator emulated = new OnTheEmulator();

        @Override
        protected dev.parley.ports.PushDevices devices() {
            return new dev.parley.functions.store.DynamoPushDevices(emulated.tables().dynamo, ParleyManifest.CONNECTIONS);
        }

        @Override
        protected dev.parley.ports.ConnectionRegistry.Reach reach(UserId user) {
            // Read back as the fan-out reads it: with the user's connections, in one read.
            return emulated.tables().connections().reach(java.util.List.of(user), java.time.Instant.now()).get(user);
        }

        @AfterEach
        void stop() {
            emulated.stop();
        }
    }

    @Nested
    class Conversations extends ConversationRepositoryContract {
        private final OnTheEmulator emulated = new OnTheEmulator();

        @Override
        protected Stores stores() {
            return new Stores(emulated.tables().conversations(), emulated.tables().messages());
        }

        @Override
        protected void loseRow(UserId user, ConversationId conversation) {
            emulated.tables().dynamo.deleteItem(b -> b.tableName(ParleyManifest.MEMBERSHIPS).key(Map.of(
                    MembershipsTable.USER, AttributeValue.fromS(user.value()), MembershipsTable.CONVERSATION, AttributeValue.fromS(conversation.value()))));
        }

        @AfterEach
        void stop() {
            emulated.stop();
        }
    }

    @Nested
    class Messages extends MessageLogContract {
        private final OnTheEmulator emulated = new OnTheEmulator();

        @Override
        protected ConversationRepositoryContract.Stores stores() {
            return new ConversationRepositoryContract.Stores(emulated.tables().conversations(), emulated.tables().messages());
        }

        @AfterEach
        void stop() {
            emulated.stop();
        }
    }

    @Nested
    class Reactions extends dev.parley.testsupport.ports.ReactionStoreContract {
        private final OnTheEmulator emulated = new OnTheEmulator();

        @Override
        protected Stores stores() {
            return new Stores(emulated.tables().conversations(), emulated.tables().messages(), new dev.parley.functions.store.DynamoReactionStore(
                    emulated.tables().dynamo, ParleyManifest.REACTIONS, ParleyManifest.MESSAGES, emulated.tables().backoff));
        }

        @AfterEach
        void stop() {
            emulated.stop();
        }
    }
}
