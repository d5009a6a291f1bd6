package dev.parley.model;

import java.util.Collection;

/** An inbox's badge numbers: its unread notifications, and of those the unseen (never negative). */
public record InboxCounts(long unread, long unseen) {
    public static final InboxCounts ZERO = new InboxCounts(0, 0);

    public InboxCounts {
        if (unread < 0 || unseen < 0 || unseen > unread) {
            throw new IllegalArgumentException("counts must satisfy 0 <= unseen <= unread, were unread " + unread + ", unseen " + unseen);
        }
    }

    /** The counts of these states, computed from the list itself: what the stored counts must always equal. */
    public static InboxCounts of(Collection<NotificationState> states) {
        return new InboxCounts(states.stream().filter(NotificationState::unread).count(), states.stream().filter(NotificationState::unseen).count());
    }

    /** How the counts change when one notification moves from {@code from} to {@code to}; {@code from} null for a new one. */
    public static Delta change(NotificationState from, NotificationState to) {
        return new Delta(flag(to.unread()) - (from == null ? 0 : flag(from.unread())), flag(to.unseen()) - (from == null ? 0 : flag(from.unseen())));
    }

    private static int flag(boolean set) {
        return set ? 1 : 0;
    }

    /** A change of the counts, which may be negative. */
    public record Delta(long unread, long unseen) {
        public static final Delta NONE = new Delta(0, 0);

        public Delta plus(Delta other) {
            return new Delta(unread + other.unread, unseen + other.unseen);
        }

        public boolean isNone() {
            return unread == 0 && unseen == 0;
        }
    }
}
