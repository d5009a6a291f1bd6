package dev.parley.ports;

import dev.parley.model.ConnectionId;
import dev.parley.model.DeviceId;
import dev.parley.model.NotificationId;
import dev.parley.model.TopicKey;
import dev.parley.model.UserId;
import dev.parley.protocol.PublishRequest;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The fan-out on read of topics too large to fan out on write: each publish is one entry of the topic's feed; a follower's
 * inbox pulls the entries it has not pulled yet when it is read; and the connections of followers register, when they
 * connect, in each followed topic's live index, which a publish posts to instead of reading every subscriber.
 *
 * <p>An entry's place in its feed is its <em>position</em>, drawn when it lands, after every entry already there (not its
 * notification id, drawn when the publish began: two publishes racing, or a publish retried an hour later under its first
 * id, would land an entry before positions a reader has pulled past). So a reader that pulled up to a position has every
 * entry before it, whatever the timing.
 */
public interface TopicFeeds {

    /** A topic the user follows: since when (epoch ms), the position their inbox pulled the feed up to, and whether they muted it. */
    record Followed(TopicKey topic, long since, Optional<NotificationId> pulled, boolean muted) {
    }

    /** One publish to a topic read on demand: where it is in the feed, and the notification it is. */
    record Entry(NotificationId position, NotificationId id, PublishRequest request) {
    }

    /** A connection registered in a topic's live index: who it is, and whether they muted the topic. */
    record Listener(ConnectionId connection, UserId user, DeviceId device, boolean muted) {
    }

    /** A page of a live index; {@code next} the cursor for the page after, empty on the last. */
    record Listeners(List<Listener> listeners, Optional<ConnectionId> next) {
        public Listeners {
            listeners = List.copyOf(listeners);
        }
    }

    /** The user's topics, at most {@code limit} (in topic key order). */
    List<Followed> followed(UserId user, int limit);

    /** The newest position of each of these topics' feeds; a topic without an entry is left out. */
    Map<TopicKey, NotificationId> newest(Collection<TopicKey> topics);

    /**
     * Adds the publish to the end of the topic's feed; its position. Appended again (a retried publish), it is there twice
     * under one id, which an inbox stores once. An entry that lands starts its post to the topic's live index: the store
     * queues {@link FanOutQueue.Live#everyShard} for it, at least once, after the append (on AWS, from the table's stream).
     */
    NotificationId append(TopicKey topic, NotificationId id, PublishRequest request);

    /** Up to {@code limit} entries after the position {@code after}, in feed order, none published before {@code since} (epoch ms). */
    List<Entry> entries(TopicKey topic, Optional<NotificationId> after, long since, int limit);

    /** The user's inbox holds the topic's entries up to this position: never moved back. */
    void pulled(UserId user, TopicKey topic, NotificationId upTo);

    /**
     * A topic's live index is split in this many shards, each read page by page by a worker of its own, so that a topic with a
     * million followers online reaches them in parallel. 16: at 1,000 posts a page in about 0.4 s on AWS (64 in flight, 25 ms
     * each), 16 workers post about 40,000 a second, past API Gateway's 10,000 a second per account, which then binds
     * (docs/notifications.md, the model); each publish pays 16 Queries and 16 queue messages, whatever the topic's size.
     */
    int LIVE_SHARDS = 16;

    /** The shard of the live index a connection registers in: the same for it on every function (String's hash is specified). */
    static int liveShard(ConnectionId connection) {
        return Math.floorMod(connection.value().hashCode(), LIVE_SHARDS);
    }

    /** Registers the connection in these topics' live indexes until {@code until} (epoch ms), each in its shard. */
    void listen(Listener listener, Collection<Followed> topics, long until);

    /** Takes the connection out of these topics' live indexes. */
    void stopListening(ConnectionId connection, Collection<TopicKey> topics);

    /** A page of one shard of the topic's live index, registrations run out left out. */
    Listeners listeners(TopicKey topic, int shard, Optional<ConnectionId> after, int limit, long now);
}
