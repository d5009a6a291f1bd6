package dev.parley.ports;

import dev.parley.model.NotificationId;
import dev.parley.model.UserId;
import dev.parley.protocol.PublishRequest;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The work of topic publishes' fan-outs, queued for the fan-out workers: planning a page of a topic's subscribers, or
 * delivering to a chunk of them. Each piece carries the publish itself, so a worker reads nothing to know what to deliver.
 * Delivery is at least once (a piece may come twice); the workers make each piece's effect happen once.
 */
public interface FanOutQueue {

    sealed interface Work permits Page, Chunk, Live {
        NotificationId notification();

        /** The publish, as its publisher asked for it (the recipients it named are served by the publish itself). */
        PublishRequest request();
    }

    /** Plan the page of the topic's subscribers that starts after {@code after} (at the first when empty). */
    record Page(NotificationId notification, PublishRequest request, Optional<UserId> after) implements Work {
        public Page {
            Objects.requireNonNull(request.topic().orElse(null), "a page of a fan-out needs the publish's topic");
            Objects.requireNonNull(after, "after");
        }
    }

    /** Deliver the notification to these subscribers; those {@code muted} get it read already, and nothing else. */
    record Chunk(NotificationId notification, PublishRequest request, List<UserId> users, java.util.Set<UserId> muted) implements Work {
        public Chunk {
            users = List.copyOf(users);
            muted = java.util.Set.copyOf(muted);
        }
    }

    /**
     * Post the notification live to the page of the topic's live index ({@link TopicFeeds#LIVE_SHARDS} shards) that starts
     * after {@code after} in {@code shard} (at its first when empty).
     */
    record Live(NotificationId notification, PublishRequest request, int shard, Optional<dev.parley.model.ConnectionId> after)
            implements Work {
        public Live {
            Objects.requireNonNull(request.topic().orElse(null), "a live index belongs to a topic");
            Objects.requireNonNull(after, "after");
            if (shard < 0 || shard >= TopicFeeds.LIVE_SHARDS) {
                throw new IllegalArgumentException("a live index has shards 0 to " + (TopicFeeds.LIVE_SHARDS - 1) + ", not " + shard);
            }
        }

        /** The live work of a publish: the first page of each shard of the topic's live index, which workers post in parallel. */
        public static List<Live> everyShard(NotificationId notification, PublishRequest request) {
            return java.util.stream.IntStream.range(0, TopicFeeds.LIVE_SHARDS)
                    .mapToObj(shard -> new Live(notification, request, shard, Optional.empty())).toList();
        }
    }

    /** Queues the work; an {@link UnavailableException} when some of it could not be queued (queueing it again is harmless). */
    void enqueue(List<? extends Work> work);
}
