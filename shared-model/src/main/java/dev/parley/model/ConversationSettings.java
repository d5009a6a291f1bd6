package dev.parley.model;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * A conversation's settings: who may send ({@code all} members, or {@code admins} only: an announcement group), who may add
 * members (and create invites), and how long messages live ({@code disappearing_seconds}, none when absent: the safety
 * features read it). A direct conversation has only the last; its two members may each change it.
 */
public record ConversationSettings(Audience send, Audience addMembers, OptionalLong disappearingSeconds) {
    /** Disappearing messages live at least 5 minutes and at most 90 days. */
    public static final long MIN_DISAPPEARING_SECONDS = 300;
    public static final long MAX_DISAPPEARING_SECONDS = 7_776_000;
    /**
     * A new group's: everyone sends, admins add members (as before settings existed, so a group stored then keeps its rules),
     * and messages are kept.
     */
    public static final ConversationSettings DEFAULT = new ConversationSettings(Audience.ALL, Audience.ADMINS, OptionalLong.empty());

    /** Who a setting admits. */
    public enum Audience implements WireEnum {
        ALL,
        ADMINS;

        public boolean admits(ConversationRole role) {
            return this == ALL || role.isAdmin();
        }
    }

    public ConversationSettings {
        Objects.requireNonNull(send, "send");
        Objects.requireNonNull(addMembers, "add_members");
        Objects.requireNonNull(disappearingSeconds, "disappearing_seconds");
        disappearingSeconds.ifPresent(seconds -> {
            if (seconds < MIN_DISAPPEARING_SECONDS || seconds > MAX_DISAPPEARING_SECONDS) {
                throw new InvalidFieldException("disappearing_seconds",
                        "must be null or " + MIN_DISAPPEARING_SECONDS + " to " + MAX_DISAPPEARING_SECONDS + " seconds, was " + seconds);
            }
        });
    }

    public ConversationSettings withSend(Audience audience) {
        return new ConversationSettings(audience, addMembers, disappearingSeconds);
    }

    public ConversationSettings withAddMembers(Audience audience) {
        return new ConversationSettings(send, audience, disappearingSeconds);
    }

    public ConversationSettings withDisappearingSeconds(OptionalLong seconds) {
        return new ConversationSettings(send, addMembers, seconds);
    }
}
