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
}
