package dev.parley.testsupport.ports;

import dev.parley.model.ConversationId;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.InMemoryRateLimits;
import org.junit.jupiter.api.Nested;

/** The ports' contract suites against the in-memory fakes; local's DynamoContractsTest runs the same against the DynamoDB adapters. */
class InMemoryContractsTest {

    @Nested
    class Keys extends KeyDirectoryContract {
        @Override
        protected dev.parley.ports.KeyDirectory directory() {
            return new InMemoryKeyDirectory();
        }
    }

    @Nested
    class TopicSubscriptions extends TopicsContract {
        private final InMemoryTopics store = new InMemoryTopics();

        @Override
        protected dev.parley.ports.Topics topics() {
            return store;
        }

        @Override
        protected dev.parley.ports.TopicFeeds feeds() {
            return store;
        }
    }

    @Nested
    class Buckets extends RateLimitsContract {
        @Override
        protected dev.parley.ports.RateLimits limits() {
            return new InMemoryRateLimits();
        }
    }

    @Nested
    class Publishes extends PublishRecordsContract {
        @Override
        protected dev.parley.ports.PublishRecords records() {
            return new InMemoryPublishRecords();
        }
    }

    @Nested
    class Requests extends RequestRecordsContract {
        @Override
        protected dev.parley.ports.RequestRecords records() {
            return new InMemoryRequestRecords();
        }
    }

    @Nested
    class Inboxes extends InboxContract {
        @Override
        protected dev.parley.ports.Inbox inbox() {
            return new InMemoryInbox();
        }
    }

    @Nested
    class PresenceWatchers extends PresenceSubscriptionsContract {
        @Override
        protected dev.parley.ports.PresenceSubscriptions subscriptions() {
            return new InMemoryPresenceSubscriptions();
        }
    }

    @Nested
    class PushRegistrations extends PushDevicesContract {
        private final InMemoryPushDevices devices = new InMemoryPushDevices();

        @Override
        protected dev.parley.ports.PushDevices devices() {
            return devices;
        }

        @Override
        protected dev.parley.ports.ConnectionRegistry.Reach reach(UserId user) {
            return devices.reach(user, java.util.List.of());
        }
    }

    @Nested
    class Connections extends ConnectionRegistryContract {
        @Override
        protected ConnectionRegistry registry() {
            return new InMemoryConnectionRegistry();
        }
    }

    @Nested
    class Conversations extends ConversationRepositoryContract {
        private final InMemoryConversations conversations = new InMemoryConversations();

        @Override
        protected Stores stores() {
            return new Stores(conversations, new InMemoryMessageLog(conversations));
        }

        @Override
        protected void loseRow(UserId user, ConversationId conversation) {
            conversations.loseRow(user, conversation);
        }
    }

    @Nested
    class Messages extends MessageLogContract {
        @Override
        protected ConversationRepositoryContract.Stores stores() {
            InMemoryConversations conversations = new InMemoryConversations();
            return new ConversationRepositoryContract.Stores(conversations, new InMemoryMessageLog(conversations));
        }
    }

    @Nested
    class Reactions extends ReactionStoreContract {
        @Override
        protected Stores stores() {
            InMemoryConversations conversations = new InMemoryConversations();
            InMemoryMessageLog messages = new InMemoryMessageLog(conversations);
            return new Stores(conversations, messages, new InMemoryReactionStore(messages));
        }
    }
}
