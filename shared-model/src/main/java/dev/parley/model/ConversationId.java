package dev.parley.model;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A conversation. Group ids are server-assigned; a direct conversation's id is derived from its two
 * members ({@link #direct}), so that a pair can only ever have one.
 */
public record ConversationId(String value) {
    public static final int MAX_LENGTH = 140;
    private static final Pattern ALLOWED = Pattern.compile("[A-Za-z0-9._@+:\\-]+");
    private static final String DIRECT_PREFIX = "d:";
    private static final String GROUP_PREFIX = "g:";

    public ConversationId {
        Identifiers.requireToken(value, "conversation id", MAX_LENGTH, ALLOWED, "letters, digits and . _ @ + : -");
    }

    public static ConversationId of(String value) {
        return new ConversationId(value);
    }

    /** The one id the direct conversation between {@code a} and {@code b} has, whichever of them asks. */
    public static ConversationId direct(UserId a, UserId b) {
        Objects.requireNonNull(a, "a");
        Objects.requireNonNull(b, "b");
        if (a.equals(b)) {
            throw new DomainException(ErrorCode.BAD_REQUEST, "a direct conversation needs two distinct users");
        }
        UserId first = a.compareTo(b) < 0 ? a : b;
        UserId second = first == a ? b : a;
        return new ConversationId(DIRECT_PREFIX + first.value() + ":" + second.value());
    }

    /** The group a {@code conversation.create} request makes: derived from its id, so a retried create names the same group. */
    public static ConversationId group(RequestId create) {
        Objects.requireNonNull(create, "create");
        return new ConversationId(GROUP_PREFIX + create.value());
    }

    public boolean isDirect() {
        return value.startsWith(DIRECT_PREFIX);
    }

    /** A direct conversation's two members, read from its id (user ids cannot contain ':'). */
    public List<UserId> directMembers() {
        if (!isDirect()) {
            throw new IllegalStateException(value + " is not a direct conversation");
        }
        int separator = value.indexOf(':', DIRECT_PREFIX.length());
        return List.of(UserId.of(value.substring(DIRECT_PREFIX.length(), separator)), UserId.of(value.substring(separator + 1)));
    }

    @Override
    public String toString() {
        return value;
    }
}
