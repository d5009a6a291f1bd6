package dev.parley.model;

/** What {@code inbox.mark} does to each notification it names: a state it moves to, where that is a move. */
public enum InboxMark implements WireEnum {
    SEEN,
    READ,
    UNREAD,
    ARCHIVED;

    /** The state a notification in {@code state} is in once marked; itself where the mark does not apply (archived stays archived). */
    public NotificationState apply(NotificationState state) {
        return switch (this) {
            case SEEN -> state == NotificationState.UNSEEN ? NotificationState.SEEN : state;
            case READ -> state.unread() ? NotificationState.READ : state;
            case UNREAD -> state == NotificationState.READ ? NotificationState.SEEN : state;
            case ARCHIVED -> NotificationState.ARCHIVED;
        };
    }
}
