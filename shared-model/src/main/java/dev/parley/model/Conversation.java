package dev.parley.model;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * A conversation and its membership rules. A direct conversation has exactly two distinct members,
 * no admins, no name, and the id {@link ConversationId#direct} derives from them. A group has 1 to
 * {@value #MAX_GROUP_MEMBERS} members, at least one admin among them, and an optional name.
 * Members and admins are held sorted, so two equal memberships are equal records.
 */
public record Conversation(
        ConversationId id,
        ConversationKind kind,
        Optional<String> name,
        List<UserId> members,
        List<UserId> admins,
        List<Long> pinned) {

    public static final int MAX_GROUP_MEMBERS = 1024;
    public static final int MAX_NAME_LENGTH = 128;
    /**
     * Pinned messages a conversation holds at most, as Sendbird allows: a pin is a banner over the conversation, which a few fill,
     * and the seqs travel with the conversation object in every {@code conversation.updated} and are stored on its item.
     */
    public static final int MAX_PINNED = 10;

    /** A conversation with nothing pinned. */
    public Conversation(ConversationId id, ConversationKind kind, Optional<String> name, List<UserId> members, List<UserId> admins) {
        this(id, kind, name, members, admins, List.of());
    }

    public Conversation {
        Objects.requireNonNull(pinned, "pinned");
        pinned = List.copyOf(new TreeSet<>(pinned));
        if (pinned.size() > MAX_PINNED || pinned.stream().anyMatch(seq -> seq < 1)) {
            throw new InvalidFieldException("pinned", "holds at most " + MAX_PINNED + " seqs of messages, each at least 1: " + pinned);
        }
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        members = sortedDistinct(members, "members");
        admins = sortedDistinct(admins, "admins");
        if (!members.containsAll(admins)) {
            throw new InvalidFieldException("admins", "must all be members");
        }
        name.ifPresent(Conversation::requireValidName);
        switch (kind) {
            case DIRECT -> {
                if (members.size() != 2) {
                    throw new InvalidFieldException("members",
                            "a direct conversation has exactly 2 distinct members, not " + members.size());
                }
                if (!id.equals(ConversationId.direct(members.get(0), members.get(1)))) {
                    throw new InvalidFieldException("conversation_id",
                            "a direct conversation's id is derived from its members: " + ConversationId.direct(members.get(0), members.get(1)));
                }
                if (!admins.isEmpty()) {
                    throw new InvalidFieldException("admins", "a direct conversation has no admins");
                }
                if (name.isPresent()) {
                    throw new InvalidFieldException("name", "a direct conversation has no name");
                }
            }
            case GROUP -> {
                if (id.isDirect()) {
                    throw new InvalidFieldException("conversation_id", "is reserved for direct conversations");
                }
                requireGroupSize(members.size());
                if (admins.isEmpty()) {
                    throw new InvalidFieldException("admins", "a group has at least one admin");
                }
            }
        }
    }

    /** The direct conversation between two distinct users. */
    public static Conversation direct(UserId a, UserId b) {
        return new Conversation(ConversationId.direct(a, b), ConversationKind.DIRECT, Optional.empty(), List.of(a, b), List.of());
    }

    /** A new group: the creator is a member and its first admin, whether or not {@code members} names them. */
    public static Conversation group(ConversationId id, UserId creator, Collection<UserId> members, Optional<String> name) {
        TreeSet<UserId> all = new TreeSet<>(members);
        all.add(creator);
        requireGroupSize(all.size());
        return new Conversation(id, ConversationKind.GROUP, name, List.copyOf(all), List.of(creator));
    }

    public boolean isMember(UserId user) {
        return members.contains(user);
    }

    public boolean isAdmin(UserId user) {
        return admins.contains(user);
    }

    /** Adds members; only an admin may. Users already in the group are left as they are. */
    public Conversation withMembersAdded(UserId actor, Collection<UserId> added) {
        // Membership first: a user outside the conversation learns nothing of it, not even its kind.
        requireMember(actor);
        requireGroup();
        requireAdmin(actor);
        TreeSet<UserId> all = new TreeSet<>(members);
        all.addAll(added);
        requireGroupSize(all.size());
        return new Conversation(id, kind, name, List.copyOf(all), admins, pinned);
    }

    /** The same conversation with these messages pinned. */
    public Conversation withPinned(Collection<Long> seqs) {
        return new Conversation(id, kind, name, members, admins, List.copyOf(seqs));
    }

    /** Only a group's admins pin and unpin its messages; either member of a direct conversation does. */
    public void requirePinner(UserId user) {
        requireMember(user);
        if (kind == ConversationKind.GROUP && !isAdmin(user)) {
            throw new DomainException(ErrorCode.FORBIDDEN, "only the admins of group " + id + " pin its messages");
        }
    }

    /**
     * Removes members. An admin may remove anyone; any member may remove only themself (leave).
     * Users who are not members are ignored, so a retried request is harmless. When the last admin
     * goes, the first remaining member in id order becomes admin: a group is never left unmanaged.
     */
    public Conversation withMembersRemoved(UserId actor, Collection<UserId> removed) {
        requireMember(actor);
        requireGroup();
        boolean leavingOnly = removed.stream().allMatch(actor::equals);
        if (!leavingOnly) {
            requireAdmin(actor);
        }
        TreeSet<UserId> remaining = new TreeSet<>(members);
        remaining.removeAll(removed);
        if (remaining.isEmpty()) {
            throw new DomainException(ErrorCode.BAD_REQUEST, "a group keeps at least one member");
        }
        List<UserId> remainingAdmins = admins.stream().filter(remaining::contains).toList();
        if (remainingAdmins.isEmpty()) {
            remainingAdmins = List.of(remaining.first());
        }
        return new Conversation(id, kind, name, List.copyOf(remaining), remainingAdmins, pinned);
    }

    public void requireMember(UserId user) {
        if (!isMember(user)) {
            throw new DomainException(ErrorCode.FORBIDDEN, user + " is not a member of conversation " + id);
        }
    }

    private void requireAdmin(UserId actor) {
        requireMember(actor);
        if (!isAdmin(actor)) {
            throw new DomainException(ErrorCode.FORBIDDEN, "only an admin may change the members of conversation " + id);
        }
    }

    private void requireGroup() {
        if (kind != ConversationKind.GROUP) {
            throw new DomainException(ErrorCode.BAD_REQUEST, "the members of a direct conversation cannot change");
        }
    }

    private static void requireGroupSize(int size) {
        if (size < 1 || size > MAX_GROUP_MEMBERS) {
            throw new InvalidFieldException("members",
                    "a group has 1 to " + MAX_GROUP_MEMBERS + " members; this one would have " + size);
        }
    }

    /** A group's name: 1 to {@value #MAX_NAME_LENGTH} characters, not all blank. */
    public static String requireValidName(String name) {
        if (name.isBlank()) {
            throw new InvalidFieldException("name", "must not be blank");
        }
        if (name.length() > MAX_NAME_LENGTH) {
            throw new InvalidFieldException("name", "must be at most " + MAX_NAME_LENGTH + " characters");
        }
        return name;
    }

    private static List<UserId> sortedDistinct(List<UserId> users, String field) {
        Objects.requireNonNull(users, field);
        TreeSet<UserId> sorted = new TreeSet<>();
        for (UserId user : users) {
            if (!sorted.add(Objects.requireNonNull(user, field))) {
                throw new InvalidFieldException(field, "names " + user + " more than once");
            }
        }
        return List.copyOf(new ArrayList<>(sorted));
    }
}
