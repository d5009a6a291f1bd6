package dev.parley.functions.manifest;

import static dev.parley.functions.manifest.ParleyManifest.CONNECTIONS;
import static dev.parley.functions.manifest.ParleyManifest.CONVERSATIONS;
import static dev.parley.functions.manifest.ParleyManifest.INBOX;
import static dev.parley.functions.manifest.ParleyManifest.KEYS;
import static dev.parley.functions.manifest.ParleyManifest.LIMITS;
import static dev.parley.functions.manifest.ParleyManifest.MEMBERSHIPS;
import static dev.parley.functions.manifest.ParleyManifest.REACTIONS;
import static dev.parley.functions.manifest.ParleyManifest.MESSAGES;
import static dev.parley.functions.manifest.ParleyManifest.PRESENCE;
import static dev.parley.functions.manifest.ParleyManifest.PUBLISHES;
import static dev.parley.functions.manifest.ParleyManifest.TOPICS;

import dev.parley.functions.manifest.TableSpec.Key;
import dev.parley.functions.manifest.TableSpec.KeyType;
import dev.parley.functions.store.ConnectionsTable;
import dev.parley.functions.store.ConversationsTable;
import dev.parley.functions.store.InboxTable;
import dev.parley.functions.store.KeysTable;
import dev.parley.functions.store.LimitsTable;
import dev.parley.functions.store.MembershipsTable;
import dev.parley.functions.store.MessagesTable;
import dev.parley.functions.store.PresenceTable;
import dev.parley.functions.store.PublishesTable;
import dev.parley.functions.store.ReactionsTable;
import dev.parley.functions.store.TopicsTable;
import java.util.List;
import java.util.Optional;

/** Parley's tables, for the manifest. */
final class ParleyTables {
    private ParleyTables() {
    }

    /** Each table as its owner in {@code store} describes it: the same constants the stores read and write. */
    static List<TableSpec> tables() {
        return List.of(
                new TableSpec(CONNECTIONS, new Key(ConnectionsTable.PK, KeyType.S), Optional.empty(), List.of(), Optional.empty(),
                        Optional.of(ConnectionsTable.LEASE)),
                // Its TTL removes invites a day after they run out; nothing else on it carries the attribute.
                new TableSpec(CONVERSATIONS, new Key(ConversationsTable.PK, KeyType.S), Optional.empty(), List.of(), Optional.empty(),
                        Optional.of(ConversationsTable.EXPIRES)),
                new TableSpec(MEMBERSHIPS, new Key(MembershipsTable.USER, KeyType.S), Optional.of(new Key(MembershipsTable.CONVERSATION, KeyType.S)),
                        List.of(new TableSpec.GlobalIndex(MembershipsTable.BY_CONVERSATION, new Key(MembershipsTable.CONVERSATION, KeyType.S),
                                Optional.of(new Key(MembershipsTable.USER, KeyType.S)), false, MembershipsTable.PROJECTED)),
                        Optional.of("NEW_AND_OLD_IMAGES"), Optional.empty()),
                // No index by client id: a retried send finds its original through the seq on its claim, not a write unit more on
                // every message. One sparse index of the messages whose reactions were listed, by when: a sync's reaction changes.
                new TableSpec(MESSAGES, new Key(MessagesTable.CONVERSATION, KeyType.S), Optional.of(new Key(MessagesTable.SEQ, KeyType.N)),
                        List.of(new TableSpec.GlobalIndex(MessagesTable.BY_REACTIONS_AT, new Key(MessagesTable.CONVERSATION, KeyType.S),
                                Optional.of(new Key(MessagesTable.REACTIONS_AT, KeyType.N)), false, List.of(MessagesTable.REACTIONS))),
                        Optional.of("NEW_IMAGE"), Optional.empty()),
                new TableSpec(PUBLISHES, new Key(PublishesTable.KEY, KeyType.S), Optional.empty(), List.of(), Optional.empty(),
                        Optional.of(PublishesTable.EXPIRES)),
                new TableSpec(LIMITS, new Key(LimitsTable.BUCKET, KeyType.S), Optional.empty(), List.of(), Optional.empty(),
                        Optional.of(LimitsTable.EXPIRES)),
                // Notifications are kept: no TTL removes one behind its counts' back. Only acknowledgements run out.
                new TableSpec(INBOX, new Key(InboxTable.USER, KeyType.S), Optional.of(new Key(InboxTable.SORT, KeyType.S)), List.of(),
                        Optional.empty(), Optional.of(InboxTable.EXPIRES)),
                new TableSpec(PRESENCE, new Key(PresenceTable.TARGET, KeyType.S), Optional.of(new Key(PresenceTable.SUBSCRIBER, KeyType.S)), List.of(),
                        Optional.empty(), Optional.of(PresenceTable.EXPIRES)),
                // End-to-end encryption's public keys: every item of a user in one partition (docs/e2e.md).
                new TableSpec(KEYS, new Key(KeysTable.PK, KeyType.S), Optional.of(new Key(KeysTable.SK, KeyType.S)), List.of(), Optional.empty(),
                        Optional.empty()),
                // Each user's reaction to each message, one partition per message (docs/data-model.md, "Reactions"). Its stream
                // starts the message's listing: the keys say which message, the images what changed (for the app's events).
                new TableSpec(REACTIONS, new Key(ReactionsTable.TARGET, KeyType.S), Optional.of(new Key(ReactionsTable.USER, KeyType.S)), List.of(),
                        Optional.of("NEW_AND_OLD_IMAGES"), Optional.empty()),
                // Topics' subscribers (both ways), feeds and live indexes, and topic publishes' fan-outs, which run out after a week
                // (docs/notifications.md). Its stream starts each publish's fan-out once the publish has landed: the new image
                // carries the publish.
                new TableSpec(TOPICS, new Key(TopicsTable.PK, KeyType.S), Optional.of(new Key(TopicsTable.SK, KeyType.S)), List.of(),
                        Optional.of("NEW_IMAGE"), Optional.of(TopicsTable.EXPIRES)));
    }
}
