package dev.parley.functions.usecase;

import dev.parley.model.ConversationId;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import dev.parley.protocol.LastSeenVisibility;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Who may see whose presence. Reciprocal, as WhatsApp does it: a viewer sees a user only if each one's
 * setting admits the other (everyone; contacts, meaning the two share a conversation; nobody), so who
 * hides their last seen sees nobody's. Whether two share a conversation is read only when a setting
 * asks: the viewer's conversations once, then each such user's, up to {@link #CONVERSATIONS_READ} each.
 */
final class Contacts {
    /** How many of a user's conversations the check reads at most: past that, two users are taken as not sharing one. */
    static final int CONVERSATIONS_READ = 500;
    private static final int PAGE = 100;

    private final ConversationRepository conversations;

    Contacts(ConversationRepository conversations) {
        this.conversations = conversations;
    }

    /** For each user, whether the viewer (whose own setting is {@code viewerSetting}) may see them. */
    Map<UserId, Boolean> visibleTo(UserId viewer, LastSeenVisibility viewerSetting, Collection<UserId> users,
                                   Function<UserId, LastSeenVisibility> settingOf) {
        Map<UserId, Boolean> visible = new HashMap<>();
        Set<ConversationId> viewers = null;
        for (UserId user : users) {
            if (user.equals(viewer)) {
                visible.put(user, true);
                continue;
            }
            LastSeenVisibility theirs = settingOf.apply(user);
            if (viewerSetting == LastSeenVisibility.NOBODY || theirs == LastSeenVisibility.NOBODY) {
                visible.put(user, false);
            } else if (viewerSetting == LastSeenVisibility.EVERYONE && theirs == LastSeenVisibility.EVERYONE) {
                visible.put(user, true);
            } else {
                if (viewers == null) {
                    viewers = conversationsOf(viewer);
                }
                visible.put(user, share(viewers, viewer, user));
            }
        }
        return visible;
    }

    /**
     * The user's contacts: every other member of the conversations the user is in (up to {@link #CONVERSATIONS_READ} of them),
     * one read of each group's member list (a direct conversation's members are in its id).
     */
    Set<UserId> of(UserId user) {
        Set<UserId> contacts = new java.util.LinkedHashSet<>();
        for (ConversationId conversation : conversationsOf(user)) {
            contacts.addAll(Audience.members(conversations, conversation));
        }
        contacts.remove(user);
        return contacts;
    }

    private boolean share(Set<ConversationId> viewers, UserId viewer, UserId user) {
        if (viewers.contains(ConversationId.direct(viewer, user))) {
            return true;
        }
        return conversationsOf(user).stream().anyMatch(viewers::contains);
    }

    private Set<ConversationId> conversationsOf(UserId user) {
        Set<ConversationId> ids = new HashSet<>();
        Optional<String> cursor = Optional.empty();
        for (int read = 0; read < CONVERSATIONS_READ; read += PAGE) {
            ConversationRepository.MembershipPage page = conversations.memberships(user, cursor, PAGE);
            page.memberships().forEach(membership -> ids.add(membership.conversationId()));
            cursor = page.nextCursor();
            if (cursor.isEmpty()) {
                break;
            }
        }
        return ids;
    }
}
