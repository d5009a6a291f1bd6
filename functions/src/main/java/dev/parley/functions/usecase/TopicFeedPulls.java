package dev.parley.functions.usecase;

import dev.parley.model.NotificationId;
import dev.parley.model.TopicKey;
import dev.parley.model.UserId;
import dev.parley.ports.Inbox;
import dev.parley.ports.TopicFeeds;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Fan-out on read, the reading half: before a user's inbox is listed, marked or counted, the entries of their topics' feeds
 * that it does not hold yet are stored in it, as a fan-out on write would have stored them (coalesced, counted, read already
 * for a muted topic; never the actor's own). So the inbox's counts stay what its own store keeps them, right by construction,
 * and a user who never opens the app costs the topic nothing. Each entry is stored under the publish's id, so two devices
 * pulling at once, or an entry appended twice by a retried publish, store it once. A pull moves the user's mark to the
 * position of the last entry it stored; positions only grow as entries land ({@link TopicFeeds}), so no entry lands behind it.
 */
public final class TopicFeedPulls {
    /** The most topics of a user a pull reads (the first by key): a user following more sees the others only live. */
    public static final int MOST_TOPICS = 100;
    /** Entries stored per round; a user far behind catches up over {@link #MOST_ROUNDS} rounds per pull, the rest next time. */
    static final int ENTRIES_PER_ROUND = 100;
    static final int MOST_ROUNDS = 10;

    private final TopicFeeds feeds;
    private final Inbox inbox;
    private final Map<String, Notifications.Category> categories;

    public TopicFeedPulls(TopicFeeds feeds, Inbox inbox, Map<String, Notifications.Category> categories) {
        this.feeds = feeds;
        this.inbox = inbox;
        this.categories = Map.copyOf(categories);
    }

    /** Stores in the user's inbox what their topics' feeds have for them; how many entries it stored. */
    public int pull(UserId user) {
        List<TopicFeeds.Followed> followed = feeds.followed(user, MOST_TOPICS);
        if (followed.isEmpty()) {
            return 0;
        }
        Map<TopicKey, NotificationId> newest = feeds.newest(followed.stream().map(TopicFeeds.Followed::topic).toList());
        int stored = 0;
        for (TopicFeeds.Followed topic : followed) {
            NotificationId last = newest.get(topic.topic());
            Optional<NotificationId> pulled = topic.pulled();
            for (int round = 0; last != null && round < MOST_ROUNDS && pulled.map(id -> id.compareTo(last) < 0).orElse(true); round++) {
                List<TopicFeeds.Entry> entries = feeds.entries(topic.topic(), pulled, topic.since(), ENTRIES_PER_ROUND);
                if (entries.isEmpty()) {
                    break;
                }
                for (TopicFeeds.Entry entry : entries) {
                    if (!entry.request().actor().equals(Optional.of(user))) {
                        // A category the deployment has since dropped is stored uncoalesced.
                        Notifications.Category category = categories.getOrDefault(entry.request().category(),
                                new Notifications.Category(entry.request().category(), Optional.empty(), false));
                        Inbox.Event event = Notifications.event(entry.id(), entry.request(), category);
                        inbox.add(user, topic.muted() ? event.quietly() : event);
                        stored++;
                    }
                }
                pulled = Optional.of(entries.getLast().position());
                feeds.pulled(user, topic.topic(), pulled.get());
            }
        }
        return stored;
    }
}
