package dev.parley.testsupport.ports;

import dev.parley.model.NotificationId;
import dev.parley.model.TopicKey;
import dev.parley.model.UserId;
import dev.parley.ports.FanOutQueue;
import dev.parley.ports.Topics;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Topics and their feeds in memory, one lock for all; {@link TopicsContract} holds it to the DynamoDB stores' behaviour. What
 * the DynamoDB table's stream does on AWS, starting a landed publish's fan-out, it does at once: into the queue it is given.
 */
public final class InMemoryTopics implements Topics, dev.parley.ports.TopicFeeds {
    private final FanOutQueue starts;
    private final Map<TopicKey, NavigableMap<String, Long>> subscribers = new HashMap<>();
    private final Map<NotificationId, Progress> fanOuts = new HashMap<>();
    private final Map<TopicKey, java.util.Set<UserId>> muted = new HashMap<>();
    private final Map<TopicKey, NavigableMap<NotificationId, Entry>> feeds = new HashMap<>();
    private final Map<String, NotificationId> pulled = new HashMap<>();
    private final Map<TopicKey, NavigableMap<String, Listener>> listening = new HashMap<>();
    private final Map<String, Long> listeningUntil = new HashMap<>();

    /** Topics whose publishes start their fan-outs in {@code starts}. */
    public InMemoryTopics(FanOutQueue starts) {
        this.starts = starts;
    }

    /** Topics whose publishes' fan-outs start where nobody looks. */
    public InMemoryTopics() {
        this(new InMemoryFanOutQueue());
    }

    @Override
    public synchronized int subscribe(TopicKey topic, List<UserId> users, long at) {
        NavigableMap<String, Long> of = subscribers.computeIfAbsent(topic, t -> new TreeMap<>());
        int added = 0;
        for (UserId user : users) {
            added += of.putIfAbsent(user.value(), at) == null ? 1 : 0;
        }
        return added;
    }

    @Override
    public synchronized int unsubscribe(TopicKey topic, List<UserId> users) {
        NavigableMap<String, Long> of = subscribers.getOrDefault(topic, new TreeMap<>());
        int removed = 0;
        for (UserId user : users) {
            removed += of.remove(user.value()) != null ? 1 : 0;
            muted.getOrDefault(topic, new java.util.HashSet<>()).remove(user);
        }
        return removed;
    }

    @Override
    public synchronized Page subscribers(TopicKey topic, Optional<UserId> after, int limit) {
        NavigableMap<String, Long> of = subscribers.getOrDefault(topic, new TreeMap<>());
        NavigableMap<String, Long> rest = after.map(user -> of.tailMap(user.value(), false)).orElse(of);
        List<UserId> page = new ArrayList<>();
        for (String user : rest.keySet()) {
            if (page.size() == limit) {
                break;
            }
            page.add(UserId.of(user));
        }
        boolean more = page.size() == limit && rest.size() > limit;
        java.util.Set<UserId> quiet = muted.getOrDefault(topic, java.util.Set.of()).stream().filter(page::contains).collect(java.util.stream.Collectors.toSet());
        return new Page(page, quiet, more ? Optional.of(page.getLast()) : Optional.empty());
    }

    @Override
    public synchronized boolean mute(TopicKey topic, UserId user, boolean mute) {
        if (!subscribers.getOrDefault(topic, new TreeMap<>()).containsKey(user.value())) {
            return false;
        }
        java.util.Set<UserId> of = muted.computeIfAbsent(topic, t -> new java.util.HashSet<>());
        if (mute) {
            of.add(user);
        } else {
            of.remove(user);
        }
        return true;
    }

    @Override
    public synchronized long subscriberCount(TopicKey topic) {
        return subscribers.getOrDefault(topic, new TreeMap<>()).size();
    }

    @Override
    public synchronized void beginFanOut(NotificationId notification, dev.parley.protocol.PublishRequest request) {
        if (fanOuts.putIfAbsent(notification, Progress.START) == null) {
            starts.enqueue(List.of(new FanOutQueue.Page(notification, request, Optional.empty())));
        }
    }

    @Override
    public synchronized Optional<Progress> fanOutProgress(NotificationId notification) {
        return Optional.ofNullable(fanOuts.get(notification));
    }

    @Override
    public synchronized boolean advanceFanOut(NotificationId notification, Optional<UserId> from, Optional<UserId> to) {
        Progress progress = fanOuts.get(notification);
        if (progress == null || progress.done() || !progress.after().equals(from)) {
            return false;
        }
        fanOuts.put(notification, new Progress(to, from, false, to.isEmpty()));
        return true;
    }

