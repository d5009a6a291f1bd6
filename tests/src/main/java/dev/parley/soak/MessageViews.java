package dev.parley.soak;

import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.Message;
import dev.parley.model.ReactionCount;
import dev.parley.model.RelationKind;
import dev.parley.model.UserId;
import dev.parley.protocol.ServerFrame;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What each user's app shows of every message, built from the client library's events as an app builds it: a message as it
 * arrives, each edit and delete applied in seq order to the message it changes, each reactions list replacing the one shown.
 * At the end of the soak every member's view of every message (content, tombstone, reactions) must equal the table's.
 */
final class MessageViews {
    /** One message as an app shows it. */
    record Shown(Content content, List<ReactionCount> reactions) {
    }

    private final Map<UserId, Map<ConversationId, Map<Long, Shown>>> views = new HashMap<>();
    /** What each app was told of each message, and when: a difference at the end names it, so that a failed soak explains itself. */
    private final Map<UserId, Map<ConversationId, Map<Long, List<String>>>> told = new HashMap<>();
    /** Each user's connection states, and when: the syncs a difference happened around. */
    private final Map<UserId, List<String>> states = new HashMap<>();

    /** An entry of the log handed to the user's app: a message shown, or a change applied to the message it changes. */
    synchronized void message(UserId user, Message message) {
        Map<Long, Shown> shown = of(views, user, message.conversationId());
        if (message.isVoid()) {
            return;
        }
        if (!message.isChange()) {
            trail(user, message.conversationId(), message.seq(), "message with reactions " + message.details().reactions());
            shown.put(message.seq(), new Shown(message.content(), message.details().reactions()));
            return;
        }
        var relation = message.details().relatesTo().orElseThrow();
        trail(user, message.conversationId(), relation.seq(), relation.kind() + " at seq " + message.seq());
        Shown target = shown.get(relation.seq());
        if (target == null || target.content().equals(Content.DELETED)) {
            return; // a change of a message deleted since (its edits are listed erased), or of one this app never had
        }
        if (relation.kind() == RelationKind.DELETE) {
            shown.put(relation.seq(), new Shown(Content.DELETED, List.of()));
        } else if (relation.kind() == RelationKind.EDIT && !message.content().equals(Content.DELETED)) {
            shown.put(relation.seq(), new Shown(message.content(), target.reactions()));
        }
    }

    /** A message's reactions now, live or from a sync's catch-up. */
    synchronized void reactions(UserId user, ServerFrame.ReactionsUpdate update) {
        Map<Long, Shown> shown = of(views, user, update.conversationId());
        trail(user, update.conversationId(), update.seq(), "reactions " + update.reactions());
        Shown target = shown.get(update.seq());
        // The client library tells reactions only for a message it handed over (those to one behind a gap come with it): told
        // before it, they are lost, as in an app, and the final check finds the difference.
        if (target != null && !target.content().equals(Content.DELETED)) {
            shown.put(update.seq(), new Shown(target.content(), update.reactions()));
        }
    }

    /** Every member's view of every stored message against the table's: the differences, at most {@code limit}. */
    synchronized List<String> differences(Map<ConversationId, List<Message>> stored, Map<ConversationId, List<UserId>> members, int limit,
                                          java.util.function.BiFunction<ConversationId, Long, String> tableNote) {
        List<String> found = new ArrayList<>();
        stored.forEach((conversation, table) -> {
            for (UserId member : members.get(conversation)) {
                Map<Long, Shown> shown = of(views, member, conversation);
                for (Message message : table) {
                    if (message.isVoid() || message.isChange()) {
                        continue;
                    }
                    Shown expected = new Shown(message.content(), message.details().reactions());
                    Shown actual = shown.get(message.seq());
                    if (!expected.equals(actual) && found.size() < limit) {
                        found.add(conversation + " #" + message.seq() + ": " + member + " shows " + actual + ", the table " + expected
                                + " (" + tableNote.apply(conversation, message.seq()) + ")"
                                + "; told " + of(told, member, conversation).getOrDefault(message.seq(), List.of())
                                + "; its states " + states.getOrDefault(member, List.of()));
                    }
                }
            }
        });
        return found;
    }

    /** A user's connection state changed. */
    synchronized void state(UserId user, String state) {
        states.computeIfAbsent(user, u -> new ArrayList<>()).add(java.time.Instant.now() + " " + state);
    }

    private void trail(UserId user, ConversationId conversation, long seq, String event) {
        of(told, user, conversation).computeIfAbsent(seq, s -> new ArrayList<>()).add(java.time.Instant.now() + " " + event);
    }

    private static <T> Map<Long, T> of(Map<UserId, Map<ConversationId, Map<Long, T>>> all, UserId user, ConversationId conversation) {
        return all.computeIfAbsent(user, u -> new HashMap<>()).computeIfAbsent(conversation, c -> new TreeMap<>());
    }
}
