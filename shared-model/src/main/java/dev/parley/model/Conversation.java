package dev.parley.model;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeSet;

/**
 * A conversation and its rules: who is in it, in which role, and who may do what (docs/protocol.md, "Who may do what", is
 * this class's table). A direct conversation has exactly two distinct members, no roles, no name, description or avatar, and
 * the id {@link ConversationId#direct} derives from them. A group has 1 to {@value #MAX_GROUP_MEMBERS} members, one
 * {@code owner} among them, {@code admins} (the owner among them) and an optional name; its {@code banned} users are not
 * members and cannot be added, or join, until unbanned. Members, admins and bans are held sorted, so two equal conversations
 * are equal records.
 */
public record Conversation(
        ConversationId id,
        ConversationKind kind,
        Optional<String> name,
        List<UserId> members,
        List<UserId> admins,
        List<Long> pinned,
        Optional<UserId> owner,
        Optional<String> description,
        Optional<MediaId> avatarMediaId,
        ConversationSettings settings,
        List<UserId> banned) {

    public static final int MAX_GROUP_MEMBERS = 1024;
    public static final int MAX_NAME_LENGTH = 128;
    public static final int MAX_DESCRIPTION_LENGTH = 512;
    /** Users a group keeps banned at most: they are held on the conversation's item, beside its members. */
    public static final int MAX_BANNED = 1024;
    /**
     * Pinned messages a conversation holds at most, as Sendbird allows: a pin is a banner over the conversation, which a few fill,
     * and the seqs travel with the conversation object in every {@code conversation.updated} and are stored on its item.
     */
    public static final int MAX_PINNED = 10;

    /** A conversation with nothing pinned, default settings and, for a group, its first admin as owner. */
    public Conversation(ConversationId id, ConversationKind kind, Optional<String> name, List<UserId> members, List<UserId> admins) {
        this(id, kind, name, members, admins, List.of());
    }

    /** A conversation with default settings and, for a group, its first admin (in id order) as owner. */
    public Conversation(ConversationId id, ConversationKind kind, Optional<String> name, List<UserId> members, List<UserId> admins, List<Long> pinned) {
        this(id, kind, name, members, admins, pinned,
                kind == ConversationKind.GROUP ? admins.stream().sorted().findFirst() : Optional.empty(),
                Optional.empty(), Optional.empty(), ConversationSettings.DEFAULT, List.of());
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
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(avatarMediaId, "avatar_media_id");
        Objects.requireNonNull(settings, "settings");
        members = sortedDistinct(members, "members");
        admins = sortedDistinct(admins, "admins");
        banned = sortedDistinct(banned, "banned");
        if (!members.containsAll(admins)) {
            throw new InvalidFieldException("admins", "must all be members");
        }
        if (banned.size() > MAX_BANNED) {
            throw new InvalidFieldException("banned", "a group keeps at most " + MAX_BANNED + " users banned");
        }
        for (UserId user : banned) {
            if (members.contains(user)) {
                throw new InvalidFieldException("banned", user + " is banned and cannot be a member");
            }
        }
        name.ifPresent(Conversation::requireValidName);
        description.ifPresent(Conversation::requireValidDescription);
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
                if (!admins.isEmpty() || owner.isPresent()) {
                    throw new InvalidFieldException("admins", "a direct conversation has no admins and no owner");
                }
                if (name.isPresent() || description.isPresent() || avatarMediaId.isPresent()) {
                    throw new InvalidFieldException("name", "a direct conversation has no name, description or avatar");
                }
                if (!banned.isEmpty()) {
                    throw new InvalidFieldException("banned", "a direct conversation bans nobody (block the user instead)");
                }
                if (!settings.equals(ConversationSettings.DEFAULT.withDisappearingSeconds(settings.disappearingSeconds()))) {
                    throw new InvalidFieldException("settings", "a direct conversation has only disappearing_seconds");
                }
            }
            case GROUP -> {
                if (id.isDirect()) {
                    throw new InvalidFieldException("conversation_id", "is reserved for direct conversations");
                }
                requireGroupSize(members.size());
                if (owner.isEmpty() || !admins.contains(owner.get())) {
                    throw new InvalidFieldException("owner", "a group has one owner, who is one of its admins");
                }
            }
        }
    }

    /** The direct conversation between two distinct users. */
    public static Conversation direct(UserId a, UserId b) {
        return new Conversation(ConversationId.direct(a, b), ConversationKind.DIRECT, Optional.empty(), List.of(a, b), List.of());
    }

    /** A new group: the creator is a member, its owner and its first admin, whether or not {@code members} names them. */
    public static Conversation group(ConversationId id, UserId creator, Collection<UserId> members, Optional<String> name) {
        TreeSet<UserId> all = new TreeSet<>(members);
        all.add(creator);
        requireGroupSize(all.size());
        return new Conversation(id, ConversationKind.GROUP, name, List.copyOf(all), List.of(creator), List.of(), Optional.of(creator),
                Optional.empty(), Optional.empty(), ConversationSettings.DEFAULT, List.of());
    }

    public boolean isMember(UserId user) {
        return members.contains(user);
    }

    public boolean isAdmin(UserId user) {
        return admins.contains(user);
    }

    public boolean isBanned(UserId user) {
        return banned.contains(user);
    }

    /** The member's role; a direct conversation's members are both plain members. */
    public Optional<ConversationRole> roleOf(UserId user) {
        if (!isMember(user)) {
            return Optional.empty();
        }
        if (owner.filter(user::equals).isPresent()) {
            return Optional.of(ConversationRole.OWNER);
        }
        return Optional.of(isAdmin(user) ? ConversationRole.ADMIN : ConversationRole.MEMBER);
    }

    /**
     * Adds members: an admin, or any member when {@code add_members} is {@code all}. Users already in the group are left as they
     * are; a banned one is refused (unban them first).
     */
    public Conversation withMembersAdded(UserId actor, Collection<UserId> added) {
        // Membership first: a user outside the conversation learns nothing of it, not even its kind.
        requireMember(actor);
        requireGroup();
        if (!settings.addMembers().admits(roleOf(actor).orElseThrow())) {
            throw new DomainException(ErrorCode.FORBIDDEN, "only the admins of group " + id + " add members to it");
        }
        return withJoined(added);
    }

    /** These users join: by an invite, or added; a banned one is refused, and the group's size bounds them. */
    public Conversation withJoined(Collection<UserId> joining) {
        requireGroup();
        for (UserId user : joining) {
            if (isBanned(user)) {
                throw new DomainException(ErrorCode.FORBIDDEN, user + " is banned from group " + id + "; an admin unbans them first");
            }
        }
        TreeSet<UserId> all = new TreeSet<>(members);
        all.addAll(joining);
        requireGroupSize(all.size());
        return with(List.copyOf(all), admins, owner, banned);
    }

    /** The same conversation with these messages pinned. */
    public Conversation withPinned(Collection<Long> seqs) {
        return new Conversation(id, kind, name, members, admins, List.copyOf(seqs), owner, description, avatarMediaId, settings, banned);
    }

    /** Only a group's admins pin and unpin its messages; either member of a direct conversation does. */
    public void requirePinner(UserId user) {
        requireMember(user);
        if (kind == ConversationKind.GROUP && !isAdmin(user)) {
            throw new DomainException(ErrorCode.FORBIDDEN, "only the admins of group " + id + " pin its messages");
        }
    }

    /** {@link #withMembersRemoved(UserId, Collection, List)} with no seniority known: an owner who leaves hands on in id order. */
    public Conversation withMembersRemoved(UserId actor, Collection<UserId> removed) {
        return withMembersRemoved(actor, removed, List.of());
    }

    /**
     * Removes members: an admin removes anyone but the owner; any member may remove only themself, which is leaving
     * ({@link #withLeft}). Users who are not members are ignored, so a retried request is harmless.
     *
     * @param seniority the members, longest-serving first: who takes over when the owner leaves
     */
    public Conversation withMembersRemoved(UserId actor, Collection<UserId> removed, List<UserId> seniority) {
        requireMember(actor);
        requireGroup();
        if (removed.stream().allMatch(actor::equals)) {
            return withLeft(actor, seniority);
        }
        requireAdmin(actor, "remove members from");
        if (owner.filter(removed::contains).isPresent()) {
            throw new DomainException(ErrorCode.FORBIDDEN, "the owner of group " + id + " cannot be removed; they hand ownership on, or leave");
        }
        TreeSet<UserId> remaining = new TreeSet<>(members);
        remaining.removeAll(removed);
        return with(List.copyOf(remaining), admins.stream().filter(remaining::contains).toList(), owner, banned);
    }

    /**
     * The member leaves. An owner who leaves hands ownership to the longest-serving admin, else to the longest-serving member
     * ({@code seniority}: the members, longest-serving first; a member it does not name comes after those it does, in id
     * order). The last member cannot leave: a group keeps one.
     */
    public Conversation withLeft(UserId leaving, List<UserId> seniority) {
        requireMember(leaving);
        requireGroup();
        TreeSet<UserId> remaining = new TreeSet<>(members);
        remaining.remove(leaving);
        if (remaining.isEmpty()) {
            throw new DomainException(ErrorCode.BAD_REQUEST, "you are the last member of group " + id + ", which keeps at least one");
        }
        List<UserId> remainingAdmins = new ArrayList<>(admins.stream().filter(remaining::contains).toList());
        Optional<UserId> newOwner = owner;
        if (owner.filter(leaving::equals).isPresent()) {
            List<UserId> order = new ArrayList<>(seniority.stream().filter(remaining::contains).distinct().toList());
            remaining.stream().filter(user -> !order.contains(user)).forEach(order::add);
            UserId successor = order.stream().filter(remainingAdmins::contains).findFirst().orElse(order.getFirst());
            newOwner = Optional.of(successor);
            if (!remainingAdmins.contains(successor)) {
                remainingAdmins.add(successor);
            }
        }
        return with(List.copyOf(remaining), remainingAdmins, newOwner, banned);
    }

    /**
     * Gives these members a role. An admin makes members admins and admins members (the owner excepted: nobody demotes them);
     * only the owner hands ownership on ({@code owner}: to one member, who becomes an admin too; the old owner stays an admin).
     */
    public Conversation withRole(UserId actor, Collection<UserId> users, ConversationRole role) {
        requireMember(actor);
        requireGroup();
        requireAdmin(actor, "change the roles in");
        for (UserId user : users) {
            if (!isMember(user)) {
                throw new InvalidFieldException("user_ids", user + " is not a member of group " + id);
            }
        }
        return switch (role) {
            case OWNER -> {
                if (!owner.filter(actor::equals).isPresent()) {
                    throw new DomainException(ErrorCode.FORBIDDEN, "only the owner of group " + id + " hands ownership on");
                }
                if (users.size() != 1) {
                    throw new InvalidFieldException("user_ids", "ownership goes to exactly one member");
                }
                UserId successor = users.iterator().next();
                TreeSet<UserId> withSuccessor = new TreeSet<>(admins);
                withSuccessor.add(successor);
                yield with(members, List.copyOf(withSuccessor), Optional.of(successor), banned);
            }
            case ADMIN -> {
                TreeSet<UserId> more = new TreeSet<>(admins);
                more.addAll(users);
                yield with(members, List.copyOf(more), owner, banned);
            }
            case MEMBER -> {
                if (owner.filter(users::contains).isPresent()) {
                    throw new DomainException(ErrorCode.FORBIDDEN, "the owner of group " + id + " stays an admin; they hand ownership on first");
                }
                yield with(members, admins.stream().filter(admin -> !users.contains(admin)).toList(), owner, banned);
            }
        };
    }

    /**
     * Bans these users: an admin may, of anyone but the owner and themself. Members among them are removed; a user banned
     * cannot be added or join until unbanned. Banning one banned already changes nothing.
     */
    public Conversation withBanned(UserId actor, Collection<UserId> users) {
        requireMember(actor);
        requireGroup();
        requireAdmin(actor, "ban users from");
        if (users.contains(actor)) {
            throw new InvalidFieldException("user_ids", "you cannot ban yourself; leave instead");
        }
        if (owner.filter(users::contains).isPresent()) {
            throw new DomainException(ErrorCode.FORBIDDEN, "the owner of group " + id + " cannot be banned");
        }
        TreeSet<UserId> remaining = new TreeSet<>(members);
        remaining.removeAll(users);
        TreeSet<UserId> allBanned = new TreeSet<>(banned);
        allBanned.addAll(users);
        if (allBanned.size() > MAX_BANNED) {
            throw new InvalidFieldException("user_ids", "a group keeps at most " + MAX_BANNED + " users banned; unban some first");
        }
        return with(List.copyOf(remaining), admins.stream().filter(remaining::contains).toList(), owner, List.copyOf(allBanned));
    }

    /** Lifts these users' bans (an admin may); they are not added back. Unbanning one not banned changes nothing. */
    public Conversation withUnbanned(UserId actor, Collection<UserId> users) {
        requireMember(actor);
        requireGroup();
        requireAdmin(actor, "unban users from");
        return with(members, admins, owner, banned.stream().filter(user -> !users.contains(user)).toList());
    }

    /**
     * Applies a {@code conversation.update}: a group's admins change its name, description, avatar and settings; either member
     * of a direct conversation changes its disappearing time, the only setting it has.
     */
    public Conversation withChanges(UserId actor, ConversationChanges changes) {
        requireMember(actor);
        if (kind == ConversationKind.DIRECT) {
            if (!changes.onlyDisappearing()) {
                throw new InvalidFieldException("settings", "a direct conversation has only settings.disappearing_seconds to change");
            }
        } else {
            requireAdmin(actor, "change");
        }
        ConversationSettings changed = settings;
        if (changes.send().isPresent()) {
            changed = changed.withSend(changes.send().get());
        }
        if (changes.addMembers().isPresent()) {
            changed = changed.withAddMembers(changes.addMembers().get());
        }
        if (changes.disappearingSeconds().isPresent()) {
            changed = changed.withDisappearingSeconds(changes.disappearingSeconds().get());
        }
        return new Conversation(id, kind, changes.name().isPresent() ? changes.name() : name, members, admins, pinned, owner,
                changes.description().orElse(description), changes.avatarMediaId().orElse(avatarMediaId), changed, banned);
    }

    /** Who may invite by link: those who may add members. */
    public void requireInviter(UserId actor) {
        requireMember(actor);
        requireGroup();
        if (!settings.addMembers().admits(roleOf(actor).orElseThrow())) {
            throw new DomainException(ErrorCode.FORBIDDEN, "only the admins of group " + id + " invite to it");
        }
    }

    /** Whether this member may send: everyone in a direct conversation; in a group, as its {@code send} setting says. */
    public boolean maySend(UserId user) {
        return roleOf(user).map(role -> kind == ConversationKind.DIRECT || settings.send().admits(role)).orElse(false);
    }

    public void requireMember(UserId user) {
        if (!isMember(user)) {
            throw new DomainException(ErrorCode.FORBIDDEN, user + " is not a member of conversation " + id);
        }
    }

    /** A refusal unless the actor is one of the group's admins (its owner is one). */
    public void requireAdmin(UserId actor, String what) {
        requireMember(actor);
        if (!isAdmin(actor)) {
            throw new DomainException(ErrorCode.FORBIDDEN, "only an admin may " + what + " conversation " + id);
        }
    }

    private void requireGroup() {
        if (kind != ConversationKind.GROUP) {
            throw new DomainException(ErrorCode.BAD_REQUEST, "the members of a direct conversation cannot change");
        }
    }

    private Conversation with(List<UserId> newMembers, List<UserId> newAdmins, Optional<UserId> newOwner, List<UserId> newBanned) {
        return new Conversation(id, kind, name, newMembers, newAdmins, pinned, newOwner, description, avatarMediaId, settings, newBanned);
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

    /** A group's description: at most {@value #MAX_DESCRIPTION_LENGTH} characters (null, not an empty one, clears it). */
    public static String requireValidDescription(String description) {
        if (description.isEmpty() || description.length() > MAX_DESCRIPTION_LENGTH) {
            throw new InvalidFieldException("description", "must be 1 to " + MAX_DESCRIPTION_LENGTH + " characters (null clears it)");
        }
        return description;
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