    @Override
    public synchronized void continuedFanOut(NotificationId notification, Optional<UserId> after) {
        fanOuts.computeIfPresent(notification, (id, progress) -> progress.after().equals(after)
                ? new Progress(progress.after(), progress.previous(), true, progress.done()) : progress);
    }

    @Override
    public synchronized List<Followed> followed(UserId user, int limit) {
        return subscribers.entrySet().stream().filter(topic -> topic.getValue().containsKey(user.value()))
                .sorted(Map.Entry.comparingByKey(java.util.Comparator.comparing(TopicKey::value))).limit(limit)
                .map(topic -> new Followed(topic.getKey(), topic.getValue().get(user.value()),
                        Optional.ofNullable(pulled.get(user.value() + "#" + topic.getKey().value())),
                        muted.getOrDefault(topic.getKey(), java.util.Set.of()).contains(user))).toList();
    }

    @Override
    public synchronized Map<TopicKey, NotificationId> newest(java.util.Collection<TopicKey> topics) {
        Map<TopicKey, NotificationId> newest = new HashMap<>();
        topics.forEach(topic -> Optional.ofNullable(feeds.get(topic)).filter(feed -> !feed.isEmpty()).ifPresent(feed -> newest.put(topic, feed.lastKey())));
        return newest;
    }

    @Override
    public synchronized NotificationId append(TopicKey topic, NotificationId id, dev.parley.protocol.PublishRequest request) {
        NavigableMap<NotificationId, Entry> feed = feeds.computeIfAbsent(topic, t -> new TreeMap<>());
        long now = System.currentTimeMillis();
        java.util.Random random = new java.util.Random();
        NotificationId position = feed.isEmpty() ? NotificationId.at(now, random) : feed.lastKey().successor(now, random);
        feed.put(position, new Entry(position, id, request));
        starts.enqueue(FanOutQueue.Live.everyShard(id, request));
        return position;
    }

    @Override
    public synchronized List<Entry> entries(TopicKey topic, Optional<NotificationId> after, long since, int limit) {
        NavigableMap<NotificationId, Entry> feed = feeds.getOrDefault(topic, new TreeMap<>());
        return (after.isPresent() ? feed.tailMap(after.get(), false) : feed).values().stream()
                .filter(entry -> entry.id().epochMillis() >= since).limit(limit).toList();
    }

    @Override
    public synchronized void pulled(UserId user, TopicKey topic, NotificationId upTo) {
        pulled.merge(user.value() + "#" + topic.value(), upTo, (was, now) -> was.compareTo(now) >= 0 ? was : now);
    }

    @Override
    public synchronized void listen(Listener listener, java.util.Collection<Followed> topics, long until) {
        for (Followed followed : topics) {
            listening.computeIfAbsent(followed.topic(), t -> new TreeMap<>()).put(listener.connection().value(),
                    new Listener(listener.connection(), listener.user(), listener.device(), followed.muted()));
            listeningUntil.put(followed.topic().value() + "#" + listener.connection().value(), until);
        }
    }

    @Override
    public synchronized void stopListening(dev.parley.model.ConnectionId connection, java.util.Collection<TopicKey> topics) {
        topics.forEach(topic -> Optional.ofNullable(listening.get(topic)).ifPresent(index -> index.remove(connection.value())));
    }

    @Override
    public synchronized Listeners listeners(TopicKey topic, int shard, Optional<dev.parley.model.ConnectionId> after, int limit, long now) {
        NavigableMap<String, Listener> index = new TreeMap<>(listening.getOrDefault(topic, new TreeMap<>()));
        index.values().removeIf(listener -> dev.parley.ports.TopicFeeds.liveShard(listener.connection()) != shard);
        List<Listener> page = new ArrayList<>();
        String last = null;
        for (var entry : (after.isPresent() ? index.tailMap(after.get().value(), false) : index).entrySet()) {
            if (page.size() == limit) {
                return new Listeners(page, Optional.of(dev.parley.model.ConnectionId.of(last)));
            }
            last = entry.getKey();
            if (listeningUntil.getOrDefault(topic.value() + "#" + entry.getKey(), 0L) > now) {
                page.add(entry.getValue());
            }
        }
        return new Listeners(page, Optional.empty());
    }
}
