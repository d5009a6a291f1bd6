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
    /** Reactions told before their message reached the app (it waited behind a gap): they are newer than its listing then. */
    private final Map<UserId, Map<ConversationId, Map<Long, List<ReactionCount>>>> early = new HashMap<>();

    /** An entry of the log handed to the user's app: a message shown, or a change applied to the message it changes. */
    synchronized void message(UserId user, Message message) {
        Map<Long, Shown> shown = of(views, user, message.conversationId());
        if (message.isVoid()) {
            return;
        }
        if (!message.isChange()) {
            List<ReactionCount> told = of(early, user, message.conversationId()).remove(message.seq());
            shown.put(message.seq(), new Shown(message.content(), message.isDeleted() ? List.of()
                    : told != null && message.details().reactions().isEmpty() ? told : message.details().reactions()));
            return;
        }
        var relation = message.details().relatesTo().orElseThrow();
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
        Shown target = shown.get(update.seq());
        if (target == null) {
            of(early, user, update.conversationId()).put(update.seq(), update.reactions());
        } else if (!target.content().equals(Content.DELETED)) {
            shown.put(update.seq(), new Shown(target.content(), update.reactions()));
        }
    }

    /** Every member's view of every stored message against the table's: the differences, at most {@code limit}. */
    synchronized List<String> differences(Map<ConversationId, List<Message>> stored, Map<ConversationId, List<UserId>> members, int limit) {
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
                        found.add(conversation + " #" + message.seq() + ": " + member + " shows " + actual + ", the table " + expected);
                    }
                }
            }
        });
        return found;
    }

    private static <T> Map<Long, T> of(Map<UserId, Map<ConversationId, Map<Long, T>>> all, UserId user, ConversationId conversation) {
        return all.computeIfAbsent(user, u -> new HashMap<>()).computeIfAbsent(conversation, c -> new TreeMap<>());
    }
}
