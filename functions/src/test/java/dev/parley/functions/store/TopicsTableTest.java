package dev.parley.functions.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.ConnectionId;
import dev.parley.model.NotificationId;
import dev.parley.model.TopicKey;
import dev.parley.model.UserId;
import dev.parley.ports.TopicFeeds;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The topics table's keys are written and read in one place: what one writes, the other reads back, and nothing else. */
class TopicsTableTest {
    private final TopicKey topic = TopicKey.of("release:notes-2");
    private final UserId user = UserId.of("ada");

    @Test
    void aTopicKeyReadsBackFromTheTopicsPartitionAndFromAUsersSubscription() {
        assertThat(TopicsTable.topicOf(TopicsTable.topic(topic))).isEqualTo(topic);
        String subscriptionSortKey = TopicsTable.userTopic(user, topic).get(TopicsTable.SK).s();
        assertThat(TopicsTable.topicOf(subscriptionSortKey)).isEqualTo(topic);
        assertThat(TopicsTable.userTopic(user, topic).get(TopicsTable.PK).s()).isEqualTo(TopicsTable.user(user));
    }

    @Test
    void aFeedPositionReadsBackAndSortsBeforeTheFeedsEnd() {
        NotificationId position = NotificationId.at(1_800_000_000_000L, new Random(7));
        String sortKey = TopicsTable.feedEntry(position);
        assertThat(TopicsTable.feedPosition(sortKey)).isEqualTo(position);
        assertThat(sortKey.compareTo(TopicsTable.FEED_ENTRIES_END)).isNegative();
        assertThat(sortKey.compareTo(TopicsTable.feedEntry(NotificationId.first(0)))).isPositive();
    }

    @Test
    void aConnectionsLiveItemIsInItsShardsPartition() {
        ConnectionId connection = ConnectionId.of("Abc123=");
        var key = TopicsTable.live(topic, connection);
        assertThat(key.get(TopicsTable.PK).s()).isEqualTo(TopicsTable.liveShard(topic, TopicFeeds.liveShard(connection)));
        assertThat(key.get(TopicsTable.SK).s()).isEqualTo("Abc123=");
    }

    @Test
    void aKeyWithoutItsPrefixIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> TopicsTable.topicOf("U#ada")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("U#ada")
                .hasMessageContaining("T#");
        assertThatThrownBy(() -> TopicsTable.feedPosition("#")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("N#");
    }
}
