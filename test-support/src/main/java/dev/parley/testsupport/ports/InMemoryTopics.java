package dev.parley.testsupport.ports;

import dev.parley.model.NotificationId;
import dev.parley.model.TopicKey;
import dev.parley.model.UserId;
import dev.parley.ports.Topics;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;

/** Topics in memory, one lock for all; {@link TopicsContract} holds it to the DynamoDB store's behaviour. */
public final class InMemoryTopics implements Topics {
    private final Map<TopicKey, NavigableMap<String, Long>> subscribers = new HashMap<>();
    private final Map<NotificationId, Progress> fanOuts = new HashMap<>();
    private final Map<TopicKey, java.util.Set<UserId>> muted = new HashMap<>();

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
    public synchronized void beginFanOut(NotificationId notification) {
        fanOuts.putIfAbsent(notification, Progress.START);
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
}
